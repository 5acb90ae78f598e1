/**
 * Health of the engine for `GET /api/v1/health` (read by the API from the engine tables):
 * per-worker schedule and outcome, the RPC status the engine last saw, its heartbeat, which
 * engine leads and since when, and the pipeline's permanent failures. Status is `degraded` when a worker's last run failed, the
 * RPC is unreachable, the engine's heartbeat is stale, or no engine holds a live lease.
 */
import { asc, inArray } from "drizzle-orm";
import type pg from "pg";
import { pipelineHealth } from "./chain/pipeline/index.js";
import { dbOf, tables } from "./db/client.js";
import { readLease } from "./leadership.js";
import { type PerpsVenueId, perpsVenueStatus } from "../common/perps-venues.js";
import { PG_NOT_MIGRATED } from "../common/pg-errors.js";

/** A heartbeat older than this means the engine is not running. */
export const HEARTBEAT_STALE_MS = 60_000;
/** An intent not mined this long after it was created is stuck (it degrades health). */
export const STUCK_INTENT_SECONDS = 300;

export type LastReorg = { at: string; forkBlock: number; reopened: string[]; reversed: number } | null;

export type WorkerHealth = {
  name: string;
  minIntervalSeconds: number;
  maxIntervalSeconds: number;
  lastRunAt: string | null;
  lastSuccessAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  runs: number;
  failures: number;
  running: boolean;
  nextRunAt: string | null;
  healthy: boolean;
};

/** The engine that leads (the lease holder: host, pid and a random suffix) and since when. */
export type LeaderHealth = { holder: string; epoch: string; since: string; renewedAt: string; expiresAt: string; live: boolean } | null;

/**
 * Whether the desks trade: the perps adapter (`PERPS_VENUE`) and, when it does not declare the
 * chain, why desks are off (no perps call is sent; the perp leg keeps accumulating).
 */
export type DesksHealth = {
  enabled: boolean;
  venue: string;
  protocol: string;
  chainId: number;
  reason: string | null;
  /** The venue's last preflight against its exchange (gains-v10), when the venue has one. */
  preflight?: DesksPreflight;
};

/** One preflight check: its id (`facet:openTrade`, `trading-activated`, …), its verdict and a sentence saying why. */
export type PreflightCheck = { id: string; verdict: "pass" | "fail"; says: string };

/** A venue's preflight: every check read from the exchange (`eth_call` only) before a perps call is sent. */
export type DesksPreflight = { ok: boolean; diamond: string; checkedAt: string; checks: PreflightCheck[] };

/** The desks' state under a configuration (the engine records it with its heartbeat). */
export function desksHealth(config: { perpsVenue: PerpsVenueId; chainId: number }): DesksHealth {
  const s = perpsVenueStatus(config);
  return { enabled: s.enabled, venue: s.venue, protocol: `${s.protocol} ${s.version}`, chainId: s.chainId, reason: s.enabled ? null : s.reason };
}

/**
 * The desks as the engine last recorded them (at its start and, for a venue with a preflight, at
 * every desk cycle), or null before an engine ran against this database.
 */
export async function readDesksHealth(pool: pg.Pool): Promise<DesksHealth | null> {
  const { engineState } = tables;
  try {
    const [row] = await dbOf(pool)
      .select({ value: engineState.value })
      .from(engineState)
      .where(inArray(engineState.key, ["desks"]));
    return (row?.value as DesksHealth | undefined) ?? null;
  } catch (error) {
    if (PG_NOT_MIGRATED.has((error as { code?: string }).code ?? "")) return null;
    throw error;
  }
}

/** The page's one line on why desks are off, or undefined when they trade. */
export function desksOffLine(desks: DesksHealth): string | undefined {
  if (desks.enabled) return undefined;
  const failed = desks.preflight?.checks.filter((c) => c.verdict === "fail") ?? [];
  if (failed.length) {
    const named = failed.slice(0, 3).map((c) => c.says);
    if (failed.length > named.length) named.push(`and ${failed.length - named.length} more`);
    return `Desks are off on chain ${desks.chainId}: the ${desks.protocol} preflight failed (${named.join("; ")}), so nothing is traded; the perp leg keeps accumulating.`;
  }
  return `Desks are off on chain ${desks.chainId}: the perps adapter ${desks.venue} (${desks.protocol}) does not support it, so nothing is traded; the perp leg keeps accumulating.`;
}

