/**
 * Where our indexer's time goes, on one stored history: runs our ponder app (and, with
 * `--bare`, the bare Transfer app on the same history, for the ratio) and prints, from
 * ponder's own /metrics, the events and handler time per event type and the `context.db`
 * calls per table and method (finds, inserts, updates, raw SQL). With `--cpu-prof`, ponder
 * runs under `node --cpu-prof` and the profile's heaviest functions are printed too.
 *
 *   npx tsx bench/profile-indexing.ts --events 3000 [--seed 7] [--bare] [--cpu-prof] [--logs] [--dump tables.tsv]
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "../devnet/ports.js";
import { ensureHistory } from "./history.js";
import { indexHistory, log, serveHistory, startBench } from "./lib.js";
import { benchArgs } from "./args.js";

const USAGE = `
Usage: npx tsx bench/profile-indexing.ts [flags]

  --events <n>    the stored history's events (default 3000)
  --seed <n>      the history's seed (default 7)
  --bare          the bare Transfer app on the same history too, for the ratio
  --cpu-prof      ponder under node --cpu-prof; the profile's heaviest functions printed
  --count-rpc     count the requests reaching anvil, by method
  --logs          print ponder's logs
  --dump <file>   every indexed table's rows, sorted, into this file (diff two dumps)
  --help, -h      this text
`;
const flags = benchArgs(USAGE, {
  events: { type: "string" },
  seed: { type: "string" },
  bare: { type: "boolean" },
  "cpu-prof": { type: "boolean" },
  "count-rpc": { type: "boolean" },
  logs: { type: "boolean" },
  dump: { type: "string" },
});

type Sample = { name: string; labels: Record<string, string>; value: number };

function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = line.match(/^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const pair of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

function sumBy(samples: Sample[], name: string, key: (l: Record<string, string>) => string) {
  const out = new Map<string, number>();
  for (const s of samples) if (s.name === name) out.set(key(s.labels), (out.get(key(s.labels)) ?? 0) + s.value);
  return out;
}

/** Self time per function (ms), from a .cpuprofile. */
function topFunctions(file: string, n: number) {
  const profile = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
    samples: number[];
    timeDeltas: number[];
  };
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    const url = node.callFrame.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/\/work\/main\//, "");
    const key = `${node.callFrame.functionName || "(anonymous)"} ${url}:${node.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  return { total, top: [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, n) };
}

/** A JSON-RPC proxy in front of anvil that counts requests by method, address and block span. */
async function countingProxy(target: string) {
  const { createServer } = await import("node:http");
  const counts = new Map<string, number>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    try {
      const parsed = JSON.parse(body.toString()) as
        | { method: string; params?: { address?: unknown; fromBlock?: string; toBlock?: string; topics?: unknown[] }[] }
        | { method: string }[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        const p = (call as { params?: { address?: unknown; fromBlock?: string; toBlock?: string; topics?: unknown[] }[] }).params?.[0];
        const topic0 = p?.topics?.[0];
        const topics = Array.isArray(topic0) ? `${topic0.length} topic0s` : topic0 ? String(topic0).slice(0, 10) : "any topic";
        const span = p?.fromBlock && p?.toBlock ? Number(p.toBlock) - Number(p.fromBlock) + 1 : undefined;
        const key =
          call.method === "eth_getLogs"
            ? `eth_getLogs ${Array.isArray(p?.address) ? `${p.address.length} addresses` : String(p?.address ?? "any").slice(0, 10)} ${topics}${p?.topics && p.topics.length > 1 ? " +args" : ""} span ${span}`
            : call.method;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
    } catch {}
    const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body });
    res.writeHead(upstream.status, { "content-type": "application/json" });
    res.end(Buffer.from(await upstream.arrayBuffer()));
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
  return { url: `http://127.0.0.1:${port}`, counts, close: () => server.close() };
}

