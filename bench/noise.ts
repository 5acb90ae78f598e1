/**
 * The foreign-noise benchmark (`npm run bench -- --part noise`): the clean twin history and the
 * noisy one (the same activity of ours with strangers' launches, swaps, burns and collections
 * `ratio` times as many beside it, bench/foreign.ts) indexed side by side, each through an RPC
 * proxy that counts requests by method. Reports indexing time, RPC requests and rows per table
 * of both, their ratios, and whether our tables are identical row for row (docs/design.md §4.6).
 */
import { type IncomingMessage, type Server, createServer } from "node:http";
import pg from "pg";
import { freePort } from "../devnet/ports.js";
import type { History } from "./history.js";
import { type Bench, indexHistory, serveHistory } from "./lib.js";

/**
 * Columns left out of the row comparison, by table ("*": every table), with the reason. Empty
 * when the twins' tables are identical whole.
 */
export const NOISE_EXCLUDED_COLUMNS: Record<string, { columns: string[]; why: string }> = {};

/** An HTTP JSON-RPC proxy that counts requests by method (a batch counts each of its calls) and HTTP requests. */
export type RpcCounter = {
  url: string;
  counts: Record<string, number>;
  /** Milliseconds from forwarding to the node's whole answer, and the answer's bytes, summed by method (a batch under its first call's). */
  millis: Record<string, number>;
  bytes: Record<string, number>;
  httpRequests: number;
  total: () => number;
  close: () => Promise<void>;
};

export async function startRpcCounter(target: string): Promise<RpcCounter> {
  const counts: Record<string, number> = {};
  const millis: Record<string, number> = {};
  const bytes: Record<string, number> = {};
  const state = { httpRequests: 0 };
  const body = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => resolve(Buffer.concat(chunks)));
      req.on("error", reject);
    });
  const server: Server = createServer(async (req, res) => {
    try {
      const raw = await body(req);
      state.httpRequests++;
      let method = "(unparsed)";
      try {
        const parsed = JSON.parse(raw.toString("utf8")) as { method?: string } | { method?: string }[];
        const calls = Array.isArray(parsed) ? parsed : [parsed];
        method = calls[0]?.method ?? "?";
        for (const call of calls) counts[call.method ?? "?"] = (counts[call.method ?? "?"] ?? 0) + 1;
      } catch {
        counts[method] = (counts[method] ?? 0) + 1;
      }
      const started = performance.now();
      const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: raw.toString("utf8") });
      const answer = Buffer.from(await upstream.arrayBuffer());
      millis[method] = (millis[method] ?? 0) + (performance.now() - started);
      bytes[method] = (bytes[method] ?? 0) + answer.length;
      res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" });
      res.end(answer);
    } catch (error) {
      res.writeHead(502, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message: String((error as Error).message) } }));
    }
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    millis,
    bytes,
    get httpRequests() {
      return state.httpRequests;
    },
    total: () => Object.values(counts).reduce((a, b) => a + b, 0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Every table of ponder's `app` schema (ponder's own `_`-prefixed ones aside): its rows as sorted JSON, excluded columns removed. */
export async function dumpTables(databaseUrl: string, schema = "app"): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%' ORDER BY table_name",
      [schema],
    );
    const dump: Record<string, string[]> = {};
    for (const { table_name } of tables.rows) {
      const excluded = new Set([...(NOISE_EXCLUDED_COLUMNS[table_name]?.columns ?? []), ...(NOISE_EXCLUDED_COLUMNS["*"]?.columns ?? [])]);
      const rows = await client.query(`SELECT * FROM ${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table_name)}`);
      dump[table_name] = rows.rows.map((r: Record<string, unknown>) => JSON.stringify(Object.entries(r).filter(([k]) => !excluded.has(k)))).sort();
    }
    return dump;
  } finally {
    await client.end();
  }
}

export type NoiseRun = {
  history: string;
  /** Backfill seconds by ponder's log lines (as the indexing part), each run; `seconds` is the least. */
  runs: number[];
  seconds: number;
  /** RPC requests of each run (ponder's retries and receipt re-reads vary a little from run to run); `requests` is their mean. */
  requestRuns: number[];
  requests: number;
  httpRequests: number;
  byMethod: Record<string, number>;
  /** The node's answer time (ms) and bytes by method, first run. */
  millisByMethod: Record<string, number>;
  bytesByMethod: Record<string, number>;
  rows: Record<string, number>;
};

