/**
 * The activity feed: one indexed row per event, newest first. `data` holds the event's facts
 * with amounts in base units; `formatActivityData` (common/activity.ts, shared with the
 * engine's webhooks) turns them into exact decimals in whole units of their currency and
 * checksums the addresses.
 *
 * The desk rows (`desk-opened`, `desk-increased`, …) are indexed from the venue's events, which
 * do not name a token: their token is the engine's, read at read time (the engine binds a desk
 * trade to its token by the open order id: `desk_trade.open_order_id` = `engine.desk_trades.order_id`).
 * A desk row keeps `token: null` only while no token owns its trade (an order the engine did not send,
 * or an engine that has not recorded it).
 */
import { type SQL, and, eq, gt, inArray, isNull, or, sql } from "drizzle-orm";
import { type Hex, getAddress } from "viem";
import { activity, deskTrade } from "../../schema/ponder.js";
import type { EnginePort } from "../engine-port.js";
import type { ReadDb } from "./db.js";
import { type Ordering, type PageWindow, keysetWindow, orderBy } from "./keyset.js";

export type ActivityRow = typeof activity.$inferSelect;

export { ACTIVITY_KINDS, type ActivityKind, formatActivityData } from "../../common/activity.js";

export const ACTIVITY_ORDERING: Ordering<ActivityRow> = {
  name: "activity",
  direction: "desc",
  columns: [activity.id],
  types: ["text"],
  key: (r) => [r.id],
};

export type ActivityFilter = { kinds?: readonly string[]; token?: Hex };

/** The desk trade an activity row is about (desk rows carry it in `data.tradeId`), as SQL. */
const TRADE_ID = sql`(${activity.data}->>'tradeId')`;

/**
 * The engine's token of each desk trade in `tradeIds` (the index's trade ids), lowercase as the index
 * stores tokens; a trade no token owns is absent. One lookup in each database, for a whole page or batch.
 */
export async function deskTokensByTrade(db: ReadDb, engine: EnginePort, tradeIds: readonly string[]): Promise<Map<string, Hex>> {
  const tokenOf = new Map<string, Hex>();
  if (!tradeIds.length) return tokenOf;
  const trades = await db
    .select({ id: deskTrade.id, openOrderId: deskTrade.openOrderId })
    .from(deskTrade)
    .where(inArray(deskTrade.id, [...new Set(tradeIds)]));
  const tokens = await engine.deskTokens(trades.map((t) => t.openOrderId));
  for (const t of trades) {
    const token = tokens.get(t.openOrderId);
    if (token) tokenOf.set(t.id, token.toLowerCase() as Hex);
  }
  return tokenOf;
}

/** The trade id of a desk row that names no token (desk rows carry it in `data.tradeId`), or undefined for any other row. */
export function unnamedDeskTradeId(kind: string, token: string | null, data: unknown): string | undefined {
  if (token !== null || !kind.startsWith("desk-")) return undefined;
  const id = (data as { tradeId?: unknown } | null)?.tradeId;
  return typeof id === "string" ? id : undefined;
}

/**
 * `rows` with each desk row's token named: the engine's token of its trade (by the trade's open order
 * id); a desk row whose trade no token owns keeps `token: null`.
 */
export async function withDeskTokens(db: ReadDb, engine: EnginePort, rows: ActivityRow[]): Promise<ActivityRow[]> {
  const ids = rows.map((r) => unnamedDeskTradeId(r.kind, r.token, r.data));
  const tokenOf = await deskTokensByTrade(
    db,
    engine,
    ids.filter((id): id is string => id !== undefined),
  );
  if (!tokenOf.size) return rows;
  return rows.map((r, i) => {
    const token = ids[i] === undefined ? undefined : tokenOf.get(ids[i]!);
    return token ? { ...r, token } : r;
  });
}

/**
 * A token's rows, as SQL: those the index names it in, and its desk rows, those of the trades the
 * engine opened for it (`deskOrderIds`, their open order ids), which the index stores without a token.
 */
export function activityTokenCondition(db: ReadDb, token: Hex, deskOrderIds: readonly bigint[] = []): SQL {
  const own = eq(activity.token, token.toLowerCase() as Hex);
  if (!deskOrderIds.length) return own;
  const desks = db
    .select({ id: deskTrade.id })
    .from(deskTrade)
    .where(inArray(deskTrade.openOrderId, [...deskOrderIds]));
  return or(own, and(isNull(activity.token), inArray(TRADE_ID, desks)))!;
}

/** The open order ids of the desk trades the engine opened for `token` (none without a token). */
export async function deskOrderIdsOf(engine: EnginePort | undefined, token: Hex | undefined): Promise<bigint[]> {
  if (!engine || !token) return [];
  return (await engine.deskBindings([getAddress(token)])).map((b) => b.openOrderId);
}

/** The filter as SQL; a token's rows include its desk rows (`activityTokenCondition`). */
function conditions(db: ReadDb, filter: ActivityFilter, deskOrderIds: readonly bigint[] = []): SQL[] {
  const c: SQL[] = [];
  if (filter.kinds?.length) c.push(inArray(activity.kind, [...filter.kinds]));
  if (filter.token) c.push(activityTokenCondition(db, filter.token, deskOrderIds));
  return c;
}

/**
 * A page of the feed. With `engine`, desk rows name their token (`withDeskTokens`) and a token's filter
 * takes in its desk rows; without it, rows are as indexed.
 */
export async function listActivity(db: ReadDb, p: PageWindow & { filter: ActivityFilter; engine?: EnginePort }) {
  const w = keysetWindow(ACTIVITY_ORDERING, p);
  const deskOrderIds = await deskOrderIdsOf(p.engine, p.filter.token);
  const rows = await db
    .select()
    .from(activity)
    .where(and(...conditions(db, p.filter, deskOrderIds), ...w.conditions))
    .orderBy(...w.order)
    .limit(w.fetch);
  return w.finish(p.engine ? await withDeskTokens(db, p.engine, rows) : rows);
}

/** Rows added after `lastId` (oldest first), for subscriptions. */
export async function activitySince(db: ReadDb, filter: ActivityFilter, lastId: string, limit = 100): Promise<ActivityRow[]> {
  return db
    .select()
    .from(activity)
    .where(and(gt(activity.id, lastId), ...conditions(db, filter)))
    .orderBy(activity.id)
    .limit(limit);
}

/** The id of the newest row (`""` when none): subscriptions start after it. */
export async function latestActivityId(db: ReadDb): Promise<string> {
  const [row] = await db
    .select({ id: activity.id })
    .from(activity)
    .orderBy(...orderBy(ACTIVITY_ORDERING))
    .limit(1);
  return row?.id ?? "";
}
