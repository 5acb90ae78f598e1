/**
 * Errors the HTTP interface answers with: every one is `{ "error": "<message>" }` with the
 * status of DESIGN.md §7. Unknown errors become a bare 500 (logged, never a stack trace).
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ZodError } from "zod";
import { MissingConfigError } from "../../common/config.js";
import { Refusal, type RefusalKind, isDatabaseUnavailable } from "../../core/errors.js";
import { JsonSyntaxError } from "./json.js";
import { BodyError, ValidationError, formatZodError } from "./validation.js";

export class ApiError extends Error {
  override name = "ApiError";
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message: string) => new ApiError(401, message, { "WWW-Authenticate": 'Bearer realm="operator"' });
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);
export const payloadTooLarge = (message: string) => new ApiError(413, message);
export const unsupportedMediaType = (message: string) => new ApiError(415, message);
/** A chain precondition the caller can fix (e.g. insufficient funds). */
export const unprocessable = (message: string) => new ApiError(422, message);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(429, `rate limit exceeded: retry in ${retryAfterSeconds} s`, { "Retry-After": String(retryAfterSeconds) });
/** A transaction reverted or the chain refused it; the message carries the reason. */
export const badGateway = (message: string) => new ApiError(502, message);
export const unavailable = (message: string) => new ApiError(503, message);

/** The status of each kind of service refusal (DESIGN.md §7). */
export const REFUSAL_STATUS = {
  invalid: 400,
  "not-found": 404,
  forbidden: 403,
  conflict: 409,
  underfunded: 422,
  chain: 502,
  unavailable: 503,
} as const satisfies Record<RefusalKind, ContentfulStatusCode>;

export type HttpError = { status: ContentfulStatusCode; message: string; headers: Record<string, string> };

/** The status and message for any thrown value; `unexpected` is true for a 500. */
export function toHttpError(error: unknown): HttpError & { unexpected: boolean } {
  if (error instanceof ApiError) return { status: error.status, message: error.message, headers: error.headers, unexpected: false };
  if (error instanceof Refusal) return { status: REFUSAL_STATUS[error.kind], message: error.message, headers: {}, unexpected: false };
  if (error instanceof MissingConfigError) return { status: 503, message: error.message, headers: {}, unexpected: false };
  if (error instanceof ZodError) return { status: 400, message: formatZodError(error), headers: {}, unexpected: false };
  if (error instanceof ValidationError) return { status: 400, message: error.message, headers: {}, unexpected: false };
  if (error instanceof BodyError) return { status: error.status, message: error.message, headers: {}, unexpected: false };
  if (error instanceof JsonSyntaxError) return { status: 400, message: error.message, headers: {}, unexpected: false };
  // PostgreSQL unreachable or restarting: a temporary outage, never a 500.
  if (isDatabaseUnavailable(error)) return { status: 503, message: "database unavailable; retry later", headers: { "Retry-After": "5" }, unexpected: false };
  return { status: 500, message: "internal error", headers: {}, unexpected: true };
}

export function errorResponse(c: Context, error: HttpError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json({ error: error.message }, error.status);
}
