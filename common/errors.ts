/**
 * The service's error root (as viem's `BaseError`, with Stripe's codes): every error class of the
 * service extends `ServiceError`, which carries a stable machine `code` (clients branch on it,
 * never on the message) and whether retrying can help (ponder's retryable vs non-retryable
 * split). `causeChain` walks an error's causes, for every check that looks past a wrapper.
 * The HTTP status of each code is one table, `ERROR_STATUS` in api/http/errors.ts.
 *
 * It lives here, beneath core/, so that common/'s configuration errors extend it too;
 * core/errors.ts re-exports it with the engine's and the services' error classes.
 */

/** The codes the service answers with (`{ "error", "code" }`), each with one HTTP status. */
export const SERVICE_ERROR_CODES = [
  /** Malformed input: wrong types, missing fields, bad JSON, a bad cursor, an invalid split (400). */
  "BAD_REQUEST",
  /** No credentials, or credentials that are not valid (401). */
  "UNAUTHORIZED",
  /** Valid credentials that do not allow this (a wrong operator key, not the agent's owner) (403). */
  "FORBIDDEN",
  /** No such route, token, pool or agent (404). */
  "NOT_FOUND",
  /** The route exists but not with this method (405; `Allow` names the ones it takes). */
  "METHOD_NOT_ALLOWED",
  /** The request body did not arrive in time (408). */
  "REQUEST_TIMEOUT",
  /** The state does not allow it: already enrolled, already launched, a launch in progress (409). */
  "CONFLICT",
  /** The body is larger than the route accepts (413). */
  "PAYLOAD_TOO_LARGE",
  /** The body is not `application/json` (415). */
  "UNSUPPORTED_MEDIA_TYPE",
  /** A chain precondition the caller can fix: a wallet short of funds, a split the locker does not pay (422). */
  "UNPROCESSABLE",
  /** Past the client's rate limit: retry after `Retry-After` seconds (429). */
  "RATE_LIMITED",
  /** An unexpected error (a bug): logged, never described (500). */
  "INTERNAL_ERROR",
  /** A transaction reverted or the chain refused it: the message carries the reason (502). */
  "CHAIN_REFUSED",
  /** A service the request needs (the charter compiler) failed (502). */
  "UPSTREAM_FAILED",
  /** The service is missing configuration: the message names the variable (503). */
  "NOT_CONFIGURED",
  /** PostgreSQL cannot be reached or is restarting: retry later (503). */
  "DATABASE_UNAVAILABLE",
  /** A transient database error (a lock or statement timeout, a deadlock): retry (503). */
  "DATABASE_BUSY",
  /** The chain's RPC cannot be reached or timed out: retry later (503). */
  "CHAIN_UNAVAILABLE",
] as const;

export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

export type ServiceErrorOptions<C extends string> = { code: C; retryable?: boolean; cause?: unknown };

/**
 * The root of the service's errors. `C` is the class's code vocabulary: the service's codes
 * by default, the engine's finer ones for `EngineError` (which the HTTP layer maps to these).
 */
export class ServiceError<C extends string = ServiceErrorCode> extends Error {
  override name = "ServiceError";
  /** A stable machine string: branch on it, never on the message. */
  readonly code: C;
  /** Whether the same request or step may succeed if tried again later. */
  readonly retryable: boolean;
  constructor(message: string, options: ServiceErrorOptions<C>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code;
    this.retryable = options.retryable ?? false;
  }
}

/** How deep a cause chain is followed (drizzle and viem nest the driver's or node's error a few levels). */
const MAX_CAUSE_DEPTH = 8;

/**
 * An error and its causes, outermost first: each `cause` (or a GraphQL error's
 * `originalError`), at most `MAX_CAUSE_DEPTH` links. A value that is not an object ends the
 * chain (it is included).
 */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  let e: unknown = error;
  while (e && chain.length < MAX_CAUSE_DEPTH) {
    chain.push(e);
    if (typeof e !== "object") break;
    const o = e as { cause?: unknown; originalError?: unknown };
    e = o.cause ?? o.originalError;
  }
  return chain;
}
