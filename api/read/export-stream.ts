/**
 * An export's rows from one server-side cursor (docs/design.md §7, docs/api.md "Exports"): the
 * dataset's query is declared as a cursor in a READ ONLY transaction on a connection of its own
 * (taken from the read database's pool for the export's whole length), with a statement timeout
 * on each FETCH and an idle timeout while the client is not reading. Rows arrive in batches of
 * FETCH_ROWS, every field as the database's text (no type parsing at all), so the API turns them
 * into lines without a drizzle row object or a bigint per amount. One snapshot serves the whole
 * export. Closing the cursor (done, failed, or the client gone) ends the transaction and gives
 * the connection back; a connection whose server went away is discarded instead.
 */
import type pg from "pg";
import type { ReadDb } from "../deps.js";
import { ApiError } from "../http/errors.js";
import type { ExportSql, TextRow } from "./export.js";

/** Rows per FETCH (a few hundred KB of CSV each). */
export const FETCH_ROWS = 1_000;
/** Longest one FETCH (or the DECLARE) may run. */
export const EXPORT_STATEMENT_TIMEOUT_MS = 30_000;
/** Longest the transaction may wait for a client that stops reading; then the server ends it (and the download). */
export const EXPORT_IDLE_TIMEOUT_MS = 120_000;
/** Exports one API process streams at once: each holds a read connection for its length. */
export const MAX_EXPORT_STREAMS = 2;

/** Every field as its text: no parser per type (numeric, int8, json stay strings). */
const TEXT = { getTypeParser: () => (value: string) => value } as unknown as pg.CustomTypesConfig;

type Connector = { connect(): Promise<pg.PoolClient> };

let streaming = 0;

/** Exports streaming in this process now (their connections are checked out). */
export const exportStreams = () => streaming;

/** Takes one of the process's MAX_EXPORT_STREAMS slots, or refuses with a 503 DATABASE_BUSY (with Retry-After). */
export function acquireExportSlot(): void {
  if (streaming >= MAX_EXPORT_STREAMS) {
    throw new ApiError("DATABASE_BUSY", `${MAX_EXPORT_STREAMS} exports are streaming from this server already; retry shortly`, { "Retry-After": "10" });
  }
  streaming++;
}

export function releaseExportSlot(): void {
  streaming--;
}

/**
 * Ends an export's read transaction (`end`: ROLLBACK for a cursor, COMMIT after a COPY) and
 * gives its connection back, with the export's slot. A connection that failed to end the
 * transaction, or whose server went away (`lost`), is discarded rather than reused: released
 * with an error, the pool destroys it; it keeps `onError`, where its last errors land.
 */
export async function releaseExportConnection(
  client: pg.PoolClient,
  end: "ROLLBACK" | "COMMIT",
  lost: () => Error | undefined,
  onError: (error: Error) => void,
): Promise<void> {
  let discard: Error | undefined = lost();
  if (!discard) {
    try {
      await client.query(end);
    } catch (error) {
      discard = error instanceof Error ? error : new Error(String(error));
    }
  }
  discard ??= lost();
  if (!discard) client.off("error", onError);
  client.release(discard);
  releaseExportSlot();
}

/**
 * An export's own connection, with its slot taken first (one more than MAX_EXPORT_STREAMS is a
 * 503 before any connection is taken). A server gone while the connection is checked out is
 * noted by `onError` (not a crash) and read back by `lost`; the connection is then discarded.
 */
export async function openExportConnection(db: ReadDb): Promise<{ client: pg.PoolClient; lost: () => Error | undefined; onError: (error: Error) => void }> {
  acquireExportSlot();
  let client: pg.PoolClient;
  try {
    client = await connectorOf(db).connect();
  } catch (error) {
    releaseExportSlot();
    throw error;
  }
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on("error", onError);
  return { client, lost: () => lost, onError };
}

/** The pool under a drizzle client (ponder's read-only `db`, or a test's). */
export function connectorOf(db: ReadDb): Connector {
  const client = (db as { $client?: unknown }).$client as Partial<Connector> | undefined;
  if (typeof client?.connect !== "function") throw new Error("exports need the read database's pool (drizzle's $client)");
  return client as Connector;
}

export class RowCursor {
  private closed = false;

  private constructor(
    private readonly client: pg.PoolClient,
    private readonly broken: () => Error | undefined,
    private readonly onError: (error: Error) => void,
  ) {}

  /**
   * Declares `query` as a cursor on a connection of its own. At most MAX_EXPORT_STREAMS at once
   * per process: one more is a 503 DATABASE_BUSY (with Retry-After), before any connection is taken.
   */
  static async open(db: ReadDb, query: ExportSql): Promise<RowCursor> {
    const { client, lost, onError } = await openExportConnection(db);
    const cursor = new RowCursor(client, lost, onError);
    try {
      await client.query("BEGIN READ ONLY");
      await client.query(`SET LOCAL statement_timeout = ${EXPORT_STATEMENT_TIMEOUT_MS}`);
      await client.query(`SET LOCAL idle_in_transaction_session_timeout = ${EXPORT_IDLE_TIMEOUT_MS}`);
      await client.query({ text: `DECLARE export_rows NO SCROLL CURSOR FOR ${query.sql}`, values: query.params as unknown[] });
    } catch (error) {
      await cursor.close(error);
      throw error;
    }
    return cursor;
  }

  /** The next `count` rows (fewer at the end). Refused once closed: a closed cursor's connection is back in the pool. */
  fetch(count: number): Promise<TextRow[]> {
    if (this.closed) return Promise.reject(new Error("export cursor closed"));
    return this.client.query<TextRow>({ text: `FETCH FORWARD ${Math.floor(count)} FROM export_rows`, rowMode: "array", types: TEXT }).then((r) => r.rows);
  }

  /**
   * Ends the transaction (closing the cursor) and gives the connection back; once. Queued after
   * a FETCH still in flight. A connection that failed to roll back, or whose server went away,
   * is discarded rather than reused.
   */
  async close(_error?: unknown): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await releaseExportConnection(this.client, "ROLLBACK", () => this.broken(), this.onError);
  }
}
