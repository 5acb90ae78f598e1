/**
 * Assembles the HTTP interface from its dependencies: the REST shim under /api/v1 (routes,
 * OpenAPI document and its reference page at /api/v1/docs, JSON 404), GraphQL at /graphql and
 * the MCP server at /mcp,
 * behind per-client rate limits (shared by every replica when a store is given). Every error
 * is `{ "error": "...", "code": "..." }` with its code's 4xx/5xx status (api/http/errors.ts),
 * never a stack trace.
 */
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { agentApi } from "./agents/index.js";
import { prospectusPages } from "./pages/routes.js";
import type { ApiDeps } from "./deps.js";
import { createGraphql } from "./graphql/index.js";
import { notFound, onHttpError, payloadTooLarge } from "./http/errors.js";
import { bodyDeadline, bodyTimeoutOf } from "./http/validation.js";
import { answeredOnce } from "./http/route-metrics.js";
import { DEFAULT_RATE_LIMITS, RateLimiter, rateLimit, useRateLimitStore } from "./http/rate-limit.js";
import { createLiveFeed } from "./push/live-feed.js";
import { MAX_MCP_BODY_BYTES, mcpHandler } from "./mcp/server.js";
import { docsPage } from "./openapi/docs-page.js";
import { sqlOverHttp } from "./sql/index.js";
import { dashboardPage } from "./pages/dashboard.js";
import { openApiDocument } from "./openapi/document.js";
import { activityRoute } from "./rest/activity.js";
import { auditRoute } from "./rest/audit.js";
import { protocolBuybacksRoute, tokenBuybacksRoute } from "./rest/buybacks.js";
import { EXPORT_ROUTES } from "./rest/export.js";
import { healthRoute, readyRoute } from "./rest/health.js";
import { metricsText } from "./read/health-metrics.js";
import { type AnyRoute, mountRoutes } from "./rest/route.js";
import { candlesRoute, marketRoute, tokenBurnsRoute } from "./rest/market.js";
import { statsRoute } from "./rest/stats.js";
import { desksRoute } from "./rest/desks.js";
import { burnProofRoute, tokenReportRoutes } from "./rest/trust.js";
import { launchRoute, registerRoute, tokensRoute } from "./rest/tokens.js";
import { WEBHOOK_ROUTES } from "./rest/webhooks.js";

/** Largest GraphQL request body (a query of any reasonable size, with its variables). */
export const MAX_GRAPHQL_BODY_BYTES = 64 * 1024;

/** Every REST route, in the order of the OpenAPI document. */
export const REST_ROUTES: readonly AnyRoute[] = [
  healthRoute,
  readyRoute,
  statsRoute,
  desksRoute,
  activityRoute,
  protocolBuybacksRoute,
  tokenBuybacksRoute,
  tokensRoute,
  candlesRoute,
  marketRoute,
  tokenBurnsRoute,
  burnProofRoute,
  ...tokenReportRoutes,
  launchRoute,
  registerRoute,
  auditRoute,
  ...EXPORT_ROUTES,
  ...WEBHOOK_ROUTES,
];

export function createApp(given: ApiDeps): Hono {
  // Subscriptions are fed by one live feed per app (one LISTEN connection, opened on the first subscriber).
  const deps: ApiDeps = {
    ...given,
    live: given.live ?? createLiveFeed({ db: given.db, databaseUrl: given.config.databaseUrl, pollIntervalMs: given.pollIntervalMs }),
  };
  const limits = { ...DEFAULT_RATE_LIMITS, ...deps.rateLimits };
  // Named: the same buckets on every replica sharing a store. Reads overlap their take with the handler.
  const read = rateLimit(new RateLimiter(limits.read, { name: "read", overlap: true }));
  const write = rateLimit(new RateLimiter(limits.write, { name: "write" }));
  const document = openApiDocument(REST_ROUTES);
  const onError = onHttpError(deps);

  // Error handlers first: `route()` copies a sub-app's routes with the handler it has then.
  const v1 = new Hono().onError(onError);
  mountRoutes(v1, REST_ROUTES, deps, { read, write });
  v1.get("/openapi.json", read, (c) => c.json(document));
  // Prometheus text: the indexer's lag and progress, the engine lease's age, the database's reachability.
  v1.get("/metrics", read, async (c) => c.text(await metricsText(deps), 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" }));
  v1.route("/", docsPage(read));
  // The agent flow (its routes carry their own rate limits).
  if (deps.agents) v1.route("/", agentApi(deps.agents));
  // Mounted inside ponder's server, a sub-app's notFound is not consulted: catch-all instead.
  v1.all("*", read, (c) => {
    throw notFound(`no route ${c.req.method} ${c.req.path}`);
  });

  const graphql = createGraphql(deps);
  const app = new Hono().onError(onError);
  // Every body (REST, agents, GraphQL) must arrive within the deadline.
  app.use("*", bodyDeadline(deps.config.bodyTimeoutSeconds * 1000));
  // Before every route: each rate limit below (sub-apps' included) takes from the shared store.
  if (deps.rateLimitStore) app.use("*", useRateLimitStore(deps.rateLimitStore));
  app.route("/api/v1", v1);
  // The schema has no mutations: every GraphQL request only reads.
  app.use("/graphql", rateLimit(new RateLimiter(limits.graphql, { name: "graphql", overlap: true })));
  const tooLarge = payloadTooLarge(`body larger than ${MAX_GRAPHQL_BODY_BYTES} bytes`);
  app.use(
    "/graphql",
    bodyLimit({
      maxSize: MAX_GRAPHQL_BODY_BYTES,
      onError: () => {
        throw tooLarge;
      },
    }),
  );
  app.on(["GET", "POST", "OPTIONS"], "/graphql", (c) => graphql.handle(c.req.raw, { maxBytes: MAX_GRAPHQL_BODY_BYTES, timeoutMs: bodyTimeoutOf(c) }));
  // The MCP server (Streamable HTTP, stateless): read tools for anyone, the agent flow for a signed-in creator.
  app.use("/mcp", rateLimit(new RateLimiter(limits.read, { name: "mcp", overlap: true })));
  const mcpTooLarge = payloadTooLarge(`body larger than ${MAX_MCP_BODY_BYTES} bytes`);
  app.use(
    "/mcp",
    bodyLimit({
      maxSize: MAX_MCP_BODY_BYTES,
      onError: () => {
        throw mcpTooLarge;
      },
    }),
  );
  app.all("/mcp", mcpHandler(deps));
  if (deps.agents) app.route("/", prospectusPages(deps.agents));
  // SQL over HTTP (@ponder/client) on the views schema, read-only, with its own bucket.
  const sql = sqlOverHttp(deps.config.databaseUrl, rateLimit(new RateLimiter(limits.sql, { name: "sql" })), deps.sql);
  app.route("/", sql.app);
  app.route("/", dashboardPage(deps));
  // One route per answered path in front: request metrics count each request once (route-metrics.ts).
  return answeredOnce(app);
}
