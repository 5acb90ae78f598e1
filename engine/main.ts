/**
 * The engine process: validated config, structured logs, single leadership through a
 * PostgreSQL advisory lock, and a clean shutdown on SIGINT/SIGTERM.
 */
import { loadConfigOrExit } from "../common/config.js";
import { createLogger } from "../common/logger.js";
import { acquireLeadership } from "./leader.js";

const config = loadConfigOrExit();
const log = createLogger("engine", config.logLevel);

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

const leadership = await acquireLeadership(config.databaseUrl, log, { signal: shutdown.signal });
if (leadership) {
  log.info({ operator: config.operator, chainId: config.chainId }, "engine running");
  await new Promise<void>((resolve) => shutdown.signal.addEventListener("abort", () => resolve(), { once: true }));
  await leadership.release();
}
log.info("engine stopped");
process.exit(0);
