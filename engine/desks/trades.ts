/**
 * Desk rows: the per-token desk (market, direction, halt) and its perps trades, as the
 * engine knows them. Money columns are bigint here.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { type Address, getAddress } from "viem";
import { type Queryable, tables } from "../../core/db/client.js";
import type { Side } from "../../common/perps-math.js";
import type { TradeMark } from "../perps/types.js";

export type TradeStatus = "opening" | "open" | "closing" | "closed" | "liquidated" | "canceled" | "failed";
/** Trades that hold (or are about to hold) collateral on the exchange. */
export const LIVE_STATUSES: TradeStatus[] = ["opening", "open", "closing"];

export type DeskTrade = {
  id: number;
  token: Address;
  pairIndex: number;
  tradeIndex: number | null;
  side: Side;
  leverage: bigint;
  basisUsdc: bigint;
  collateral: bigint | null;
  openPrice: bigint | null;
  openedTimestamp: number | null;
  orderId: bigint | null;
  closeOrderId: bigint | null;
  closeAmount: bigint | null;
  closeReason: string | null;
  pendingTopup: bigint | null;
  /** Top-ups spent after `pendingTopup`'s and waiting their turn (only a reorg queues them: `desk_trades.queued_topups`). */
  queuedTopups: bigint[];
  topups: number;
  usdcReturned: bigint;
  realisedPnl: bigint;
  status: TradeStatus;
};

export type Desk = { token: Address; pairIndex: number; side: Side; halted: boolean; haltReason: string | null };

const big = (v: string | null) => (v === null ? null : BigInt(v));

export function toTrade(r: typeof tables.deskTrades.$inferSelect): DeskTrade {
  return {
    id: r.id,
    token: r.token as Address,
    pairIndex: r.pairIndex,
    tradeIndex: r.tradeIndex,
    side: r.side as Side,
    leverage: BigInt(r.leverage),
    basisUsdc: BigInt(r.basisUsdc),
    collateral: big(r.collateral),
    openPrice: big(r.openPrice),
    openedTimestamp: r.openedTimestamp,
    orderId: big(r.orderId),
    closeOrderId: big(r.closeOrderId),
    closeAmount: big(r.closeAmount),
    closeReason: r.closeReason,
    pendingTopup: big(r.pendingTopup),
    queuedTopups: r.queuedTopups.map(BigInt),
    topups: r.topups,
    usdcReturned: BigInt(r.usdcReturned),
    realisedPnl: BigInt(r.realisedPnl),
    status: r.status as TradeStatus,
  };
}

export async function getDesk(q: Queryable, token: Address): Promise<Desk | undefined> {
  const [r] = await q
    .select()
    .from(tables.desks)
    .where(eq(tables.desks.token, getAddress(token)));
  return r ? { token: r.token as Address, pairIndex: r.pairIndex, side: r.side as Side, halted: r.halted, haltReason: r.haltReason } : undefined;
}

export async function loadDesks(q: Queryable): Promise<Desk[]> {
  const rows = await q.select().from(tables.desks).orderBy(asc(tables.desks.token));
  return rows.map((r) => ({ token: r.token as Address, pairIndex: r.pairIndex, side: r.side as Side, halted: r.halted, haltReason: r.haltReason }));
}

/** The trades of every token in `statuses`, by token (one query: the workers' per-cycle read, docs/design.md §6). */
export async function tradesByToken(q: Queryable, statuses: TradeStatus[] = LIVE_STATUSES): Promise<Map<Address, DeskTrade[]>> {
  const rows = await q.select().from(tables.deskTrades).where(inArray(tables.deskTrades.status, statuses)).orderBy(asc(tables.deskTrades.id));
  const out = new Map<Address, DeskTrade[]>();
  for (const t of rows.map(toTrade)) {
    const token = getAddress(t.token);
    out.set(token, [...(out.get(token) ?? []), t]);
  }
  return out;
}

export async function tradesOf(q: Queryable, token: Address, statuses: TradeStatus[] = LIVE_STATUSES): Promise<DeskTrade[]> {
  const rows = await q
    .select()
    .from(tables.deskTrades)
    .where(and(eq(tables.deskTrades.token, getAddress(token)), inArray(tables.deskTrades.status, statuses)))
    .orderBy(asc(tables.deskTrades.id));
  return rows.map(toTrade);
}

export async function tradesWithStatus(q: Queryable, statuses: TradeStatus[]): Promise<DeskTrade[]> {
  const rows = await q.select().from(tables.deskTrades).where(inArray(tables.deskTrades.status, statuses)).orderBy(asc(tables.deskTrades.id));
  return rows.map(toTrade);
}

export async function tradeById(q: Queryable, id: number): Promise<DeskTrade> {
  const [r] = await q.select().from(tables.deskTrades).where(eq(tables.deskTrades.id, id));
  if (!r) throw new Error(`desk trade ${id} not found`);
  return toTrade(r);
}

/** Records the venue's marks of open trades at `price` (`TradeMark`), each beside its trade. */
export async function recordTradeMarks(q: Queryable, marked: { id: number; mark: TradeMark }[], price: bigint): Promise<void> {
  const markedAt = new Date();
  for (const { id, mark } of marked)
    await q
      .update(tables.deskTrades)
      .set({ markPrice: price.toString(), markCharges: mark.charges.toString(), markLiquidationPrice: mark.liquidationPrice.toString(), markedAt })
      .where(eq(tables.deskTrades.id, id));
}

/**
 * The columns that settle top-up number `topups + 1` (filled, refused or refunded): the next queued top-up, if any,
 * becomes the pending one.
 */
export function nextTopUp(topups: number) {
  const t = tables.deskTrades;
  return {
    pendingTopup: sql<string | null>`(${t.queuedTopups} ->> 0)::numeric`,
    queuedTopups: sql<string[]>`${t.queuedTopups} - 0`,
    topups,
  };
}

export async function updateTrade(q: Queryable, id: number, set: PgUpdateSetSource<typeof tables.deskTrades>): Promise<void> {
  await q
    .update(tables.deskTrades)
    .set({ ...set, updatedAt: new Date() })
    .where(eq(tables.deskTrades.id, id));
}
