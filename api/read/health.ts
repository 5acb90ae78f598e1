/** Service health: uptime, indexer progress and the engine's per-worker health. */
import { sql } from "drizzle-orm";
import type { ApiDeps, ReadDb } from "../deps.js";
import { checksumOrNull } from "./format.js";

/** Ponder checkpoints are fixed-width decimal strings; the block number is digits 26..42. */
const blockOfCheckpoint = (checkpoint: string) => Number(checkpoint.slice(26, 42));

export async function indexerStatus(db: ReadDb): Promise<{ ready: boolean; block: number | null }> {
  const meta = await db.execute(sql`SELECT value FROM _ponder_meta WHERE key = 'app'`);
  const checkpoint = await db.execute(sql`SELECT latest_checkpoint FROM _ponder_checkpoint LIMIT 1`);
  const metaRow = meta.rows[0] as { value: { is_ready: number } } | undefined;
  const cpRow = checkpoint.rows[0] as { latest_checkpoint: string } | undefined;
  return { ready: metaRow?.value.is_ready === 1, block: cpRow ? blockOfCheckpoint(cpRow.latest_checkpoint) : null };
}

export async function readHealth(deps: ApiDeps) {
  const [indexer, engine] = await Promise.all([indexerStatus(deps.db), deps.engine.health()]);
  return {
    status: !indexer.ready ? "starting" : engine.degraded.length ? "degraded" : "ok",
    uptimeSeconds: Math.floor((Date.now() - deps.startedAt) / 1000),
    protocolToken: checksumOrNull(deps.config.protocolToken),
    indexer,
    workers: engine.workers,
    /** Why the service is degraded, if it is. */
    reasons: engine.degraded,
    transactions: engine.transactions,
  } as const;
}
