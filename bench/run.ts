/**
 * `npm run bench`: every benchmark in one run, printed as a Markdown table and written to
 * bench/results/latest.md (or latest-smoke.md). Its flags are in `USAGE` below (`--help`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, hostname, loadavg, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import type { Address } from "viem";
import { ROOT } from "../devnet/compile.js";
import { freePort } from "../devnet/ports.js";
import { type ApiResult, HEALTH, OURS_BURNS, STATS, TOKENS, apiTarget, apiTargets, assertAnswers, benchApi } from "./api.js";
import { type EngineState, seedEngineState } from "./engine-state.js";
import { type ExportResult, benchExport } from "./export.js";
import { type LedgerGrowthResult, benchLedgerGrowth } from "./growth.js";
import { type History, ensureHistory } from "./history.js";
import {
  type Bench,
  INDEXER_ENDPOINTS,
  type Indexed,
  fmt,
  indexHistory,
  log,
  servePonderGraphql,
  serveHistory,
  setIndexerEndpoints,
  startBench,
} from "./lib.js";
import { type NoiseResult, benchNoise, noiseSection, noiseTargets } from "./noise.js";
import { type LoadResult, load } from "./load.js";
import { type ReplicasResult, benchReplicas, replicasSection } from "./replicas.js";
import { RECOVERY_CAP_MS, type SoakResult, benchSoak } from "./soak.js";
import { TOKEN_SIZES, type TokensResult, benchTokens, tokensSection } from "./tokens.js";
import { benchArgs } from "./args.js";

const USAGE = `
Usage: npm run bench -- [flags]   (or npx tsx bench/run.ts [flags])

  (no flag)           full run (histories of 1k, 10k, 100k events, and 1M for the growth table; 5-minute soak)
  --no-1m             without the million-event history in the growth table (see GROWTH_ONLY_SIZES)
  --smoke             the same harness, tiny and short (npm run bench:smoke; CI keeps it working); the parts
                        with worlds of their own (noise, tokens, soak) run beside the rest, as nothing is timed
  --part <part>       one part: history | indexing | api | growth | replicas | export | soak | tokens | noise
                        tokens: the engine with 10, 1,000 and 10,000 enrolled tokens (BENCH_TOKEN_SIZES=10,1000 to choose);
                                its section of latest.md is replaced, the rest of the file kept
                        export: the export row alone, on the smallest history (1M synthetic burns; smoke 5k)
                        soak:   the soak alone, on the smallest history; its section of latest.md is replaced
                        noise:  the clean and the noisy twin of a history indexed side by side (time, RPC requests, rows);
                                its section of latest.md is replaced, the rest of the file kept
  --minutes <n>       the soak's length in minutes, more than 0 and at most 1440 (default 5; smoke 12 s)
  --events <n>        the noise part's activity of ours (default 1000; smoke 40)
  --foreign <r>       the noise part's strangers' events, r times ours (default 10; smoke 3)
  --ledger-rows <n>   the ledger-growth row adds n rows (default 1M; smoke 10k)
  --help, -h          this text
`;
const flags = benchArgs(USAGE, {
  smoke: { type: "boolean" },
  "no-1m": { type: "boolean" },
  part: { type: "string" },
  minutes: { type: "string" },
  events: { type: "string" },
  foreign: { type: "string" },
  "ledger-rows": { type: "string" },
});
const smoke = flags.values.smoke === true;
const only = flags.values.part;
const PARTS = ["history", "indexing", "api", "growth", "replicas", "export", "soak", "tokens", "noise"] as const;
if (only !== undefined && !PARTS.includes(only as never)) {
  process.stderr.write(`unknown part "${only}"; choose one of ${PARTS.join(", ")}\n`);
  process.exit(2);
}
const runs = (part: (typeof PARTS)[number]) => !only || only === part;
/**
 * A smoke run lists each anvil 8 times (a measured run 2, INDEXER_ENDPOINTS): ponder's limit of
 * 20 requests/s per endpoint would otherwise set the pace of every tiny reindex, and nothing there is timed.
 */
if (smoke) setIndexerEndpoints(8);

const SEED = 7;
const SIZES = smoke ? [60] : [1_000, 10_000, 100_000];
/**
 * Histories only the growth table uses: generated (or loaded from the cache) with the others,
 * but served, indexed and measured at the growth step alone, then stopped, so the rest of the
 * run (indexing comparison, API, replicas on the largest of SIZES) is unchanged. The
 * million-event history generates in ~12 min, caches in 72 MB, loads in 16 s and indexes in
 * about 4 min (4-block log ranges, `logsBlockRange`); `--no-1m` leaves it out.
 */
