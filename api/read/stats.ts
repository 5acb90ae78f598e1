/**
 * `/stats`: protocol totals from the indexer's incremental aggregate (one row), the engine's
 * pending accumulators and the open desks. No query scans history.
 */
import { count, eq } from "drizzle-orm";
import { enrollment, protocolTotals } from "../../schema/ponder.js";
import type { ApiDeps } from "../deps.js";
import { type DeskView, deskContext, openDesks } from "./desks.js";

export type ProtocolTotalsRow = typeof protocolTotals.$inferSelect;

export type Stats = {
  totals: ProtocolTotalsRow | undefined;
  enrolled: number;
  active: number;
  pending: Awaited<ReturnType<ApiDeps["engine"]["pending"]>>;
  desks: DeskView[];
};

export async function readStats(deps: ApiDeps): Promise<Stats> {
  const { db, engine } = deps;
  const [totalsRows, enrolledRows, pending, ctx] = await Promise.all([
    db.select().from(protocolTotals).where(eq(protocolTotals.id, "protocol")),
    db.select({ active: enrollment.active, n: count() }).from(enrollment).groupBy(enrollment.active),
    engine.pending(),
    deskContext(db, engine),
  ]);
  return {
    totals: totalsRows[0],
    enrolled: enrolledRows.reduce((sum, r) => sum + Number(r.n), 0),
    active: enrolledRows.filter((r) => r.active).reduce((sum, r) => sum + Number(r.n), 0),
    pending,
    desks: await openDesks(db, ctx),
  };
}
