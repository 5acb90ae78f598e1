/** Client-facing GraphQL errors: bad input is a typed error (`BAD_USER_INPUT`), never masked. */
import { GraphQLError } from "graphql";
import { isAddress, type Hex } from "viem";
import { retryTransient, transientDbError } from "../http/errors.js";
import { ValidationError } from "../http/validation.js";
import { isDatabaseUnavailable } from "../../core/errors.js";

export const userError = (message: string) => new GraphQLError(message, { extensions: { code: "BAD_USER_INPUT" } });

/** A read that hit a transient database error twice (a lock timeout …): 503, code DATABASE_BUSY. */
export function databaseBusy(error: unknown): GraphQLError | undefined {
  const reason = transientDbError(error);
  if (reason === undefined) return undefined;
  return new GraphQLError(`the database is busy (${reason}); retry`, {
    extensions: { code: "DATABASE_BUSY", http: { status: 503, headers: { "Retry-After": "1" } } },
  });
}

/** Runs `fn` (retried once on a transient database error), turning validation failures (a bad cursor, too many buckets) into user errors. */
export async function asUserErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await retryTransient(fn);
  } catch (error) {
    if (error instanceof ValidationError) throw userError(error.message);
    throw error;
  }
}

/** A lowercase address, or a user error naming the argument. */
export function addressArg(value: string, name: string): Hex {
  if (value.length > 42 || !isAddress(value)) throw userError(`${name}: expected a 0x-prefixed 20-byte hex address with a valid checksum`);
  return value.toLowerCase() as Hex;
}

/**
 * A temporary outage the client should retry (PostgreSQL unreachable or restarting): a typed
 * error with code SERVICE_UNAVAILABLE and HTTP status 503, never a masked "Unexpected error.";
 * undefined for any other error.
 */
export function unavailableError(error: unknown): GraphQLError | undefined {
  const original = (error as { originalError?: unknown }).originalError ?? error;
  if (!isDatabaseUnavailable(original)) return undefined;
  return new GraphQLError("database unavailable; retry later", {
    extensions: { code: "SERVICE_UNAVAILABLE", http: { status: 503, headers: { "Retry-After": "5" } } },
  });
}
