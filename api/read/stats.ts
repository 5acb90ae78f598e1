/**
 * `/stats`: protocol totals from the indexer's incremental aggregates (one row, and one row per
 * fee currency and per buyback currency), the engine's pending accumulators (running balances)
 * and a fixed-size summary of the open desks (every desk is paged by `/desks`). No query scans history; every
 * query of a read runs at once (one round trip of latency), and concurrent callers share one
 * read (see coalesce.ts).
 */
import { count, eq, sql } from "drizzle-orm";
import { enrollment, protocolTotals } from "../../schema/ponder.js";
import type { ApiDeps } from "../deps.js";
import { coalescerFor } from "./coalesce.js";
import { type Finality, readFinality } from "./finality.js";
import { type DeskSummary, deskContextOf, openDeskSummary } from "./desks.js";
import type { BuybackKind } from "../../common/activity.js";
import { type FeeCurrencyView, type BuybackSpendView, buybackSpendByKind, protocolFeeCurrencies } from "./fees.js";

export type ProtocolTotalsRow = typeof protocolTotals.$inferSelect;

export type Stats = {
  totals: ProtocolTotalsRow | undefined;
  enrolled: number;
  active: number;
  pending: Awaited<ReturnType<ApiDeps["engine"]["pending"]>>;
  /** The open desks' aggregates and the largest few: its size does not grow with the number of desks. */
  desks: DeskSummary;
  /** Every token's fees per currency: the amount in its currency and its USDC at the realised rate. */
  feeCurrencies: FeeCurrencyView[];
  /** Buybacks per kind and currency paid in. */
  buybackSpend: Record<BuybackKind, BuybackSpendView[]>;
  /** The totals' parts not final yet (by CONFIRMATIONS). */
  finality: Finality;
};

async function loadStats(deps: ApiDeps): Promise<Stats> {
  const { db, engine } = deps;
  // The enrolments' counts in one row, and the halted tokens (few): neither grows the answer with the tokens.
  const counts = db
    .select({ enrolled: count(), active: sql<number>`count(*) FILTER (WHERE ${enrollment.active})`.mapWith(Number) })
    .from(enrollment)
    .then((rows) => rows[0]);
  const halted = db
    .select({ token: enrollment.token })
    .from(enrollment)
    .where(eq(enrollment.halted, true))
    .then((rows) => rows.map((r) => r.token));
  const bindings = engine.deskBindings();
  const marks = engine.markPrices(deps.config.perpsVenue);
  // The desk summary starts as soon as the desks' context (bindings, marks, halted tokens) is in.
  const desks = Promise.all([bindings, marks, halted]).then(([b, m, h]) => openDeskSummary(db, deskContextOf(b, m, h, deps.config.perpsVenue)));
  const [totalsRows, enrolled, pending, summary, feeCurrencies, buybackSpend, finality] = await Promise.all([
    db.select().from(protocolTotals).where(eq(protocolTotals.id, "protocol")),
    counts,
    engine.pending(),
    desks,
    protocolFeeCurrencies(db, deps.config),
    buybackSpendByKind(db, deps.config),
    readFinality(db, deps.config, ["protocol"]),
  ]);
  return {
    totals: totalsRows[0],
    enrolled: enrolled?.enrolled ?? 0,
    active: enrolled?.active ?? 0,
    pending,
    desks: summary,
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
