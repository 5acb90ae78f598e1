/**
 * Assembles the engine from a validated config: database (migrated), chain clients, the
 * transaction pipeline, the workers and their scheduler, plus the startup reconciliation and
 * the heartbeat/RPC monitor that health reads. Used by `engine/main.ts` (the process) and
 * `engine/cli.ts` (one cycle on demand).
 */
import type { Config } from "../../common/config.js";
import type { Logger } from "../../common/logger.js";
import { sleep } from "../../common/async.js";
import { createChainClients } from "../../core/chain/client.js";
import { type FinalityReport, checkFinality } from "../reorg/finality.js";
import { type PipelineOptions, TxPipeline } from "../../core/chain/pipeline/index.js";
import { contractResolver, type EngineContext, newEngineLocal } from "../../core/context.js";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { reconcileTokenDesks } from "../desks/reconcile.js";
import { describeError } from "../../core/errors.js";
import { attributeClaims } from "../fees/attribution.js";
import { recognizeLegacyWeth } from "../fees/weth.js";
import { type Faults, NO_FAULTS } from "../../core/faults.js";
import type { Fence } from "../../core/leadership.js";
import { ReorgGate } from "../../core/reorg-gate.js";
import { rewindEngine } from "../reorg/rewind.js";
import { recordOpeningBalance } from "../../core/audit.js";
import { type CycleOutcome, Scheduler, registerWorkers, runWorkerCycle } from "./scheduler.js";
import { setState } from "./state.js";
import { refreshTokenCache } from "../../core/registry-cache.js";
import { WORKERS, type WorkerName } from "../workers/index.js";
import { desksHealth } from "../../core/health.js";

/** How often the engine records its heartbeat and checks the RPC. */
export const MONITOR_INTERVAL_MS = 5_000;

export type EngineOptions = {
  config: Config;
  log: Logger;
  faults?: Faults;
  pipeline?: Partial<PipelineOptions>;
  monitorIntervalMs?: number;
  /** The leader's fence (engine/runtime/leader.ts): every intent transition checks its epoch. */
  fence?: Fence;
};

export type Engine = {
  ctx: EngineContext;
  database: EngineDb;
  /** Startup work: check finality, resume in-flight transactions, catch up attribution, reconcile desks. */
  reconcile: () => Promise<Record<string, unknown>>;
  /** One pass of the finality watcher (reorgs undone, intents finalised), between worker cycles. */
  checkFinality: () => Promise<FinalityReport>;
  start: () => Promise<void>;
  stop: () => Promise<void>;
  /** One cycle of one worker (with health bookkeeping). */
  runOnce: (name: WorkerName) => Promise<CycleOutcome>;
  scheduler: Scheduler;
};

/** Pipeline tuning for the devnet (one-second blocks) and for a live chain. */
export function pipelineDefaults(config: Config): Partial<PipelineOptions> {
  const common = { gasCeiling: config.txGasCeiling };
  return config.isDevnet ? { ...common, pollMs: 100, stuckAfterMs: 15_000, maxWaitMs: 60_000 } : common;
}

