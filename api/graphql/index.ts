/**
 * Assembles the GraphQL schema (one file per type) and serves it with graphql-yoga at
 * /graphql: GraphiQL in a browser, subscriptions over SSE, depth/alias/cost limits.
 */
import { maxAliasesPlugin } from "@escape.tech/graphql-armor-max-aliases";
import { maxDepthPlugin } from "@escape.tech/graphql-armor-max-depth";
import { GraphQLError, lexicographicSortSchema, printSchema } from "./graphql-js.js";
import { createYoga } from "graphql-yoga";
import type { ApiDeps } from "../deps.js";
import { type GraphqlContext, MAX_ALIASES, MAX_DEPTH, builder } from "./builder.js";
import { createLoaders } from "./loaders.js";
import "./activity.js";
import "./burn.js";
import "./burn-totals.js";
import "./buyback.js";
import "./desk.js";
import "./stats.js";
import "./subscriptions.js";
import "./token.js";

export const schema = builder.toSchema();

/** The public schema as SDL, sorted, for review snapshots. */
export const printedSchema = () => printSchema(lexicographicSortSchema(schema));

export function createGraphql(deps: ApiDeps) {
  const yoga = createYoga<Record<string, unknown>, GraphqlContext>({
    schema,
    graphqlEndpoint: "/graphql",
    graphiql: { title: "Launchpad GraphQL" },
    landingPage: false,
    batching: false,
    // Node's own fetch primitives: SSE responses must be streams ponder's server can pipe.
    fetchAPI: { Request, Response, Headers, ReadableStream, fetch },
    context: ({ request }) => ({ deps, loaders: createLoaders(deps), signal: request.signal }),
    maskedErrors: {
      maskError: (error, message) => {
        const original = error instanceof GraphQLError ? error.originalError : error;
        if (original instanceof GraphQLError || (error instanceof GraphQLError && !error.originalError)) return error as Error;
        (deps.logError ?? console.error)(original ?? error, "graphql");
        return new GraphQLError(message, { extensions: { code: "INTERNAL_SERVER_ERROR" } });
      },
    },
    plugins: [maxDepthPlugin({ n: MAX_DEPTH, ignoreIntrospection: true }), maxAliasesPlugin({ n: MAX_ALIASES })],
  });
  return { yoga, handle: (request: Request) => yoga.fetch(request) };
}
