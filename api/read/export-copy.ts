/**
 * An export's lines from PostgreSQL's COPY (docs/design.md §7, docs/api.md "Exports"): the
 * dataset's query builds each line's text in SQL (exact decimals, ISO times, cursors, CSV quoting
 * or JSON), and `COPY (…) TO STDOUT (FORMAT binary)` sends the rows as length-prefixed bytes
 * (no escaping to undo), read through pg-copy-streams with the socket's backpressure. Only the
 * EIP-55 checksums of addresses are left to the API (PostgreSQL has no keccak-256): a line is
 * its fields in order, every odd field an address slot (`0x` and 40 hex digits, written
 * checksummed; NULL when the cell is not an address, its text then in the next field), every
 * even field its bytes as they are.
 *
 * One statement, one snapshot, on a connection of its own (a READ ONLY transaction), counted
 * against the same MAX_EXPORT_STREAMS as the cursor path. COPY cannot take bind parameters, so
 * the query's parameters are inlined as escaped literals. Timeouts: the database must send the
 * next bytes within EXPORT_STATEMENT_TIMEOUT_MS of being asked (the cursor path's per-FETCH
 * timeout), the client must ask within EXPORT_IDLE_TIMEOUT_MS, and the whole COPY is bounded by
 * EXPORT_COPY_TIMEOUT_MS (the server's statement_timeout). A COPY ended early (the client gone,
 * a timeout) cannot be stopped politely in mid-stream: its connection is discarded, which ends
 * the server's backend.
 */
import pg from "pg";
import copyStreams from "pg-copy-streams";
import type { Readable } from "node:stream";
import type { ReadDb } from "../deps.js";
import { fastChecksum } from "./export.js";
import type { ExportSql } from "./export.js";
import { EXPORT_IDLE_TIMEOUT_MS, EXPORT_STATEMENT_TIMEOUT_MS, openExportConnection, releaseExportConnection, releaseExportSlot } from "./export-stream.js";

/** Longest one COPY (a whole export) may run on the server. */
export const EXPORT_COPY_TIMEOUT_MS = 3_600_000;

/** An error as PostgreSQL's own statement timeout (57014), so it maps to 503 DATABASE_BUSY before the answer starts. */
class ExportTimeout extends Error {
  readonly code = "57014";
}

/** `sql` with its `$n` parameters written as literals (COPY takes no bind parameters). */
export function inlineParams(query: ExportSql): string {
  return query.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const value = query.params[Number(n) - 1];
    if (value === null || value === undefined) return "NULL";
    if (typeof value === "bigint" || (typeof value === "number" && Number.isFinite(value))) return pg.escapeLiteral(String(value));
    if (typeof value === "string") return pg.escapeLiteral(value);
    throw new Error(`export query: a parameter of type ${typeof value} cannot be inlined`);
  });
}

// ------------------------------------------------------------------ binary COPY → lines

/** PGCOPY\n\377\r\n\0, then the flags (int32) and the header extension's length (int32). */
const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");
/** An address slot: `0x` and 40 hex digits. */
const ADDRESS_BYTES = 42;
const CHECKSUM_CACHE = 20_000;
/** Bytes of lines gathered into one chunk of the response when the socket has them already. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Turns binary COPY output (split anywhere) into the lines' bytes: each tuple's fields
 * concatenated, odd fields of 42 bytes checksummed. An odd field of another length (not an
 * address) is written as it is; a NULL field writes nothing.
 */
export class LineDecoder {
  private pending: Buffer | undefined;
  private headerDone = false;
  /** The trailer (-1 fields) has been read. */
  ended = false;
  rows = 0;
  /** Checksummed addresses by a hash of their 40 lowercase digits: each entry the digits, then the 42 bytes to write. */
  private readonly checksums = new Map<number, Buffer>();

