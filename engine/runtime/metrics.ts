/**
 * The engine's metrics in Prometheus text (prom-client), served at `/metrics` on
 * `ENGINE_METRICS_PORT`. Persisted figures (intents, nonce lag, pending per leg, RPC state)
 * are read from PostgreSQL and the chain when scraped; in-process events (worker cycles,
 * leadership) are counted as they happen. Names and units are listed in the README.
 *
 * Money: the pending legs are USDC base units (6 decimals) — the exposition is a float, exact
 * up to 2^53 base units (9 billion USDC); this is the one place money leaves as a float.
 */
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { and, count, eq, inArray, isNull, max, or, sql } from "drizzle-orm";
import type pg from "pg";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { Address, PublicClient } from "viem";
import type { Logger } from "../../common/logger.js";
import { type Db, dbOf, tables } from "../../core/db/client.js";
import { DEFAULT_PIPELINE_OPTIONS, GAS_RETRY_SUFFIX } from "../../core/chain/pipeline/index.js";
import { OUT_OF_GAS } from "../../core/chain/revert-cause.js";
import { SWAP_KIND } from "../../core/chain/swap/send.js";
import { describeError } from "../../core/errors.js";
import type { CycleOutcome } from "./scheduler.js";

/** Intent statuses, each exposed even at zero. */
export const INTENT_STATUSES = ["pending", "signed", "broadcast", "mined", "reverted", "failed"] as const;
/** The USDC legs a worker spends: what is pending. */
export const PENDING_USDC_LEGS = ["protocol", "asset", "perp", "creator-buyback"] as const;
/** Worker cycle duration buckets, seconds (cycles wait for receipts: up to minutes). */
export const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** How often the RPC state row is sampled: half the monitor's 5 s, so no check goes unseen. */
export const RPC_SAMPLE_MS = 2_500;

export type MetricsSource = {
  pool: pg.Pool;
  /** For the nonce lag; without it the lag reads NaN. */
  publicClient?: PublicClient;
  operator?: Address;
  log: Logger;
};

export type EngineMetrics = {
  registry: Registry;
  /** Records one worker cycle (runs, failures, duration). */
  observeCycle: (worker: string, outcome: CycleOutcome) => void;
  /** 1 while this process holds the engine's leadership lock. */
  setLeader: (leading: boolean) => void;
  /** Reads the RPC monitor's state row and counts a failed check not seen before. */
  sampleRpc: () => Promise<void>;
  /** Samples the RPC state every `RPC_SAMPLE_MS` until `stop`. */
  startSampling: (intervalMs?: number) => void;
  stop: () => void;
};

type Snapshot = {
  intents: Map<string, number>;
  oldestNonFinalSeconds: number;
  maxMinedNonce: number | null;
  pending: Map<string, bigint>;
  /** Reverted intents by cause ("out-of-gas" or "revert"). */
  reverts: Map<string, number>;
  /** Out-of-gas reverts of a retryable kind with no mined retry. */
  outOfGasUnretried: number;
};

