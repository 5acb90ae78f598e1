/**
 * Assembles the GraphQL schema (one file per type) and serves it with graphql-yoga at
 * /graphql: GraphiQL in a browser (served from local assets), subscriptions over SSE,
 * limits on the document checked before it is validated (limits.ts), then depth/alias/cost
 * limits. Identical queries asked at the same time share one execution
 * (the schema has no mutations; see coalesce.ts: never stale).
 */
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { createRequire } from "node:module";
import { GraphQLError } from "graphql";
import { type GraphiQLOptions, type YogaLogger, createLogger, createYoga } from "graphql-yoga";
import type { ApiDeps } from "../deps.js";
import { transientDbError } from "../http/errors.js";
import { readLimited } from "../http/validation.js";
import { Coalescer } from "../read/coalesce.js";
import { type GraphqlContext, MAX_ALIASES, MAX_QUERY_DEPTH, builder } from "./builder.js";
import { databaseBusy, unavailableError } from "./errors.js";
import { boundedParsing } from "./limits.js";
import { createLoaders } from "./loaders.js";
import "./activity.js";
import "./agent.js";
import "./events.js";
import "./burn-totals.js";
import "./desk.js";
import "./fees.js";
import "./market.js";
import "./stats.js";
import "./subscriptions.js";
import "./token.js";
import "./trust.js";

export const schema = builder.toSchema();

let graphiqlPage: string | undefined;
/**
 * GraphiQL's page with its scripts, styles and editor workers inlined, from the
 * `@graphql-yoga/render-graphiql` package: it loads nothing from a CDN, so it works offline.
 * The bundle is large (9 MB): it is loaded on the first visit, with Node's own `require` (in
 * well under a second; through ponder's module transform it would take seconds), and the
 * page is kept.
 */
function renderLocalGraphiQL(options: GraphiQLOptions): string {
  if (graphiqlPage === undefined) {
    const { renderGraphiQL } = createRequire(import.meta.url)("@graphql-yoga/render-graphiql") as typeof import("@graphql-yoga/render-graphiql");
    graphiqlPage = renderGraphiQL(options);
  }
  return graphiqlPage;
}

/**
 * A GraphQLError all the way down its `originalError` chain. By name, not `instanceof`: under
 * vite (ponder's build, vitest) graphql-js may be loaded twice, and an error made by one copy
 * is not an instance of the other's class.
 */
function isClientError(error: unknown): boolean {
  for (let e = error, depth = 0; depth < 8; depth++) {
    if (!(e instanceof Error) || e.name !== "GraphQLError") return false;
    const original = (e as { originalError?: unknown }).originalError;
    if (original == null) return true;
    e = original;
  }
  return false;
}

/**
 * yoga's logger, except for a read that met a transient database error (a lock timeout …) and
 * was answered 503 DATABASE_BUSY: an expected, handled condition, noted at warn without a
 * stack rather than logged as an error.
 */
function yogaLogger(deps: ApiDeps): YogaLogger {
  const base = createLogger();
  return {
    ...base,
    error: (...args: unknown[]) => {
      const reason = args.length === 1 ? transientDbError(args[0]) : undefined;
      if (reason === undefined) return base.error(...args);
      const message = `the database is busy (${reason}): answered 503 DATABASE_BUSY`;
      if (deps.logWarn) deps.logWarn(message, "graphql");
      else base.warn(message);
    },
  };
}

export function createGraphql(deps: ApiDeps) {
  const yoga = createYoga<Record<string, unknown>, GraphqlContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: { title: "Launchpad GraphQL" },
    renderGraphiQL: renderLocalGraphiQL,
    landingPage: false,
    logging: yogaLogger(deps),
    batching: false,
    // Node's own fetch primitives: SSE responses must be streams ponder's server can pipe.
    fetchAPI: { Request, Response, Headers, ReadableStream, fetch },
    context: ({ request }) => ({ deps, loaders: createLoaders(deps), signal: request.signal }),
    maskedErrors: {
      // Client errors (bad input, limits) pass; anything else is logged and masked.
      maskError: (error, message) => {
        if (isClientError(error)) return error as Error;
        const outage = unavailableError(error);
        if (outage) return outage;
        const busy = databaseBusy((error as { originalError?: unknown }).originalError ?? error);
        if (busy) return busy;
        (deps.logError ?? console.error)((error as { originalError?: unknown }).originalError ?? error, "graphql");
        return new GraphQLError(message, { extensions: { code: "INTERNAL_SERVER_ERROR" } });
      },
    },
    // The document's size, tokens, nesting, breadth, depth and repeated fields first (limits.ts).
    plugins: [boundedParsing(), maxDepthPlugin({ n: MAX_QUERY_DEPTH, ignoreIntrospection: true }), maxAliasesPlugin({ n: MAX_ALIASES })],
  });
  // Keyed by what yoga reads of a POST: its content type, what it accepts, and the body.
  const operations = new Coalescer(async (key: string): Promise<SharedAnswer> => {
    const [contentType, accept, body] = JSON.parse(key) as [string, string, string];
    const response = await answer(new Request("http://localhost/graphql", { method: "POST", headers: { "content-type": contentType, accept }, body }));
    return { status: response.status, headers: [...response.headers], body: await response.text() };
  });
  async function answer(request: Request): Promise<Response> {
    const response = await yoga.fetch(request);
    // yoga answers a subscription asked for as plain JSON with an empty 406: say why.
    if (response.status === 406 && !response.headers.get("content-type")) {
      const message = "subscriptions are streamed as server-sent events: send Accept: text/event-stream";
      return Response.json({ errors: [{ message, extensions: { code: "NOT_ACCEPTABLE" } }] }, { status: 406 });
    }
    return response;
  }
  return {
    yoga,
    /** Answers one request; a POST's body is read within `body.maxBytes` and `body.timeoutMs` (BodyError otherwise). */
    async handle(request: Request, body: { maxBytes: number; timeoutMs: number }): Promise<Response> {
      const accept = request.headers.get("accept") ?? "";
      // Streams (subscriptions, incremental delivery) are each their own.
      if (request.method !== "POST" || /event-stream|multipart/i.test(accept)) return answer(request);
      const bytes = request.body ? await readLimited(request.body, body.maxBytes, body.timeoutMs) : new Uint8Array();
      const key = JSON.stringify([request.headers.get("content-type") ?? "", accept, new TextDecoder().decode(bytes)]);
      const shared = await operations.get(key);
      return new Response(shared.body, { status: shared.status, headers: shared.headers });
    },
  };
}

type SharedAnswer = { status: number; headers: [string, string][]; body: string };