export type NoiseResult = {
  events: number;
  ratio: number;
  ourEvents: number;
  foreignEvents: number;
  foreignBySource: Record<string, number>;
  generatedSeconds: { clean: number; noisy: number };
  clean: NoiseRun;
  noisy: NoiseRun;
  timeRatio: number;
  requestRatio: number;
  /** Tables whose rows differ between the twins, with the number of rows in one and not the other. */
  differing: { table: string; onlyClean: number; onlyNoisy: number; example?: string }[];
  tablesCompared: number;
  rowsCompared: number;
};

/** One indexing of `history` through a counting proxy; its tables when `dump`. */
async function indexCounted(bench: Bench, history: History, label: string, log: (m: string) => void, dump: boolean) {
  const anvil = await serveHistory(history);
  const counter = await startRpcCounter(anvil.rpcUrl);
  try {
    log(`indexing ${history.name} (${label}) through a counting RPC proxy`);
    const run = await indexHistory(history, counter.url, await bench.createDatabase(`noise_${label}`), "ours");
    await run.ponder.stop();
    const seconds = run.backfillSeconds ?? run.seconds;
    const tables = dump ? await dumpTables(run.databaseUrl) : undefined;
    log(`  ${label}: ${seconds.toFixed(2)} s, ${counter.total()} RPC requests (${counter.httpRequests} HTTP)`);
    return {
      seconds,
      requests: counter.total(),
      httpRequests: counter.httpRequests,
      byMethod: { ...counter.counts },
      millis: { ...counter.millis },
      bytes: { ...counter.bytes },
      tables,
    };
  } finally {
    await counter.close();
    await anvil.stop();
  }
}

/**
 * Indexes the clean and the noisy twin `repeats` times each, alternating (clean, noisy, noisy,
 * clean, …: a shared machine's load hits both alike), and compares their tables row for row.
 */
export async function benchNoise(bench: Bench, clean: History, noisy: History, log: (m: string) => void, repeats = 2): Promise<NoiseResult> {
  const acc = { clean: [] as Awaited<ReturnType<typeof indexCounted>>[], noisy: [] as Awaited<ReturnType<typeof indexCounted>>[] };
  for (let i = 0; i < repeats; i++) {
    const order: ("clean" | "noisy")[] = i % 2 === 0 ? ["clean", "noisy"] : ["noisy", "clean"];
    for (const which of order) acc[which].push(await indexCounted(bench, which === "clean" ? clean : noisy, which, log, acc[which].length === 0));
  }
  const summary = (h: History, runs: typeof acc.clean): NoiseRun => {
    const first = runs[0]!;
    return {
      history: h.name,
      runs: runs.map((r) => r.seconds),
      seconds: Math.min(...runs.map((r) => r.seconds)),
      requestRuns: runs.map((r) => r.requests),
      requests: runs.reduce((s, r) => s + r.requests, 0) / runs.length,
      httpRequests: first.httpRequests,
      byMethod: first.byMethod,
      millisByMethod: first.millis,
      bytesByMethod: first.bytes,
      rows: Object.fromEntries(Object.entries(first.tables!).map(([t, rows]) => [t, rows.length])),
    };
  };
  const a = acc.clean[0]!.tables!;
  const b = acc.noisy[0]!.tables!;
  const differing: NoiseResult["differing"] = [];
  let rowsCompared = 0;
  for (const table of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    const left = new Set(a[table] ?? []);
    const right = new Set(b[table] ?? []);
    rowsCompared += left.size;
    const onlyClean = [...left].filter((r) => !right.has(r));
    const onlyNoisy = [...right].filter((r) => !left.has(r));
    if (onlyClean.length || onlyNoisy.length)
      differing.push({ table, onlyClean: onlyClean.length, onlyNoisy: onlyNoisy.length, example: (onlyNoisy[0] ?? onlyClean[0])?.slice(0, 400) });
  }
  const c = summary(clean, acc.clean);
  const n = summary(noisy, acc.noisy);
  return {
    events: clean.events,
    ratio: noisy.foreign?.ratio ?? 0,
    ourEvents: noisy.indexedEvents,
    foreignEvents: noisy.foreign?.events ?? 0,
    foreignBySource: noisy.foreign?.bySource ?? {},
    generatedSeconds: { clean: clean.generatedInSeconds, noisy: noisy.generatedInSeconds },
    clean: c,
    noisy: n,
    timeRatio: n.seconds / c.seconds,
    requestRatio: n.requests / c.requests,
    differing,
    tablesCompared: Object.keys(a).length,
    rowsCompared,
  };
}

