/**
 * Desks: the operator's perps trades (indexed) bound to their tokens (the engine's binding by
 * open order id), with notional and, when an oracle mark is known, unrealised PnL; the venue
 * they trade on (the API's `PERPS_VENUE`) and, while open, their liquidation price: the venue's own
 * figure as the engine last marked the trade, or that venue's formula before the first mark.
 */
import { type SQL, and, desc, eq, inArray, not, sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { HUNDRED_PERCENT, closeValue, gainsCloseValue, gainsLiquidationPrice, liquidationPrice, notionalOf, percentProfit } from "../../common/perps-math.js";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { DEFAULT_PERPS_VENUE, PERPS_VENUES, type PerpsVenueId } from "../../common/perps-venues.js";
import { type DeskTradeRow, deskTrade, enrollment } from "../../schema/ponder.js";
import type { ReadDb } from "./db.js";
import type { DeskBinding, EnginePort, VenueMark } from "../engine-port.js";
import { type Ordering, type PageWindow, keysetWindow, orderBy, toPage } from "./keyset.js";

export const DESK_STATUSES = ["open", "closed", "liquidated"] as const;
export type DeskStatus = (typeof DESK_STATUSES)[number];

/** The venue desks trade on, as the API names it: its `PERPS_VENUE` id and its protocol and version. */
export type DeskVenue = { id: PerpsVenueId; protocol: string };

export function deskVenue(venue: PerpsVenueId): DeskVenue {
  const v = PERPS_VENUES[venue];
  return { id: venue, protocol: `${v.protocol} ${v.version}` };
}

export type DeskView = {
  id: string;
  token: Address | null;
  /** The venue it trades on (the API's `PERPS_VENUE`), and that venue's protocol and version. */
  venue: PerpsVenueId;
  protocol: string;
  pairIndex: bigint;
  tradeIndex: bigint;
  side: "long" | "short";
  status: DeskStatus;
  halted: boolean;
  haltReason: string | null;
  /** USDC base units. */
  collateral: bigint;
  /** 1e10. */
  leverage: bigint;
  notional: bigint;
  /** 1e10. */
  entryPrice: bigint;
  markPrice: bigint | null;
  /** 1e10: where the venue liquidates the open trade (null once it is closed). */
  liquidationPrice: bigint | null;
  unrealisedPnl: bigint | null;
  realisedPnl: bigint;
  usdcReturned: bigint;
  openedAt: bigint;
  closedAt: bigint | null;
  openTx: `0x${string}`;
};

type TradeFigures = { collateral: bigint; leverage: bigint; openPrice: bigint; buy: boolean };

/**
 * PnL of closing the whole trade at `mark`, as the venue computes it (a loss is at most the collateral):
 * Avantis v1's `closeValue`; gTrade v10's `amountSentToTrader` (common/perps-math.ts `gainsCloseValue`), less the
 * close's `charges` (its closing fee, the trading fees already realized and the pending holding fees, less PnL
 * already realized) as the venue stated them at the engine's latest mark of the trade (`VenueMark`); none before it.
 */
export function unrealisedPnl(t: TradeFigures, mark: bigint, venue: PerpsVenueId = DEFAULT_PERPS_VENUE, charges = 0n): bigint {
  const pct = percentProfit(t.openPrice, mark, t.buy ? "long" : "short", t.leverage);
  if (venue === "gains-v10") return gainsCloseValue({ collateral: t.collateral, pct, charges }) - t.collateral;
  return closeValue(t.collateral, pct) - t.collateral;
}

/**
 * Where the venue liquidates the trade (1e10): the venue's own figure at the engine's latest mark of the trade
 * (gTrade v10: the diamond's `getTradeLiquidationPrice`, its fees included) when there is one; otherwise Avantis v1's
 * `liquidationPrice` (90% of the collateral lost) or gTrade v10's reference formula (`gainsLiquidationPrice`, at its
 * default 90% threshold, before fees).
 */
export function deskLiquidationPrice(t: TradeFigures, venue: PerpsVenueId = DEFAULT_PERPS_VENUE, venueMark: VenueMark | null = null): bigint {
  if (venueMark) return venueMark.liquidationPrice;
  const side = t.buy ? "long" : "short";
  if (venue === "gains-v10") return gainsLiquidationPrice({ openPrice: t.openPrice, side, leverage: t.leverage, collateral: t.collateral });
  return liquidationPrice(t.openPrice, side, t.leverage);
}

export const DESK_ORDERING: Ordering<{ openedAt: bigint; id: string }> = {
  name: "desk-newest",
  direction: "desc",
  columns: [deskTrade.openedAt, deskTrade.id],
  types: ["int", "text"],
  key: (r) => [r.openedAt, r.id],
};

/** What a page of desks needs from the engine, read once per request (for `tokens` only when given: a page of tokens needs their desks alone). */
export type DeskContext = {
  bindings: Map<bigint, DeskBinding>;
  /** The mark of each pair index, numbered as `venue` numbers its pairs. */
  marks: Map<number, bigint>;
  haltedTokens: Set<string>;
  /** The venue the desks trade on: the API's `PERPS_VENUE` (config.perpsVenue). */
  venue: PerpsVenueId;
};

export async function deskContext(db: ReadDb, engine: EnginePort, venue: PerpsVenueId, tokens?: readonly Address[]): Promise<DeskContext> {
  const [bindings, marks, halted] = await Promise.all([
    engine.deskBindings(tokens),
    engine.markPrices(venue),
    db.select({ token: enrollment.token }).from(enrollment).where(eq(enrollment.halted, true)),
  ]);
  return deskContextOf(
    bindings,
    marks,
    halted.map((r) => r.token),
    venue,
  );
}

export function deskContextOf(
  bindings: readonly DeskBinding[],
  marks: Map<number, bigint>,
  haltedTokens: readonly string[],
  venue: PerpsVenueId = DEFAULT_PERPS_VENUE,
): DeskContext {
  return {
    bindings: new Map(bindings.map((b) => [b.openOrderId, b])),
    marks,
    haltedTokens: new Set(haltedTokens.map((t) => t.toLowerCase())),
    venue,
  };
}

export function deskFromTrade(row: DeskTradeRow, ctx: DeskContext): DeskView {
  const binding = ctx.bindings.get(row.openOrderId);
  const token = binding ? getAddress(binding.token) : null;
  const mark = ctx.marks.get(Number(row.pairIndex)) ?? null;
  const open = row.status === "open";
  const halted = open && (binding?.halted === true || (token !== null && ctx.haltedTokens.has(token.toLowerCase())));
  return {
    id: row.id,
    token,
    venue: ctx.venue,
    protocol: deskVenue(ctx.venue).protocol,
    pairIndex: row.pairIndex,
    tradeIndex: row.tradeIndex,
    side: row.buy ? "long" : "short",
    status: (DESK_STATUSES as readonly string[]).includes(row.status) ? (row.status as DeskStatus) : "open",
    halted,
    haltReason: halted ? (binding?.haltReason ?? "halted in the registry") : null,
    collateral: row.collateral,
    leverage: row.leverage,
    notional: notionalOf(row.collateral, row.leverage),
    entryPrice: row.openPrice,
    markPrice: open ? mark : null,
    liquidationPrice: open ? deskLiquidationPrice(row, ctx.venue, binding?.venueMark ?? null) : null,
    unrealisedPnl: open && mark !== null ? unrealisedPnl(row, mark, ctx.venue, binding?.venueMark?.charges ?? 0n) : null,
    realisedPnl: row.realisedPnl,
    usdcReturned: row.usdcReturned,
    openedAt: row.openedAt,
    closedAt: row.closedAt,
    openTx: row.openTx,
  };
}

export type DeskFilter = { statuses?: readonly DeskStatus[]; token?: Address; halted?: boolean | null };

export async function listDesks(db: ReadDb, ctx: DeskContext, p: PageWindow & { filter: DeskFilter }) {
  const c: SQL[] = [];
  if (p.filter.statuses?.length) c.push(inArray(deskTrade.status, [...p.filter.statuses]));
  if (p.filter.token) {
    const wanted = getAddress(p.filter.token);
    const ids = [...ctx.bindings.values()].filter((b) => getAddress(b.token) === wanted).map((b) => b.openOrderId);
    if (!ids.length) return toPage<DeskView>([], p, DESK_ORDERING);
    c.push(inArray(deskTrade.openOrderId, ids));
  }
  if (p.filter.halted != null) {
    // Halting is the engine's and the registry's state: the open trades of halted desks.
    const ids = [...ctx.bindings.values()].filter((b) => b.halted || ctx.haltedTokens.has(b.token.toLowerCase())).map((b) => b.openOrderId);
    const halted = ids.length ? and(eq(deskTrade.status, "open"), inArray(deskTrade.openOrderId, ids))! : sql`false`;
    c.push(p.filter.halted ? halted : not(halted));
  }
  const w = keysetWindow<DeskView>(DESK_ORDERING, p);
  const rows = await db
    .select()
    .from(deskTrade)
    .where(and(...c, ...w.conditions))
    .orderBy(...w.order)
    .limit(w.fetch);
  return w.finish(rows.map((r) => deskFromTrade(r, ctx)));
}

/** How many of the largest open desks `/stats` shows; every desk is paged by `/desks` and GraphQL `desks`. */
export const LARGEST_OPEN_DESKS = 5;

/**
 * The open desks in a fixed size, for `/stats`: aggregates over the open trades computed in
 * SQL (one row) and the `largest` open desks by notional. Its size does not grow with the
 * number of desks; every desk is listed, paged, by `/desks` (docs/api.md, "Desks").
 */
export type DeskSummary = {
  /** The venue the desks trade on (the API's `PERPS_VENUE`). */
  venue: DeskVenue;
  /** Open desks halted by the engine or the registry. */
  halted: number;
  /** USDC base units, summed over the open trades. */
  openCollateral: bigint;
  /** Σ collateral × leverage of each open trade (each rounded down as `notionalOf`). */
  openNotional: bigint;
  /** Σ unrealised PnL of the open trades with an oracle mark (each as `unrealisedPnl`). */
  openUnrealisedPnl: bigint;
  /** Open trades without a mark: not in `openUnrealisedPnl`. */
  unpriced: number;
  /** The largest open desks by notional (at most `LARGEST_OPEN_DESKS`), largest first. */
  largest: DeskView[];
};

const PRECISION = sql.raw(PERPS_PRECISION.toString());
const HUNDRED = sql.raw(HUNDRED_PERCENT.toString());

/** The oracle mark of a trade's pair (null when unknown), as a SQL CASE over the known marks. */
function markOf(marks: Map<number, bigint>): SQL {
  if (!marks.size) return sql`NULL::numeric`;
  const cases = [...marks].map(([pair, mark]) => sql`WHEN ${sql.raw(String(Math.trunc(pair)))} THEN ${sql.raw(mark.toString())}::numeric`);
  return sql`(CASE ${deskTrade.pairIndex} ${sql.join(cases, sql` `)} ELSE NULL END)`;
}

/**
 * The charges of each trade's latest venue mark (`VenueMark`, by open order id; 0 without one), as SQL: two
 * parameter arrays, so the statement's size does not grow with the number of desks.
 */
function chargesOf(bindings: Map<bigint, DeskBinding>): SQL {
  const charged = [...bindings.values()].filter((b) => b.venueMark && b.venueMark.charges !== 0n);
  if (!charged.length) return sql`0`;
  // Each array one parameter, as PostgreSQL's array literal (integers only: bigint's own digits).
  const ids = `{${charged.map((b) => b.openOrderId.toString()).join(",")}}`;
  const charges = `{${charged.map((b) => b.venueMark!.charges.toString()).join(",")}}`;
  return sql`coalesce((SELECT m.charges FROM unnest(${ids}::numeric[], ${charges}::numeric[]) AS m(id, charges) WHERE m.id = ${deskTrade.openOrderId}::numeric), 0)`;
}

/**
 * `unrealisedPnl` in SQL, integer for integer: `div` truncates toward zero as bigint
 * division does (common/perps-math.ts percentProfit, and closeValue or gainsCloseValue by venue).
 */
function unrealisedPnlSql(mark: SQL, venue: PerpsVenueId, charges: SQL): SQL {
  const open = sql`${deskTrade.openPrice}::numeric`;
  const collateral = sql`${deskTrade.collateral}::numeric`;
  const diff = sql`(CASE WHEN ${deskTrade.buy} THEN ${mark} - ${open} ELSE ${open} - ${mark} END)`;
  const pct = sql`(CASE WHEN ${open} = 0 THEN 0 ELSE greatest(div(${diff} * 100 * ${deskTrade.leverage}::numeric, ${open}), -${HUNDRED}) END)`;
  if (venue === "gains-v10") return sql`(greatest(${collateral} + div(${collateral} * ${pct}, ${HUNDRED}) - ${charges}, 0) - ${collateral})`;
  return sql`(greatest(div(${collateral} * (${HUNDRED} + ${pct}), ${HUNDRED}), 0) - ${collateral})`;
}

/** The open desks' summary: one aggregate row and the largest few rows, both over the open trades only. */
export async function openDeskSummary(db: ReadDb, ctx: DeskContext, largest = LARGEST_OPEN_DESKS): Promise<DeskSummary> {
  const open = eq(deskTrade.status, "open");
  const haltedIds = [...ctx.bindings.values()].filter((b) => b.halted || ctx.haltedTokens.has(b.token.toLowerCase())).map((b) => b.openOrderId);
  const mark = markOf(ctx.marks);
  const notional = sql`div(${deskTrade.collateral}::numeric * ${deskTrade.leverage}::numeric, ${PRECISION})`;
  const [aggregates, rows] = await Promise.all([
    db
      .select({
        halted: haltedIds.length ? sql<string>`count(*) FILTER (WHERE ${inArray(deskTrade.openOrderId, haltedIds)})` : sql<string>`0`,
        collateral: sql<string | null>`sum(${deskTrade.collateral})`,
        notional: sql<string | null>`sum(${notional})`,
        unrealisedPnl: sql<string | null>`sum(${unrealisedPnlSql(mark, ctx.venue, chargesOf(ctx.bindings))}) FILTER (WHERE ${mark} IS NOT NULL)`,
        unpriced: sql<string>`count(*) FILTER (WHERE ${mark} IS NULL)`,
      })
      .from(deskTrade)
      .where(open),
    db.select().from(deskTrade).where(open).orderBy(desc(notional), desc(deskTrade.id)).limit(largest),
  ]);
  const a = aggregates[0];
  return {
    venue: deskVenue(ctx.venue),
    halted: Number(a?.halted ?? 0),
    openCollateral: BigInt(a?.collateral ?? 0),
    openNotional: BigInt(a?.notional ?? 0),
    openUnrealisedPnl: BigInt(a?.unrealisedPnl ?? 0),
    unpriced: Number(a?.unpriced ?? 0),
    largest: rows.map((r) => deskFromTrade(r, ctx)),
  };
}

/** Each token's latest desk (open or not), for token listings. */
export async function latestDeskByToken(db: ReadDb, ctx: DeskContext, tokens: readonly Address[]): Promise<Map<string, DeskView>> {
  const wanted = new Set(tokens.map((t) => getAddress(t)));
  const ids = [...ctx.bindings.values()].filter((b) => wanted.has(getAddress(b.token))).map((b) => b.openOrderId);
  const out = new Map<string, DeskView>();
  if (!ids.length) return out;
  const rows = await db
    .select()
    .from(deskTrade)
    .where(inArray(deskTrade.openOrderId, ids))
    .orderBy(...orderBy(DESK_ORDERING));
  for (const row of rows) {
    const view = deskFromTrade(row, ctx);
    if (view.token && !out.has(view.token)) out.set(view.token, view);
  }
  return out;
}
