/**
 * The PostgreSQL error codes (SQLSTATE) and socket error codes the service tells apart, named
 * once. A driver error carries its code in `code`, often under a wrapper's `cause` (drizzle
 * wraps node-postgres).
 */

/** admin_shutdown, crash_shutdown, cannot_connect_now: the server is stopping, crashed or starting. */
export const PG_SHUTTING_DOWN: ReadonlySet<string> = new Set(["57P01", "57P02", "57P03"]);

/** Socket errors of a connection that could not be made or broke (node's `code`). */
export const SOCKET_FAILURES: ReadonlySet<string> = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH"]);

/** Class 08, connection exception (08000, 08001, 08003, 08006, …). */
export const isConnectionException = (code: string): boolean => /^08[0-9A-Z]{3}$/.test(code);

/** disk_full: the server could not extend a file or write its WAL (a full disk, until space is freed). */
export const PG_DISK_FULL = "53100";

/**
 * PostgreSQL cannot be reached or is not serving right now (a restart, a failover, a fast
 * shutdown, a full disk): the server stopping or starting, any connection exception, a socket
 * failure, or disk_full (it cannot write until space is freed; waited out like an outage).
 */
export const isDatabaseUnavailableCode = (code: string): boolean =>
  PG_SHUTTING_DOWN.has(code) || isConnectionException(code) || SOCKET_FAILURES.has(code) || code === PG_DISK_FULL;

/**
 * Errors that pass on their own, with the reason each is reported under: a lock not granted in
 * time, a statement timeout, a serialization failure or deadlock, a server out of connections
 * or still starting. A read that meets one may be retried.
 */
export const PG_TRANSIENT: Readonly<Record<string, string>> = {
  "55P03": "lock timeout",
  "57014": "statement timeout",
  "40001": "serialization failure",
  "40P01": "deadlock",
  "53300": "too many connections",
  "57P03": "database starting",
};

/** lock_not_available: a lock not granted within `lock_timeout`. */
export const PG_LOCK_NOT_AVAILABLE = "55P03";

/** invalid_schema_name, undefined_table: the engine's schema or a table of it does not exist (never migrated). */
export const PG_NOT_MIGRATED: ReadonlySet<string> = new Set(["3F000", "42P01"]);

/** undefined_column: a column a later migration adds does not exist yet. */
export const PG_UNDEFINED_COLUMN = "42703";

/** invalid_catalog_name: the database itself does not exist. */
export const PG_NO_SUCH_DATABASE = "3D000";