async function main() {
  const events = flags.number("events", 3000, { min: 1 });
  const seed = flags.number("seed", 7);
  const history = await ensureHistory(events, seed, await freePort(), (m) => log(m));
  const bench = await startBench();
  const profDir = flags.values["cpu-prof"] ? mkdtempSync(join(tmpdir(), "launchpad-prof-")) : undefined;
  try {
    const anvil = await serveHistory(history);
    const previous = process.env.NODE_OPTIONS;
    const profFile = profDir ? join(profDir, "ours.cpuprofile") : undefined;
    if (profFile) {
      process.env.NODE_OPTIONS = `${previous ?? ""} --import ${join(import.meta.dirname, "cpu-profile.mjs")}`.trim();
      process.env.CPU_PROFILE_FILE = profFile;
    }
    log(`indexing ${history.name} (ours, ${history.indexedEvents} events)`);
    const proxy = flags.values["count-rpc"] ? await countingProxy(anvil.rpcUrl) : undefined;
    const ours = await indexHistory(history, proxy?.url ?? anvil.rpcUrl, await bench.createDatabase("ours"), "ours");
    if (proxy) {
      proxy.close();
      console.log("\n| requests reaching anvil (ours) | count |\n|---|---|");
      for (const [k, v] of [...proxy.counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`| ${k} | ${v} |`);
    }
    if (profDir) process.env.NODE_OPTIONS = previous ?? "";
    delete process.env.CPU_PROFILE_FILE;
    if (profFile) {
      ours.ponder.process.kill("SIGUSR2");
      for (let i = 0; i < 100 && !existsSync(profFile); i++) await new Promise((r) => setTimeout(r, 200));
    }
    const dumpFile = flags.values.dump ?? "";
    if (dumpFile) {
      // Every table's rows, sorted: `diff` two dumps to check a change keeps the indexed content.
      const client = new pg.Client({ connectionString: ours.databaseUrl });
      await client.connect();
      const tables = await client.query<{ table_name: string }>(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'app' AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%' ORDER BY table_name",
      );
      const lines: string[] = [];
      for (const { table_name } of tables.rows) {
        const rows = await client.query(`SELECT * FROM app.${client.escapeIdentifier(table_name)}`);
        lines.push(...rows.rows.map((r) => `${table_name}\t${JSON.stringify(r)}`).sort());
      }
      await client.end();
      writeFileSync(dumpFile, `${lines.join("\n")}\n`);
      log(`tables written to ${dumpFile}`);
    }
    const metrics = parseMetrics(await (await fetch(`${ours.ponder.url}/metrics`)).text());
    await ours.ponder.stop();
    await anvil.stop();
    const oursSeconds = ours.backfillSeconds ?? ours.seconds;
    log(`ours: ${history.indexedEvents} events in ${oursSeconds.toFixed(2)} s = ${(history.indexedEvents / oursSeconds).toFixed(0)} events/s`);

    if (flags.values.logs) {
      const t0 = (JSON.parse(ours.logs[0]!) as { time: number }).time;
      for (const line of ours.logs) {
        try {
          const l = JSON.parse(line) as Record<string, unknown>;
          const { time, level, msg, ...rest } = l;
          console.log(`${(((time as number) - t0) / 1000).toFixed(2)} ${msg} ${JSON.stringify(rest).slice(0, 200)}`);
        } catch {
          console.log(line);
        }
      }
    }
    const count = sumBy(metrics, "ponder_indexing_function_duration_count", (l) => l.event ?? "?");
    const time = sumBy(metrics, "ponder_indexing_function_duration_sum", (l) => l.event ?? "?");
    const rows = [...count.entries()].sort((a, b) => (time.get(b[0]) ?? 0) - (time.get(a[0]) ?? 0));
    console.log("\n| event | count | handler ms total | µs per event |\n|---|---|---|---|");
    for (const [event, n] of rows)
      console.log(`| ${event} | ${n} | ${(time.get(event) ?? 0).toFixed(0)} | ${(((time.get(event) ?? 0) * 1000) / Math.max(n, 1)).toFixed(0)} |`);
    const queries = sumBy(metrics, "ponder_indexing_store_queries_total", (l) => `${l.table} ${l.method}`);
    console.log("\n| table method | calls |\n|---|---|");
    for (const [k, v] of [...queries.entries()].sort((a, b) => b[1] - a[1])) console.log(`| ${k} | ${v} |`);
    const raw = sumBy(metrics, "ponder_indexing_store_raw_sql_duration_count", () => "raw");
    const rawMs = sumBy(metrics, "ponder_indexing_store_raw_sql_duration_sum", () => "raw");
    console.log(`\nraw context.db.sql: ${raw.get("raw") ?? 0} queries, ${(rawMs.get("raw") ?? 0).toFixed(0)} ms`);
    const cache = sumBy(metrics, "ponder_indexing_cache_requests_total", (l) => l.type ?? "?");
    console.log(`cache requests: ${JSON.stringify(Object.fromEntries(cache))}`);
    const cacheMs = sumBy(metrics, "ponder_indexing_cache_query_duration_sum", (l) => `${l.table} ${l.method}`);
    const cacheN = sumBy(metrics, "ponder_indexing_cache_query_duration_count", (l) => `${l.table} ${l.method}`);
    console.log("\n| cache query (table method) | count | ms |\n|---|---|---|");
    for (const [k, v] of [...cacheMs.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`| ${k} | ${cacheN.get(k)} | ${v.toFixed(0)} |`);
    for (const name of ["ponder_historical_concurrency_group_duration", "ponder_historical_extract_duration", "ponder_historical_transform_duration"]) {
      for (const s of metrics.filter((m) => m.name === name)) console.log(`${name} ${JSON.stringify(s.labels)} ${(s.value / 1000).toFixed(2)} s`);
    }
    for (const name of [
      "ponder_historical_duration",
      "ponder_indexing_completed_seconds",
      "ponder_historical_total_blocks",
      "ponder_historical_completed_blocks",
    ]) {
      for (const s of metrics.filter((m) => m.name.startsWith(name))) console.log(`${s.name} ${JSON.stringify(s.labels)} ${s.value}`);
    }
    const rpc = sumBy(metrics, "ponder_rpc_request_duration_count", (l) => l.method ?? "?");
    const rpcMs = sumBy(metrics, "ponder_rpc_request_duration_sum", (l) => l.method ?? "?");
    console.log("\n| rpc method | requests | ms |\n|---|---|---|");
    for (const [k, v] of rpc) console.log(`| ${k} | ${v} | ${(rpcMs.get(k) ?? 0).toFixed(0)} |`);

    if (profFile) {
      const file = existsSync(profFile) ? profFile : undefined;
      if (file) {
        const { total, top } = topFunctions(file, 40);
        console.log(`\nCPU profile ${file}: ${total.toFixed(0)} ms sampled\n\n| self ms | function |\n|---|---|`);
        for (const [fn, ms] of top) console.log(`| ${ms.toFixed(0)} | ${fn} |`);
      }
    }

    if (flags.values.bare) {
      const anvil2 = await serveHistory(history);
      log(`indexing ${history.name} (bare, ${history.tokenTransfers} Transfer events)`);
      const bare = await indexHistory(history, anvil2.rpcUrl, await bench.createDatabase("bare"), "bare");
      const bareMetrics = parseMetrics(await (await fetch(`${bare.ponder.url}/metrics`)).text());
      await bare.ponder.stop();
      await anvil2.stop();
      for (const s of bareMetrics.filter((m) => m.name === "ponder_historical_concurrency_group_duration"))
        console.log(`bare ${s.name} ${JSON.stringify(s.labels)} ${(s.value / 1000).toFixed(2)} s`);
      const bareRpc = sumBy(bareMetrics, "ponder_rpc_request_duration_count", (l) => l.method ?? "?");
      const bareRpcMs = sumBy(bareMetrics, "ponder_rpc_request_duration_sum", (l) => l.method ?? "?");
      for (const [k, v] of bareRpc) console.log(`bare rpc ${k}: ${v} requests, ${(bareRpcMs.get(k) ?? 0).toFixed(0)} ms`);
      const bareSeconds = bare.backfillSeconds ?? bare.seconds;
      const ratio = history.indexedEvents / oursSeconds / (history.tokenTransfers / bareSeconds);
      log(
        `bare: ${history.tokenTransfers} events in ${bareSeconds.toFixed(2)} s = ${(history.tokenTransfers / bareSeconds).toFixed(0)} events/s; ratio ${ratio.toFixed(3)}`,
      );
    }
  } finally {
    await bench.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