async function readSnapshot(db: Db, operator: Address | undefined): Promise<Snapshot> {
  const { txIntents, ledgerBalances } = tables;
  const outOfGas = sql`${txIntents.revertReason} LIKE ${`${OUT_OF_GAS}%`}`;
  const [intents, [oldest], [nonce], legs, reverts, [unretried]] = await Promise.all([
    db.select({ status: txIntents.status, n: count() }).from(txIntents).groupBy(txIntents.status),
    db
      .select({ age: sql<string | null>`EXTRACT(EPOCH FROM now() - min(${txIntents.createdAt}))::text` })
      .from(txIntents)
      .where(
        or(inArray(txIntents.status, ["pending", "signed", "broadcast"]), and(inArray(txIntents.status, ["mined", "reverted"]), isNull(txIntents.finalAt))),
      ),
    db
      .select({ nonce: max(txIntents.nonce) })
      .from(txIntents)
      .where(and(inArray(txIntents.status, ["mined", "reverted"]), eq(txIntents.signer, operator ?? ""))),
    db
      .select({ leg: ledgerBalances.leg, balance: sql<string>`SUM(${ledgerBalances.balance})::text` })
      .from(ledgerBalances)
      .where(and(eq(ledgerBalances.currency, "USDC"), inArray(ledgerBalances.leg, [...PENDING_USDC_LEGS])))
      .groupBy(ledgerBalances.leg),
    db
      .select({ outOfGas: sql<boolean>`${outOfGas}`, n: count() })
      .from(txIntents)
      .where(eq(txIntents.status, "reverted"))
      .groupBy(sql`1`),
    // Raw SQL: an anti-join on the retry's key, which the query builder cannot alias twice.
    db
      .select({ n: count() })
      .from(txIntents)
      .where(
        and(
          eq(txIntents.status, "reverted"),
          outOfGas,
          inArray(txIntents.kind, [...DEFAULT_PIPELINE_OPTIONS.gasRetryKinds, SWAP_KIND]),
          sql`${txIntents.key} NOT LIKE ${`%${GAS_RETRY_SUFFIX}`}`,
          sql`NOT EXISTS (SELECT 1 FROM engine.tx_intents r WHERE r.key = ${txIntents.key} || ${GAS_RETRY_SUFFIX} AND r.status = 'mined')`,
        ),
      ),
  ]);
  return {
    intents: new Map(intents.map((r) => [r.status, r.n])),
    oldestNonFinalSeconds: oldest?.age == null ? 0 : Number(oldest.age),
    maxMinedNonce: nonce?.nonce ?? null,
    pending: new Map(legs.map((r) => [r.leg, BigInt(r.balance)])),
    reverts: new Map(reverts.map((r) => [r.outOfGas ? "out-of-gas" : "revert", r.n])),
    outOfGasUnretried: unretried?.n ?? 0,
  };
}

