/**
 * One error class for the engine, classified by whether retrying can help (ponder's
 * RetryableError vs NonRetryableUserError split): RPC outages, timeouts and nonce races are
 * retryable; reverts are permanent and carry their decoded reason. RPC error texts are mapped
 * by regex, as viem maps them to its own classes. Every error class extends `ServiceError`
 * (common/errors.ts, re-exported here): a stable `code` and `retryable`.
 */
import { BaseError, type Hex, decodeErrorResult, isHex } from "viem";
import { knownErrorsAbi } from "../common/abis/errors.js";
import { ServiceError, type ServiceErrorCode, causeChain } from "../common/errors.js";
import { PG_NO_SUCH_DATABASE, isDatabaseUnavailableCode } from "../common/pg-errors.js";

export { ServiceError, type ServiceErrorOptions, SERVICE_ERROR_CODES, type ServiceErrorCode, causeChain } from "../common/errors.js";

export type ErrorCode =
  | "nonce-too-low"
  | "already-known"
  | "replacement-underpriced"
  | "nonce-too-high"
  | "insufficient-funds"
  | "revert"
  | "timeout"
  | "rpc-unavailable"
  | "database-unavailable"
  | "sniper-auction"
  | "unknown";

/** The engine's errors, with its finer codes (the HTTP layer maps them to the service's). */
export class EngineError extends ServiceError<ErrorCode> {
  override name = "EngineError";
  readonly details: string | undefined;
  constructor(shortMessage: string, options: { code: ErrorCode; retryable: boolean; cause?: unknown; details?: string }) {
    super(shortMessage, options);
    this.details = options.details;
  }
}

/** A transaction (or its simulation) reverted; `reason` is the decoded revert. */
export class RevertError extends EngineError {
  override name = "RevertError";
  constructor(
    readonly reason: string,
    cause?: unknown,
  ) {
    super(`reverted: ${reason}`, { code: "revert", retryable: false, cause });
  }
}

/** RPC error texts → class, first match wins (nonce races before the generic revert). */
export const ERROR_PATTERNS: [RegExp, ErrorCode, boolean][] = [
  [/nonce too low|nonce has already been used|NonceTooLow|OldNonce/i, "nonce-too-low", true],
  [/already known|known transaction|AlreadyKnown|transaction already imported/i, "already-known", true],
  [/replacement transaction underpriced|replacement underpriced|ReplacementUnderpriced|fee too low/i, "replacement-underpriced", true],
  [/nonce too high/i, "nonce-too-high", true],
  [/insufficient funds/i, "insufficient-funds", true],
  [/execution reverted|reverted|revert/i, "revert", false],
  [/timeout|timed out|took too long/i, "timeout", true],
  [
    /ECONNREFUSED|ECONNRESET|EPIPE|ENOTFOUND|EAI_AGAIN|socket hang up|fetch failed|network|HTTP request failed|other side closed|terminated|Connection terminated/i,
    "rpc-unavailable",
    true,
  ],
  [/\b(429|502|503|504)\b|rate limit|too many requests|service unavailable|bad gateway/i, "rpc-unavailable", true],
];

/** Every message in an error's cause chain (viem nests the node's text a few levels deep). */
export function errorText(error: unknown): string {
  const parts: string[] = [];
  for (const e of causeChain(error)) {
    if (typeof e !== "object") {
      parts.push(String(e));
      break;
    }
    const o = e as { message?: unknown; details?: unknown; shortMessage?: unknown; code?: unknown };
    for (const v of [o.shortMessage, o.details, o.message, o.code]) if (typeof v === "string" && !parts.includes(v)) parts.push(v);
  }
  return parts.join(" | ");
}

/** Revert data found in an error's cause chain (viem's RawContractError and friends). */
export function revertDataOf(error: unknown): Hex | undefined {
  for (const e of causeChain(error)) {
    if (typeof e !== "object") break;
    const o = e as { data?: unknown };
    if (typeof o.data === "string" && isHex(o.data) && o.data.length >= 10) return o.data;
    if (o.data && typeof o.data === "object" && typeof (o.data as { data?: unknown }).data === "string") {
      const d = (o.data as { data: string }).data;
      if (isHex(d) && d.length >= 10) return d;
    }
  }
  return undefined;
}

/** Names a revert: `ErrorName(arg, …)`, unwrapping UniversalRouter's `ExecutionFailed`. */
export function decodeRevert(data: Hex | undefined, fallback = "unknown reason"): string {
  if (!data || data === "0x") return fallback;
  try {
    const decoded = decodeErrorResult({ abi: knownErrorsAbi, data });
    if (decoded.errorName === "ExecutionFailed") {
      const [index, inner] = decoded.args as [bigint, Hex];
      return `ExecutionFailed(command ${index}: ${decodeRevert(inner, inner)})`;
    }
    if ((decoded.errorName as string) === "Error") return String((decoded.args as readonly unknown[] | undefined)?.[0]);
    const args = (decoded.args ?? []).map((a) => String(a)).join(", ");
    return `${decoded.errorName}(${args})`;
  } catch {
    return `unknown error ${data.slice(0, 10)}`;
  }
}

