/**
 * `/stats`: protocol totals from the indexer's incremental aggregates (one row, and one row per
 * fee currency and per buyback currency), the engine's pending accumulators (running balances)
 * and the open desks. No query scans history; every
 * query of a read runs at once (one round trip of latency), and concurrent callers share one
 * read (see coalesce.ts).
 */
import { eq } from "drizzle-orm";
import { enrollment, protocolTotals } from "../../schema/ponder.js";
import type { ApiDeps } from "../deps.js";
import { coalescerFor } from "./coalesce.js";
import { type Finality, readFinality } from "./finality.js";
import { type DeskView, deskContextOf, deskView, openDeskRows } from "./desks.js";
import { type BuybackKind, type FeeCurrencyView, type SpendView, buybackSpendByKind, protocolFeeCurrencies } from "./fees.js";

export type ProtocolTotalsRow = typeof protocolTotals.$inferSelect;

export type Stats = {
  totals: ProtocolTotalsRow | undefined;
  enrolled: number;
  active: number;
  pending: Awaited<ReturnType<ApiDeps["engine"]["pending"]>>;
  desks: DeskView[];
  /** Every token's fees per currency: the amount in its currency and its USDC at the realised rate. */
  feeCurrencies: FeeCurrencyView[];
  /** Buybacks per kind and currency paid in. */
  buybackSpend: Record<BuybackKind, SpendView[]>;
  /** The totals' parts not final yet (by CONFIRMATIONS). */
  finality: Finality;
};

async function loadStats(deps: ApiDeps): Promise<Stats> {
  const { db, engine } = deps;
  const [totalsRows, enrollments, pending, bindings, marks, openRows, feeCurrencies, buybackSpend, finality] = await Promise.all([
    db.select().from(protocolTotals).where(eq(protocolTotals.id, "protocol")),
    // One row per enrolled token: the counts and the halted set in one read.
    db.select({ token: enrollment.token, active: enrollment.active, halted: enrollment.halted }).from(enrollment),
    engine.pending(),
    engine.deskBindings(),
    engine.markPrices(),
    openDeskRows(db),
    protocolFeeCurrencies(db, deps.config),
    buybackSpendByKind(db, deps.config),
    readFinality(db, deps.config, ["protocol"]),
  ]);
  const ctx = deskContextOf(bindings, marks, enrollments.filter((e) => e.halted).map((e) => e.token));
  return {
    totals: totalsRows[0],
    enrolled: enrollments.length,
    active: enrollments.filter((e) => e.active).length,
    pending,
    desks: openRows.map((r) => deskView(r, ctx)),
    feeCurrencies,
    buybackSpend,
    finality,
  };
}

const statsReads = coalescerFor((deps: ApiDeps, _key: "stats") => loadStats(deps));

/** The stats, from a read that started after this call (shared with concurrent callers). */
export function readStats(deps: ApiDeps): Promise<Stats> {
  return statsReads(deps).get("stats");
}
