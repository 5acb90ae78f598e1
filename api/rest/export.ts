/**
 * GET /export/{burns|buybacks|fees|activity}.{csv,ndjson}: a dataset in full, streamed. The
 * filters are GraphQL's (token, kinds, time and block ranges); rows come oldest first (or
 * `order=newest`) from one statement: burns, buybacks and fees as lines PostgreSQL builds, read
 * with COPY (api/read/export-copy.ts); the activity feed from a server-side cursor
 * (api/read/export-stream.ts), a batch of EXPORT_PAGE rows fetched when the client has taken
 * the chunk before. Either way the response stream's backpressure reaches the database, so
 * memory stays flat whatever the export's length. Every row ends with
 * its cursor: `after=<cursor>` resumes after it (a broken download, or the next day's new
 * rows). docs/api.md, "Exports"; docs/design.md §7.
 */
import { type ZodTypeAny, z } from "zod";
import { deskOrderIdsOf } from "../read/activity.js";
import { type Cell, type CursorDataset, DATASETS, type ExportDatasetName, type ExportFilter, type ExportOrder, type TextRow } from "../read/export.js";
import { FETCH_ROWS, RowCursor } from "../read/export-stream.js";
import { CopyExport } from "../read/export-copy.js";
import type { ApiDeps } from "../deps.js";
import { badRequest, retryTransient } from "../http/errors.js";
import { time } from "./market.js";
import { type AnyRoute, defineRoute } from "./route.js";
import { address, integerParam } from "./schemas.js";

/** Rows per batch read from the export's cursor (one chunk of the response each). */
export const EXPORT_PAGE = FETCH_ROWS;
/** Most rows one export may be asked for with `limit` (an export without `limit` has no bound). */
const MAX_EXPORT_LIMIT = 1_000_000_000;

