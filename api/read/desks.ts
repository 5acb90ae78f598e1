/**
 * Desks: the operator's perps trades (indexed) bound to their tokens (the engine's binding by
 * open order id), with notional and, when an oracle mark is known, unrealised PnL.
 */
import { type SQL, and, eq, inArray, not, sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { closeValue, notionalOf, percentProfit } from "../../common/perps-math.js";
import { deskTrade, enrollment } from "../../schema/ponder.js";
import type { ReadDb } from "../deps.js";
import type { DeskBinding, EnginePort } from "../engine-port.js";
import { type Ordering, type PageWindow, keysetWindow, orderBy, toPage } from "./keyset.js";

export type DeskTradeRow = typeof deskTrade.$inferSelect;
export const DESK_STATUSES = ["open", "closed", "liquidated"] as const;
export type DeskStatus = (typeof DESK_STATUSES)[number];

export type DeskView = {
  id: string;
  token: Address | null;
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
  unrealisedPnl: bigint | null;
  realisedPnl: bigint;
  usdcReturned: bigint;
  openedAt: bigint;
  closedAt: bigint | null;
  openTx: `0x${string}`;
};

/** PnL of closing the whole trade at `mark`, as the exchange computes it (a loss is at most the collateral). */
export function unrealisedPnl(t: { collateral: bigint; leverage: bigint; openPrice: bigint; buy: boolean }, mark: bigint): bigint {
  return closeValue(t.collateral, percentProfit(t.openPrice, mark, t.buy ? "long" : "short", t.leverage)) - t.collateral;
}

export const DESK_ORDERING: Ordering<{ openedAt: bigint; id: string }> = {
  name: "desk-newest",
  direction: "desc",
  columns: [deskTrade.openedAt, deskTrade.id],
  types: ["int", "text"],
  key: (r) => [r.openedAt, r.id],
};

/** What a page of desks needs from the engine, read once per request. */
export type DeskContext = { bindings: Map<bigint, DeskBinding>; marks: Map<number, bigint>; haltedTokens: Set<string> };

export async function deskContext(db: ReadDb, engine: EnginePort): Promise<DeskContext> {
  const [bindings, marks, halted] = await Promise.all([
    engine.deskBindings(),
    engine.markPrices(),
    db.select({ token: enrollment.token }).from(enrollment).where(eq(enrollment.halted, true)),
  ]);
  return deskContextOf(bindings, marks, halted.map((r) => r.token));
}

export function deskContextOf(bindings: readonly DeskBinding[], marks: Map<number, bigint>, haltedTokens: readonly string[]): DeskContext {
  return {
    bindings: new Map(bindings.map((b) => [b.openOrderId, b])),
    marks,
    haltedTokens: new Set(haltedTokens.map((t) => t.toLowerCase())),
  };
}

export function deskView(row: DeskTradeRow, ctx: DeskContext): DeskView {
  const binding = ctx.bindings.get(row.openOrderId);
  const token = binding ? getAddress(binding.token) : null;
  const mark = ctx.marks.get(Number(row.pairIndex)) ?? null;
  const open = row.status === "open";
  const halted = open && (binding?.halted === true || (token !== null && ctx.haltedTokens.has(token.toLowerCase())));
  return {
    id: row.id,
    token,
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
    unrealisedPnl: open && mark !== null ? unrealisedPnl(row, mark) : null,
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
    const ids = [...ctx.bindings.values()]
      .filter((b) => b.halted || ctx.haltedTokens.has(b.token.toLowerCase()))
      .map((b) => b.openOrderId);
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
  return w.finish(rows.map((r) => deskView(r, ctx)));
}

/** The open desks, for `/stats` (bounded by the number of desks, not by history). */
export async function openDesks(db: ReadDb, ctx: DeskContext): Promise<DeskView[]> {
  return (await openDeskRows(db)).map((r) => deskView(r, ctx));
}

/** The open desk trades, newest first (bounded by the number of desks, not by history). */
export function openDeskRows(db: ReadDb): Promise<DeskTradeRow[]> {
  return db.select().from(deskTrade).where(eq(deskTrade.status, "open")).orderBy(...orderBy(DESK_ORDERING));
}

/** Each token's latest desk (open or not), for token listings. */
export async function latestDeskByToken(db: ReadDb, ctx: DeskContext, tokens: readonly Address[]): Promise<Map<string, DeskView>> {
  const wanted = new Set(tokens.map((t) => getAddress(t)));
  const ids = [...ctx.bindings.values()].filter((b) => wanted.has(getAddress(b.token))).map((b) => b.openOrderId);
  const out = new Map<string, DeskView>();
  if (!ids.length) return out;
  const rows = await db.select().from(deskTrade).where(inArray(deskTrade.openOrderId, ids)).orderBy(...orderBy(DESK_ORDERING));
  for (const row of rows) {
    const view = deskView(row, ctx);
    if (view.token && !out.has(view.token)) out.set(view.token, view);
  }
  return out;
}
