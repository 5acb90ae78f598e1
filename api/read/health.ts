/**
 * Service health: uptime, indexer progress and the engine's per-worker health, from state
 * already persisted (ponder's checkpoint, the engine's tables): no chain call per request.
 * Concurrent callers share one read (see coalesce.ts).
 */
import { sql } from "drizzle-orm";
import type { ApiDeps } from "../deps.js";
import type { ReadDb } from "./db.js";
import type { EngineHealthView } from "../engine-port.js";
import { coalescerFor } from "./coalesce.js";
import { checksumOrNull } from "./format.js";
import { desksHealth } from "../../core/health.js";
import { ServiceError, describeError, isDatabaseUnavailable } from "../../core/errors.js";
import { dataDir } from "../../common/connection-file.js";
import { diskFull } from "../../common/disk.js";

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

/** How often each API process asks the RPC for the chain's head (one call, shared by every health read). */
export const HEAD_POLL_MS = 2_000;

/**
 * The indexer's progress as this API process watches it: the chain's head (polled in the
 * background), when the indexed block last advanced, since when it lags beyond the limit, and
 * since when the database has been unreachable. One per config (one per app).
 */
type Progress = {
  head: number | null;
  headAt: number | null;
  indexed: number | null;
  /** When the indexed block last changed (or was first seen). */
  advancedAt: number;
  lagSince: number | null;
  dbDownSince: number | null;
  /** Since when the data directory's disk has been full (docs/operations.md, "Full disk"). */
  diskFullSince: number | null;
  polling: boolean;
};
const progressByConfig = new WeakMap<object, Progress>();

function progressOf(deps: ApiDeps): Progress {
  let p = progressByConfig.get(deps.config);
  if (!p) {
    p = { head: null, headAt: null, indexed: null, advancedAt: Date.now(), lagSince: null, dbDownSince: null, diskFullSince: null, polling: false };
    progressByConfig.set(deps.config, p);
  }
  if (!p.polling && deps.config.rpcUrl) {
    p.polling = true;
    const progress = p;
    const url = deps.config.rpcUrl;
    const poll = async () => {
      try {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
          signal: AbortSignal.timeout(HEAD_POLL_MS),
        });
        const body = (await res.json()) as { result?: string };
        if (body.result) {
          progress.head = Number(BigInt(body.result));
          progress.headAt = Date.now();
        }
      } catch {
        // The RPC is down or frozen: the head stays as last seen (the engine reports the RPC).
      }
      setTimeout(() => void poll(), HEAD_POLL_MS).unref();
    };
    void poll();
  }
  return p;
}

export type IndexerProgress = IndexerStatus & {
  /** The chain's head as last seen by this API process, and how far the index is behind it. */
  head: number | null;
  lagBlocks: number | null;
  /** When the indexed block last advanced (as seen by this API process). */
  advancedAt: string | null;
};

/** Why the index is behind, by how much and since when (empty while it keeps up). */
function indexerReasons(deps: ApiDeps, p: Progress, indexer: IndexerStatus, now: number): { progress: IndexerProgress; reasons: string[] } {
  if (indexer.block !== null && indexer.block !== p.indexed) {
    p.indexed = indexer.block;
    p.advancedAt = now;
  }
  const lag = p.head !== null && indexer.block !== null ? Math.max(0, p.head - indexer.block) : null;
  const reasons: string[] = [];
  const { indexerMaxLagBlocks: maxLag, indexerStallSeconds: stallSeconds } = deps.config;
  if (lag !== null && lag > maxLag) {
    p.lagSince ??= now;
    reasons.push(
      `indexer ${lag} blocks behind the head (indexed ${indexer.block}, head ${p.head}; limit ${maxLag}) since ${new Date(p.lagSince).toISOString()}`,
    );
  } else p.lagSince = null;
  const stalledMs = now - p.advancedAt;
  if (indexer.ready && lag !== null && lag > 0 && stalledMs > stallSeconds * 1000 && p.headAt !== null && p.headAt > p.advancedAt) {
    reasons.push(
      `indexer has not advanced for ${Math.round(stalledMs / 1000)} s (at block ${indexer.block} since ${new Date(p.advancedAt).toISOString()}; head ${p.head})`,
    );
  }
  return { progress: { ...indexer, head: p.head, lagBlocks: lag, advancedAt: p.indexed === null ? null : new Date(p.advancedAt).toISOString() }, reasons };
}

/** PostgreSQL cannot be reached: health answers 503 with this reason (since when, and the error). */
export class HealthUnavailable extends ServiceError {
  override name = "HealthUnavailable";
  constructor(
    readonly since: string,
    readonly reason: string,
    cause?: unknown,
  ) {
    super(reason, { code: "DATABASE_UNAVAILABLE", retryable: true, cause });
  }
}

const healthReads = coalescerFor(
  async (deps: ApiDeps, _key: "health"): Promise<[IndexerStatus, EngineHealthView]> => Promise.all([indexerStatus(deps.db), deps.engine.health()]),
);

/**
 * The data directory's disk, when full: by how much and since when. The data directory
 * (DATA_DIR, `.data/` by default) holds `npm start`'s PostgreSQL and devnet state; a service
 * whose directory does not exist on this host has no reason here.
 */
function diskReason(p: Progress, now: number): string | undefined {
  const full = diskFull(dataDir(process.env));
  if (!full) {
    p.diskFullSince = null;
    return undefined;
  }
  p.diskFullSince ??= now;
  return `${full} since ${new Date(p.diskFullSince).toISOString()} (PostgreSQL cannot write; back by itself once space is freed)`;
}

export async function readHealth(deps: ApiDeps) {
  const p = progressOf(deps);
  let read: [IndexerStatus, EngineHealthView];
  try {
    read = await healthReads(deps).get("health");
    p.dbDownSince = null;
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    p.dbDownSince ??= Date.now();
    const since = new Date(p.dbDownSince).toISOString();
    const disk = diskReason(p, Date.now());
    throw new HealthUnavailable(
      since,
      `database unreachable since ${since} (${Math.round((Date.now() - p.dbDownSince) / 1000)} s): ${describeError(error)}${disk ? `; ${disk}` : ""}`,
      error,
    );
  }
  const [indexerStatusNow, engine] = read;
  const now = Date.now();
  const { progress: indexer, reasons: behind } = indexerReasons(deps, p, indexerStatusNow, now);
  const disk = diskReason(p, now);
  const reasons = [...(disk ? [disk] : []), ...behind, ...engine.degraded];
  return {
    status: !indexer.ready ? "starting" : reasons.length ? "degraded" : "ok",
    uptimeSeconds: Math.floor((Date.now() - deps.startedAt) / 1000),
    protocolToken: checksumOrNull(deps.config.protocolToken),
    indexer,
    workers: engine.workers,
    /** Why the service is degraded, if it is. */
    reasons,
    /** Whether this API process serves current data (its index keeps up): what `/ready` answers. */
    serving: indexer.ready && behind.length === 0,
    transactions: engine.transactions,
    /** The engine that leads (its lease holder: host:pid:suffix), its epoch and since when. */
    leader: engine.leader,
    /** Whether desks trade on this chain, and why not: as the engine reported, else from this configuration. */
    desks: engine.desks ?? desksHealth(deps.config),
    /** The webhook outbox's backlog (docs/design.md §7.1), null before the engine's tables exist. */
    webhooks: engine.webhooks ?? null,
    /** Fee collections deferred because their conversion would yield nothing; shown only while there are some. */
    ...(engine.deferredCollections?.length ? { deferredCollections: engine.deferredCollections } : {}),
  } as const;
}