  /**
   * The bytes of every tuple complete so far (the rest is kept for the next chunk). The lines are
   * written over the chunk itself, compacted forward (a line is never longer than its tuple: it
   * loses the field count and lengths), so nothing is allocated per chunk but the view returned.
   */
  push(chunk: Buffer): Buffer {
    const data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    let p = 0;
    if (!this.headerDone) {
      if (data.length < 19) return this.keep(data, 0);
      if (!data.subarray(0, 11).equals(SIGNATURE)) throw new Error("export: not a binary COPY stream");
      const extension = data.readInt32BE(15);
      if (data.length < 19 + extension) return this.keep(data, 0);
      p = 19 + extension;
      this.headerDone = true;
    }
    let used = 0;
    const end = data.length;
    while (!this.ended) {
      if (p + 2 > end) break;
      const fields = data.readInt16BE(p);
      if (fields === -1) {
        p += 2;
        this.ended = true;
        break;
      }
      // A tuple is written only once it is whole: its bytes stay as they came until then.
      let q = p + 2;
      let complete = true;
      for (let i = 0; i < fields; i++) {
        if (q + 4 > end) {
          complete = false;
          break;
        }
        const length = data.readInt32BE(q);
        q += 4 + (length > 0 ? length : 0);
        if (q > end) {
          complete = false;
          break;
        }
      }
      if (!complete) break;
      p += 2;
      for (let i = 0; i < fields; i++) {
        const length = data.readInt32BE(p);
        p += 4;
        if (length <= 0) continue;
        if ((i & 1) === 1 && length === ADDRESS_BYTES) this.checksum(data, p, used);
        else if (used !== p) data.copyWithin(used, p, p + length);
        used += length;
        p += length;
      }
      this.rows++;
    }
    if (!this.ended && p < end) this.pending = Buffer.from(data.subarray(p));
    return data.subarray(0, used);
  }

  private keep(data: Buffer, from: number): Buffer {
    this.pending = Buffer.from(data.subarray(from));
    return Buffer.alloc(0);
  }

  /** Writes the address at data[p, p+42) checksummed at data[at, at+42) (at ≤ p). */
  private checksum(data: Buffer, p: number, at: number): void {
    // FNV-1a over the 40 digits.
    let hash = 0x811c9dc5;
    for (let j = p + 2; j < p + ADDRESS_BYTES; j++) hash = Math.imul(hash ^ data[j]!, 0x01000193);
    let known = this.checksums.get(hash);
    if (known !== undefined) {
      for (let j = 0; j < 40; j++) {
        if (known[j] !== data[p + 2 + j]) {
          known = undefined;
          break;
        }
      }
    }
    if (known === undefined) {
      // New, or another address with the same hash (then the newer one is kept).
      known = Buffer.allocUnsafe(40 + ADDRESS_BYTES);
      data.copy(known, 0, p + 2, p + ADDRESS_BYTES);
      known.write(fastChecksum(data.toString("latin1", p, p + ADDRESS_BYTES)), 40, "latin1");
      if (this.checksums.size >= CHECKSUM_CACHE) this.checksums.delete(this.checksums.keys().next().value!);
      this.checksums.set(hash, known);
    }
    for (let j = 0; j < ADDRESS_BYTES; j++) data[at + j] = known[40 + j]!;
  }
}

// ------------------------------------------------------------------ the stream

type CopyOutStream = Readable & { rowCount?: number };

export class CopyExport {
  private closed = false;
  private ended = false;
  private failure: Error | undefined;
  private readonly decoder = new LineDecoder();
  private idle: NodeJS.Timeout | undefined;

  private constructor(
    private readonly client: pg.PoolClient,
    private readonly stream: CopyOutStream,
    private readonly onError: (error: Error) => void,
    private readonly lost: () => Error | undefined,
  ) {
    stream.on("error", (error: Error) => {
      this.failure ??= error;
    });
    stream.on("end", () => {
      this.ended = true;
    });
  }