export type EngineHealth = {
  status: "ok" | "degraded";
  reasons: string[];
  leader: LeaderHealth;
  engine: { running: boolean; heartbeatAt: string | null; startedAt: string | null; pid: number | null; workerIntervalScale: number | null };
  rpc: { reachable: boolean | null; block: number | null; lastError: string | null; checkedAt: string | null };
  workers: WorkerHealth[];
  transactions: Awaited<ReturnType<typeof pipelineHealth>> & { lastReorg: LastReorg };
  /** The desks as the engine recorded them at its last start; null before it ever started. */
  desks: DesksHealth | null;
  /**
   * Collections the fee-claimer deferred because their conversion would yield nothing
   * (engine/fees/deferred.ts): not a degradation, their fees wait in the pool.
   */
  deferredCollections: { token: string; reason: string; since: string; attempts: number }[];
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const NOT_STARTED: EngineHealth = {
  status: "degraded",
  reasons: ["engine has not started"],
  leader: null,
  engine: { running: false, heartbeatAt: null, startedAt: null, pid: null, workerIntervalScale: null },
  rpc: { reachable: null, block: null, lastError: null, checkedAt: null },
  workers: [],
  transactions: { counts: {}, failures: [], notFinal: [], lastReorg: null },
  desks: null,
  deferredCollections: [],
};

/**
 * Reads the engine's health from what it persisted (no chain call): its workers, state rows
 * and the pipeline, in parallel, each read bounded by the work in flight rather than by
 * history. Works (and answers `degraded`) before the engine ever ran.
 */
export async function readWorkerHealth(pool: pg.Pool, now = Date.now()): Promise<EngineHealth> {
  const db = dbOf(pool);
  const { workerState, engineState: stateTable } = tables;
  let read;
  try {
    read = await Promise.all([
      db.select().from(workerState).orderBy(asc(workerState.name)),
      db
        .select({ key: stateTable.key, value: stateTable.value })
        .from(stateTable)
        .where(inArray(stateTable.key, ["engine", "rpc", "last-reorg", "desks", "fee-routing", "fee-collections"])),
      pipelineHealth(pool),
      readLease(db),
    ]);
  } catch (error) {
    if (PG_NOT_MIGRATED.has((error as { code?: string }).code ?? "")) return structuredClone(NOT_STARTED);
    throw error;
  }
  const [rows, stateRows, transactions, lease] = read;
  const workers: WorkerHealth[] = rows.map((r) => {
    const failedLast = !!r.lastErrorAt && (!r.lastSuccessAt || r.lastErrorAt > r.lastSuccessAt);
    return {
      name: r.name,
      minIntervalSeconds: r.minIntervalSeconds,
      maxIntervalSeconds: r.maxIntervalSeconds,
      lastRunAt: iso(r.lastRunAt),
      lastSuccessAt: iso(r.lastSuccessAt),
      lastError: failedLast ? r.lastError : null,
      lastErrorAt: iso(r.lastErrorAt),
      runs: r.runs,
      failures: r.failures,
      running: r.running,
      nextRunAt: iso(r.nextRunAt),
      healthy: !failedLast,
    };
  });
  const engineState = stateRows.find((r) => r.key === "engine")?.value as
    | { heartbeatAt?: string; startedAt?: string; pid?: number; workerIntervalScale?: number }
    | undefined;
  const desks = (stateRows.find((r) => r.key === "desks")?.value as DesksHealth | undefined) ?? null;
  const rpcState = stateRows.find((r) => r.key === "rpc")?.value as
    | { reachable?: boolean; block?: number; lastError?: string | null; checkedAt?: string }
    | undefined;
  const heartbeatAt = engineState?.heartbeatAt ?? null;
  const running = heartbeatAt !== null && now - Date.parse(heartbeatAt) < HEARTBEAT_STALE_MS;
  const reasons: string[] = [];
  if (!running) reasons.push("engine is not running (no recent heartbeat)");
  // No engine leads: the last term ran out (its holder killed, frozen or cut off) and no standby took over.
  if (lease && lease.expiresAt.getTime() <= now) {
    const ago = Math.round((now - lease.expiresAt.getTime()) / 1000);
    reasons.push(
      `no engine holds a live lease: the lease of epoch ${lease.epoch} (${lease.holder}) expired ${ago} s ago, at ${lease.expiresAt.toISOString()}, last renewed at ${lease.renewedAt.toISOString()}`,
    );
  }
  if (rpcState?.reachable === false) reasons.push(`RPC unreachable: ${rpcState.lastError ?? "no answer"}`);
  for (const w of workers) if (!w.healthy) reasons.push(`${w.name}: ${w.lastError}`);
  for (const t of transactions.notFinal) {
    if (["pending", "signed", "broadcast"].includes(t.status) && t.ageSeconds > STUCK_INTENT_SECONDS) {
      reasons.push(`transaction ${t.key} ${t.status} for ${t.ageSeconds} s${t.error ? `: ${t.error}` : ""}`);
    }
  }
  // Tokens the fee-claimer does not route: an operator reward slot no longer paid in the paired currency.
  const feeRouting = stateRows.find((r) => r.key === "fee-routing")?.value as { unrouted?: { reason: string }[] } | undefined;
  for (const u of feeRouting?.unrouted ?? []) reasons.push(u.reason);
  const reorg = stateRows.find((r) => r.key === "last-reorg")?.value as { at: string; forkBlock: number; reopened: string[]; reversed: number } | undefined;
  const leader: LeaderHealth = lease
    ? {
        holder: lease.holder,
        epoch: lease.epoch.toString(),
        since: lease.acquiredAt.toISOString(),
        renewedAt: lease.renewedAt.toISOString(),
        expiresAt: lease.expiresAt.toISOString(),
        live: lease.expiresAt.getTime() > now,
      }
    : null;
  return {
    status: reasons.length ? "degraded" : "ok",
    reasons,
    leader,
    engine: {
      running,
      heartbeatAt,
      startedAt: engineState?.startedAt ?? null,
      pid: engineState?.pid ?? null,
      workerIntervalScale: engineState?.workerIntervalScale ?? null,
    },
    rpc: {
      reachable: rpcState?.reachable ?? null,
      block: rpcState?.block ?? null,
      lastError: rpcState?.lastError ?? null,
      checkedAt: rpcState?.checkedAt ?? null,
    },
    workers,
    transactions: {
      ...transactions,
      lastReorg: reorg ? { at: reorg.at, forkBlock: reorg.forkBlock, reopened: reorg.reopened, reversed: reorg.reversed } : null,
    },
    desks,
    deferredCollections:
      (stateRows.find((r) => r.key === "fee-collections")?.value as { deferred?: EngineHealth["deferredCollections"] } | undefined)?.deferred ?? [],
  };
}
