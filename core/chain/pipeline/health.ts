/**
 * The pipeline as health reports it: intents by status, the latest permanent failures, and
 * every intent not yet final.
 */
import { asc, desc, inArray, sql } from "drizzle-orm";
import type pg from "pg";
import { dbOf, tables } from "../../db/client.js";
import type { IntentStatus } from "./store.js";

const t = tables.txIntents;

export type PendingIntent = {
  key: string;
  kind: string;
  signer: string | null;
  /** In flight, or mined (or reverted) and not yet final. */
  status: Extract<IntentStatus, "pending" | "signed" | "broadcast" | "mined" | "reverted">;
  nonce: number | null;
  ageSeconds: number;
  reorgs: number;
  error: string | null;
};

/**
 * For health: counts of intents by status, the latest permanent failures, and every intent not
 * yet final. Bounded by the work in flight, not by history: `counts` leaves out the mined
 * intents already final (the history) and counts everything else (in flight, awaiting
 * finality, reverted, failed, dropped); each query reads a partial index (migration 4).
 */
export async function pipelineHealth(
  pool: pg.Pool,
  recent = 10,
): Promise<{
  counts: Record<string, number>;
  failures: { key: string; kind: string; status: string; error: string | null; at: string }[];
  notFinal: PendingIntent[];
}> {
  const db = dbOf(pool);
  const unsettled = sql`${t.status} <> 'mined' OR ${t.finalAt} IS NULL`;
  const [counts, failures, notFinal] = await Promise.all([
    db.select({ status: t.status, n: sql<string>`COUNT(*)::text` }).from(t).where(unsettled).groupBy(t.status),
    db
      .select({ key: t.key, kind: t.kind, status: t.status, error: t.error, at: t.updatedAt })
      .from(t)
      .where(inArray(t.status, ["failed", "reverted", "dropped"]))
      .orderBy(desc(t.updatedAt))
      .limit(recent),
    db
      .select({
        key: t.key,
        kind: t.kind,
        signer: t.signer,
        status: t.status,
        nonce: t.nonce,
        reorgs: t.reorgs,
        error: t.error,
        age: sql<number>`EXTRACT(EPOCH FROM now() - ${t.createdAt})::int`,
      })
      .from(t)
      .where(sql`${inArray(t.status, ["pending", "signed", "broadcast"])} OR (${inArray(t.status, ["mined", "reverted"])} AND ${t.finalAt} IS NULL)`)
      .orderBy(asc(t.id))
      .limit(100),
  ]);
  return {
    counts: Object.fromEntries(counts.map((r) => [r.status, Number(r.n)])),
    failures: failures.map((r) => ({ key: r.key, kind: r.kind, status: r.status, error: r.error, at: r.at.toISOString() })),
    notFinal: notFinal.map((r) => ({
      key: r.key,
      kind: r.kind,
      signer: r.signer,
      status: r.status as PendingIntent["status"],
      nonce: r.nonce === null ? null : Number(r.nonce),
      ageSeconds: Number(r.age),
      reorgs: Number(r.reorgs),
      error: r.error,
    })),
  };
}
