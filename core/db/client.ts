/**
 * The engine's PostgreSQL access: one pg pool and a drizzle client over the `engine` schema.
 */
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as tables from "../../schema/engine.js";

export type EngineTables = typeof tables;
export type Db = NodePgDatabase<EngineTables>;
/** A drizzle transaction over the engine tables. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything queries run on: the client or an open transaction. */
export type Queryable = Db | Tx;

export type EngineDb = { pool: pg.Pool; db: Db; close: () => Promise<void> };

/** Pool size: the scheduler runs at most one cycle per worker at a time. */
const POOL_SIZE = 10;
/**
 * A session idle inside a transaction this long is ended by PostgreSQL (its transaction rolls
 * back). A running engine does not wait that long between the statements of a transaction; a
 * process that stopped running mid-transaction (frozen, suspended) does, and its locks — a
 * signer's nonce lock, a leg's lock — are then released instead of stalling, for as long as it
 * stays frozen, the standby that took over its lease.
 */
export const IDLE_IN_TRANSACTION_MS = 15_000;

/**
 * A server restart or outage must not crash the process: pg emits `error` on an idle client
 * (the pool's) and on a checked-out client that has no query running (a lock or a transaction
 * held across an await), and an `error` event nobody listens to is an uncaught exception. The
 * pending or next query rejects instead, and the pool reconnects. Every pool of every process
 * goes through this.
 */
export function survivePoolErrors(pool: pg.Pool, onError: (error: Error) => void = () => {}): pg.Pool {
  pool.on("error", onError);
  pool.on("connect", (client) => client.on("error", onError));
  return pool;
}

export function openEngineDb(databaseUrl: string, applicationName = "launchpad-engine"): EngineDb {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: POOL_SIZE,
    application_name: applicationName,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
  });
  survivePoolErrors(pool);
  const db = drizzle(pool, { schema: tables });
  return { pool, db, close: () => pool.end() };
}

/** The drizzle client over a pool opened elsewhere (the API's, a test's); one per pool. */
const dbs = new WeakMap<pg.Pool, Db>();
export function dbOf(pool: pg.Pool): Db {
  let db = dbs.get(pool);
  if (!db) dbs.set(pool, (db = drizzle(pool, { schema: tables })));
  return db;
}

export { tables };
