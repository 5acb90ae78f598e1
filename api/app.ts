/**
 * The HTTP interface as ponder serves it (`src/api/index.ts` re-exports this), under
 * `ponder start` (indexer + API) or `ponder serve` (an API replica): ponder's read-only `db`
 * for the indexed tables, one pool of our own for the engine's tables, the agent flow and the
 * operator's transaction pipeline; config read once from the environment. With a database,
 * rate limits are kept in PostgreSQL (shared by every replica) and subscriptions are pushed
 * by PostgreSQL notifications.
 */
import pg from "pg";
import { type PublicClient, createPublicClient, http } from "viem";
import { loadConfigOrExit } from "../common/config.js";
import { createLogger, intentOwnerMixin, intentOwnerOf } from "../common/logger.js";
import { agentApiFromConfig } from "./agents/index.js";
import { DEFAULT_AGENT_RATE_LIMITS } from "./http/agent-api.js";
import { createApp } from "./create-app.js";
import { DEFAULT_RATE_LIMITS, scaleRateLimits } from "./http/rate-limit.js";
import { PostgresRateLimitStore, rateLimitPool } from "./http/rate-limit-postgres.js";
import { createLiveFeed } from "./push/live-feed.js";
import { db } from "./db.js";
import type { ReadDb } from "./read/db.js";
import { createEnginePort, idleEngine } from "./engine-port.js";
import { createChainLauncher } from "../core/launch/deploy-and-enroll.js";
import { pipelineSender } from "../core/launch/sender.js";
import { survivePoolErrors } from "../core/db/client.js";

/** Connections of the API's own pool: engine reads, the agent flow, the rare operator transaction. */
const ENGINE_POOL_SIZE = 6;

const config = loadConfigOrExit();
// The operator's pipeline here also drives the engine's in-flight intents: each transaction line names its owner.
const log = createLogger("api", config.logLevel, config.logFormat, { mixin: intentOwnerMixin(intentOwnerOf) });
const pool = config.databaseUrl ? new pg.Pool({ connectionString: config.databaseUrl, max: ENGINE_POOL_SIZE, application_name: "launchpad-api" }) : undefined;
if (pool) survivePoolErrors(pool, (error) => log.warn({ err: error.message }, "engine pool error"));

const readDb = db as unknown as ReadDb;
// The API's one RPC client: the launch routes and the burn proofs read the chain through it.
const publicClient = createPublicClient({ transport: http(config.rpcUrl) }) as PublicClient;
const logError = (error: unknown, context: string) =>
  log.error({ err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error), context }, "unexpected error");
// Without DATABASE_URL the agent services answer 503 naming it: intents live in PostgreSQL.
// Every limit follows RATE_LIMIT_SCALE, the agent flow's (sign-in included) as well.
const agents = agentApiFromConfig(config, { db: readDb, pool, log, logError, rateLimits: scaleRateLimits(DEFAULT_AGENT_RATE_LIMITS, config.rateLimitScale) });
// The limiter's table lives in the engine's schema, which the engine's migrations make.
const rateLimitStore = config.databaseUrl
  ? new PostgresRateLimitStore({ pool: rateLimitPool(config.databaseUrl, log), log, ready: () => agents.services.ready() })
  : undefined;

export default createApp({
  db: readDb,
  config,
  engine: pool ? createEnginePort(pool) : idleEngine,
  publicClient,
  launcher: createChainLauncher({
    config,
    publicClient,
    sender: pipelineSender(agents.services),
  }),
  agents,
  rateLimits: scaleRateLimits(DEFAULT_RATE_LIMITS, config.rateLimitScale),
  rateLimitStore,
  live: createLiveFeed({ db: readDb, databaseUrl: config.databaseUrl, log }),
  startedAt: Date.now(),
  logError,
  logClientFault: (message, context) => log.info({ context }, message),
  logWarn: (message, context) => log.warn({ context }, message),
});
