/**
 * Applies the exchange's executions to the desks: the keeper's `MarketExecuted` (opens and
 * closes), `MarketOpenCanceled` (refused opens: the collateral comes back) and
 * `LimitExecuted` (take-profit, stop-loss, liquidation). Each event is applied once, keyed by
 * its log position, with its ledger rows in the same transaction: the principal back to the
 * token's perp leg, any profit to its creator buyback queue (desk profits never buy the
 * protocol token), and a loss recorded on the trade.
 */
import { and, asc, desc, eq, inArray, isNotNull, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { logDecision } from "../../core/agent-log.js";
import type { OnchainTrade, VenueEvent } from "../perps/types.js";
import { perpsVenue } from "../perps/venue.js";
import type { EngineContext } from "../../core/context.js";
import { type Tx, tables } from "../../core/db/client.js";
import { recordEntries } from "../../core/ledger/journal.js";
import { Legs } from "../../core/ledger/legs.js";
import { refundSpend } from "../../core/ledger/spend.js";
import { getState, setState } from "../runtime/state.js";
import { cancelTimedOutOrders, progressClosing, progressOpening, progressTopUp } from "./actions.js";
import { type DeskTrade, nextTopUp, toTrade, tradesWithStatus, updateTrade } from "./trades.js";
import { toJsonValue } from "../../common/json.js";
import { USDC_UNIT, formatUnits, showUnits } from "../../common/units.js";

const CURSOR_KEY = "perps-cursor";

export type SyncReport = {
  events: number;
  opened: number;
  closed: number;
  canceled: number;
  liquidated: number;
  /** Closes or reduces the exchange refused or that timed out: the trade is open again. */
  reopened: number;
  /** Two-step margin top-ups filled or refused. */
  margin: number;
  orphans: number;
};

/**
 * `syncDeskTrades`: resumes trades whose order was being sent, then applies every perps
 * event since the cursor. Concurrent callers with the same engine share one run.
 */
export function syncDeskTrades(ctx: EngineContext, worker = "desk-sync"): Promise<SyncReport> {
  const local = ctx.local;
  local.deskSync ??= doSync(ctx, worker).finally(() => {
    local.deskSync = undefined;
  });
  return local.deskSync as Promise<SyncReport>;
}

async function doSync(ctx: EngineContext, worker: string): Promise<SyncReport> {
  const report: SyncReport = { events: 0, opened: 0, closed: 0, canceled: 0, liquidated: 0, reopened: 0, margin: 0, orphans: 0 };
  // Desks off on this chain: nothing is sent and no exchange is read (the cursor stays put).
  const venue = perpsVenue(ctx);
  if (!venue) return report;
  for (const t of await tradesWithStatus(ctx.db, ["opening"])) if (t.orderId === null) await progressOpening(ctx, t, worker);
  for (const t of await tradesWithStatus(ctx.db, ["closing"])) if (t.closeOrderId === null) await progressClosing(ctx, t, worker);
  const topUps = await ctx.db.select().from(tables.deskTrades).where(isNotNull(tables.deskTrades.pendingTopup)).orderBy(asc(tables.deskTrades.id));
  for (const t of topUps) await progressTopUp(ctx, toTrade(t), worker);
  // Orders the exchange left unfilled past its timeout are cancelled; the cancels' events are applied below.
  await cancelTimedOutOrders(ctx, worker);

  const head = await ctx.publicClient.getBlockNumber({ cacheTime: 0 });
  const cursor = await getState<{ block: number }>(ctx.db, CURSOR_KEY);
  const fromBlock = BigInt(cursor?.block ?? ctx.config.startBlock);
  if (fromBlock > head) return report;
  // Only the operator's events (the exchange's other traders are none of our business).
  const ours = await venue.readEvents(ctx, { fromBlock, toBlock: head });
  for (const log of ours) {
    const applied = await ctx.db.transaction(async (tx) => {
      const inserted = await tx
        .insert(tables.perpsEvents)
        .values({
          txHash: log.transactionHash,
          logIndex: log.logIndex,
          blockNumber: Number(log.blockNumber),
          blockHash: log.blockHash,
          name: log.name,
          data: jsonArgs(log.args),
        })
        .onConflictDoNothing()
        .returning({ txHash: tables.perpsEvents.txHash });
      if (!inserted.length) return undefined;
      const fact: Fact = { key: `${log.blockHash}:${log.transactionHash}:${log.logIndex}`, blockNumber: Number(log.blockNumber), blockHash: log.blockHash };
      const applied: Applied =
        log.kind === "open-canceled"
          ? await applyCanceled(tx, log.orderId, log.reason, log.returned, fact)
          : log.kind === "open-executed"
            ? await applyOpened(tx, log.orderId, log.trade)
            : log.kind === "close-executed"
              ? await applyMarketClose(tx, log.orderId, log.usdcSent, log.remainingCollateral, fact)
              : log.kind === "close-canceled"
                ? await applyCloseCanceled(tx, log.orderId, log.reason)
                : log.kind === "margin-executed"
                  ? await applyMargin(tx, log, fact)
                  : await applyLimit(tx, log.trade, log.liquidation, log.usdcSent, fact);
      if (applied.kind !== "orphan") {
        // The trade as it was before this event and as the event left it, so a reorg that removes the event can undo
        // what the event changed, and only that.
        const stored: StoredSnapshot = { ...applied.before, after: await snapshot(tx, applied.trade.id) };
        await tx
          .update(tables.perpsEvents)
          .set({ tradeId: applied.trade.id, before: stored })
          .where(and(eq(tables.perpsEvents.txHash, log.transactionHash), eq(tables.perpsEvents.logIndex, log.logIndex)));
      }
      return applied;
    });
    if (!applied) continue;
    report.events++;
    if (applied.kind === "orphan") {
      report.orphans++;
      ctx.log.warn({ event: log.name, tx: log.transactionHash }, "perps event of the operator matches no desk trade (orphan, not adopted)");
      await logDecision(ctx, {
        worker,
        decision: "orphan-trade",
        reason: `${log.name} matches no desk trade; reported, not adopted`,
        data: { tx: log.transactionHash, logIndex: log.logIndex },
      });
      continue;
    }
    report[applied.kind]++;
    await logDecision(ctx, {
      worker,
      token: applied.trade.token,
      decision: `desk-${applied.kind}`,
      reason: applied.reason,
      data: { tradeId: applied.trade.id, tx: log.transactionHash, ...applied.amounts },
    });
  }
  await setState(ctx.db, CURSOR_KEY, { block: Number(head) + 1 });
  return report;
}

type Applied =
  | {
      kind: "opened" | "closed" | "canceled" | "liquidated" | "reopened" | "margin";
      trade: DeskTrade;
      reason: string;
      before: Snapshot;
      amounts?: Record<string, bigint | boolean>;
    }
  | { kind: "orphan" };
/** The log an event's ledger rows come from: keys and block hash. */
type Fact = { key: string; blockNumber: number; blockHash: string };

/**
 * Undoes every applied perps event of the lost blocks, newest first: the trade goes back to
 * the row it was before the event (its ledger rows are reversed by the finality watcher), and
 * the scan starts again at the fork.
 */
export async function rewindPerpsEvents(tx: Tx, forkBlock: number, lostHashes: string[]): Promise<number> {
  if (!lostHashes.length) return 0;
  const { perpsEvents } = tables;
  const rows = await tx
    .select({ txHash: perpsEvents.txHash, logIndex: perpsEvents.logIndex, tradeId: perpsEvents.tradeId, before: perpsEvents.before })
    .from(perpsEvents)
    .where(inArray(perpsEvents.blockHash, lostHashes))
    .orderBy(desc(perpsEvents.blockNumber), desc(perpsEvents.logIndex));
  for (const r of rows) {
    const stored = r.before as StoredSnapshot | null;
    if (r.tradeId !== null && stored) await undoEvent(tx, r.tradeId, stored);
    await tx.delete(perpsEvents).where(and(eq(perpsEvents.txHash, r.txHash), eq(perpsEvents.logIndex, r.logIndex)));
  }
  const cursor = await getState<{ block: number }>(tx, CURSOR_KEY);
  if (cursor && cursor.block > forkBlock) await setState(tx, CURSOR_KEY, { block: forkBlock });
  return rows.length;
}

/**
 * Puts back what one applied event changed on its trade. Later events are undone first (newest first), so the
 * columns the event changed hold what it left, unless the engine decided something since. A top-up decided after
 * the top-up fill being undone stays spent and in flight, queued behind the restored one (the exchange fills both,
 * in the order they were placed). Columns the event did not change keep what the engine wrote since (a close
 * decided after a top-up's fill stays decided). A snapshot stored without what the event left (before this rule)
 * restores the whole row.
 */
async function undoEvent(tx: Tx, tradeId: number, stored: StoredSnapshot): Promise<void> {
  const { after, ...before } = stored;
  let restore: Partial<Snapshot> = before;
  if (after) {
    const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
    restore = Object.fromEntries(Object.entries(before).filter(([k, v]) => !same(v, after[k as keyof Snapshot])));
    if ("pending_topup" in restore && after.pending_topup == null) {
      const now = await snapshot(tx, tradeId);
      if (now.pending_topup != null) restore.queued_topups = [now.pending_topup, ...(now.queued_topups ?? [])];
    }
  }
  await tx
    .update(tables.deskTrades)
    .set({ ...snapshotColumns(restore), updatedAt: sql`now()` })
    .where(eq(tables.deskTrades.id, tradeId));
}

/** The `desk_trades` columns of (part of) a snapshot. */
function snapshotColumns(b: Partial<Snapshot>): PgUpdateSetSource<typeof tables.deskTrades> {
  const set: Record<string, unknown> = {};
  // Snapshots stored before two-step top-ups (or before queued ones) lack those keys: their columns stay as they are.
  for (const [key, column] of Object.entries(SNAPSHOT_COLUMNS)) {
    if (!(key in b)) continue;
    const value = b[key as keyof Snapshot] ?? null;
    set[column] =
      key === "opened_timestamp" ? (value === null ? null : Number(value)) : key === "closed_at" ? (value ? new Date(value as string) : null) : value;
  }
  return set as PgUpdateSetSource<typeof tables.deskTrades>;
}

/**
 * The columns of a trade that events change, as stored in `perps_events.before`: column
 * names as keys, numeric columns (and the bigint `opened_timestamp`) as decimal strings, the
 * close time as an ISO string.
 */
type Snapshot = {
  status: string;
  trade_index: number | null;
  collateral: string | null;
  open_price: string | null;
  opened_timestamp: string | null;
  leverage: string;
  basis_usdc: string;
  close_order_id: string | null;
  close_amount: string | null;
  usdc_returned: string;
  realised_pnl: string;
  closed_at: string | null;
  /** Absent from snapshots stored before two-step top-ups. */
  pending_topup?: string | null;
  topups?: number;
  /** Absent from snapshots stored before top-ups could queue. */
  queued_topups?: string[];
};
/** `perps_events.before`: the trade before the event, and (since events are undone column by column) after it. */
type StoredSnapshot = Snapshot & { after?: Snapshot };

/** Each key of a snapshot and the `desk_trades` column it holds. */
const SNAPSHOT_COLUMNS = {
  status: "status",
  trade_index: "tradeIndex",
  collateral: "collateral",
  open_price: "openPrice",
  opened_timestamp: "openedTimestamp",
  leverage: "leverage",
  basis_usdc: "basisUsdc",
  close_order_id: "closeOrderId",
  close_amount: "closeAmount",
  usdc_returned: "usdcReturned",
  realised_pnl: "realisedPnl",
  closed_at: "closedAt",
  pending_topup: "pendingTopup",
  topups: "topups",
  queued_topups: "queuedTopups",
} as const satisfies Record<keyof Snapshot, keyof typeof tables.deskTrades.$inferSelect>;

async function snapshot(tx: Tx, id: number): Promise<Snapshot> {
  const t = tables.deskTrades;
  const columns = Object.fromEntries(Object.entries(SNAPSHOT_COLUMNS).map(([key, column]) => [key, t[column]]));
  const [r] = await tx
    .select({ ...columns, opened_timestamp: sql<string | null>`${t.openedTimestamp}::text` })
    .from(t)
    .where(eq(t.id, id));
  const row = r as Omit<Snapshot, "closed_at"> & { closed_at: Date | null };
  return { ...row, closed_at: row.closed_at ? row.closed_at.toISOString() : null };
}

function jsonArgs(args: Record<string, unknown>): Record<string, unknown> {
  return toJsonValue(args);
}

async function findTrade(tx: Tx, where: ReturnType<typeof and>): Promise<DeskTrade | undefined> {
  const [r] = await tx.select().from(tables.deskTrades).where(where).for("update");
  return r ? toTrade(r) : undefined;
}

async function applyOpened(tx: Tx, orderId: bigint, t: OnchainTrade): Promise<Applied> {
  const trade = await findTrade(tx, and(eq(tables.deskTrades.orderId, orderId.toString()), eq(tables.deskTrades.status, "opening")));
  if (!trade) return { kind: "orphan" };
  const before = await snapshot(tx, trade.id);
  await updateTrade(tx, trade.id, {
    status: "open",
    tradeIndex: t.index,
    collateral: t.collateral.toString(),
    openPrice: t.openPrice.toString(),
    openedTimestamp: Number(t.timestamp),
    leverage: t.leverage.toString(),
  });
  return {
    kind: "opened",
    trade,
    before,
    reason: `executed at ${formatUnits(t.openPrice, 10, { exact: true })} (slot ${t.index}), net collateral ${showUnits(t.collateral, USDC_UNIT)}`,
    amounts: { collateral: t.collateral },
  };
}

/**
 * An open order that never filled (refused by the exchange, or cancelled after its timeout). When all of its
 * collateral came back (or the venue does not say), the whole spend goes back to the token's perp leg. When the
 * exchange kept part of it (gTrade's fee on an open it refused), what came back returns to the perp leg and the
 * rest is the trade's realised loss, as a close's shortfall is.
 */
async function applyCanceled(tx: Tx, orderId: bigint, reason: string, returned: bigint | undefined, fact: Fact): Promise<Applied> {
  const trade = await findTrade(tx, and(eq(tables.deskTrades.orderId, orderId.toString()), eq(tables.deskTrades.status, "opening")));
  if (!trade) return { kind: "orphan" };
  const before = await snapshot(tx, trade.id);
  if (returned === undefined || returned >= trade.basisUsdc) {
    await refundSpend(tx, `spend:desk-trade:${trade.id}`, reason, fact);
    await updateTrade(tx, trade.id, { status: "canceled", closedAt: new Date(), closeReason: reason });
    return { kind: "canceled", trade, before, reason: `${reason}; collateral back to the perp leg` };
  }
  const onchain = { blockNumber: fact.blockNumber, blockHash: fact.blockHash };
  if (returned > 0n) {
    const entry = { key: `desk-return:${fact.key}`, kind: "desk-return", leg: Legs.perp, token: trade.token, currency: "USDC" as const };
    await recordEntries(tx, [{ ...entry, amount: returned, ...onchain, data: { tradeId: trade.id } }]);
  }
  const kept = trade.basisUsdc - returned;
  // The refund of an order that never traded is not a trade's return (`usdcReturned` counts what
  // closes and liquidations paid, as the index's trades do): only the fee the exchange kept is the
  // trade's loss.
  await updateTrade(tx, trade.id, {
    status: "canceled",
    closedAt: new Date(),
    closeReason: reason,
    realisedPnl: (trade.realisedPnl - kept).toString(),
  });
  return {
    kind: "canceled",
    trade,
    before,
    reason: `${reason}; ${showUnits(returned, USDC_UNIT)} back to the perp leg, ${showUnits(kept, USDC_UNIT)} kept by the exchange (a loss)`,
    amounts: { returned, kept },
  };
}

async function applyMarketClose(tx: Tx, orderId: bigint, sent: bigint, remaining: bigint | undefined, fact: Fact): Promise<Applied> {
  const trade = await findTrade(tx, and(eq(tables.deskTrades.closeOrderId, orderId.toString()), inArray(tables.deskTrades.status, ["closing"])));
  if (!trade) return { kind: "orphan" };
  return settleClose(tx, trade, trade.closeAmount ?? trade.collateral ?? 0n, sent, fact, "closed", remaining);
}

/** A close the exchange refused, or cancelled after its timeout: the trade is open again, as it was, for the next cycle to decide. */
async function applyCloseCanceled(tx: Tx, orderId: bigint, reason: string): Promise<Applied> {
  const trade = await findTrade(tx, and(eq(tables.deskTrades.closeOrderId, orderId.toString()), eq(tables.deskTrades.status, "closing")));
  if (!trade) return { kind: "orphan" };
  const before = await snapshot(tx, trade.id);
  await updateTrade(tx, trade.id, { status: "open", closeOrderId: null, closeAmount: null });
  return { kind: "reopened", trade, before, reason: `${reason}; the trade stays open` };
}

/**
 * A two-step margin top-up answered: filled, the trade takes the exchange's new collateral and leverage and its basis
 * the top-up; refused or timed out, the top-up's spend goes back to the perp leg (the exchange returned the margin).
 */
async function applyMargin(tx: Tx, log: Extract<VenueEvent, { kind: "margin-executed" }>, fact: Fact): Promise<Applied> {
  const { deskTrades } = tables;
  const trade = await findTrade(
    tx,
    and(
      eq(deskTrades.pairIndex, log.pairIndex),
      eq(deskTrades.tradeIndex, log.index),
      isNotNull(deskTrades.pendingTopup),
      inArray(deskTrades.status, ["open", "closing", "closed", "liquidated"]),
    ),
  );
  if (!trade) return { kind: "orphan" };
  const before = await snapshot(tx, trade.id);
  const n = trade.topups + 1;
  const amount = trade.pendingTopup!;
  if (log.canceled) {
    await refundSpend(tx, `spend:desk-topup:${trade.id}:${n}`, log.reason, fact);
    await updateTrade(tx, trade.id, nextTopUp(n));
    return { kind: "margin", trade, before, reason: `${log.reason}; ${showUnits(amount, USDC_UNIT)} back to the perp leg`, amounts: { refunded: amount } };
  }
  // The exchange may pull less than the top-up (gTrade rounds the new leverage up): the rest never left the
  // wallet and goes back to the perp leg.
  const added = log.added < amount ? log.added : amount;
  if (added < amount) {
    await recordEntries(tx, [
      {
        key: `desk-return:${fact.key}`,
        kind: "desk-return",
        leg: Legs.perp,
        token: trade.token,
        currency: "USDC" as const,
        amount: amount - added,
        blockNumber: fact.blockNumber,
        blockHash: fact.blockHash,
        data: { tradeId: trade.id, topUp: n },
      },
    ]);
  }
  await updateTrade(tx, trade.id, {
    basisUsdc: (trade.basisUsdc + added).toString(),
    collateral: log.collateral.toString(),
    leverage: log.leverage.toString(),
    ...nextTopUp(n),
  });
  return {
    kind: "margin",
    trade,
    before,
    reason: `margin top-up of ${showUnits(added, USDC_UNIT)} filled: collateral ${showUnits(log.collateral, USDC_UNIT)} at ${formatUnits(log.leverage, 10, { exact: true })}x`,
    amounts: { added, unused: amount - added, collateral: log.collateral },
  };
}

async function applyLimit(tx: Tx, t: OnchainTrade, liquidation: boolean, sent: bigint, fact: Fact): Promise<Applied> {
  const trade = await findTrade(
    tx,
    and(
      eq(tables.deskTrades.pairIndex, t.pairIndex),
      eq(tables.deskTrades.tradeIndex, t.index),
      eq(tables.deskTrades.openPrice, t.openPrice.toString()),
      eq(tables.deskTrades.openedTimestamp, Number(t.timestamp)),
      inArray(tables.deskTrades.status, ["open", "closing"]),
    ),
  );
  if (!trade) return { kind: "orphan" };
  return settleClose(tx, trade, trade.collateral ?? 0n, sent, fact, liquidation ? "liquidated" : "closed");
}

/**
 * Books a (partial) close: `closed` collateral returned `sent` USDC. The basis of the closed
 * part goes back to the perp leg up to what was returned; anything above it is profit for
 * the token's creator buyback queue; a shortfall is the desk's realised loss.
 */
async function settleClose(
  tx: Tx,
  trade: DeskTrade,
  closedCollateral: bigint,
  sent: bigint,
  fact: Fact,
  kind: "closed" | "liquidated",
  remaining?: bigint,
): Promise<Applied> {
  const before = await snapshot(tx, trade.id);
  const { key } = fact;
  const onchain = { blockNumber: fact.blockNumber, blockHash: fact.blockHash };
  const collateral = trade.collateral ?? 0n;
  const closed = closedCollateral > collateral ? collateral : closedCollateral;
  const full = closed >= collateral;
  const basisPart = full || collateral === 0n ? trade.basisUsdc : (trade.basisUsdc * closed) / collateral;
  const principal = sent < basisPart ? sent : basisPart;
  const profit = sent > basisPart ? sent - basisPart : 0n;
  const entries = [];
  if (principal > 0n)
    entries.push({
      key: `desk-return:${key}`,
      kind: "desk-return",
      leg: Legs.perp,
      token: trade.token,
      currency: "USDC" as const,
      amount: principal,
      ...onchain,
      data: { tradeId: trade.id },
    });
  if (profit > 0n)
    entries.push({
      key: `desk-profit:${key}`,
      kind: "desk-profit",
      leg: Legs.creatorBuyback,
      token: trade.token,
      currency: "USDC" as const,
      amount: profit,
      ...onchain,
      data: { tradeId: trade.id },
    });
  await recordEntries(tx, entries);
  const pnl = sent - basisPart;
  const { deskTrades } = tables;
  await tx
    .update(deskTrades)
    .set({
      usdcReturned: sql`${deskTrades.usdcReturned} + ${sent.toString()}::numeric`,
      realisedPnl: sql`${deskTrades.realisedPnl} + ${pnl.toString()}::numeric`,
    })
    .where(eq(deskTrades.id, trade.id));
  if (full) {
    await updateTrade(tx, trade.id, { status: kind, closedAt: new Date(), closeOrderId: null });
  } else {
    await updateTrade(tx, trade.id, {
      status: "open",
      collateral: (remaining ?? collateral - closed).toString(),
      basisUsdc: (trade.basisUsdc - basisPart).toString(),
      closeOrderId: null,
      closeAmount: null,
    });
  }
  const what = kind === "liquidated" ? "liquidated" : full ? "closed" : "reduced";
  return {
    kind: kind === "liquidated" ? "liquidated" : "closed",
    trade,
    before,
    reason: `${what}: ${showUnits(closed, USDC_UNIT)} of collateral returned ${showUnits(sent, USDC_UNIT)} (basis ${showUnits(basisPart, USDC_UNIT)}, ${pnl >= 0n ? "profit" : "loss"} ${showUnits(pnl < 0n ? -pnl : pnl, USDC_UNIT)})`,
    amounts: { closed, returned: sent, pnl, full },
  };
}