export const EXPORT_FORMATS = ["csv", "ndjson"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
const MEDIA_TYPE: Record<ExportFormat, string> = { csv: "text/csv", ndjson: "application/x-ndjson" };

// ------------------------------------------------------------------ query

const kindList = (kinds: readonly string[]) =>
  z
    .string()
    .max(1000)
    .transform((v, ctx) => {
      const given = v.split(",").map((k) => k.trim());
      const unknown = given.filter((k) => !kinds.includes(k));
      if (unknown.length) {
        ctx.addIssue({ code: "custom", message: `unknown kind ${JSON.stringify(unknown[0])}; expected one or more (comma-separated) of ${kinds.join(", ")}` });
        return z.NEVER;
      }
      return given;
    })
    .optional()
    .describe(`Only these kinds, comma-separated: ${kinds.join(", ")}`);

const block = integerParam(
  z
    .string()
    .regex(/^\d{1,20}$/, "expected a block number (an integer ≥ 0)")
    .transform(BigInt),
  { minimum: 0 },
);

function exportQuery(kinds: readonly string[] | undefined) {
  return z
    .object({
      token: address.optional().describe("Only rows of this token"),
      ...(kinds ? { kind: kindList(kinds) } : {}),
      from: time.optional().describe("From this time (inclusive; ISO-8601 or unix seconds)"),
      to: time.optional().describe("Before this time (exclusive; ISO-8601 or unix seconds)"),
      fromBlock: block.optional().describe("From this block (inclusive)"),
      toBlock: block.optional().describe("To this block (inclusive)"),
      order: z.enum(["oldest", "newest"]).default("oldest").describe("Chain order, oldest first (default) or newest first"),
      after: z.string().max(512).optional().describe("Resume after this row: the `cursor` of the last row received (with the same `order`)"),
      limit: integerParam(
        z
          .string()
          .regex(/^\d{1,10}$/, `expected an integer from 1 to ${MAX_EXPORT_LIMIT}`)
          .transform(Number)
          .refine((n) => n >= 1 && n <= MAX_EXPORT_LIMIT, `expected an integer from 1 to ${MAX_EXPORT_LIMIT}`)
          .optional()
          .describe("At most this many rows (default: every row)"),
        { minimum: 1, maximum: MAX_EXPORT_LIMIT },
      ),
    })
    .strict();
}

type ExportQuery = {
  token?: `0x${string}`;
  kind?: string[];
  from?: bigint;
  to?: bigint;
  fromBlock?: bigint;
  toBlock?: bigint;
  order: ExportOrder;
  after?: string;
  limit?: number;
};

// ------------------------------------------------------------------ encoding

function csvCell(value: Cell): string {
  if (value === null) return "";
  if (typeof value === "number") return String(value);
  const s = typeof value === "string" ? value : JSON.stringify(value);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/**
 * Writes each record as one line of the format (CSV: RFC 4180 with CRLF; NDJSON: one JSON
 * object) into the writer, cell by cell (no line string in between).
 */
export function lineEncoder(format: ExportFormat, columns: readonly string[]): (cells: Cell[], out: ChunkWriter) => void {
  if (format === "csv")
    return (cells, out) => {
      out.reserve(LINE_BYTES);
      out.text(csvCell(cells[0]!));
      for (let i = 1; i < cells.length; i++) {
        out.byte(0x2c);
        out.text(csvCell(cells[i]!));
      }
      out.byte(0x0d);
      out.byte(0x0a);
    };
  const keys = columns.map((c, i) => `${i ? "," : "{"}${JSON.stringify(c)}:`);
  return (cells, out) => {
    out.reserve(LINE_BYTES);
    for (let i = 0; i < cells.length; i++) {
      out.text(keys[i]!);
      out.text(JSON.stringify(cells[i]));
    }
    out.byte(0x7d);
    out.byte(0x0a);
  };
}

/** Bytes of one chunk of the response (a batch's lines fill one or two). */
const CHUNK_BYTES = 256 * 1024;
/** Room a line usually needs: reserved up front so that most lines do not straddle two chunks. */
const LINE_BYTES = 1024;

/**
 * Lines written straight into chunk buffers (one `write` per line: no batch-long string to build
 * and encode at once), each chunk handed on when full.
 */
export class ChunkWriter {
  private buf = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  readonly chunks: Buffer[] = [];

  /** Starts a new chunk unless `bytes` more fit in this one (a line begins in the chunk it ends in, mostly). */
  reserve(bytes: number): void {
    if (this.used + bytes > this.buf.length) this.flush();
  }

  text(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; a text longer than a chunk gets its own.
    const most = text.length * 3;
    if (this.used + most > this.buf.length) {
      this.flush();
      if (most > this.buf.length) this.buf = Buffer.allocUnsafe(most);
    }
    this.used += this.buf.write(text, this.used, "utf8");
  }

  byte(value: number): void {
    if (this.used === this.buf.length) this.flush();
    this.buf[this.used++] = value;
  }

  /** The chunks so far (the current one cut to its length); the writer starts a new one. */
  take(): Buffer[] {
    this.flush();
    return this.chunks.splice(0);
  }

  private flush(): void {
    if (this.used === 0) return;
    this.chunks.push(this.buf.subarray(0, this.used));
    this.buf = Buffer.allocUnsafe(CHUNK_BYTES);
    this.used = 0;
  }
}

/**
 * The export's body: the CSV header, then batch after batch of the cursor's rows. Each batch is
 * encoded on the stream's pull (when the client has taken the chunk before: backpressure) while
 * the database sends the next one (so memory holds two batches at most), one chunk of a few
 * hundred KB per batch. When the rows end, the limit is reached, the client goes away or a read
 * fails, the cursor is closed and its connection given back. A failure after the first batch
 * ends the response early (the client sees an incomplete transfer and resumes after the last
 * row it has).
 */
function exportBody(
  deps: ApiDeps,
  dataset: CursorDataset,
  format: ExportFormat,
  q: ExportQuery,
  cursor: RowCursor,
  first: TextRow[],
  firstSize: number,
): ReadableStream<Uint8Array> {
  const name = dataset.name;
  const ordering = dataset.orderings[q.order];
  const encode = lineEncoder(format, dataset.columns);
  const ctx = { db: deps.db, config: deps.config, engine: deps.engine };
  let remaining = q.limit ?? Number.POSITIVE_INFINITY;
  let header = format === "csv";
  let cancelled = false;
  const writer = new ChunkWriter();
  type Batch = { rows: TextRow[]; size: number } | { error: unknown };
  /** The next batch, fetched while the current one is encoded and sent (its error kept for the next pull). */
  let next: Promise<Batch> | undefined = Promise.resolve({ rows: first, size: firstSize });
  const read = (size: number): Promise<Batch> =>
    cursor.fetch(size).then(
      (rows) => ({ rows, size }),
      (error: unknown) => ({ error }),
    );
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const batch = await next!;
          if (cancelled) return;
          if ("error" in batch) throw batch.error;
          const rows = batch.rows;
          remaining -= rows.length;
          const done = rows.length < batch.size || remaining <= 0;
          // Read ahead: the database sends the next batch while this one is encoded.
          next = done ? undefined : read(Math.min(FETCH_ROWS, remaining));
          if (header) {
            writer.text(`${dataset.columns.join(",")}\r\n`);
            header = false;
          }
          for (const record of await dataset.records(rows, ordering, ctx)) encode(record, writer);
          if (cancelled) return;
          for (const chunk of writer.take()) controller.enqueue(chunk);
          if (done) {
            await cursor.close();
            controller.close();
          }
        } catch (error) {
          await cursor.close(error);
          if (cancelled) return;
          deps.logError?.(error, `export ${name}.${format}: ended early`);
          controller.error(error);
        }
      },
      // A client gone: nothing more is read; the cursor is closed (after a batch in flight) and its connection given back.
      async cancel() {
        cancelled = true;
        const pending = next;
        next = undefined;
        await pending;
        await cursor.close();
      },
    },
    { highWaterMark: 1 },
  );
}

