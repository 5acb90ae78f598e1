/** GET /health: uptime, protocol token, indexer progress, per-worker health. */
import { readHealth } from "../read/health.js";
import { defineRoute } from "./route.js";
import { healthResponse } from "./schemas.js";

export const healthRoute = defineRoute({
  method: "get",
  path: "/health",
  tag: "service",
  summary: "Service health: indexer progress and worker schedule",
  responses: { 200: { description: "Health", schema: healthResponse } },
  handler: async (c, _input, deps) => c.json(await readHealth(deps)),
});