  /**
   * Starts `COPY (query) TO STDOUT (FORMAT binary)` on a connection of its own; at most
   * MAX_EXPORT_STREAMS at once per process (one more is a 503 DATABASE_BUSY before any
   * connection is taken). Its text fields come as UTF-8 whatever the server's encoding: binary
   * COPY sends text through the client's encoding, which node-postgres sets to UTF-8.
   */
  static async open(db: ReadDb, query: ExportSql): Promise<CopyExport> {
    const { client, lost, onError } = await openExportConnection(db);
    try {
      await client.query("BEGIN READ ONLY");
      await client.query(`SET LOCAL statement_timeout = ${EXPORT_COPY_TIMEOUT_MS}`);
      // The lines' times are written by the timestamp type's own output (sqlIso).
      await client.query("SET LOCAL datestyle = 'ISO, MDY'");
    } catch (error) {
      client.release(error instanceof Error ? error : true);
      releaseExportSlot();
      throw error;
    }
    const stream = client.query(copyStreams.to(`COPY (${inlineParams(query)}) TO STDOUT (FORMAT binary)`)) as unknown as CopyOutStream;
    return new CopyExport(client, stream, onError, lost);
  }

  /**
   * The next lines' bytes (at least one byte unless the export has ended: then undefined).
   * The database must send within EXPORT_STATEMENT_TIMEOUT_MS; the stream is read only when
   * asked (the socket's backpressure holds the server back in between).
   */
  async next(): Promise<Buffer | undefined> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    const parts: Buffer[] = [];
    let size = 0;
    for (;;) {
      if (this.failure) throw this.failure;
      if (this.closed) throw new Error("export closed");
      const chunk = this.stream.read() as Buffer | null;
      if (chunk) {
        const lines = this.decoder.push(chunk);
        if (lines.length) {
          parts.push(lines);
          size += lines.length;
        }
        // What the socket holds already, up to CHUNK_BYTES: one chunk of the response.
        if (size < CHUNK_BYTES) continue;
      }
      if (size > 0) {
        this.armIdle();
        return parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
      }
      if (this.ended) {
        if (!this.decoder.ended) throw new Error("export: the COPY ended without its trailer");
        await this.finish();
        return undefined;
      }
      await this.wait();
    }
  }

  /** Until the stream has more, ends, fails, or stays silent past the statement timeout. */
  private wait(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stream.off("readable", done);
        this.stream.off("end", done);
        this.stream.off("error", done);
        this.stream.off("close", done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.failure ??= new ExportTimeout(`export: the database sent nothing for ${EXPORT_STATEMENT_TIMEOUT_MS} ms`);
        done();
      }, EXPORT_STATEMENT_TIMEOUT_MS);
      this.stream.once("readable", done);
      this.stream.once("end", done);
      this.stream.once("error", done);
      this.stream.once("close", done);
    });
  }

  /** A client that does not ask for more within EXPORT_IDLE_TIMEOUT_MS: the COPY is ended (and its connection discarded). */
  private armIdle(): void {
    this.idle = setTimeout(() => {
      this.failure ??= new ExportTimeout(`export: the client read nothing for ${EXPORT_IDLE_TIMEOUT_MS} ms`);
      void this.close(this.failure);
    }, EXPORT_IDLE_TIMEOUT_MS);
    this.idle.unref();
  }

  /** The COPY done: commits the read and gives the connection back. */
  private async finish(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await releaseExportConnection(this.client, "COMMIT", () => this.lost(), this.onError);
  }

  /**
   * Ends the export before its end (the client gone, a failure): a COPY still sending is cut by
   * discarding its connection (the server's backend ends with it); one that failed is rolled
   * back and its connection kept. Once.
   */
  async close(error?: unknown): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = undefined;
    if (this.closed) return;
    if (this.ended && this.decoder.ended && !this.failure) return this.finish();
    this.closed = true;
    let discard: Error | true | undefined = this.lost();
    const serverError = this.failure && !(this.failure instanceof ExportTimeout) && (this.failure as { code?: unknown }).code !== undefined;
    if (!discard && serverError) {
      // The server ended the COPY itself (its error): the connection is idle in a failed transaction.
      try {
        await this.client.query("ROLLBACK");
      } catch (e) {
        discard = e instanceof Error ? e : new Error(String(e));
      }
    } else discard ??= error instanceof Error ? error : true;
    discard ??= this.lost();
    if (!discard) this.client.off("error", this.onError);
    this.stream.destroy();
    // A COPY cut short: its socket closed at once (ending it politely would wait behind the
    // server, which is blocked sending rows nobody reads), so the backend ends too.
    if (discard && !serverError) (this.client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
    this.client.release(discard);
    releaseExportSlot();
  }
}
