/**
 * `npm run bench`: every benchmark in one run, printed as a Markdown table and written to
 * bench/results/latest.md (or latest-smoke.md).
 *
 *   npm run bench                       full run (histories of 1k, 10k, 100k events; 5-minute soak)
 *   npm run bench:smoke                 the same harness, tiny and short (CI keeps it working)
 *   npm run bench -- --part indexing    one part: history | indexing | api | growth | soak
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import { ROOT } from "../devnet/compile.js";
import { freePort } from "../devnet/ports.js";
import { type ApiResult, apiTargets, assertAnswers, benchApi } from "./api.js";
import { type History, ensureHistory } from "./history.js";
import { type Indexed, fmt, indexHistory, log, servePonderGraphql, serveHistory, startBench } from "./lib.js";
import { type LoadResult, load } from "./load.js";
import { type SoakResult, benchSoak } from "./soak.js";

const args = process.argv.slice(2);
const smoke = args.includes("--smoke");
const partIndex = args.indexOf("--part");
const only = partIndex >= 0 ? args[partIndex + 1] : undefined;
const PARTS = ["history", "indexing", "api", "growth", "soak"] as const;
if (only && !PARTS.includes(only as never)) {
  process.stderr.write(`unknown part "${only}"; choose one of ${PARTS.join(", ")}\n`);
  process.exit(2);
}
const runs = (part: (typeof PARTS)[number]) => !only || only === part;

const SEED = 7;
const SIZES = smoke ? [300, 3_000] : [1_000, 10_000, 100_000];
const LOAD = smoke ? { seconds: 2, connections: 4 } : { seconds: 10, connections: 16 };
const GROWTH_LOAD = smoke ? { seconds: 2, connections: 4 } : { seconds: 5, connections: 8 };
const SOAK = smoke ? { seconds: 20, seed: SEED, concurrency: 4 } : { seconds: 300, seed: SEED, concurrency: 8 };

export type IndexingResult = {
  history: string;
  ours: { events: number; seconds: number; eventsPerSecond: number };
  bare: { events: number; seconds: number; eventsPerSecond: number };
  ratio: number;
};

type Results = {
  histories: History[];
  indexing?: IndexingResult;
  api?: ApiResult;
  growth?: { size: number; stats: LoadResult; burns: LoadResult }[];
  soak?: SoakResult;
};

async function main() {
  const started = Date.now();
  const results: Results = { histories: [] };
  for (const size of SIZES) {
    log(`history of ${size} events`);
    results.histories.push(await ensureHistory(size, SEED, await freePort(), (m) => log(`  ${m}`)));
  }
  if (only === "history") return finish(results, started);

  const bench = await startBench();
  const indexed = new Map<number, Indexed & { stopAnvil: () => Promise<void>; rpcUrl: string }>();
  try {
    const largest = results.histories.at(-1)!;
    const needsIndex = runs("indexing") || runs("api") || runs("growth");
    if (needsIndex) {
      for (const history of runs("growth") ? results.histories : [largest]) {
        const anvil = await serveHistory(history);
        log(`indexing ${history.name} (ours)`);
        const ours = await indexHistory(history, anvil.rpcUrl, await bench.createDatabase("ours"), "ours");
        indexed.set(history.events, { ...ours, stopAnvil: () => anvil.stop(), rpcUrl: anvil.rpcUrl });
      }
    }
    if (runs("indexing")) {
      const ours = indexed.get(largest.events)!;
      const anvil = await serveHistory(largest);
      log(`indexing ${largest.name} (bare ponder app, Transfer events only)`);
      const bare = await indexHistory(largest, anvil.rpcUrl, await bench.createDatabase("bare"), "bare");
      await bare.ponder.stop();
      await anvil.stop();
      const oursSeconds = ours.backfillSeconds ?? ours.seconds;
      const bareSeconds = bare.backfillSeconds ?? bare.seconds;
      results.indexing = {
        history: largest.name,
        ours: { events: largest.indexedEvents, seconds: oursSeconds, eventsPerSecond: largest.indexedEvents / oursSeconds },
        bare: { events: largest.tokenTransfers, seconds: bareSeconds, eventsPerSecond: largest.tokenTransfers / bareSeconds },
        ratio: largest.indexedEvents / oursSeconds / (largest.tokenTransfers / bareSeconds),
      };
    }
    const burnToken = (h: History) => h.deployments.contracts.usdcPairedToken as Address;
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
        const ours = indexed.get(history.events)!;
        log(`growth: ${history.name}`);
        const [stats, , , burns] = apiTargets(ours.ponder.url, burnToken(history));
        results.growth.push({ size: history.events, stats: await load(stats!, GROWTH_LOAD), burns: await load(burns!, GROWTH_LOAD) });
      }
    }
    for (const i of indexed.values()) {
      await i.ponder.stop();
      await i.stopAnvil();
    }
    indexed.clear();
    if (runs("soak")) {
      log(`soak: ${SOAK.seconds} s of mixed load, engine killed and chain rolled back at random moments`);
      results.soak = await benchSoak(bench, results.histories[0]!, SOAK);
    }
  } finally {
    for (const i of indexed.values()) {
      await i.ponder.stop().catch(() => {});
      await i.stopAnvil().catch(() => {});
    }
    await bench.stop();
  }
  finish(results, started);
}

const packageVersion = (name: string) =>
  (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

function table(headers: string[], rows: (string | number)[][]): string {
  return [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function finish(results: Results, started: number) {
  const versions = {
    node: process.version,
    ponder: packageVersion("ponder"),
    anvil: packageVersion("@foundry-rs/anvil"),
  };
  const lines: string[] = [
    `# Benchmark results${smoke ? " (smoke)" : ""}`,
    "",
    `${new Date().toISOString()} · ${cpus().length} × ${cpus()[0]?.model ?? "cpu"} · ${Math.round(totalmem() / 2 ** 30)} GiB · Node ${versions.node} · ponder ${versions.ponder} · anvil ${versions.anvil} · total ${Math.round((Date.now() - started) / 1000)} s`,
    "",
    "## Histories (seed 7)",
    "",
    table(["history", "indexed events", "token transfers", "blocks", "generated (s)"], results.histories.map((h) => [h.name, h.indexedEvents, h.tokenTransfers, h.head, h.generatedInSeconds])),
  ];
  if (results.indexing) {
    const r = results.indexing;
    lines.push("", `## Indexing throughput (${r.history})`, "", table(["indexer", "events", "seconds", "events/s"], [
      ["ours (every source, aggregates)", r.ours.events, fmt(r.ours.seconds, 2), fmt(r.ours.eventsPerSecond, 0)],
      ["bare ponder (token Transfers only)", r.bare.events, fmt(r.bare.seconds, 2), fmt(r.bare.eventsPerSecond, 0)],
    ]), "", `ours / bare events per second: **${fmt(r.ratio, 3)}**`);
  }
  if (results.api) {
    const a = results.api;
    lines.push("", `## API under load (${LOAD.connections} connections, ${LOAD.seconds} s each)`, "", table(
      ["request", "p50 ms", "p99 ms", "req/s", "non-2xx", "5xx"],
      [...a.ours, a.ponder].map((r) => [r.name, r.p50, r.p99, fmt(r.requestsPerSecond, 0), r.non2xx, r.server5xx]),
    ), "", table(["ratio", "p50", "p99", "throughput"], a.ratios.map((r) => [r.name, fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.throughput, 2)])));
  }
  if (results.growth?.length) {
    const base = results.growth[0]!;
    lines.push("", "## Growth with history", "", table(
      ["history events", "/stats p50 ms", "/stats p99 ms", "ratio p50 vs smallest", "burn page p50 ms", "burn page p99 ms", "ratio p50 vs smallest"],
      results.growth.map((g) => [g.size, g.stats.p50, g.stats.p99, fmt(g.stats.p50 / Math.max(base.stats.p50, 0.001), 2), g.burns.p50, g.burns.p99, fmt(g.burns.p50 / Math.max(base.burns.p50, 0.001), 2)]),
    ));
  }
  if (results.soak) {
    const s = results.soak;
    lines.push("", `## Soak and faults (${s.seconds} s)`, "", table(["requests", "by status", "5xx", "network errors", "engine kills", "chain rollbacks", "ledger rows", "invariants"], [[
      s.requests,
      Object.entries(s.byStatus).map(([k, v]) => `${k}: ${v}`).join(", "),
      s.server5xx,
      s.networkErrors,
      s.engineKills,
      s.rollbacks,
      s.ledgerRows,
      s.invariants.ok ? "hold" : `violated: ${s.invariants.violations.join("; ")}`,
    ]]));
  }
  const text = `${lines.join("\n")}\n`;
  process.stdout.write(`\n${text}`);
  const dir = join(ROOT, "bench", "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, smoke ? "latest-smoke.md" : "latest.md"), text);
  const failed = (results.soak && (results.soak.server5xx > 0 || !results.soak.invariants.ok)) || (results.api && [...results.api.ours, results.api.ponder].some((r) => r.server5xx > 0));
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
