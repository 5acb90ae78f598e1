/**
 * `GET /p/:idOrToken`: the public prospectus page of an agent, by agent id or token address,
 * or of any token the service knows that no agent launched. HTML with a no-script
 * Content-Security-Policy; an id or address the service does not know gets a 404 page.
 */
import type { Hono } from "hono";
import { getAddress, isAddress } from "viem";
import { RateLimiter, rateLimit } from "../http/rate-limit.js";
import { type AgentApiDeps, DEFAULT_AGENT_RATE_LIMITS } from "../http/agent-api.js";
import { findAgent, loadProspectus, loadTokenProspectus } from "../read/prospectus.js";
import { pageApp, pageHeaders } from "./page-app.js";
import { renderNotFound, renderProspectus } from "./prospectus.js";

export function prospectusPages(deps: AgentApiDeps): Hono {
  const app = pageApp("prospectus", deps.logError);
  const limits = { ...DEFAULT_AGENT_RATE_LIMITS, ...deps.rateLimits };

  app.get("/p/:idOrToken", rateLimit(new RateLimiter(limits.read, { name: "page", overlap: true })), async (c) => {
    const key = c.req.param("idOrToken");
    pageHeaders(c);
    const now = deps.now?.() ?? new Date();
    const agent = key.length <= 64 ? await findAgent(deps.services, key) : undefined;
    if (agent) return c.html(await renderProspectus(await loadProspectus(deps.services, deps.db, agent, now)));
    const token = isAddress(key, { strict: false }) && deps.db ? await loadTokenProspectus(deps.services, deps.db, getAddress(key), now) : undefined;
    if (token) return c.html(await renderProspectus(token));
    return c.html(await renderNotFound(key.slice(0, 64)), 404);
  });
  return app;
}