const GROWTH_ONLY_SIZES = !smoke && !flags.values["no-1m"] ? [1_000_000] : [];
/** Indexing throughput target: ours ≥ 0.9 × the bare ponder app's events per second. */
const INDEXING_TARGET = 0.9;
/** Each load of the API: a smoke run's only shows that the harness measures (a quarter second is tens of requests). */
const LOAD = smoke ? { seconds: 0.25, connections: 4 } : { seconds: 10, connections: 16 };
const GROWTH_LOAD = smoke ? { seconds: 0.25, connections: 4 } : { seconds: 5, connections: 8 };
/** Rows the ledger-growth row adds to `engine.ledger` (targets: 1M; `--ledger-rows N` overrides). */
const LEDGER_GROWTH_ROWS = flags.number("ledger-rows", smoke ? 10_000 : 1_000_000, { min: 0 });
/** A settled engine beside the largest history: claims per token, mined intents, oracle samples. */
const ENGINE_SEED = smoke ? { claimsPerToken: 10, intents: 100, priceSamples: 100 } : { claimsPerToken: 1_000, intents: 20_000, priceSamples: 30_000 };
/** API replicas: one against two under the API load; SSE subscribers (half per replica) and burns for the fan-out. */
const REPLICAS = smoke ? { subscribers: 10, burns: 1, requests: [STATS] } : { subscribers: 1_000, burns: 5, requests: undefined };
/** Synthetic burns the export row adds to the indexed history before downloading them all. */
const EXPORT_ROWS = smoke ? 5_000 : 1_000_000;
/** `--minutes N`: the soak's length (default 5 minutes; smoke 12 s). */
const SOAK_MINUTES = flags.values.minutes === undefined ? undefined : flags.number("minutes", 0, { max: 24 * 60, integer: false });
if (SOAK_MINUTES !== undefined && !(SOAK_MINUTES > 0)) {
  process.stderr.write(`--minutes: expected a number of minutes from 0 to 1440 (got "${flags.values.minutes}")\n`);
  process.exit(2);
}
/**
 * The soak's load: requests a second in all, over its connections (ponder and the replica
 * answer half each). Paced, so the indexer sharing ponder's process keeps its share of the CPU.
 * A smoke run sends a quarter of it: enough to show that the load runs through the faults.
 */
const SOAK_REQUESTS_PER_SECOND = smoke ? 25 : 100;
const SOAK = {
  seconds: SOAK_MINUTES !== undefined ? Math.round(SOAK_MINUTES * 60) : smoke ? 12 : 300,
  seed: SEED,
  concurrency: smoke ? 4 : 8,
  requestsPerSecond: SOAK_REQUESTS_PER_SECOND,
};
/**
 * The foreign-noise twins: our activity of a history of `--events` events (default 1k: its
 * noisy twin generates in about a minute here; 10k in ~6 min, docs/benchmarks.md) and
 * strangers' `--foreign` times as many events beside it.
 */
const NOISE = { events: flags.number("events", smoke ? 40 : 1_000, { min: 1 }), ratio: flags.number("foreign", smoke ? 3 : 10, { min: 0, integer: false }) };

type Throughput = { events: number; seconds: number; eventsPerSecond: number };
/** Ours against the bare app, both given the same endpoints; `ratio` is the target's figure. */
type IndexingPair = { endpoints: number; ours: Throughput; bare: Throughput; ratio: number };
export type IndexingResult = IndexingPair & {
  history: string;
  /** The same pair with one endpoint each, where ponder's per-endpoint rate limit binds ours (not in a smoke run). */
  oneEndpoint?: IndexingPair;
};

type Results = {
  histories: History[];
  indexing?: IndexingResult;
  api?: ApiResult;
  growth?: { size: number; stats: LoadResult; burns: LoadResult; indexSeconds: number; loadSeconds?: number }[];
  ledgerGrowth?: LedgerGrowthResult;
  replicas?: ReplicasResult;
  export?: ExportResult;
  soak?: SoakResult;
  tokens?: TokensResult;
  noise?: NoiseResult;
};

/** Enrolled-token sizes of the `tokens` part (smoke: 3). */
const TOKEN_PART_SIZES = process.env.BENCH_TOKEN_SIZES ? process.env.BENCH_TOKEN_SIZES.split(",").map(Number) : smoke ? [3] : TOKEN_SIZES;

/** The results file every part writes (the smoke run's own file under `--smoke`). */
const RESULTS_FILE = join(ROOT, "bench", "results", smoke ? "latest-smoke.md" : "latest.md");

/** The machine's load when the run started (other work on a shared machine shows here). */
const LOAD_AT_START = loadavg()
  .map((l) => l.toFixed(2))
  .join(" ");

