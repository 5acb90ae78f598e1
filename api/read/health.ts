/**
 * Service health: uptime, indexer progress and the engine's per-worker health, from state
 * already persisted (ponder's checkpoint, the engine's tables): no chain call per request.
 * Concurrent callers share one read (see coalesce.ts).
 */
import { sql } from "drizzle-orm";
import type { ApiDeps, ReadDb } from "../deps.js";
import type { EngineHealth } from "../engine-port.js";
import { coalescerFor } from "./coalesce.js";
import { checksumOrNull } from "./format.js";
import { desksHealth } from "../../core/health.js";

/** Ponder checkpoints are fixed-width decimal strings; the block number is digits 26..42. */
const blockOfCheckpoint = (checkpoint: string) => Number(checkpoint.slice(26, 42));

export type IndexerStatus = { ready: boolean; block: number | null };

/** Whether ponder finished its backfill, and the block it has indexed to: one round trip. */
export async function indexerStatus(db: ReadDb): Promise<IndexerStatus> {
  const { rows } = await db.execute(
    sql`SELECT (SELECT value FROM _ponder_meta WHERE key = 'app') AS meta, (SELECT latest_checkpoint FROM _ponder_checkpoint LIMIT 1) AS checkpoint`,
  );
  const row = rows[0] as { meta: { is_ready?: number } | null; checkpoint: string | null } | undefined;
  return { ready: row?.meta?.is_ready === 1, block: row?.checkpoint ? blockOfCheckpoint(row.checkpoint) : null };
}

const healthReads = coalescerFor(
  async (deps: ApiDeps, _key: "health"): Promise<[IndexerStatus, EngineHealth]> => Promise.all([indexerStatus(deps.db), deps.engine.health()]),
);

export async function readHealth(deps: ApiDeps) {
  const [indexer, engine] = await healthReads(deps).get("health");
  return {
    status: !indexer.ready ? "starting" : engine.degraded.length ? "degraded" : "ok",
    uptimeSeconds: Math.floor((Date.now() - deps.startedAt) / 1000),
    protocolToken: checksumOrNull(deps.config.protocolToken),
    indexer,
    workers: engine.workers,
    /** Why the service is degraded, if it is. */
    reasons: engine.degraded,
    transactions: engine.transactions,
    /** The engine that leads (its lease holder: host:pid:suffix), its epoch and since when. */
    leader: engine.leader,
    /** Whether desks trade on this chain, and why not: as the engine reported, else from this configuration. */
    desks: engine.desks ?? desksHealth(deps.config),
  } as const;
}
