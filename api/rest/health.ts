/**
 * GET /health: uptime, protocol token, indexer progress (against the chain's head), per-worker
 * health, and why the service is degraded; 503 with the reason when PostgreSQL cannot be reached.
 * GET /ready: the readiness probe of an API process — 200 while it serves current data (the
 * database answers, the index was built and keeps up with the head), 503 with the reasons
 * otherwise. The engine's state degrades /health but not /ready: reads stay valid without it.
 */
import { HealthUnavailable, readHealth } from "../read/health.js";
import { defineRoute, respond } from "./route.js";
import { healthResponse, healthUnavailableResponse } from "../views/health.js";

const unavailableBody = (error: HealthUnavailable) => ({ status: "unavailable" as const, reasons: [error.reason], since: error.since });

export const healthRoute = defineRoute({
  method: "get",
  path: "/health",
  tag: "service",
  summary: "Service health: indexer progress and worker schedule",
  responses: {
    200: { description: "Health", schema: healthResponse },
    503: { description: "The database cannot be reached", schema: healthUnavailableResponse },
  },
  handler: async (c, _input, deps) => {
    try {
      const { serving: _serving, ...health } = await readHealth(deps);
      return respond(c, healthResponse, health);
    } catch (error) {
      if (error instanceof HealthUnavailable) return c.json(unavailableBody(error), 503, { "Retry-After": "5" });
      throw error;
    }
  },
});

export const readyRoute = defineRoute({
  method: "get",
  path: "/ready",
  tag: "service",
  summary: "Readiness: 200 while this API process serves current data, 503 with the reasons otherwise",
  responses: {
    200: { description: "Ready (the body is the health)", schema: healthResponse },
    503: {
      description: "Not ready: the database is unreachable, the index is not built, or it lags the head",
      schema: healthUnavailableResponse.or(healthResponse),
    },
  },
  handler: async (c, _input, deps) => {
    try {
      const { serving, ...health } = await readHealth(deps);
      return serving ? respond(c, healthResponse, health) : c.json(health, 503);
    } catch (error) {
      if (error instanceof HealthUnavailable) return c.json(unavailableBody(error), 503, { "Retry-After": "5" });
      throw error;
    }
  },
});
