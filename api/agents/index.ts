/**
 * The agent launch flow's HTTP interface under /api/v1: Sign-In with Ethereum, agents and
 * charters. Its public prospectus pages (at /p/:idOrToken) are api/pages/routes.ts.
 *
 *   const agents = agentApiFromConfig(config, { db });
 *   v1.route("/", agentApi(agents));      // /api/v1/auth/*, /api/v1/agents/*
 *   app.route("/", prospectusPages(agents));  // /p/:idOrToken
 */
import { Hono } from "hono";
import type { Config } from "../../common/config.js";
import { type AgentServiceOptions, createAgentServices } from "../../core/agents/services.js";
import { authRoutes } from "../auth/routes.js";
import type { ReadDb } from "../read/db.js";
import type { AgentApiDeps, AgentRateLimits } from "../http/agent-api.js";
import { agentRoutes } from "./routes.js";

export type { AgentApiDeps } from "../http/agent-api.js";

/** The routes under /api/v1: `/auth/*` and `/agents/*`. */
export function agentApi(deps: AgentApiDeps): Hono {
  const app = new Hono();
  app.route("/", authRoutes(deps));
  app.route("/", agentRoutes(deps) as unknown as Hono);
  return app;
}

/** Dependencies from the config: the engine database, chain clients and the charter compiler, built on first use. */
export function agentApiFromConfig(
  config: Config,
  options: AgentServiceOptions & { db?: ReadDb; rateLimits?: Partial<AgentRateLimits>; logError?: AgentApiDeps["logError"] } = {},
): AgentApiDeps {
  return { services: createAgentServices(config, options), db: options.db, rateLimits: options.rateLimits, logError: options.logError };
}
