/**
 * One definition per REST route: its path, the zod schemas of its inputs and answers, whether
 * it needs the operator key, and its handler. The same definition mounts the route (with
 * validation) and writes its entry in the OpenAPI document, so the two cannot drift apart.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { ZodObject, ZodRawShape, ZodTypeAny, z } from "zod";
import { requireOperatorKey } from "../auth/operator-key.js";
import type { ServiceErrorCode } from "../../core/errors.js";
import type { ApiDeps } from "../deps.js";
import { retryTransient } from "../http/errors.js";
import { queryObject, readJsonBody, validate } from "../http/validation.js";

type Output<S> = S extends ZodTypeAny ? z.output<S> : undefined;

/**
 * One answer of a route: a JSON body (`schema`), or an error `{ error, code }` with the codes
 * the route answers at that status (`codes`, needed only where several codes share the status;
 * api/http/errors.ts ERROR_STATUS).
 */
export type RouteResponse = {
  description: string;
  schema?: ZodTypeAny;
  codes?: readonly ServiceErrorCode[];
  /**
   * A streamed answer that is not one JSON body (an export): its media type and the schema of
   * what it carries (for NDJSON, one line), and the headers it sets.
   */
  stream?: { mediaType: string; schema: ZodTypeAny; headers?: Record<string, string> };
};

export type RouteDef<Q extends ZodTypeAny | undefined, P extends ZodObject<ZodRawShape> | undefined, B extends ZodTypeAny | undefined> = {
  method: "get" | "post" | "delete";
  /** Hono path relative to /api/v1, e.g. `/buybacks/:token`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  query?: Q;
  params?: P;
  body?: B;
  /**
   * Answers by status; the errors every such route answers (400 for its inputs, 401/403 for
   * the operator key, 408/413/415 for a body, 429, 500, 503 for the database) are added by
   * the document (api/openapi/document.ts).
   */
  responses: Record<number, RouteResponse>;
  operatorKey?: boolean;
  handler: (c: Context, input: { query: Output<Q>; params: Output<P>; body: Output<B> }, deps: ApiDeps) => Promise<Response>;
};

/**
 * `body` as the route's JSON answer, checked by the compiler against the schema the route
 * documents (the same schema the OpenAPI document and the contract test read).
 */
export function respond<S extends ZodTypeAny>(c: Context, _schema: S, body: z.input<S>, status: 200 | 201 | 202 = 200): Response {
  return c.json(body as never, status);
}

// biome-ignore lint/suspicious/noExplicitAny: a list of routes of any input types
export type AnyRoute = RouteDef<any, any, any>;

export function defineRoute<
  Q extends ZodTypeAny | undefined = undefined,
  P extends ZodObject<ZodRawShape> | undefined = undefined,
  B extends ZodTypeAny | undefined = undefined,
>(route: RouteDef<Q, P, B>): RouteDef<Q, P, B> {
  return route;
}

/**
 * Mounts routes on `app` (a Hono app serving /api/v1): the rate limit (writes have their own,
 * stricter bucket), the operator key where needed, validation, then the handler.
 */
export function mountRoutes(app: Hono, routes: readonly AnyRoute[], deps: ApiDeps, limits: { read: MiddlewareHandler; write: MiddlewareHandler }): void {
  const auth = requireOperatorKey(deps.config);
  for (const route of routes) {
    const handlers = [
      route.method === "get" ? limits.read : limits.write,
      ...(route.operatorKey ? [auth] : []),
      async (c: Context) => {
        const params = route.params ? validate(route.params, c.req.param(), "path") : undefined;
        const query = route.query ? validate(route.query, queryObject(c), "query") : undefined;
        const body = route.body ? validate(route.body, await readJsonBody(c), "body") : undefined;
        // Reads are retried once on a transient database error (then 503; errors.ts).
        return route.method === "get" ? retryTransient(() => route.handler(c, { query, params, body }, deps)) : route.handler(c, { query, params, body }, deps);
      },
    ];
    app.on(route.method.toUpperCase(), route.path, ...(handlers as [never]));
  }
}
