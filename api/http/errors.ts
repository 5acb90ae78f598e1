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

/**
 * PostgreSQL errors that pass on their own (SQLSTATE): a lock not granted in time (ponder's
 * 500 ms lock timeout), a statement timeout, a serialization failure or deadlock, a server
 * out of connections or still starting. A read that hits one is retried once, then answered
 * 503 (`DATABASE_BUSY`), never as the server's own error.
 */
export const TRANSIENT_DB_CODES: Record<string, string> = {
  "55P03": "lock timeout",
  "57014": "statement timeout",
  "40001": "serialization failure",
  "40P01": "deadlock",
  "53300": "too many connections",
  "57P03": "database starting",
};

/** The reason of a transient database error anywhere in `error`'s cause chain, or undefined. */
export function transientDbError(error: unknown): string | undefined {
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && TRANSIENT_DB_CODES[code]) return TRANSIENT_DB_CODES[code];
    e = (e as { cause?: unknown; originalError?: unknown }).cause ?? (e as { originalError?: unknown }).originalError;
  }
  return undefined;
}

/** Runs a read; a transient database error is retried once (then thrown for a 503). */
export async function retryTransient<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (transientDbError(error) === undefined) throw error;
    await new Promise((r) => setTimeout(r, 50));
    return read();
  }
}

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
  const transient = transientDbError(error);
  if (transient) return { status: 503, message: `DATABASE_BUSY: the database is busy (${transient}); retry`, headers: { "Retry-After": "1" }, unexpected: false };
  return { status: 500, message: "internal error", headers: {}, unexpected: true };
}

export function errorResponse(c: Context, error: HttpError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json({ error: error.message }, error.status);
}
