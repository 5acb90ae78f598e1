/**
 * `GET /p/:idOrToken`: the public prospectus page of an agent, by agent id or token address,
 * or of any token the service knows that no agent launched. HTML with a no-script
 * Content-Security-Policy; an id or address the service does not know gets a 404 page.
 */
import { Hono } from "hono";
import { getAddress, isAddress } from "viem";
import { RateLimiter, rateLimit } from "../http/rate-limit.js";
import { type AgentApiDeps, DEFAULT_AGENT_RATE_LIMITS } from "../agents/http.js";
import { toHttpError } from "../http/errors.js";
import { findAgent, loadProspectus, loadTokenProspectus } from "./prospectus-data.js";
import { PAGE_CSP, renderNotFound, renderProspectus } from "./prospectus.js";

export function prospectusPages(deps: AgentApiDeps): Hono {
  const app = new Hono();
  const limits = { ...DEFAULT_AGENT_RATE_LIMITS, ...deps.rateLimits };
  const headers = (c: { header: (k: string, v: string) => void }) => {
    c.header("Content-Security-Policy", PAGE_CSP);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cache-Control", "public, max-age=15");
  };
  app.onError((error, c) => {
    const http = toHttpError(error);
    if (http.unexpected) (deps.logError ?? ((e, where) => console.error(where, e)))(error, `${c.req.method} ${c.req.path}`);
    headers(c);
    return c.html(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Unavailable</title></head><body><h1>${http.status}</h1><p>The prospectus is not available right now.</p></body></html>`, http.status);
  });

  app.get("/p/:idOrToken", rateLimit(new RateLimiter(limits.read, { name: "page", overlap: true })), async (c) => {
    const key = c.req.param("idOrToken");
    headers(c);
    const now = deps.now?.() ?? new Date();
    const agent = key.length <= 64 ? await findAgent(deps.services, key) : undefined;
    if (agent) return c.html(await renderProspectus(await loadProspectus(deps.services, deps.db, agent, now)));
    const token = isAddress(key, { strict: false }) && deps.db ? await loadTokenProspectus(deps.services, deps.db, getAddress(key), now) : undefined;
    if (token) return c.html(await renderProspectus(token));
    return c.html(await renderNotFound(key.slice(0, 64)), 404);
  });
  return app;
}