/**
 * The export's body from COPY: the CSV header, then the lines as PostgreSQL built them (their
 * addresses checksummed), one chunk per read of the COPY stream, read only when the client has
 * taken the chunk before (backpressure down to the database's socket). The end, a failure or the
 * client gone ends the COPY and gives its connection back (or discards it mid-stream).
 */
function copyBody(deps: ApiDeps, name: ExportDatasetName, format: ExportFormat, copy: CopyExport, first: Buffer | undefined): ReadableStream<Uint8Array> {
  let header = format === "csv" ? Buffer.from(`${DATASETS[name].columns.join(",")}\r\n`) : undefined;
  /** The first chunk, read before the answer (none: the export is empty). */
  let pending: Buffer | "end" | undefined = first ?? "end";
  let cancelled = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (header) {
            controller.enqueue(header);
            header = undefined;
          }
          const chunk = pending === "end" ? undefined : (pending ?? (await copy.next()));
          pending = undefined;
          if (cancelled) return;
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        } catch (error) {
          await copy.close(error);
          if (cancelled) return;
          deps.logError?.(error, `export ${name}.${format}: ended early`);
          controller.error(error);
        }
      },
      async cancel() {
        cancelled = true;
        await copy.close();
      },
    },
    { highWaterMark: 1 },
  );
}

// ------------------------------------------------------------------ routes