/** The engine's registry with every metric; persisted figures are read on each scrape. */
export function createEngineMetrics(source: MetricsSource): EngineMetrics {
  const { publicClient, operator, log } = source;
  const db = dbOf(source.pool);
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // One database read per scrape, shared by the gauges that collect from it.
  let inFlight: Promise<Snapshot | undefined> | undefined;
  const snapshot = () => {
    inFlight ??= readSnapshot(db, operator)
      .catch((error) => {
        log.warn({ err: describeError(error) }, "metrics: could not read the engine tables");
        return undefined;
      })
      .finally(() => setImmediate(() => (inFlight = undefined)));
    return inFlight;
  };

  const runs = new Counter({ name: "engine_worker_runs_total", help: "Worker cycles run by this process", labelNames: ["worker"], registers: [registry] });
  const failures = new Counter({
    name: "engine_worker_failures_total",
    help: "Worker cycles that failed in this process",
    labelNames: ["worker"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "engine_worker_duration_seconds",
    help: "Duration of worker cycles, seconds",
    labelNames: ["worker", "outcome"],
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const leader = new Gauge({ name: "engine_leader", help: "1 while this process holds the engine leadership lock", registers: [registry] });
  leader.set(0);

  new Gauge({
    name: "engine_tx_intents",
    help: "Transaction intents by status (every signer)",
    labelNames: ["status"],
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (!s) return;
      for (const status of INTENT_STATUSES) this.set({ status }, s.intents.get(status) ?? 0);
    },
  });
  new Gauge({
    name: "engine_tx_intent_oldest_nonfinal_age_seconds",
    help: "Age of the oldest intent not yet final (pending, signed, broadcast, or mined/reverted before finality); 0 when none",
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (s) this.set(s.oldestNonFinalSeconds);
    },
  });
  new Gauge({
    name: "engine_nonce_lag",
    help: "Operator's pending nonce on the chain minus (highest nonce of its mined or reverted intents + 1); NaN when unknown",
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (!s || !publicClient || !operator) return this.set(Number.NaN);
      try {
        const chain = await publicClient.getTransactionCount({ address: operator, blockTag: "pending" });
        this.set(chain - ((s.maxMinedNonce ?? -1) + 1));
      } catch (error) {
        log.warn({ err: describeError(error) }, "metrics: could not read the operator's nonce");
        this.set(Number.NaN);
      }
    },
  });
  new Gauge({
    name: "engine_tx_reverted_intents",
    help: "Intents reverted onchain, by cause: out-of-gas (the receipt used its whole limit, or a trace says a call ran out) or revert",
    labelNames: ["cause"],
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (!s) return;
      for (const cause of ["out-of-gas", "revert"]) this.set({ cause }, s.reverts.get(cause) ?? 0);
    },
  });
  new Gauge({
    name: "engine_tx_out_of_gas_unretried",
    help: "Out-of-gas reverts of a retried kind (collects, claims, swaps) whose retry with a higher limit has not mined",
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (s) this.set(s.outOfGasUnretried);
    },
  });
  new Gauge({
    name: "engine_pending_usdc_base_units",
    help: "USDC waiting in each spendable leg of the ledger (engine.ledger_balances), base units (1 USDC = 1e6)",
    labelNames: ["leg"],
    registers: [registry],
    async collect() {
      const s = await snapshot();
      if (!s) return;
      for (const leg of PENDING_USDC_LEGS) this.set({ leg }, Number(s.pending.get(leg) ?? 0n));
    },
  });

  let lastFailedCheck: string | undefined;
  let rpcReachable: Gauge | undefined;
  let rpcFailures: Counter | undefined;
  async function readRpcState(): Promise<void> {
    try {
      const [row] = await db.select({ value: tables.engineState.value }).from(tables.engineState).where(eq(tables.engineState.key, "rpc"));
      const rpc = row?.value as { reachable?: boolean; checkedAt?: string } | undefined;
      if (!rpc || typeof rpc.reachable !== "boolean") return;
      rpcReachable?.set(rpc.reachable ? 1 : 0);
      if (!rpc.reachable && rpc.checkedAt && rpc.checkedAt !== lastFailedCheck) {
        lastFailedCheck = rpc.checkedAt;
        rpcFailures?.inc();
      }
    } catch (error) {
      log.warn({ err: describeError(error) }, "metrics: could not read the RPC state");
    }
  }
  // Sampled between scrapes and on each scrape (one read shared by both RPC metrics).
  let sampling: Promise<void> | undefined;
  const sampleRpc = () => {
    sampling ??= readRpcState().finally(() => setImmediate(() => (sampling = undefined)));
    return sampling;
  };
  rpcFailures = new Counter({
    name: "engine_rpc_errors_total",
    help: "Failed RPC checks of the engine's monitor (one each 5 s while the RPC fails), counted from its state row",
    registers: [registry],
    collect: sampleRpc,
  });
  rpcReachable = new Gauge({
    name: "engine_rpc_reachable",
    help: "1 when the monitor's last RPC check succeeded, 0 when it failed, NaN before any check",
    registers: [registry],
    collect: sampleRpc,
  });
  rpcReachable.set(Number.NaN);

  let timer: NodeJS.Timeout | undefined;
  return {
    registry,
    observeCycle(worker, outcome) {
      runs.inc({ worker });
      if (!outcome.ok) failures.inc({ worker });
      duration.observe({ worker, outcome: outcome.ok ? "ok" : "failed" }, outcome.ms / 1000);
    },
    setLeader: (leading) => leader.set(leading ? 1 : 0),
    sampleRpc,
    startSampling(intervalMs = RPC_SAMPLE_MS) {
      timer ??= setInterval(() => void sampleRpc(), intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}

export type MetricsServer = { port: number; close: () => Promise<void> };

/** Serves `GET /metrics` on `port` (0 picks a free one); every other path is 404. */
export async function serveMetrics(metrics: EngineMetrics, port: number, host?: string): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
      (error) => res.writeHead(500, { "content-type": "text/plain" }).end(`${describeError(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
