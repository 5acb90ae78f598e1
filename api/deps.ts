/**
 * Everything the HTTP interface depends on, passed in explicitly: ponder's read-only
 * database, the typed config, the engine's tables and the operator's launch transactions.
 * `api/app.ts` builds them inside ponder; tests build their own.
 */
import type { PublicClient } from "viem";
import type { Config } from "../common/config.js";
import type { AgentApiDeps } from "./http/agent-api.js";
import type { EnginePort } from "./engine-port.js";
import type { RateLimitStore, RateLimits } from "./http/rate-limit.js";
import type { LiveFeed } from "./push/live-feed.js";
import type { SqlOverHttpOptions } from "./sql/index.js";
import type { LaunchPort } from "../core/launch/deploy-and-enroll.js";
import type { ReadDb } from "./read/db.js";

/** Read access to the indexed tables: declared in read/db.ts, which every reader imports without the assembly. */
export type { ReadDb };

export type ApiDeps = {
  db: ReadDb;
  config: Config;
  engine: EnginePort;
  launcher: LaunchPort;
  /** The API's RPC client (burn proofs read the chain through it); one is made from RPC_URL when absent. */
  publicClient?: PublicClient;
  /** When this API process started (ms since epoch), for `uptimeSeconds`. */
  startedAt: number;
  rateLimits?: Partial<RateLimits>;
  /** Where every route's rate limit buckets live when shared by all replicas (PostgreSQL); each process's memory without it. */
  rateLimitStore?: RateLimitStore;
  /** Pushes newly indexed rows to subscriptions; `createApp` makes one (LISTEN on `config.databaseUrl`) when absent. */
  live?: LiveFeed;
  /** How often the live feed looks for new rows without a notification (0: never; see api/push/live-feed.ts). */
  pollIntervalMs?: number;
  /** SQL over HTTP's limits (api/sql/index.ts; defaults there). */
  sql?: SqlOverHttpOptions;
  /** The agent flow (Sign-In with Ethereum, agents, prospectus pages), when served. */
  agents?: AgentApiDeps;
  /** Where unexpected errors are reported (never to the client). */
  logError?: (error: unknown, context: string) => void;
  /** Where a client's own faults (an aborted upload, a body too slow) are noted, at info level. */
  logClientFault?: (message: string, context: string) => void;
  /** Where expected, handled conditions (a read answered 503 DATABASE_BUSY) are noted, at warn level without a stack. */
  logWarn?: (message: string, context: string) => void;
};