function exportRoute(name: ExportDatasetName, format: ExportFormat) {
  const dataset = DATASETS[name];
  const media = MEDIA_TYPE[format];
  const schema: ZodTypeAny =
    format === "csv"
      ? z
          .string()
          .describe(
            `CSV (RFC 4180, CRLF line ends): a header row \`${dataset.columns.join(",")}\`, then one row per record (activity's \`data\` and \`rawData\` as quoted JSON)`,
          )
      : dataset.row.describe("One JSON object per line, one line per record");
  return defineRoute({
    method: "get",
    path: `/export/${name}.${format}`,
    tag: "exports",
    summary: `${dataset.description.split(":")[0]}, every row, streamed as ${format === "csv" ? "CSV" : "NDJSON"}`,
    description: [
      `${dataset.description}. Oldest first unless \`order=newest\`; filters as in GraphQL${dataset.kinds ? "" : " (no kinds)"}. Streamed from one snapshot in batches of ${EXPORT_PAGE} rows, in constant memory; at most 2 exports stream at once per server (503 \`DATABASE_BUSY\` with \`Retry-After\` beyond).`,
      "Amounts are exact decimal strings in whole units beside their raw base units (`…Raw`). Every row ends with its `cursor`: to resume an interrupted download (or fetch only newer rows later), ask again with `after=<the last row's cursor>` and the same filters and order.",
      "A transfer that ends without its final chunk (the connection closed early) is incomplete: resume it from the last complete row.",
    ].join("\n\n"),
    query: exportQuery(dataset.kinds),
    responses: {
      200: {
        description: `The rows, as ${media}`,
        stream: {
          mediaType: media,
          schema,
          headers: { "Content-Disposition": `attachment; filename="${name}.${format}"` },
        },
      },
    },
    handler: async (c, { query }, deps) => {
      const q = query as unknown as ExportQuery;
      if (q.from !== undefined && q.to !== undefined && q.from >= q.to) throw badRequest("from must be before to");
      if (q.fromBlock !== undefined && q.toBlock !== undefined && q.fromBlock > q.toBlock) throw badRequest("fromBlock must not be after toBlock");
      const filter: ExportFilter = {
        token: q.token,
        kinds: q.kind,
        fromTime: q.from,
        toTime: q.to,
        fromBlock: q.fromBlock,
        toBlock: q.toBlock,
        deskOrderIds: name === "activity" ? await deskOrderIdsOf(deps.engine, q.token) : undefined,
      };
      const headers = {
        "Content-Type": `${media}; charset=utf-8`,
        "Content-Disposition": `attachment; filename="${name}.${format}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      };
      // The query is built first: a bad cursor is a 400 here, before a connection is taken. The
      // first chunk (or the end) is read before the answer: an unreachable or busy database is a
      // 503, not a truncated 200.
      const ordering = dataset.orderings[q.order];
      if ("lines" in dataset) {
        // Lines built by PostgreSQL, read with COPY.
        const linesSql = dataset.lines(deps.db, filter, ordering, q.after, format, q.limit, deps.config);
        const { copy, first } = await retryTransient(async () => {
          const opened = await CopyExport.open(deps.db, linesSql);
          try {
            return { copy: opened, first: await opened.next() };
          } catch (error) {
            await opened.close(error);
            throw error;
          }
        });
        return c.body(copyBody(deps, name, format, copy, first), 200, headers);
      }
      const rowsSql = dataset.query(deps.db, filter, ordering, q.after, deps.config);
      const firstSize = Math.min(FETCH_ROWS, q.limit ?? FETCH_ROWS);
      const { cursor, first } = await retryTransient(async () => {
        const opened = await RowCursor.open(deps.db, rowsSql);
        try {
          return { cursor: opened, first: await opened.fetch(firstSize) };
        } catch (error) {
          await opened.close(error);
          throw error;
        }
      });
      return c.body(exportBody(deps, dataset, format, q, cursor, first, firstSize), 200, headers);
    },
  });
}

/** Every export route: each dataset in each format. */
export const EXPORT_ROUTES: readonly AnyRoute[] = (Object.keys(DATASETS) as ExportDatasetName[]).flatMap((name) =>
  EXPORT_FORMATS.map((format) => exportRoute(name, format)),
);
