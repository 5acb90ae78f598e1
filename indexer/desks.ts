/**
 * The desk tables' bookkeeping, shared by every venue's handlers (indexer/perps.ts for Avantis v1,
 * indexer/gains.ts for gTrade v10), so a desk row means the same whichever exchange it trades on:
 * a trade's row and its slot, its events with realised PnL, the protocol's desk totals and the
 * activity feed. Amounts are USDC base units; prices and leverage are at 1e10.
 */
import type { Context } from "ponder:registry";
import { type DeskTradeRow, deskEvent, deskSlot, deskTrade } from "ponder:schema";
import type { Hex } from "viem";
import { addProtocolTotals, recordActivity } from "./lib.js";

type Db = Context["db"];
export type DeskEventAt = { transaction: { hash: Hex }; block: { number: bigint; timestamp: bigint }; log: { logIndex: number } };
type Amounts = { collateralDelta: bigint; price: bigint; realisedPnl: bigint; usdcReturned: bigint };

/** The trade a slot (pair, trade index) holds now, if it is one of the operator's desks. */
export async function tradeAt(db: Db, pairIndex: bigint, index: bigint): Promise<DeskTradeRow | null> {
  const slot = await db.find(deskSlot, { pairIndex, tradeIndex: index });
  return slot ? db.find(deskTrade, { id: slot.tradeId }) : null;
}

/** One desk event and its activity row. */
export async function recordDeskEvent(
  db: Db,
  event: DeskEventAt,
  tradeId: string,
  kind: string,
  fields: Amounts,
  data: Record<string, unknown>,
): Promise<void> {
  await db.insert(deskEvent).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    tradeId,
    kind,
    ...fields,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  });
  await recordActivity(db, event, kind, null, { tradeId, ...fields, ...data });
}

/** A filled open: the trade's row, its slot, the totals and a `desk-opened` event. */
export async function openTrade(
  db: Db,
  event: DeskEventAt,
  t: { openOrderId: bigint; pairIndex: bigint; tradeIndex: bigint; buy: boolean; collateral: bigint; leverage: bigint; openPrice: bigint; openTx: Hex },
  price: bigint,
): Promise<void> {
  const id = `${t.pairIndex}-${t.tradeIndex}-${t.openOrderId}`;
  const row = {
    openOrderId: t.openOrderId,
    pairIndex: t.pairIndex,
    tradeIndex: t.tradeIndex,
    buy: t.buy,
    collateral: t.collateral,
    leverage: t.leverage,
    openPrice: t.openPrice,
    status: "open",
    realisedPnl: 0n,
    usdcReturned: 0n,
    openedAt: event.block.timestamp,
    closedAt: null,
    openTx: t.openTx,
  };
  await db
    .insert(deskTrade)
    .values({ id, ...row })
    .onConflictDoUpdate(row);
  await db.insert(deskSlot).values({ pairIndex: t.pairIndex, tradeIndex: t.tradeIndex, tradeId: id }).onConflictDoUpdate({ tradeId: id });
  await addProtocolTotals(db, event.block, { desksOpened: 1, desksOpen: 1 });
  await recordDeskEvent(
    db,
    event,
    id,
    "desk-opened",
    { collateralDelta: t.collateral, price, realisedPnl: 0n, usdcReturned: 0n },
    { pairIndex: t.pairIndex, tradeIndex: t.tradeIndex, buy: t.buy, leverage: t.leverage, openOrderId: t.openOrderId },
  );
}

/**
 * Settles `removed` collateral of a trade that paid `returned` USDC back: its realised PnL is
 * `returned − removed`. The trade is closed (or liquidated) when `full`, else it stays open with
 * the rest (and `leverage`, when the venue changed it). `kind` names the desk event when the venue
 * says more than a close (`desk-decreased` for margin returned without PnL).
 */
export async function settleTrade(
  db: Db,
  event: DeskEventAt,
  trade: DeskTradeRow,
  p: {
    removed: bigint;
    returned: bigint;
    price: bigint;
    full: boolean;
    liquidated?: boolean;
    leverage?: bigint;
    kind?: string;
    data?: Record<string, unknown>;
  },
): Promise<void> {
  const pnl = p.returned - p.removed;
  const status = p.full ? (p.liquidated ? "liquidated" : "closed") : "open";
  await db.update(deskTrade, { id: trade.id }).set({
    collateral: p.full ? 0n : trade.collateral - p.removed,
    ...(p.leverage !== undefined && !p.full ? { leverage: p.leverage } : {}),
    status,
    realisedPnl: trade.realisedPnl + pnl,
    usdcReturned: trade.usdcReturned + p.returned,
    closedAt: p.full ? event.block.timestamp : null,
  });
  if (p.full) await db.delete(deskSlot, { pairIndex: trade.pairIndex, tradeIndex: trade.tradeIndex });
  await addProtocolTotals(db, event.block, { deskRealisedPnl: pnl, desksOpen: p.full ? -1 : 0 });
  await recordDeskEvent(
    db,
    event,
    trade.id,
    p.kind ?? (p.liquidated ? "desk-liquidated" : "desk-closed"),
    { collateralDelta: -p.removed, price: p.price, realisedPnl: pnl, usdcReturned: p.returned },
    { pairIndex: trade.pairIndex, tradeIndex: trade.tradeIndex, full: p.full, ...p.data },
  );
}

/** Closes `closed` collateral (all of it when 0 or more than the trade holds) of the trade in a slot that paid `returned` USDC back. */
export async function closeTradeAt(
  db: Db,
  event: DeskEventAt,
  slot: { pairIndex: bigint; index: bigint },
  closed: bigint,
  returned: bigint,
  price: bigint,
  liquidated: boolean,
): Promise<void> {
  const trade = await tradeAt(db, slot.pairIndex, slot.index);
  if (!trade) return;
  const amount = closed > trade.collateral || closed === 0n ? trade.collateral : closed;
  await settleTrade(db, event, trade, { removed: amount, returned, price, full: amount === trade.collateral, liquidated });
}

/**
 * Margin in or out of an open trade at no PnL (a top-up, or a venue's own margin change): the
 * trade's collateral and leverage become the venue's, and a `desk-increased`/`desk-decreased`
 * event records the change.
 */
export async function updateMargin(
  db: Db,
  event: DeskEventAt,
  trade: DeskTradeRow,
  p: { collateral: bigint; leverage: bigint; price: bigint; openPrice?: bigint; data: Record<string, unknown> },
): Promise<void> {
  const delta = p.collateral - trade.collateral;
  await db
    .update(deskTrade, { id: trade.id })
    .set({ collateral: p.collateral, leverage: p.leverage, ...(p.openPrice !== undefined ? { openPrice: p.openPrice } : {}) });
  await recordDeskEvent(
    db,
    event,
    trade.id,
    delta >= 0n ? "desk-increased" : "desk-decreased",
    { collateralDelta: delta, price: p.price, realisedPnl: 0n, usdcReturned: 0n },
    p.data,
  );
}
