/**
 * Assembles the HTTP interface from its dependencies: the REST shim under /api/v1 (routes,
 * OpenAPI document, JSON 404) and GraphQL at /graphql, behind per-client rate limits. Every
 * error is `{ "error": "..." }` with a 4xx/5xx status, never a stack trace.
 */
import { type Context, Hono } from "hono";
import type { ApiDeps } from "./deps.js";
import { errorResponse, toHttpError } from "./http/errors.js";
import { DEFAULT_RATE_LIMITS, RateLimiter, rateLimit } from "./http/rate-limit.js";
import { createGraphql } from "./graphql/index.js";
import { openApiDocument } from "./openapi/document.js";
import { activityRoute } from "./rest/activity.js";
import { protocolBuybacksRoute, tokenBuybacksRoute } from "./rest/buybacks.js";
import { healthRoute } from "./rest/health.js";
import { type AnyRoute, mountRoutes } from "./rest/route.js";
import { statsRoute } from "./rest/stats.js";
import { launchRoute, registerRoute, tokensRoute } from "./rest/tokens.js";

/** Every REST route, in the order of the OpenAPI document. */
export const REST_ROUTES: readonly AnyRoute[] = [
  healthRoute,
  statsRoute,
  activityRoute,
  protocolBuybacksRoute,
  tokenBuybacksRoute,
  tokensRoute,
  launchRoute,
  registerRoute,
];

export function createApp(deps: ApiDeps): Hono {
  const limits = { ...DEFAULT_RATE_LIMITS, ...deps.rateLimits };
  const readLimiter = new RateLimiter(limits.read);
  const writeLimiter = new RateLimiter(limits.write);
  const graphqlLimiter = new RateLimiter(limits.graphql);
  const document = openApiDocument(REST_ROUTES);

  const onError = (error: Error, c: Context) => {
    const http = toHttpError(error);
    if (http.unexpected) (deps.logError ?? console.error)(error, `${c.req.method} ${c.req.path}`);
    return errorResponse(c, http);
  };

  // Error handlers first: `route()` copies a sub-app's routes with the handler it has then.
  const v1 = new Hono().onError(onError);
  // Writes (the POSTs spend operator gas) have their own, stricter bucket.
  v1.use("*", (c, next) => (c.req.method === "POST" ? rateLimit(writeLimiter) : rateLimit(readLimiter))(c, next));
  mountRoutes(v1, REST_ROUTES, deps);
  v1.get("/openapi.json", (c) => c.json(document));
  // Mounted inside ponder's server, a sub-app's notFound is not consulted: catch-all instead.
  v1.all("*", (c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));

  const graphql = createGraphql(deps);
  const app = new Hono().onError(onError);
  app.route("/api/v1", v1);
  app.use("/graphql", rateLimit(graphqlLimiter));
  app.on(["GET", "POST", "OPTIONS"], "/graphql", (c) => graphql.handle(c.req.raw));
  return app;
}