async function main() {
  const started = Date.now();
  const results: Results = { histories: [] };
  if (only === "tokens") return tokensOnly(started);
  if (only === "soak") return soakOnly(started);
  if (only === "noise") return noiseOnly(started);
  // The export row alone needs only an indexed history to add its rows to: the smallest.
  const sizes = only === "export" ? SIZES.slice(0, 1) : runs("growth") || runs("history") ? [...SIZES, ...GROWTH_ONLY_SIZES] : SIZES;
  for (const size of sizes) {
    log(`history of ${size} events`);
    results.histories.push(await ensureHistory(size, SEED, await freePort(), (m) => log(`  ${m}`)));
  }
  if (only === "history") return finish(results, started);

  const bench = await startBench();
  const indexed = new Map<number, Indexed & { stopAnvil: () => Promise<void>; rpcUrl: string; loadSeconds?: number }>();
  /** The parts with worlds of their own: after the rest in a full run; beside it in a smoke run, where nothing is timed. */
  const ownWorlds = async () => {
    if (runs("noise")) results.noise = await noise(bench);
    if (runs("tokens")) {
      log(`tokens: the engine with ${TOKEN_PART_SIZES.join(", ")} enrolled tokens`);
      results.tokens = await benchTokens(bench, TOKEN_PART_SIZES, log);
    }
    if (runs("soak")) {
      log(`soak: ${SOAK.seconds} s of mixed load; the engine killed, the chain rolled back, the database away and the RPC frozen at random moments`);
      results.soak = await benchSoak(bench, results.histories[0]!, SOAK);
    }
  };
  const beside = smoke ? ownWorlds() : undefined;
  // Settled either way, so that a failure of one side never leaves the other running unwatched.
  const besideDone = beside?.then(
    () => undefined,
    (error: unknown) => error,
  );
  try {
    const mainHistories = results.histories.filter((h) => SIZES.includes(h.events));
    const largest = mainHistories.at(-1)!;
    const needsIndex = runs("indexing") || runs("api") || runs("growth") || runs("replicas") || runs("export");
    if (needsIndex) {
      for (const history of runs("growth") ? mainHistories : [largest]) {
        const anvil = await serveHistory(history);
        log(`indexing ${history.name} (ours)`);
        const ours = await indexHistory(history, anvil.rpcUrl, await bench.createDatabase("ours"), "ours");
        indexed.set(history.events, { ...ours, stopAnvil: () => anvil.stop(), rpcUrl: anvil.rpcUrl });
      }
    }
    if (runs("indexing")) {
      /** One indexing run of an app on its own anvil and database (ours at INDEXER_ENDPOINTS is the run above). */
      const indexAlone = async (app: "ours" | "bare", endpoints: number) => {
        const anvil = await serveHistory(largest);
        log(
          `indexing ${largest.name} (${app === "ours" ? "ours" : "bare ponder app, Transfer events only"}, ${endpoints} endpoint${endpoints > 1 ? "s" : ""})`,
        );
        try {
          const run = await indexHistory(largest, anvil.rpcUrl, await bench.createDatabase(`${app}${endpoints}`), app, endpoints);
          await run.ponder.stop();
          return run;
        } finally {
          await anvil.stop();
        }
      };
      const pair = (endpoints: number, ours: Indexed, bare: Indexed): IndexingPair => {
        const oursSeconds = ours.backfillSeconds ?? ours.seconds;
        const bareSeconds = bare.backfillSeconds ?? bare.seconds;
        return {
          endpoints,
          ours: { events: largest.indexedEvents, seconds: oursSeconds, eventsPerSecond: largest.indexedEvents / oursSeconds },
          bare: { events: largest.tokenTransfers, seconds: bareSeconds, eventsPerSecond: largest.tokenTransfers / bareSeconds },
          ratio: largest.indexedEvents / oursSeconds / (largest.tokenTransfers / bareSeconds),
        };
      };
      const main = pair(INDEXER_ENDPOINTS, indexed.get(largest.events)!, await indexAlone("bare", INDEXER_ENDPOINTS));
      const oneEndpoint = smoke ? undefined : pair(1, await indexAlone("ours", 1), await indexAlone("bare", 1));
      results.indexing = { history: largest.name, ...main, oneEndpoint };
    }
    const burnToken = (h: History) => h.deployments.contracts.usdcPairedToken as Address;
    let engineState: EngineState | undefined;
    if (runs("api") || runs("growth") || runs("replicas")) {
      log("engine state beside the largest history (workers, heartbeat, oracle samples, settled intents, ledger)");
      engineState = await seedEngineState(indexed.get(largest.events)!.databaseUrl, ENGINE_SEED);
    }
    if (runs("api")) {
      const ours = indexed.get(largest.events)!;
      log("API load: ours and ponder's graphql() on the same tables");
      const ponderServe = await servePonderGraphql(largest, ours.rpcUrl, ours.databaseUrl);
      try {
        for (const target of apiTargets(ours.ponder.url, burnToken(largest))) await assertAnswers(target);
        results.api = await benchApi(ours.ponder.url, ponderServe.url, burnToken(largest), LOAD);
      } finally {
        await ponderServe.stop();
      }
    }
    if (runs("growth")) {
      results.growth = [];
      for (const history of results.histories) {
        let ours = indexed.get(history.events);
        let stopAfter: (() => Promise<void>) | undefined;
        if (!ours) {
          // A growth-only history: served and indexed now, measured, then stopped.
          log(`growth: serving ${history.name} (${history.indexedEvents} events)`);
          const anvil = await serveHistory(history, (m) => log(`  ${m}`));
          log(`growth: indexing ${history.name} (ours)`);
          const indexing = await indexHistory(history, anvil.rpcUrl, await bench.createDatabase("growth"), "ours").catch(async (error: Error) => {
            await anvil.stop();
            throw error;
          });
          log(`  indexed ${history.indexedEvents} events in ${fmt(indexing.seconds, 0)} s (backfill ${fmt(indexing.backfillSeconds ?? Number.NaN, 0)} s)`);
          ours = { ...indexing, stopAnvil: () => anvil.stop(), rpcUrl: anvil.rpcUrl, loadSeconds: anvil.loadSeconds };
          stopAfter = async () => {
            await indexing.ponder.stop();
            await anvil.stop();
          };
        }
        try {
          log(`growth: ${history.name}`);
          const stats = apiTarget(ours.ponder.url, burnToken(history), STATS);
          const burns = apiTarget(ours.ponder.url, burnToken(history), OURS_BURNS);
          results.growth.push({
            size: history.events,
            stats: await load(stats, GROWTH_LOAD),
            burns: await load(burns, GROWTH_LOAD),
            indexSeconds: ours.backfillSeconds ?? ours.seconds,
            loadSeconds: ours.loadSeconds,
          });
        } finally {
          await stopAfter?.();
        }
      }
      log(`ledger growth: /stats and /tokens before and after ${LEDGER_GROWTH_ROWS} more engine ledger rows`);
      const ours = indexed.get(largest.events)!;
      results.ledgerGrowth = await benchLedgerGrowth(ours.ponder.url, burnToken(largest), engineState!, LEDGER_GROWTH_ROWS, LOAD, log);
    }
    if (runs("replicas")) {
      const ours = indexed.get(largest.events)!;
      log(`API replicas: one against two on ${largest.name}, and ${REPLICAS.subscribers} subscribers' fan-out`);
      results.replicas = await benchReplicas(largest, ours.rpcUrl, ours.databaseUrl, { load: LOAD, ...REPLICAS, log });
    }
    if (runs("export")) {
      const ours = indexed.get(largest.events)!;
      log(`export: ${EXPORT_ROWS.toLocaleString("en")} synthetic burns added to ${largest.name}, then GET /export/burns.csv whole`);
      results.export = await benchExport(ours.ponder, ours.databaseUrl, EXPORT_ROWS, log);
    }
    await engineState?.stop();
    for (const i of indexed.values()) {
      await i.ponder.stop();
      await i.stopAnvil();
    }
    indexed.clear();
    if (beside) {
      const error = await besideDone;
      if (error) throw error;
    } else await ownWorlds();
  } finally {
    for (const i of indexed.values()) {
      await i.ponder.stop().catch(() => {});
      await i.stopAnvil().catch(() => {});
    }
    await besideDone;
    await bench.stop();
  }
  finish(results, started);
}

