/**
 * The engine process: validated config, structured logs, single leadership through a
 * PostgreSQL advisory lock (hot standbys wait on it), startup reconciliation (in-flight
 * transactions resumed, fee attribution caught up, desks re-bound to the exchange), then the
 * eight workers on their schedule until SIGINT/SIGTERM, which lets running cycles finish.
 */
import { loadConfigOrExit } from "../common/config.js";
import { createLogger } from "../common/logger.js";
import { resumeAgentLaunches } from "./agents/launch.js";
import { createAgentServices } from "./agents/services.js";
import { createEngine, reconcileWithRetry } from "./engine.js";
import { parseFaults } from "./faults.js";
import { acquireLeadership } from "./leader.js";

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

const leadership = await acquireLeadership(config.databaseUrl, log, { signal: shutdown.signal });
if (leadership) {
  const engine = await createEngine({ config, log, faults });
  await reconcileWithRetry(engine, log, shutdown.signal);
  await resumeInterruptedLaunches();
  if (!shutdown.signal.aborted) {
    await engine.start();
    log.info({ operator: config.operator, chainId: config.chainId, scale: config.workerIntervalScale }, "engine running");
    await new Promise<void>((resolve) => shutdown.signal.addEventListener("abort", () => resolve(), { once: true }));
  }
  await engine.stop();
  await leadership.release();
}
log.info("engine stopped");
process.exit(0);
