/**
 * The Pothos schema builder: plugins (Relay connections, query complexity), scalars, the
 * request context and the limits every query is held to.
 */
import SchemaBuilder, { type ArgBuilder as PothosArgBuilder } from "@pothos/core";
import ComplexityPlugin from "@pothos/plugin-complexity";
import RelayPlugin from "@pothos/plugin-relay";
import { GraphQLError } from "graphql";
import type { ApiDeps } from "../deps.js";
import type { Loaders } from "./loaders.js";

/** Per request: the API's dependencies, dataloaders, and the request's abort signal (subscriptions stop on it). */
export type GraphqlContext = { deps: ApiDeps; loaders: Loaders; signal?: AbortSignal };

/** Cost budget of one operation; a connection costs its page size times its node's cost. */
export const MAX_COMPLEXITY = 10_000;
export const MAX_QUERY_DEPTH = 10;
export const MAX_BREADTH = 400;
export const MAX_ALIASES = 15;

type BuilderTypes = {
  Context: GraphqlContext;
  Scalars: {
    BigInt: { Input: bigint; Output: bigint };
    DateTime: { Input: bigint; Output: bigint };
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
};

/** The builder's type parameters, for helpers that build fields and arguments. */
export type Types = PothosSchemaTypes.ExtendDefaultTypes<BuilderTypes>;
export type ArgBuilder = PothosArgBuilder<Types>;

export const builder = new SchemaBuilder<BuilderTypes>({
  plugins: [RelayPlugin, ComplexityPlugin],
  defaultFieldNullability: false,
  relay: { cursorType: "String", clientMutationId: "omit", nodeQueryOptions: false, nodesQueryOptions: false },
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 1,
    limit: { complexity: MAX_COMPLEXITY, depth: MAX_QUERY_DEPTH, breadth: MAX_BREADTH },
    complexityError: (errorKind, result) => {
      const kind = String(errorKind).toLowerCase();
      const [value, max] =
        kind === "depth"
          ? [result.depth, result.maxDepth]
          : kind === "breadth"
            ? [result.breadth, result.maxBreadth]
            : [result.complexity, result.maxComplexity];
      return new GraphQLError(
        `query ${kind} ${value} exceeds the limit of ${max}${kind === "complexity" ? ": ask for smaller pages (first) or fewer fields" : ""}`,
        { extensions: { code: "QUERY_TOO_COMPLEX", kind, value, max } },
      );
    },
  },
});

builder.scalarType("BigInt", {
  description: "An integer of any size, as a decimal string (money in base units: USDC 6 decimals, tokens 18).",
  serialize: (value) => value.toString(),
  parseValue: (value) => {
    if (typeof value === "number" && Number.isSafeInteger(value)) return BigInt(value);
    if (typeof value === "string" && /^-?\d{1,78}$/.test(value)) return BigInt(value);
    throw new GraphQLError("BigInt must be an integer or a string of decimal digits");
  },
});

builder.scalarType("DateTime", {
  description: "An ISO-8601 timestamp (UTC). Inputs may also be unix seconds.",
  serialize: (value) => new Date(Number(value) * 1000).toISOString(),
  parseValue: (value) => {
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (typeof value === "string" && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value)) {
      const ms = Date.parse(value);
      if (Number.isFinite(ms) && ms >= 0) return BigInt(Math.floor(ms / 1000));
    }
    throw new GraphQLError("DateTime must be an ISO-8601 timestamp (e.g. 2025-01-31T00:00:00Z) or unix seconds");
  },
});

builder.scalarType("JSON", {
  description: "Arbitrary JSON.",
  serialize: (value) => value,
  parseValue: (value) => value,
});

builder.queryType({});
builder.subscriptionType({});