const packageVersion = (name: string) => (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

function table(headers: string[], rows: (string | number)[][]): string {
  return [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

/** Thresholds of docs/design.md §9 (listed in docs/benchmarks.md), checked on this run's figures (ratios from the same run). */
export function targetRows(results: Results, connections: number): [target: string, measured: string, met: boolean][] {
  const rows: [string, string, boolean][] = [];
  if (results.indexing)
    rows.push([
      `indexing ≥ 0.9× the bare ponder app (${results.indexing.endpoints} endpoints each)`,
      `${fmt(results.indexing.ratio, 3)}×`,
      results.indexing.ratio >= 0.9,
    ]);
  if (results.api) {
    for (const name of [STATS, TOKENS, HEALTH]) {
      const r = results.api.ours.find((o) => o.name === name);
      if (r)
        rows.push([
          `${name}: ≥ 1,000 req/s at ${connections} connections, p99 ≤ 50 ms`,
          `${fmt(r.requestsPerSecond, 0)} req/s, p99 ${r.p99} ms`,
          r.requestsPerSecond >= 1000 && r.p99 <= 50,
        ]);
    }
    const gql = results.api.ours.find((o) => o.name === OURS_BURNS);
    const ratio = results.api.ratios[0];
    if (gql && ratio)
      rows.push([
        "GraphQL burn page: ≥ 2× ponder's graphql() throughput, p99 ≤ 30 ms",
        `${fmt(ratio.throughput, 2)}×, p99 ${gql.p99} ms`,
        ratio.throughput >= 2 && gql.p99 <= 30,
      ]);
  }
  if (results.replicas) {
    const f = results.replicas.fanout;
    rows.push([
      `fan-out: each of ${f.subscribers} subscribers on ${f.replicas} replicas receives every burn`,
      `${f.delivered} / ${f.expected}`,
      f.delivered === f.expected,
    ]);
  }
  if (results.export) {
    const e = results.export;
    rows.push([
      `export of ${e.rowsAdded.toLocaleString("en")} burn rows (CSV): ≥ 50,000 rows/s, < 50 MB RSS growth of the API process`,
      `${fmt(e.rowsPerSecond, 0)} rows/s, ${fmt(e.rssGrowthMb, 1)} MB`,
      e.rowsPerSecond >= 50_000 && e.rssGrowthMb < 50,
    ]);
  }
  if (results.ledgerGrowth) {
    for (const r of results.ledgerGrowth.routes) {
      rows.push([
        `${r.name} with ${results.ledgerGrowth.rowsAdded.toLocaleString("en")} more ledger rows: latency ≤ 1.2×`,
        `${fmt(r.meanRatio, 2)}× mean`,
        r.meanRatio <= 1.2,
      ]);
    }
  }
  if (results.noise) rows.push(...noiseTargets(results.noise));
  return rows;
}

/** The previous results file, if any: its API rows by request, and its text (for the "Previous run" section). */
function previousRun(file: string): { text: string; api: Map<string, { p50: string; p99: string; rps: string }> } | undefined {
  if (!existsSync(file)) return undefined;
  const text = readFileSync(file, "utf8").split("\n## Previous run")[0]!.trim();
  const api = new Map<string, { p50: string; p99: string; rps: string }>();
  const section = text.split("## API under load")[1]?.split("\n## ")[0] ?? "";
  for (const line of section.split("\n")) {
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    if (cells.length >= 4 && cells[0] !== "request" && !/^-+$/.test(cells[0]!)) api.set(cells[0]!, { p50: cells[1]!, p99: cells[2]!, rps: cells[3]! });
  }
  return { text, api };
}

function finish(results: Results, started: number) {
  if (only === "export" && results.export) return exportOnly(results.export, started);
  const file = RESULTS_FILE;
  const dir = dirname(file);
  const previous = previousRun(file);
  const versions = {
    node: process.version,
    ponder: packageVersion("ponder"),
    anvil: packageVersion("@foundry-rs/anvil"),
  };
  const lines: string[] = [
    `# Benchmark results${smoke ? " (smoke)" : ""}`,
    "",
    `${new Date().toISOString()} · machine ${hostname()} (${process.platform} ${release()}, load ${LOAD_AT_START} at start) · ${cpus().length} × ${cpus()[0]?.model ?? "cpu"} · ${Math.round(totalmem() / 2 ** 30)} GiB · Node ${versions.node} · ponder ${versions.ponder} · anvil ${versions.anvil} · total ${Math.round((Date.now() - started) / 1000)} s`,
    "",
    "## Histories (seed 7)",
    "",
    table(
      ["history", "indexed events", "token transfers", "blocks", "generated (s)"],
      results.histories.map((h) => [h.name, h.indexedEvents, h.tokenTransfers, h.head, h.generatedInSeconds]),
    ),
  ];
  if (results.indexing) {
    const r = results.indexing;
    const rows = (p: IndexingPair) => [
      [`ours (every source, aggregates)`, p.endpoints, p.ours.events, fmt(p.ours.seconds, 2), fmt(p.ours.eventsPerSecond, 0)],
      [`bare ponder (token Transfers only)`, p.endpoints, p.bare.events, fmt(p.bare.seconds, 2), fmt(p.bare.eventsPerSecond, 0)],
    ];
    lines.push(
      "",
      `## Indexing throughput (${r.history})`,
      "",
      table(["indexer", "endpoints", "events", "seconds", "events/s"], [...rows(r), ...(r.oneEndpoint ? rows(r.oneEndpoint) : [])]),
      "",
      `ours / bare events per second, both given the same ${r.endpoints} endpoints: **${fmt(r.ratio, 3)}** (target ≥ ${INDEXING_TARGET}: ${r.ratio >= INDEXING_TARGET ? "met" : "not met"})${r.oneEndpoint ? `; with one endpoint each: ${fmt(r.oneEndpoint.ratio, 3)}` : ""}.`,
      "",
      "An endpoint is one entry of `INDEXER_RPC_URLS` (here the history's anvil, listed that many times). ponder's client limits each endpoint on its own, starting at 20 requests/s, and ours sends one `eth_getLogs` per handled event and range (20 events against the bare app's 1), so with one endpoint that limit, not anvil or our handlers, sets our pace.",
    );
  }
  if (results.api) {
    const a = results.api;
    const prev = (name: string) => previous?.api.get(name) ?? { p50: "–", p99: "–", rps: "–" };
    lines.push(
      "",
      `## API under load (${LOAD.connections} connections, ${LOAD.seconds} s each)`,
      "",
      table(
        ["request", "p50 ms", "p99 ms", "req/s", "non-2xx", "5xx", "previous p50 ms", "previous p99 ms", "previous req/s"],
        [...a.ours, a.ponder].map((r) => [
          r.name,
          r.p50,
          r.p99,
          fmt(r.requestsPerSecond, 0),
          r.non2xx,
          r.server5xx,
          prev(r.name).p50,
          prev(r.name).p99,
          prev(r.name).rps,
        ]),
      ),
      "",
      table(
        ["ratio", "p50", "p99", "throughput"],
        a.ratios.map((r) => [r.name, fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.throughput, 2)]),
      ),
    );
  }
  if (results.growth?.length) {
    const base = results.growth[0]!;
    lines.push(
      "",
      "## Growth with history",
      "",
      table(
        [
          "history events",
          "/stats p50 ms",
          "/stats p99 ms",
          "ratio p50 vs smallest",
          "burn page p50 ms",
          "burn page p99 ms",
          "ratio p50 vs smallest",
          "indexed in (s)",
        ],
        results.growth.map((g) => [
          g.size,
          g.stats.p50,
          g.stats.p99,
          fmt(g.stats.p50 / Math.max(base.stats.p50, 0.001), 2),
          g.burns.p50,
          g.burns.p99,
          fmt(g.burns.p50 / Math.max(base.burns.p50, 0.001), 2),
          fmt(g.indexSeconds, 0),
        ]),
      ),
    );
    const served = results.growth.filter((g) => g.loadSeconds !== undefined);
    if (served.length) {
      lines.push(
        "",
        served
          .map(
            (g) =>
              `The ${g.size.toLocaleString("en")}-event history is served for this table alone: anvil loaded its state in ${fmt(g.loadSeconds!, 0)} s, ours indexed it in ${fmt(g.indexSeconds, 0)} s.`,
          )
          .join(" "),
      );
    }
  }
  if (results.ledgerGrowth) {
    const g = results.ledgerGrowth;
    lines.push(
      "",
      `## Ledger growth (${g.rowsAdded.toLocaleString("en")} rows added to engine.ledger in ${fmt(g.insertSeconds, 1)} s, ${g.rowsBefore.toLocaleString("en")} before; ${LOAD.connections} connections)`,
      "",
      table(
        ["request", "mean ms before", "mean ms after", "ratio", "p50 before", "p50 after", "p99 before", "p99 after", "req/s before", "req/s after"],
        g.routes.map((r) => [
          r.name,
          fmt(r.before.mean, 2),
          fmt(r.after.mean, 2),
          fmt(r.meanRatio, 2),
          r.before.p50,
          r.after.p50,
          r.before.p99,
          r.after.p99,
          fmt(r.before.requestsPerSecond, 0),
          fmt(r.after.requestsPerSecond, 0),
        ]),
      ),
    );
  }
  if (results.replicas) lines.push(...replicasSection(results.replicas, LOAD, table, fmt));
  if (results.export) lines.push(...exportSection(results.export));
  if (results.soak) lines.push(...soakSection(results.soak));
  if (results.tokens) lines.push(...tokensSection(results.tokens, table, fmt));
  if (results.noise) lines.push(...noiseSection(results.noise, table, fmt));
  const targets = targetRows(results, LOAD.connections);
  if (targets.length) {
    lines.push(
      "",
      `## Targets${smoke ? " (smoke scale: the full run's thresholds, far fewer connections and seconds)" : ""}`,
      "",
      table(
        ["target", "measured", "met"],
        targets.map(([target, measured, met]) => [target, measured, met ? "met" : "**not met**"]),
      ),
    );
  }
  if (previous)
    lines.push(
      "",
      "## Previous run",
      "",
      "The results this run replaced, as they were written:",
      "",
      previous.text.replace(/^#+ /gm, (h) => `##${h}`),
    );
  const text = `${lines.join("\n")}\n`;
  process.stdout.write(`\n${text}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, text);
  const failed =
    (results.soak && (results.soak.server5xx > 0 || !results.soak.invariants.ok)) ||
    (results.api && [...results.api.ours, results.api.ponder].some((r) => r.server5xx > 0)) ||
    (results.replicas && (results.replicas.load.some((r) => r.server5xx > 0) || results.replicas.fanout.delivered < results.replicas.fanout.expected));
  process.exit(failed ? 1 : 0);
}

/** The soak's section: requests and faults, recovery after each fault, and every process's memory. */
function soakSection(s: SoakResult): string[] {
  const lines: string[] = [];
  lines.push(
    "",
    `## Soak and faults (${s.seconds} s)`,
    "",
    `The load: ${s.load.requestsPerSecond} requests a second in all, paced over ${s.load.connections} connections split between ponder and the replica. ponder is supervised as \`npm start\` supervises it: started again when it exits, and stopped by the indexer's watchdog when it stays behind the head while the RPC answers.`,
    "",
    "A reorg deficit: a rollback deeper than `CONFIRMATIONS` (0 here) took back fees a worker had already spent; the leg records it and its next fees repay it (docs/design.md §5.5). 503s while the database is away are the API's contract and not counted as 5xx.",
    "",
    table(
      [
        "requests",
        "by status",
        "5xx",
        "503 during database outages",
        "network errors",
        "engine kills",
        "chain rollbacks",
        "database outages",
        "RPC freezes",
        "ledger rows",
        "invariants",
        "reorg deficits",
      ],
      [
        [
          s.requests,
          Object.entries(s.byStatus)
            .map(([k, v]) => `${k}: ${v}`)
            .join(", "),
          s.server5xx,
          s.outage503,
          s.networkErrors,
          s.engineKills,
          s.rollbacks,
          s.databaseOutages,
          s.rpcFreezes,
          s.ledgerRows,
          s.invariants.ok ? "hold" : `violated: ${s.invariants.violations.join("; ")}`,
          `${s.deficits.recorded} recorded, ${s.deficits.open} still short`,
        ],
      ],
    ),
  );
  if (s.faults.length) {
    lines.push(
      "",
      "Recovery after each fault: until `/api/v1/health` answers 200 and the index, standing on the chain's own blocks (after a rollback: once ponder has reverted the blocks the chain lost), is within 10 blocks of the head (or no further behind than before the fault, when the load kept it further). Lags in blocks.",
      "",
      table(
        ["fault", "lasted s", "recovered after s", "index lag before", "at its end", "after"],
        s.faults.map((f) => [
          f.kind,
          fmt(f.seconds, 1),
          f.recoveredSeconds === null ? `**not within ${RECOVERY_CAP_MS / 1000} s** (last seen: ${f.lastSeen})` : fmt(f.recoveredSeconds, 1),
          f.lagBefore ?? "–",
          f.lagAtEnd ?? "–",
          f.lagAfter ?? "–",
        ]),
      ),
    );
  }
  const t = s.transactions;
  lines.push(
    "",
    `The engine's transactions: ${t.mined} mined, ${t.reverted} reverted, ${t.outOfGas} of them out of gas (retries included). Out-of-gas first tries retried with a higher limit and mined: ${t.outOfGasRetried} of ${t.outOfGasFirstTries}${t.unretried.length ? `; **not made good by a gas retry: ${t.unretried.join(", ")}**` : ""} (the pipeline retries fee collections and claims, the swap module re-plans a swap; a buyback whose swap still fails refunds its spend and buys again on a later cycle).`,
  );
  lines.push(
    "",
    s.ponderExits.length
      ? `**ponder stopped ${s.ponderExits.length} time${s.ponderExits.length === 1 ? "" : "s"} and was started again (as npm start does):** ${s.ponderExits.map((e) => e.replace(/\|/g, "/")).join("; ")}`
      : "ponder ran through the whole soak without exiting.",
  );
  const m = s.memory;
  lines.push(
    "",
    `### Memory of every process (PSS, MB; sampled every ${m.intervalSeconds} s over ${fmt(m.minutes, 1)} min)`,
    "",
    `anvil bounded to ${s.stateHistoryBlocks === undefined ? "anvil's default state history" : `${s.stateHistoryBlocks} blocks of state history`} (\`DEVNET_STATE_HISTORY_BLOCKS\`), a block a second; ${s.replicas} API replica${s.replicas === 1 ? "" : "s"} beside ponder. Growth: the least-squares slope over the run; a day: that slope × 1,440 (docs/benchmarks.md, "Memory over a soak").`,
    "",
    table(
      ["process", "samples", "start", "peak", "end", "growth MB/min", "a day at that rate, MB"],
      m.processes.map((p) => [
        p.name,
        p.samples,
        fmt(p.startMb, 0),
        fmt(p.peakMb, 0),
        fmt(p.endMb, 0),
        fmt(p.growthMbPerMinute, 2),
        fmt(p.growthMbPerMinute * 1440, 0),
      ]),
    ),
  );
  const r = s.tracelessReload;
  lines.push(
    "",
    `**anvil restarted without call traces** (what \`npm start\` does past \`DEVNET_ANVIL_MEMORY_MB\`): the chain dumped at the end is ${fmt(r.stateMb, 0)} MB of JSON, ${fmt(r.tracesMb, 0)} MB of it traces; anvil held ${fmt(r.beforeMb, 0)} MB (RSS), an anvil loaded from the chain without traces ${fmt(r.afterMb, 0)} MB (${fmt(r.seconds, 1)} s to dump, strip and load).`,
  );
  return lines;
}

/** The export row's section: the download against its COPY ceiling, and the API's memory. */
function exportSection(e: ExportResult): string[] {
  return [
    "",
    `## Export (${e.rowsAdded.toLocaleString("en")} synthetic burns added to the indexed history)`,
    "",
    table(
      ["export", "rows", "MB", "seconds", "rows/s", "API RSS before MB", "peak MB", "growth MB"],
      [
        [
          "GET /api/v1/export/burns.csv",
          e.rows,
          fmt(e.bytes / 1e6, 1),
          fmt(e.seconds, 1),
          fmt(e.rowsPerSecond, 0),
          fmt(e.rssBeforeMb, 0),
          fmt(e.rssPeakMb, 0),
          fmt(e.rssGrowthMb, 1),
        ],
        [
          "its COPY, to a bare client (ceiling)",
          e.ceiling.rows,
          fmt(e.ceiling.bytes / 1e6, 1),
          fmt(e.ceiling.seconds, 1),
          fmt(e.ceiling.rowsPerSecond, 0),
          "",
          "",
          "",
        ],
      ],
    ),
    "",
    `The ponder process (indexer and API in one) downloaded from over HTTP by one client; its resident memory sampled every 50 ms during the download, after a warm-up export of 20,000 rows. The ceiling: the same COPY statement (the lines PostgreSQL builds, in binary COPY framing) read by a bare pg client in the bench process and discarded, right after. Export / ceiling: **${fmt(e.rowsPerSecond / e.ceiling.rowsPerSecond, 2)}**. Load ${e.loadBefore} before the download, ${e.loadAfter} after the ceiling.`,
  ];
}

/**
 * `--part tokens` alone: measures, then replaces only its own section of the results file (or
 * adds it before "Previous run"), leaving every other part's figures as they were.
 */
async function tokensOnly(started: number) {
  const bench = await startBench();
  let result: TokensResult;
  try {
    result = await benchTokens(bench, TOKEN_PART_SIZES, log);
  } finally {
    await bench.stop();
  }
  replaceSection("\n## Enrolled tokens", tokensSection(result, table, fmt).join("\n").trim(), "tokens", started);
  process.exit(result.sizes.every((s) => s.booked === s.sample && s.cycles.every((c) => c.ok)) ? 0 : 1);
}

/** `--part soak` alone: on the smallest history; replaces only its own section of the results file, as `--part tokens` does. */
async function soakOnly(started: number) {
  const history = await ensureHistory(SIZES[0]!, SEED, await freePort(), (m) => log(`  ${m}`));
  const bench = await startBench();
  let result: SoakResult;
  try {
    log(`soak: ${SOAK.seconds} s of mixed load; the engine killed, the chain rolled back, the database away and the RPC frozen at random moments`);
    result = await benchSoak(bench, history, SOAK);
  } finally {
    await bench.stop();
  }
  replaceSection("\n## Soak and faults", soakSection(result).join("\n").trim(), "soak", started);
  process.exit(result.server5xx > 0 || !result.invariants.ok ? 1 : 0);
}

/** Prints `section` and puts it in the results file in place of the one under `heading` (or before "Previous run"), leaving every other part's figures as they were. */
function replaceSection(heading: string, section: string, part: string, started: number) {
  process.stdout.write(`\n${section}\n`);
  const file = RESULTS_FILE;
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  const text = existsSync(file) ? readFileSync(file, "utf8") : `# Benchmark results${smoke ? " (smoke)" : ""}\n`;
  const [current, previous] = ((i) => (i < 0 ? [text, ""] : [text.slice(0, i), text.slice(i)]))(text.indexOf("\n## Previous run"));
  const at = current.indexOf(heading);
  const note = `${section}\n\n(\`--part ${part}\` of ${new Date().toISOString()}, ${Math.round((Date.now() - started) / 1000)} s, load ${LOAD_AT_START} at start)`;
  let updated: string;
  if (at < 0) updated = `${current.trimEnd()}\n\n${note}\n`;
  else {
    const next = current.indexOf("\n## ", at + heading.length);
    updated = `${current.slice(0, at).trimEnd()}\n\n${note}\n${next < 0 ? "" : current.slice(next)}`;
  }
  writeFileSync(file, `${updated.trimEnd()}\n${previous}`);
}

/**
 * `--part export` alone: its section and its row of the targets table replace theirs in the
 * results file (as `--part tokens` does), every other part's figures left as they were.
 */
function exportOnly(e: ExportResult, started: number) {
  replaceSection("\n## Export", exportSection(e).join("\n").trim(), "export", started);
  const [target, measured, met] = targetRows({ histories: [], export: e }, LOAD.connections).find(([t]) => t.startsWith("export of"))!;
  const file = RESULTS_FILE;
  const text = readFileSync(file, "utf8");
  const row = `| ${target} | ${measured} | ${met ? "met" : "**not met**"} |`;
  const at = text.search(/^\| export of [^\n]*$/m);
  const end = text.indexOf("\n## Previous run");
  if (at >= 0 && (end < 0 || at < end)) writeFileSync(file, text.slice(0, at) + row + text.slice(text.indexOf("\n", at)));
  process.exitCode = met ? 0 : 1;
}

/** The noise twins (generated or loaded from their caches), indexed side by side. */
async function noise(bench: Bench): Promise<NoiseResult> {
  const twins: History[] = [];
  for (const foreign of [0, NOISE.ratio]) {
    log(`noise: history of ${NOISE.events} events, strangers ×${foreign}`);
    twins.push(await ensureHistory(NOISE.events, SEED, await freePort(), (m) => log(`  ${m}`), { foreign }));
  }
  // A smoke run indexes each twin once (the harness works); a full run twice, alternating.
  const repeats = smoke ? 1 : 2;
  log(`noise: indexing the clean and the noisy twin, ${repeats === 1 ? "once" : "twice"} each`);
  return benchNoise(bench, twins[0]!, twins[1]!, log, repeats);
}

/** `--part noise` alone: measures, then replaces only its own section of the results file (as `--part tokens`). */
async function noiseOnly(started: number) {
  const bench = await startBench();
  let result: NoiseResult;
  try {
    result = await noise(bench);
  } finally {
    await bench.stop();
  }
  replaceSection("\n## Foreign noise", noiseSection(result, table, fmt).join("\n").trim(), "noise", started);
  process.exit(noiseTargets(result).every(([, , met]) => met) ? 0 : 1);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
