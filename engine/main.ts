/**
 * The engine process: validated config, structured logs, single leadership through a lease
 * in PostgreSQL with a fencing epoch (hot standbys wait for it to expire; a leader that loses
 * it stands down at once, exit code 75, and comes back as a standby), startup reconciliation (in-flight
 * transactions resumed, fee attribution caught up, desks re-bound to the exchange), then the
 * eight workers on their schedule until SIGINT/SIGTERM, which lets running cycles finish.
 */
import { loadConfigOrExit } from "../common/config.js";
import { createLogger } from "../common/logger.js";
import { resumeAgentLaunches } from "../core/launch/agent.js";
import { createAgentServices } from "../core/agents/services.js";
import { createEngine, reconcileWithRetry, retryUntilDone } from "./runtime/engine.js";
import { classifyError, describeError } from "../core/errors.js";
import { parseFaults } from "../core/faults.js";
import { acquireLeadership } from "./runtime/leader.js";
import { type MetricsServer, createEngineMetrics, serveMetrics } from "./runtime/metrics.js";
import { observeCycles } from "./runtime/scheduler.js";
import { createChainClients } from "../core/chain/client.js";
import { openEngineDb } from "../core/db/client.js";

const config = loadConfigOrExit();
const log = createLogger("engine", config.logLevel, config.logFormat);

if (!config.databaseUrl) {
  log.error("DATABASE_URL is not set: the engine keeps its ledger in PostgreSQL");
  process.exit(1);
}

const shutdown = new AbortController();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    log.info({ signal }, "engine stopping");
    shutdown.abort();
  });
}

// A database or RPC connection error that escaped its caller is logged, never fatal: the
// engine waits out outages of any length (its workers retry, its leadership is suspended).
// Anything else is a bug: logged, and the process exits for its supervisor to restart it.
process.on("unhandledRejection", (error) => {
  const e = classifyError(error);
  if (e.code === "database-unavailable" || e.code === "rpc-unavailable" || e.code === "timeout") {
    log.warn({ err: describeError(error) }, "connection error outside a worker cycle; continuing");
    return;
  }
  log.fatal({ err: describeError(error), stack: error instanceof Error ? error.stack : undefined }, "unhandled rejection");
  process.exit(1);
});

// Crash injection for the fault tests only (never set in production).
const faults = parseFaults(process.env.ENGINE_CRASH_AT, log);

/**
 * Agent launches a crash interrupted resume here, step by step from their intents, so none
 * deploys twice; one that cannot resume stays retryable through its launch route.
 */
async function resumeInterruptedLaunches(): Promise<void> {
  const agents = createAgentServices(config, { log: log.child({ component: "agents" }) });
  try {
    await agents.ready();
    const { resumed, failed } = await resumeAgentLaunches(agents);
    if (resumed.length || failed.length) log.info({ resumed, failed }, "interrupted agent launches");
  } catch (error) {
    log.warn({ err: error instanceof Error ? error.message : String(error) }, "could not resume agent launches");
  } finally {
    await agents.close();
  }
}

/**
 * Prometheus metrics on ENGINE_METRICS_PORT (0: off), served by leader and standbys alike
 * (a standby reports `engine_leader 0`), from a small pool of its own.
 */
async function startMetrics(
  databaseUrl: string,
): Promise<{ metrics: ReturnType<typeof createEngineMetrics>; server: MetricsServer; close: () => Promise<void> } | undefined> {
  if (config.engineMetricsPort === 0) return undefined;
  const database = openEngineDb(databaseUrl, "launchpad-engine-metrics");
  const clients = createChainClients(config);
  const metrics = createEngineMetrics({
    pool: database.pool,
    publicClient: clients.publicClient,
    operator: clients.account.address,
    log: log.child({ component: "metrics" }),
  });
  try {
    const server = await serveMetrics(metrics, config.engineMetricsPort);
    metrics.startSampling();
    log.info({ url: `http://127.0.0.1:${server.port}/metrics` }, "engine metrics served");
    const close = async () => {
      metrics.stop();
      await server.close();
      await database.close();
    };
    return { metrics, server, close };
  } catch (error) {
    log.warn({ port: config.engineMetricsPort, err: error instanceof Error ? error.message : String(error) }, "could not serve engine metrics");
    await database.close();
    return undefined;
  }
}

const exporter = await startMetrics(config.databaseUrl);
const leadership = await acquireLeadership(config.databaseUrl, log, { ttlMs: config.leaderLeaseSeconds * 1_000, signal: shutdown.signal });
if (leadership) {
  exporter?.metrics.setLeader(true);
  // Leadership lost (another engine took the lease, or it ran out unrenewed): the fence has
  // closed, so nothing more is signed or sent; stop now, work in flight resumes from its rows
  // under the new leader.
  void leadership.lost.then((reason) => {
    log.fatal({ epoch: leadership.epoch.toString(), reason }, `engine leadership lost: ${reason}; standing down`);
    process.exit(75);
  });
  // Every step waits out a database (or RPC) that cannot be reached, however long.
  const engine = await retryUntilDone("starting the engine", () => createEngine({ config, log, faults, fence: leadership.fence }), log, shutdown.signal);
  if (engine) {
    if (exporter) observeCycles(engine.ctx, exporter.metrics.observeCycle);
    await reconcileWithRetry(engine, log, shutdown.signal);
    await resumeInterruptedLaunches();
    if (!shutdown.signal.aborted && (await retryUntilDone("starting the workers", () => engine.start().then(() => true), log, shutdown.signal))) {
      log.info({ operator: config.operator, chainId: config.chainId, scale: config.workerIntervalScale }, "engine running");
      await new Promise<void>((resolve) => shutdown.signal.addEventListener("abort", () => resolve(), { once: true }));
    }
    await engine.stop();
  }
  await leadership.release();
  exporter?.metrics.setLeader(false);
}
await exporter?.close();
log.info("engine stopped");
process.exit(0);
