/**
 * Errors the HTTP interface answers with: every one is `{ "error": "<message>", "code": "<CODE>" }`
 * with the status of its code in `ERROR_STATUS`, the one table of codes and statuses
 * (docs/design.md §7). REST, sign-in, agent and page routes all map errors with `toHttpError`.
 * Unknown errors become a bare 500 INTERNAL_ERROR (logged, never a stack trace).
 */
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ZodError } from "zod";
import { WalletKeyError } from "../../core/agents/keys.js";
import { PG_TRANSIENT } from "../../common/pg-errors.js";
import { EngineError, ServiceError, type ServiceErrorCode, causeChain, isDatabaseUnavailable } from "../../core/errors.js";
import { BodyError, formatZodError } from "./validation.js";

/** The HTTP status of every code the service answers with. */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  CHAIN_REFUSED: 502,
  UPSTREAM_FAILED: 502,
  NOT_CONFIGURED: 503,
  DATABASE_UNAVAILABLE: 503,
  DATABASE_BUSY: 503,
  CHAIN_UNAVAILABLE: 503,
} as const satisfies Record<ServiceErrorCode, ContentfulStatusCode>;

/** An error raised by the HTTP layer itself, with headers for its answer (`WWW-Authenticate`, `Retry-After`). */
export class ApiError extends ServiceError {
  override name = "ApiError";
  constructor(
    code: ServiceErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message, { code, retryable: code === "RATE_LIMITED" });
  }
  get status(): ContentfulStatusCode {
    return ERROR_STATUS[this.code];
  }
}

export const badRequest = (message: string) => new ApiError("BAD_REQUEST", message);
export const unauthorized = (message: string) => new ApiError("UNAUTHORIZED", message, { "WWW-Authenticate": 'Bearer realm="operator"' });
export const forbidden = (message: string) => new ApiError("FORBIDDEN", message);
export const notFound = (message: string) => new ApiError("NOT_FOUND", message);
export const conflict = (message: string) => new ApiError("CONFLICT", message);
export const methodNotAllowed = (message: string, allow: string) => new ApiError("METHOD_NOT_ALLOWED", message, { Allow: allow });
export const payloadTooLarge = (message: string) => new ApiError("PAYLOAD_TOO_LARGE", message);
export const unsupportedMediaType = (message: string) => new ApiError("UNSUPPORTED_MEDIA_TYPE", message);
/** A chain precondition the caller can fix (e.g. insufficient funds). */
export const unprocessable = (message: string) => new ApiError("UNPROCESSABLE", message);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError("RATE_LIMITED", `rate limit exceeded: retry in ${retryAfterSeconds} s`, { "Retry-After": String(retryAfterSeconds) });
/** A transaction reverted or the chain refused it; the message carries the reason. */
export const badGateway = (message: string) => new ApiError("CHAIN_REFUSED", message);
/** The service is missing configuration: the message names the variable. */
export const notConfigured = (message: string) => new ApiError("NOT_CONFIGURED", message);
/** The chain's RPC could not answer (unreachable, timing out): retry later. */
export const chainUnavailable = (message: string) => new ApiError("CHAIN_UNAVAILABLE", message);

/**
 * PostgreSQL errors that pass on their own (SQLSTATE): a lock not granted in time (ponder's
 * 500 ms lock timeout), a statement timeout, a serialization failure or deadlock, a server
 * out of connections or still starting. A read that hits one is retried once, then answered
 * 503 (`DATABASE_BUSY`), never as the server's own error.
 */
export const TRANSIENT_DB_CODES: Readonly<Record<string, string>> = PG_TRANSIENT;

/** The reason of a transient database error anywhere in `error`'s cause chain, or undefined. */
export function transientDbError(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const code = e && typeof e === "object" ? (e as { code?: unknown }).code : undefined;
    if (typeof code === "string" && TRANSIENT_DB_CODES[code]) return TRANSIENT_DB_CODES[code];
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

export type HttpError = {
  status: ContentfulStatusCode;
  code: ServiceErrorCode;
  message: string;
  headers: Record<string, string>;
  /** A 500 or a broken deployment: logged (never shown to the client). */
  unexpected: boolean;
};

const answer = (code: ServiceErrorCode, message: string, headers: Record<string, string> = {}, unexpected = false): HttpError => ({
  status: ERROR_STATUS[code],
  code,
  message,
  headers,
  unexpected,
});

/** The status, code and message for any thrown value, on every route. */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof ApiError) return answer(error.code, error.message, error.headers);
  if (error instanceof WalletKeyError) return answer("NOT_CONFIGURED", "agent wallet keys cannot be decrypted: check AGENT_KEY_SECRET", {}, true);
  // The engine's finer codes: a retryable failure is an outage of the chain or the database, anything else the chain's refusal.
  if (error instanceof EngineError) {
    if (!error.retryable) return answer("CHAIN_REFUSED", error.message);
    return answer(
      error.code === "database-unavailable" ? "DATABASE_UNAVAILABLE" : "CHAIN_UNAVAILABLE",
      `the chain or database is unavailable (${error.code}); retry`,
    );
  }
  // A body left unread (too large, too slow, aborted): the connection closes after the answer,
  // and says so, so that a client's pool never sends its next request on it.
  if (error instanceof BodyError && (error.status === 413 || error.clientGone))
    return answer(error.code as ServiceErrorCode, error.message, { Connection: "close" });
  if (error instanceof ServiceError) return answer(error.code as ServiceErrorCode, error.message);
  if (error instanceof ZodError) return answer("BAD_REQUEST", formatZodError(error));
  // PostgreSQL unreachable or restarting: a temporary outage, never a 500.
  if (isDatabaseUnavailable(error)) return answer("DATABASE_UNAVAILABLE", "database unavailable; retry later", { "Retry-After": "5" });
  const transient = transientDbError(error);
  if (transient) return answer("DATABASE_BUSY", `DATABASE_BUSY: the database is busy (${transient}); retry`, { "Retry-After": "1" });
  return answer("INTERNAL_ERROR", "internal error", {}, true);
}

/** The `{ error, code }` answer of an error. */
export function errorResponse(c: Context, error: HttpError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json({ error: error.message, code: error.code }, error.status);
}

/** The error handler of an app (REST, sign-in, agents): logs the unexpected, answers `{ error, code }`. */
export function onHttpError(log: { logError?: (error: unknown, context: string) => void; logClientFault?: (message: string, context: string) => void }) {
  return (error: Error, c: Context): Response => {
    const http = toHttpError(error);
    const where = `${c.req.method} ${c.req.path}`;
    if (http.unexpected) (log.logError ?? ((e, at) => console.error(at, e)))(error, where);
    // A client that stopped sending is the client's fault: a line at info, no stack.
    else if (error instanceof BodyError && error.clientGone) log.logClientFault?.(error.message, where);
    return errorResponse(c, http);
  };
}
