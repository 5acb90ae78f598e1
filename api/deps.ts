/**
 * Everything the HTTP interface depends on, passed in explicitly: ponder's read-only
 * database, the typed config, the engine's tables and the operator's launch transactions.
 * `api/app.ts` builds them inside ponder; tests build their own.
 */
import type { NodePgDatabase } from "drizzle-orm/node-postgres";
import type { Config } from "../common/config.js";
import type { AgentApiDeps } from "./agents/http.js";
import type { EnginePort } from "./engine-port.js";
import type { RateLimits } from "./http/rate-limit.js";
import type { LaunchPort } from "../core/launch/operator.js";

/** Read access to the indexed tables (ponder's `db`, or a drizzle client on the same schema). */
export type ReadDb = Pick<NodePgDatabase<Record<string, never>>, "select" | "execute">;

export type ApiDeps = {
  db: ReadDb;
  config: Config;
  engine: EnginePort;
  launcher: LaunchPort;
  /** When this API process started (ms since epoch), for `uptimeSeconds`. */
  startedAt: number;
  rateLimits?: Partial<RateLimits>;
  /** How often subscriptions look for new rows. */
  pollIntervalMs?: number;
  /** The agent flow (Sign-In with Ethereum, agents, prospectus pages), when served. */
  agents?: AgentApiDeps;
  /** Where unexpected errors are reported (never to the client). */
  logError?: (error: unknown, context: string) => void;
};
