/**
 * The operator's perps trades (its desks): two-step market orders, executions, margin
 * changes, take-profit/stop-loss/liquidation, with realised PnL. Trades of other traders
 * are ignored. Which token a desk belongs to is the engine's binding (by open order id).
 */
import { type Context, ponder } from "ponder:registry";
import { deskEvent, deskOrder, deskSlot, deskTrade } from "ponder:schema";
import type { Hex } from "viem";
import { LimitOrder } from "../common/abis/perps.js";
import { isOperator } from "./config.js";
import { addProtocolTotals, recordActivity } from "./lib.js";

type Trade = { trader: Hex; pairIndex: bigint; index: bigint; initialPosToken: bigint; openPrice: bigint; buy: boolean; leverage: bigint };
type Event = { transaction: { hash: Hex }; block: { number: bigint; timestamp: bigint }; log: { logIndex: number } };

async function tradeAt(db: Context["db"], pairIndex: bigint, index: bigint) {
  const slot = await db.find(deskSlot, { pairIndex, tradeIndex: index });
  return slot ? db.find(deskTrade, { id: slot.tradeId }) : null;
}

async function recordDeskEvent(
  db: Context["db"],
  event: Event,
  tradeId: string,
  kind: string,
  fields: { collateralDelta: bigint; price: bigint; realisedPnl: bigint; usdcReturned: bigint },
  data: Record<string, unknown>,
) {
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

/** Closes `closed` collateral of a trade that paid `returned` USDC back. */
async function closeTrade(db: Context["db"], event: Event, t: Trade, closed: bigint, returned: bigint, price: bigint, liquidated: boolean) {
  const trade = await tradeAt(db, t.pairIndex, t.index);
  if (!trade) return;
  const amount = closed > trade.collateral || closed === 0n ? trade.collateral : closed;
  const pnl = returned - amount;
  const full = amount === trade.collateral;
  const status = full ? (liquidated ? "liquidated" : "closed") : "open";
  await db.update(deskTrade, { id: trade.id }).set({
    collateral: trade.collateral - amount,
    status,
    realisedPnl: trade.realisedPnl + pnl,
    usdcReturned: trade.usdcReturned + returned,
    closedAt: full ? event.block.timestamp : null,
  });
  if (full) await db.delete(deskSlot, { pairIndex: t.pairIndex, tradeIndex: t.index });
  await addProtocolTotals(db, event.block, { deskRealisedPnl: pnl, desksOpen: full ? -1 : 0 });
  await recordDeskEvent(
    db,
    event,
    trade.id,
    liquidated ? "desk-liquidated" : "desk-closed",
    {
      collateralDelta: -amount,
      price,
      realisedPnl: pnl,
      usdcReturned: returned,
    },
    { pairIndex: t.pairIndex, tradeIndex: t.index, full },
  );
}

ponder.on("PerpsTrading:MarketOrderInitiated", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  await context.db.insert(deskOrder).values({
    orderId: a.orderId,
    pairIndex: a.pairIndex,
    open: a.open,
    buy: a.isBuy,
    collateral: a.initialPosToken,
    leverage: a.leverage,
    status: "pending",
    txHash: event.transaction.hash,
    timestamp: event.block.timestamp,
  });
});

ponder.on("PerpsTrading:MarketOpenCanceled", async ({ event, context }) => {
  if (!isOperator(event.args.trader)) return;
  await context.db.update(deskOrder, { orderId: event.args.orderId }).set({ status: "canceled" });
});

ponder.on("PerpsCallbacks:MarketExecuted", async ({ event, context }) => {
  const { t, open, orderId, price, usdcSentToTrader } = event.args;
  if (!isOperator(t.trader)) return;
  const order = await context.db.find(deskOrder, { orderId });
  if (order) await context.db.update(deskOrder, { orderId }).set({ status: "executed" });
  if (!open) {
    await closeTrade(context.db, event, t, order?.collateral ?? 0n, usdcSentToTrader, price, false);
    return;
  }
  const id = `${t.pairIndex}-${t.index}-${orderId}`;
  await context.db.insert(deskTrade).values({
    id,
    openOrderId: orderId,
    pairIndex: t.pairIndex,
    tradeIndex: t.index,
    buy: t.buy,
    collateral: t.initialPosToken,
    leverage: t.leverage,
    openPrice: t.openPrice,
    status: "open",
    realisedPnl: 0n,
    usdcReturned: 0n,
    openedAt: event.block.timestamp,
    closedAt: null,
    openTx: order?.txHash ?? event.transaction.hash,
  });
  await context.db.insert(deskSlot).values({ pairIndex: t.pairIndex, tradeIndex: t.index, tradeId: id }).onConflictDoUpdate({ tradeId: id });
  await addProtocolTotals(context.db, event.block, { desksOpened: 1, desksOpen: 1 });
  await recordDeskEvent(
    context.db,
    event,
    id,
    "desk-opened",
    {
      collateralDelta: t.initialPosToken,
      price,
      realisedPnl: 0n,
      usdcReturned: 0n,
    },
    { pairIndex: t.pairIndex, tradeIndex: t.index, buy: t.buy, leverage: t.leverage, openOrderId: orderId },
  );
});

ponder.on("PerpsCallbacks:LimitExecuted", async ({ event, context }) => {
  const { t, orderType, price, usdcSentToTrader } = event.args;
  if (!isOperator(t.trader) || orderType === LimitOrder.OPEN) return;
  await closeTrade(context.db, event, t, 0n, usdcSentToTrader, price, orderType === LimitOrder.LIQ);
});

ponder.on("PerpsTrading:MarginUpdated", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  const trade = await tradeAt(context.db, a.pairIndex, a.index);
  if (!trade) return;
  const delta = a.newTrade.initialPosToken - trade.collateral;
  await context.db.update(deskTrade, { id: trade.id }).set({ collateral: a.newTrade.initialPosToken, leverage: a.newTrade.leverage });
  await recordDeskEvent(
    context.db,
    event,
    trade.id,
    delta >= 0n ? "desk-increased" : "desk-decreased",
    {
      collateralDelta: delta,
      price: 0n,
      realisedPnl: 0n,
      usdcReturned: 0n,
    },
    { leverage: a.newTrade.leverage, marginFees: a.marginFees },
  );
});