export async function createEngine(options: EngineOptions): Promise<Engine> {
  const { config, log } = options;
  if (!config.databaseUrl) throw new Error("DATABASE_URL is not set: the engine keeps its ledger in PostgreSQL");
  const database = openEngineDb(config.databaseUrl);
  await migrate(database.pool).catch(async (error) => {
    await database.close().catch(() => {});
    throw error;
  });
  const clients = createChainClients(config);
  const faults = options.faults ?? NO_FAULTS;
  const pipeline = new TxPipeline({
    pool: database.pool,
    clients,
    log,
    faults,
    fence: options.fence,
    options: { ...pipelineDefaults(config), ...options.pipeline },
  });
  const ctx: EngineContext = {
    config,
    log,
    db: database.db,
    pool: database.pool,
    clients,
    publicClient: clients.publicClient,
    operator: clients.account.address,
    pipeline,
    faults,
    gate: new ReorgGate(),
    contract: contractResolver(config),
    local: newEngineLocal(),
  };
  const workers = Object.values(WORKERS);
  const scheduler = new Scheduler(ctx, workers, { scale: config.workerIntervalScale, fence: options.fence });
  let monitor: NodeJS.Timeout | undefined;
  const startedAt = new Date().toISOString();

  let watching: Promise<FinalityReport> | undefined;
  /** The finality watcher, exclusive of worker cycles; concurrent callers share one pass. */
  function watchFinality(): Promise<FinalityReport> {
    watching ??= ctx.gate
      .exclusive(async () => {
        const report = await checkFinality({
          db: ctx.db,
          fence: options.fence,
          publicClient: ctx.publicClient,
          log,
          confirmations: config.confirmations,
          rewind: rewindEngine,
        });
        // Re-sent bytes mined again are settled for every signer.
        await pipeline.settleReorged();
        await setState(ctx.db, "finality", { head: report.head, checkedAt: new Date().toISOString(), confirmations: config.confirmations });
        if (report.lost.length) {
          await setState(ctx.db, "last-reorg", {
            at: new Date().toISOString(),
            forkBlock: Math.min(...report.lost.map((b) => b.number)),
            lost: report.lost,
            reopened: report.reopened,
            reversed: report.reversed,
          });
        }
        // Every operator intent holding a nonce is driven on every tick, not only after a
        // reopening: one whose last drive gave up (the RPC away, a timeout, the chain behind)
        // may belong to a cycle that is done and will never send it again. Nothing in flight
        // costs one query; a drive that fails again is retried on the next tick.
        await pipeline
          .resumeInFlight()
          .catch((error) => log.warn({ err: describeError(error) }, "transactions in flight not settled yet; driving them again on the next tick"));
        // An out-of-gas outcome settled by that drive (or by a reorg) may have no caller left to retry it.
        await pipeline
          .retryOutOfGasLeftBehind()
          .catch((error) => log.warn({ err: describeError(error) }, "out-of-gas retries not sent yet; trying again on the next tick"));
        return report;
      })
      .finally(() => {
        watching = undefined;
      });
    return watching;
  }

  async function checkRpc(): Promise<void> {
    const checkedAt = new Date().toISOString();
    try {
      const block = await clients.publicClient.getBlockNumber({ cacheTime: 0 });
      await setState(ctx.db, "rpc", { reachable: true, block: Number(block), lastError: null, checkedAt });
      // Not awaited: it waits for running worker cycles, and the heartbeat must not.
      void watchFinality().catch((error) => log.warn({ err: describeError(error) }, "finality check failed; retrying on the next tick"));
    } catch (error) {
      await setState(ctx.db, "rpc", { reachable: false, block: null, lastError: describeError(error), checkedAt }).catch(() => {});
    }
    await setState(ctx.db, "engine", {
      pid: process.pid,
      startedAt,
      heartbeatAt: new Date().toISOString(),
      operator: ctx.operator,
      chainId: config.chainId,
      workerIntervalScale: config.workerIntervalScale,
    }).catch(() => {});
  }

  async function reconcile(): Promise<Record<string, unknown>> {
    const report: Record<string, unknown> = {};
    await registerWorkers(ctx, workers);
    // Whether desks trade on this chain (the perps adapter declares it), as /health shows it.
    await setState(ctx.db, "desks", desksHealth(config));
    report.finality = await watchFinality();
    await pipeline.resumeInFlight();
    const step = async (name: string, fn: () => Promise<unknown>) => {
      try {
        report[name] = await fn();
      } catch (error) {
        report[name] = { error: describeError(error) };
        log.warn({ step: name, err: describeError(error) }, "startup step failed; the workers retry it");
      }
    };
    await step("tokens", async () => (await refreshTokenCache(ctx)).length);
    const head = await clients.publicClient.getBlockNumber({ cacheTime: 0 });
    await step("attributionUsdc", () => attributeClaims(ctx, "USDC", head));
    await step("attributionWeth", () => attributeClaims(ctx, "WETH", head));
    await step("legacyWeth", async () => String(await recognizeLegacyWeth(ctx, head)));
    await step("desks", () => reconcileTokenDesks(ctx));
    await step("openingBalance", () =>
      recordOpeningBalance({
        db: ctx.db,
        pool: ctx.pool,
        publicClient: ctx.publicClient,
        operator: ctx.operator,
        usdc: ctx.contract("usdc"),
        weth: ctx.contract("weth"),
      }),
    );
    return report;
  }

  return {
    ctx,
    database,
    scheduler,
    reconcile,
    checkFinality: watchFinality,
    async start() {
      await checkRpc();
      // Retried by the caller while the database is unreachable: one monitor only.
      if (monitor) clearInterval(monitor);
      monitor = setInterval(
        () => void checkRpc().catch((error) => log.warn({ err: describeError(error) }, "engine heartbeat failed; retrying on the next tick")),
        options.monitorIntervalMs ?? MONITOR_INTERVAL_MS,
      );
      await scheduler.start();
    },
    async stop() {
      if (monitor) clearInterval(monitor);
      await scheduler.stop();
      await pipeline.onIdle();
      await database.close();
    },
    runOnce: (name) => runWorkerCycle(ctx, WORKERS[name]),
  };
}

/**
 * Runs `fn` until it succeeds (the database or the RPC may be unreachable), with backoff from
 * 0.5 s to 30 s, or until the signal aborts (then undefined).
 */
export async function retryUntilDone<T>(what: string, fn: () => Promise<T>, log: Logger, signal: AbortSignal): Promise<T | undefined> {
  for (let attempt = 1; !signal.aborted; attempt++) {
    try {
      return await fn();
    } catch (error) {
      const delay = Math.min(30_000, 500 * 2 ** Math.min(attempt - 1, 6));
      log.warn({ err: describeError(error), retryInMs: delay }, `${what} failed; retrying`);
      await pauseFor(delay, signal);
    }
  }
  return undefined;
}

function pauseFor(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Runs `reconcile` until it succeeds (the RPC may be down at start), or the signal aborts. */
export async function reconcileWithRetry(engine: Engine, log: Logger, signal: AbortSignal): Promise<void> {
  for (let attempt = 1; !signal.aborted; attempt++) {
    try {
      const report = await engine.reconcile();
      log.info({ report }, "startup reconciliation done");
      return;
    } catch (error) {
      const delay = Math.min(30_000, 500 * 2 ** Math.min(attempt, 6));
      log.warn({ err: describeError(error), retryInMs: delay }, "startup reconciliation failed; retrying");
      await sleep(delay);
    }
  }
}
