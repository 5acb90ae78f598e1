/**
 * The HTTP interface as ponder serves it (`src/api/index.ts` re-exports this): ponder's
 * read-only `db` for the indexed tables, a small pool of our own for the engine's tables and
 * the operator's transaction pipeline, config read once from the environment.
 */
import pg from "pg";
import { type PublicClient, createPublicClient, http } from "viem";
import { MissingConfigError, loadConfigOrExit } from "../common/config.js";
import { createLogger } from "../common/logger.js";
import { createApp } from "./create-app.js";
import { db } from "./db.js";
import type { ReadDb } from "./deps.js";
import { createEnginePort, idleEngine } from "./engine-port.js";
import { createChainLauncher } from "./launch/launcher.js";
import { pipelineSender } from "./launch/sender.js";

/** Connections of the API's own pool: engine reads and the rare operator transaction. */
const ENGINE_POOL_SIZE = 4;

const config = loadConfigOrExit();
const log = createLogger("api", config.logLevel);
const pool = config.databaseUrl ? new pg.Pool({ connectionString: config.databaseUrl, max: ENGINE_POOL_SIZE, application_name: "launchpad-api" }) : undefined;
// An idle client's error (server restart) must not crash the API; the next query reconnects.
pool?.on("error", (error) => log.warn({ err: error.message }, "engine pool error"));

export default createApp({
  db: db as unknown as ReadDb,
  config,
  engine: pool ? createEnginePort(pool) : idleEngine,
  launcher: createChainLauncher({
    config,
    publicClient: createPublicClient({ transport: http(config.rpcUrl) }) as PublicClient,
    sender: () => {
      // The operator's transactions are intents in PostgreSQL before they are signed.
      if (!pool) throw new MissingConfigError("DATABASE_URL");
      return pipelineSender(config, pool, log);
    },
  }),
  startedAt: Date.now(),
  logError: (error, context) => log.error({ err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error), context }, "unexpected error"),
});