/** Classifies any thrown value. An EngineError keeps its own class. */
export function classifyError(error: unknown): EngineError {
  if (error instanceof EngineError) return error;
  // A refused or reset connection is the database's when the driver threw it, the RPC's when viem did.
  if (!causeChain(error).some((e) => e instanceof BaseError) && isDatabaseUnavailable(error)) {
    const text = errorText(error);
    return new EngineError(firstLine(text), { code: "database-unavailable", retryable: true, cause: error, details: text });
  }
  const text = errorText(error);
  const data = revertDataOf(error);
  if (data) return new RevertError(decodeRevert(data), error);
  for (const [re, code, retryable] of ERROR_PATTERNS) {
    if (re.test(text)) {
      if (code === "revert") return new RevertError(revertReasonFromText(text), error);
      return new EngineError(firstLine(text), { code, retryable, cause: error, details: text });
    }
  }
  // PostgreSQL unreachable or restarting.
  if (/57P0[1-3]|08006|08001|Connection terminated|the database system is/i.test(text)) {
    return new EngineError(firstLine(text), { code: "database-unavailable", retryable: true, cause: error, details: text });
  }
  return new EngineError(firstLine(text) || "unknown error", { code: "unknown", retryable: false, cause: error, details: text });
}

/**
 * Whether an error means PostgreSQL cannot be reached or is not serving right now (a restart,
 * a failover, a fast shutdown, a full connection table): refused or reset connections, a
 * connection or query that timed out before an answer, the server's admin_shutdown (57P01),
 * crash_shutdown (57P02) and cannot_connect_now (57P03), any connection exception (class 08),
 * node-postgres's "Connection terminated", and a database that does not exist (yet): 3D000.
 * Walks the cause chain (drizzle wraps the driver's error).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return causeChain(error).some((e) => {
    if (!e || typeof e !== "object") return false;
    const o = e as { code?: unknown; message?: unknown; errors?: unknown };
    const code = typeof o.code === "string" ? o.code : "";
    if (isDatabaseUnavailableCode(code) || code === PG_NO_SUCH_DATABASE) return true;
    const message = typeof o.message === "string" ? o.message : "";
    if (
      /Connection terminated|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode|not yet accepting connections)|Client has encountered a connection error|terminating connection due to administrator command|Query read timeout/i.test(
        message,
      )
    )
      return true;
    // AggregateError (a refused connection tried on IPv4 and IPv6) carries its causes in `errors`.
    return Array.isArray(o.errors) && o.errors.some((inner) => isDatabaseUnavailable(inner));
  });
}

function firstLine(text: string): string {
  return (text.split(" | ")[0] ?? text).split("\n")[0]!.slice(0, 300);
}

function revertReasonFromText(text: string): string {
  const m = /reverted with (?:the following )?reason:?\s*([^\n|]+)/i.exec(text) ?? /execution reverted:?\s*([^\n|]*)/i.exec(text);
  return (m?.[1] ?? "").trim() || "execution reverted";
}

/** Short text for logs, health and the agent log. */
export function describeError(error: unknown): string {
  const e = classifyError(error);
  return `${e.code}: ${e.message}`;
}

/**
 * Why a service (agents, launches) refused a request, by what the caller can do about it; the
 * HTTP layer maps each kind to its status (docs/design.md §7).
 */
export type RefusalKind =
  /** Malformed input the launcher would reject (400). */
  | "invalid"
  /** Unknown agent or token (404). */
  | "not-found"
  /** Not the agent's owner (403). */
  | "forbidden"
  /** The state does not allow it: no charter yet, already launched or enrolled, launch in progress (409). */
  | "conflict"
  /** A wallet cannot pay, or the chain cannot honour the request (a split the locker does not pay): the message names the shortfall (422). */
  | "underfunded"
  /** A transaction reverted or the chain refused it: the message carries the reason (502). */
  | "chain"
  /** The chain or database is unavailable, or the service is not configured; retry later (503). */
  | "unavailable";

/** The service's code of each kind of refusal (its HTTP status follows from the code). */
export const REFUSAL_CODE = {
  invalid: "BAD_REQUEST",
  "not-found": "NOT_FOUND",
  forbidden: "FORBIDDEN",
  conflict: "CONFLICT",
  underfunded: "UNPROCESSABLE",
  chain: "CHAIN_REFUSED",
  unavailable: "CHAIN_UNAVAILABLE",
} as const satisfies Record<RefusalKind, ServiceErrorCode>;

export class Refusal extends ServiceError {
  override name = "Refusal";
  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** A finer code than the kind's (an "unavailable" refusal that is missing configuration, or the database). */
    code: ServiceErrorCode = REFUSAL_CODE[kind],
  ) {
    super(message, { code, retryable: kind === "unavailable" });
  }
}