/** The results section of the noise part (Markdown lines). */
export function noiseSection(
  r: NoiseResult,
  table: (headers: string[], rows: (string | number)[][]) => string,
  fmt: (x: number, digits?: number) => string,
): string[] {
  const methods = [...new Set([...Object.keys(r.clean.byMethod), ...Object.keys(r.noisy.byMethod)])].sort();
  const tables = Object.keys(r.clean.rows).sort();
  return [
    "",
    `## Foreign noise (our activity of the ${r.events.toLocaleString("en")}-event history, strangers' ×${r.ratio} beside it)`,
    "",
    `${r.ourEvents.toLocaleString("en")} events of ours in both twins; ${r.foreignEvents.toLocaleString("en")} foreign events beside them in the noisy one (${fmt(r.foreignEvents / Math.max(1, r.ourEvents), 1)} to 1: ${Object.entries(
      r.foreignBySource,
    )
      .filter(([, v]) => v > 0)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}). Generated in ${r.generatedSeconds.clean} s (clean) and ${r.generatedSeconds.noisy} s (noisy).`,
    "",
    table(
      ["history", "backfill s (least of runs)", "runs s", "RPC requests (mean)", "runs", "rows"],
      [r.clean, r.noisy].map((x) => [
        x.history,
        fmt(x.seconds, 2),
        x.runs.map((s) => fmt(s, 2)).join(", "),
        fmt(x.requests, 1),
        x.requestRuns.join(", "),
        Object.values(x.rows).reduce((s, v) => s + v, 0),
      ]),
    ),
    "",
    "RPC requests by method (first run of each; a JSON-RPC batch counts each call), with the node's answer time and size summed:",
    "",
    table(
      ["RPC method", "clean", "noisy", "clean node s", "noisy node s", "clean MB", "noisy MB"],
      methods.map((m) => [
        m,
        r.clean.byMethod[m] ?? 0,
        r.noisy.byMethod[m] ?? 0,
        fmt((r.clean.millisByMethod[m] ?? 0) / 1000, 2),
        fmt((r.noisy.millisByMethod[m] ?? 0) / 1000, 2),
        fmt((r.clean.bytesByMethod[m] ?? 0) / 1e6, 2),
        fmt((r.noisy.bytesByMethod[m] ?? 0) / 1e6, 2),
      ]),
    ),
    "",
    table(
      ["table", "clean rows", "noisy rows"],
      tables.map((t) => [t, r.clean.rows[t] ?? 0, r.noisy.rows[t] ?? 0]),
    ),
    "",
    `noisy / clean: time **${fmt(r.timeRatio, 3)}** (target ≤ 1.2), RPC requests **${fmt(r.requestRatio, 3)}** (target ≤ 1.2); our tables ${
      r.differing.length === 0
        ? `identical row for row (${r.tablesCompared} tables, ${r.rowsCompared.toLocaleString("en")} rows${excludedNote()})`
        : `**differ**: ${r.differing.map((d) => `${d.table} (${d.onlyClean} rows only clean, ${d.onlyNoisy} only noisy)`).join(", ")}`
    }.`,
  ];
}

function excludedNote(): string {
  const entries = Object.entries(NOISE_EXCLUDED_COLUMNS);
  if (!entries.length) return ", every column";
  return `; left out: ${entries.map(([t, e]) => `${t}.${e.columns.join("/")} (${e.why})`).join("; ")}`;
}

/** The noise part's rows of the Targets table. */
export function noiseTargets(r: NoiseResult): [string, string, boolean][] {
  return [
    [
      `foreign noise ×${r.ratio}: our tables identical row for row`,
      r.differing.length ? `${r.differing.length} tables differ` : "identical",
      !r.differing.length,
    ],
    ["foreign noise: noisy / clean indexing time ≤ 1.2", `${r.timeRatio.toFixed(3)}×`, r.timeRatio <= 1.2],
    ["foreign noise: noisy / clean RPC requests ≤ 1.2", `${r.requestRatio.toFixed(3)}×`, r.requestRatio <= 1.2],
  ];
}
