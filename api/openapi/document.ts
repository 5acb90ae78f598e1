/**
 * The OpenAPI 3 document of the REST shim, generated from the route definitions and their
 * zod schemas (the ones that validate requests), served at /api/v1/openapi.json.
 */
import { type ZodObject, type ZodRawShape, type ZodTypeAny } from "zod";
import type { AnyRoute } from "../rest/route.js";
import { errorResponse } from "../rest/schemas.js";
import { DEFAULT_RATE_LIMITS } from "../http/rate-limit.js";
import { MAX_BODY_BYTES } from "../http/validation.js";
import { type SchemaObject, toSchemaObject } from "./zod-schema.js";

type Parameter = { name: string; in: "query" | "path" | "header"; required: boolean; description?: string; schema: SchemaObject };

function parameters(schema: ZodTypeAny | undefined, where: "query" | "path"): Parameter[] {
  if (!schema) return [];
  const object = toSchemaObject(schema, "input");
  const shape = (schema as ZodObject<ZodRawShape>).shape as Record<string, ZodTypeAny>;
  return Object.entries(object.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || (object.required ?? []).includes(name),
    description: s.description ?? shape[name]?.description,
    schema: { ...s, description: undefined },
  }));
}

const jsonContent = (schema: SchemaObject) => ({ "application/json": { schema } });
const errorRef = { $ref: "#/components/schemas/Error" } as unknown as SchemaObject;
const error = (description: string) => ({ description, content: jsonContent(errorRef) });

function operation(route: AnyRoute) {
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(route.responses)) {
    responses[status] = r.schema ? { description: r.description, content: jsonContent(toSchemaObject(r.schema, "output")) } : error(r.description);
  }
  if (route.query || route.params || route.body) responses["400"] ??= error("Invalid input: wrong types, missing fields, malformed addresses, bad cursor, invalid split");
  if (route.body) {
    responses["413"] ??= error(`Body larger than ${MAX_BODY_BYTES} bytes`);
    responses["415"] ??= error("Content-Type is not application/json");
  }
  responses["429"] ??= { ...error("Rate limit reached"), headers: { "Retry-After": { description: "Seconds to wait", schema: { type: "integer" } } } };
  const idempotency: Parameter[] = route.operatorKey
    ? [
        {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description: "A retried request with the same key returns the first one's transactions instead of sending again",
          schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
        },
      ]
    : [];
  return {
    tags: [route.tag],
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    operationId: `${route.method}${route.path.replace(/\/:?(\w)(\w*)/g, (_m, a: string, b: string) => a.toUpperCase() + b)}`,
    parameters: [...parameters(route.params, "path"), ...parameters(route.query, "query"), ...idempotency],
    ...(route.body ? { requestBody: { required: true, content: jsonContent(toSchemaObject(route.body, "input")) } } : {}),
    ...(route.operatorKey ? { security: [{ operatorKey: [] }] } : {}),
    responses,
  };
}

export function openApiDocument(routes: readonly AnyRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    (paths[path] ??= {})[route.method] = operation(route);
  }
  const { read, write } = DEFAULT_RATE_LIMITS;
  return {
    openapi: "3.0.3",
    info: {
      title: "Launchpad REST API",
      version: "1",
      description: [
        "Token launches, fee routing, desks, buybacks and burns. Amounts are exact decimal strings in whole units (USDC has 6 decimals, tokens 18), addresses are checksummed, timestamps ISO-8601.",
        "Lists are `{ items, nextCursor }` with `?limit=` (default 50, max 200) and `?cursor=`. Errors are `{ error }`.",
        `Rate limits per client: reads ${read.capacity} burst, ${read.refillPerSecond * 60}/min; launch and register ${write.capacity} burst, ${write.refillPerSecond * 60}/min.`,
        "GraphQL with more reach (filters, orderings, aggregates, subscriptions) is at /graphql.",
      ].join("\n\n"),
    },
    servers: [{ url: "/api/v1" }],
    paths,
    components: {
      schemas: { Error: toSchemaObject(errorResponse, "output") },
      securitySchemes: { operatorKey: { type: "http", scheme: "bearer", description: "OPERATOR_API_KEY (not needed when LEGACY_LAUNCH_OPEN=true)" } },
    },
  };
}
