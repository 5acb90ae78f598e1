/**
 * The export row: a million synthetic burns added to an indexed history's `burn` table, then
 * `GET /api/v1/export/burns.csv` downloaded whole from the ponder process (indexer + API) while
 * its resident memory is sampled. Reports rows per second and the API process's RSS growth
 * (targets: ≥ 50,000 rows/s, < 50 MB), and beside them, in the same run, the ceiling the machine
 * sets: the export's own COPY (the lines PostgreSQL builds) read by a bare client and discarded,
 * as `psql -c "COPY …" > /dev/null` would. The synthetic rows are removed afterwards.
 */
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import copyStreams from "pg-copy-streams";
import type { ReadDb } from "../api/deps.js";
import { DATASETS, NO_CONFIG } from "../api/read/export.js";
import { inlineParams } from "../api/read/export-copy.js";
import type { PonderHandle } from "../devnet/ponder.js";
import { rssMb } from "./memory.js";

export type ExportResult = {
  rowsAdded: number;
  rows: number;
  bytes: number;
  seconds: number;
  rowsPerSecond: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssGrowthMb: number;
  /** The same export's COPY to a bare client (bytes discarded): what the database and machine allow. */
  ceiling: { rows: number; bytes: number; seconds: number; rowsPerSecond: number };
  /** Load averages (1, 5, 15 min) before the download and after the ceiling. */
  loadBefore: string;
  loadAfter: string;
};

/** Resident memory of a process (Linux), in MB (NaN once it has exited). */
const rss = (pid: number) => rssMb(pid) ?? Number.NaN;

const SYNTHETIC = "synthetic-";
/** Distinct burners among the synthetic rows (each also the transaction's sender). */
const HOLDERS = 10_000;

/** Adds `rows` burns after the history's last block, spread over its tokens and HOLDERS holders (triggers off: ponder's live-query notices are not needed). */
async function addBurns(databaseUrl: string, rows: number, log: (msg: string) => void): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, options: "-c search_path=app" });
  await client.connect();
  try {
    const tokens = (await client.query<{ address: string }>("SELECT address FROM token ORDER BY address")).rows.map((r) => r.address);
    if (!tokens.length) throw new Error("the history has no token");
    const [{ head }] = (await client.query<{ head: string }>("SELECT coalesce(max(block_number), 0)::text AS head FROM burn")).rows as [{ head: string }];
    await client.query("SET session_replication_role = replica");
    const batch = 100_000;
    for (let start = 1; start <= rows; start += batch) {
      const end = Math.min(rows, start + batch - 1);
      await client.query(
        `INSERT INTO burn (id, token, "from", amount, kind, tx_hash, tx_from, block_number, log_index, timestamp)
         SELECT $1 || g, ($2::text[])[1 + g % cardinality($2::text[])],
                '0x' || lpad(to_hex(g % ${HOLDERS} + 65536), 40, '0'),
                (g::numeric * 1000000000000000 + g % 997), CASE WHEN g % 10 = 0 THEN 'creator-buyback' ELSE 'organic' END,
                '0x' || lpad(to_hex(g), 64, '0'), '0x' || lpad(to_hex(g % ${HOLDERS} + 65536), 40, '0'),
                $3::numeric + 1 + g / 100, g % 100, 1800000000 + g
         FROM generate_series($4::int, $5::int) AS g`,
        [SYNTHETIC, tokens, head, start, end],
      );
      log(`  ${end.toLocaleString("en")} / ${rows.toLocaleString("en")} synthetic burns`);
    }
    await client.query("ANALYZE burn");
  } finally {
    await client.end();
  }
}

async function removeBurns(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, options: "-c search_path=app" });
  await client.connect();
  try {
    await client.query("SET session_replication_role = replica");
    await client.query(`DELETE FROM burn WHERE id LIKE '${SYNTHETIC}%'`);
  } finally {
    await client.end();
  }
}

/** Downloads `path` whole, counting lines and bytes. */
async function download(url: string): Promise<{ lines: number; bytes: number }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  return { lines, bytes };
}

/**
 * The export's COPY (`burns.csv`, every row, oldest first: the statement the API sends) read by
 * a bare pg client that counts and discards the bytes.
 */
async function rawCopy(databaseUrl: string): Promise<{ rows: number; bytes: number; seconds: number }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, options: "-c search_path=app" });
  try {
    const dataset = DATASETS.burns;
    const query = dataset.lines(
      drizzle(pool, { casing: "snake_case" }) as unknown as ReadDb,
      {},
      dataset.orderings.oldest,
      undefined,
      "csv",
      undefined,
      NO_CONFIG,
    );
    const client = await pool.connect();
    try {
      await client.query("SET datestyle = 'ISO, MDY'");
      const started = performance.now();
      const stream = client.query(copyStreams.to(`COPY (${inlineParams(query)}) TO STDOUT (FORMAT binary)`));
      let bytes = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) bytes += chunk.length;
      return { rows: stream.rowCount, bytes, seconds: (performance.now() - started) / 1000 };
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

/**
 * With `CPU_PROFILE_FILE` set (and `NODE_OPTIONS=--import bench/cpu-profile.mjs` so the ponder
 * child samples its CPU), asks the child for its profile once the download is done.
 */
async function writeCpuProfile(pid: number): Promise<void> {
  const file = process.env.CPU_PROFILE_FILE;
  if (!file) return;
  const before = existsSync(file) ? readFileSync(file).length : -1;
  process.kill(pid, "SIGUSR2");
  for (let i = 0; i < 100 && (!existsSync(file) || readFileSync(file).length === before); i++) await new Promise((r) => setTimeout(r, 200));
}

export async function benchExport(ponder: PonderHandle, databaseUrl: string, rows: number, log: (msg: string) => void): Promise<ExportResult> {
  const pid = ponder.process.pid!;
  await addBurns(databaseUrl, rows, log);
  try {
    // Warm: the route, its queries and the JIT.
    await download(`${ponder.url}/api/v1/export/burns.csv?limit=20000`);
    await new Promise((r) => setTimeout(r, 2_000));
    const loadBefore = load();
    const rssBeforeMb = rss(pid);
    let rssPeakMb = rssBeforeMb;
    const sampler = setInterval(() => {
      rssPeakMb = Math.max(rssPeakMb, rss(pid));
    }, 50);
    const started = performance.now();
    let got: { lines: number; bytes: number };
    try {
      got = await download(`${ponder.url}/api/v1/export/burns.csv`);
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - started) / 1000;
    await writeCpuProfile(pid);
    rssPeakMb = Math.max(rssPeakMb, rss(pid));
    const exported = got.lines - 1;
    if (exported < rows) throw new Error(`the export had ${exported} rows, fewer than the ${rows} synthetic ones`);
    log("  the same COPY to a bare client (the ceiling)");
    const raw = await rawCopy(databaseUrl);
    const ceiling = { ...raw, rowsPerSecond: raw.rows / raw.seconds };
    return {
      rowsAdded: rows,
      rows: exported,
      bytes: got.bytes,
      seconds,
      rowsPerSecond: exported / seconds,
      rssBeforeMb,
      rssPeakMb,
      rssGrowthMb: rssPeakMb - rssBeforeMb,
      ceiling,
      loadBefore,
      loadAfter: load(),
    };
  } finally {
    await removeBurns(databaseUrl);
  }
}
