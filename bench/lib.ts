/**
 * What every benchmark part needs: a PostgreSQL server, an anvil serving a stored history,
 * ponder processes (ours, the bare floor app, ponder's own GraphQL) and timing helpers.
 */
import { chmodSync, createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import pg from "pg";
import { DEVNET_CHAIN_ID } from "../common/config.js";
import { type AnvilHandle, type AnvilOptions, startAnvil } from "../devnet/anvil.js";
import { ROOT } from "../devnet/compile.js";
import { type PonderHandle, startPonder, waitForIndexed } from "../devnet/ponder.js";
import { freePort } from "../devnet/ports.js";
import { startPostgres } from "../devnet/postgres.js";
import type { History } from "./history.js";

export type Bench = {
  databaseUrl: string;
  createDatabase: (prefix: string) => Promise<string>;
  /** The PostgreSQL server's postmaster (its backends run under it). */
  postgresPid: number | undefined;
  stop: () => Promise<void>;
};

/** Load from one client would otherwise measure the per-client rate limiter, not the API. */
export const BENCH_RATE_LIMIT_SCALE = "100000";
/**
 * Blocks per `eth_getLogs` request, the same for both indexers on a history: as many as keep a
 * range to about 6,500 indexed events, at most 32. Generated blocks hold hundreds of
 * transactions (a million-event history ~1,400 events a block), and ponder 0.16.10 fails on
 * answers of tens of thousands of logs: with 32-block ranges over the million-event history
 * 98 of 402 requests failed and its sync stopped (so that history gets 4 blocks, and indexes).
 * Not fewer than needed: ponder sends one request per (contract, event) per range and starts
 * its client at 20 requests per second, so at 4 blocks our 20 event sources spent most of a
 * 20k-event history waiting on that limit (ratio 0.33 at 4 blocks, 0.91 at 32, same run).
 * `BENCH_LOGS_BLOCK_RANGE` overrides it for every history.
 */
export function logsBlockRange(history: Pick<History, "indexedEvents" | "head">): string {
  if (process.env.BENCH_LOGS_BLOCK_RANGE) return process.env.BENCH_LOGS_BLOCK_RANGE;
  const perBlock = history.indexedEvents / Math.max(1, history.head);
  return String(Math.max(1, Math.min(32, Math.floor(6_500 / Math.max(1, perBlock)))));
}

const benchStarted = performance.now();
/** A progress line, with the seconds since the run started (where a run's time goes, at a glance). */
export const log = (msg: string) => process.stdout.write(`[bench ${((performance.now() - benchStarted) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`);

export async function startBench(): Promise<Bench> {
  const dir = mkdtempSync(join(tmpdir(), "launchpad-bench-"));
  chmodSync(dir, 0o755);
  const postgres = await startPostgres({ dataDir: join(dir, "postgres"), port: await freePort() });
  let n = 0;
  return {
    databaseUrl: postgres.url,
    postgresPid: postgres.process.pid,
    createDatabase: async (prefix) => {
      const name = `${prefix}_${n++}`;
      const admin = new pg.Client({ connectionString: postgres.url.replace(/\/[^/]+$/, "/postgres") });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
      await admin.end();
      return postgres.url.replace(/\/[^/]+$/, `/${name}`);
    },
    stop: async () => {
      await postgres.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * anvil serving a stored history (read-only: the state file is never written back). A gzipped
 * state is inflated into a temporary file for `--load-state` (anvil reads only plain JSON from
 * a file, and its `anvil_loadState` RPC refuses a body this large), removed once anvil is up.
 * `progress` gets the inflated size and how long inflating and loading took (the million-event
 * history is ~1 GB of JSON, loaded in under a minute).
 */
export async function serveHistory(
  history: History,
  progress: (msg: string) => void = () => {},
  anvilOptions: Pick<AnvilOptions, "stateHistoryBlocks"> = {},
): Promise<AnvilHandle & { loadSeconds: number }> {
  const started = performance.now();
  const done = (anvil: AnvilHandle) => {
    const loadSeconds = (performance.now() - started) / 1000;
    progress(`${history.name} served by anvil after ${loadSeconds.toFixed(1)} s`);
    return { ...anvil, loadSeconds };
  };
  if (!history.stateFile.endsWith(".gz")) return done(await startAnvil({ port: await freePort(), loadStateFile: history.stateFile, ...anvilOptions }));
  const dir = mkdtempSync(join(tmpdir(), "launchpad-history-"));
  try {
    const stateFile = join(dir, "state.json");
    await pipeline(createReadStream(history.stateFile), createGunzip(), createWriteStream(stateFile));
    progress(
      `${history.name}: inflated ${(statSync(stateFile).size / 1e6).toFixed(0)} MB of state in ${((performance.now() - started) / 1000).toFixed(1)} s; anvil loads it`,
    );
    return done(await startAnvil({ port: await freePort(), loadStateFile: stateFile, ...anvilOptions }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type Indexed = {
  ponder: PonderHandle;
  /** Wall time from spawn to indexed head (includes ponder's own start-up). */
  seconds: number;
  /** The backfill by ponder's own log timestamps (fetching and indexing, no start-up). */
  backfillSeconds: number | undefined;
  databaseUrl: string;
  /** ponder's log lines up to the indexed head (JSON). */
  logs: string[];
};

/**
 * Ponder treats the newest 30 blocks of a chain it does not know (anvil's 31337) as unfinalized
 * and indexes them one block at a time after its backfill, outside the backfill's timing. So
 * that a history's every event is indexed, and timed, by the backfill, empty blocks are mined
 * on top of the served history first (once per anvil; the history's own blocks are unchanged).
 */
export const FINALITY_PADDING_BLOCKS = 32;

async function settleHistory(rpcUrl: string, head: number): Promise<void> {
  const call = async (method: string, params: unknown[] = []) => {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  const current = Number(await call("eth_blockNumber"));
  const missing = head + FINALITY_PADDING_BLOCKS - current;
  if (missing > 0) await call("anvil_mine", [`0x${missing.toString(16)}`]);
}

/**
 * Endpoints the indexers are given (INDEXER_RPC_URLS): the history's anvil listed this many
 * times. ponder's client limits each endpoint on its own (20 requests/s to start, rising
 * slowly), and ours sends one `eth_getLogs` per handled event per range, so one endpoint
 * throttles it well below what anvil answers. Both apps always get the same list. A run sets
 * it once (`setIndexerEndpoints`): 2 in a measured run, more in a smoke run, where nothing is
 * timed and ponder's limit would only set the pace.
 */
export let INDEXER_ENDPOINTS = 2;
export function setIndexerEndpoints(endpoints: number): void {
  INDEXER_ENDPOINTS = endpoints;
}
export const endpointList = (rpcUrl: string, endpoints: number) => Array.from({ length: endpoints }, () => rpcUrl).join(",");

/** The environment of our service on a history (the indexer and any API replica of it). */
export function oursEnv(history: History, rpcUrl: string, databaseUrl: string, endpoints = INDEXER_ENDPOINTS): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    RPC_URL: rpcUrl,
    INDEXER_RPC_URLS: endpointList(rpcUrl, endpoints),
    CHAIN_ID: String(DEVNET_CHAIN_ID),
    DEPLOYMENTS_FILE: history.deploymentsFile,
    RATE_LIMIT_SCALE: BENCH_RATE_LIMIT_SCALE,
    ETH_GET_LOGS_BLOCK_RANGE: logsBlockRange(history),
  };
}

/** Starts a ponder app on the history and times it until it has indexed up to the head. */
export async function indexHistory(
  history: History,
  rpcUrl: string,
  databaseUrl: string,
  app: "ours" | "bare",
  endpoints = INDEXER_ENDPOINTS,
): Promise<Indexed> {
  const env: Record<string, string> =
    app === "ours"
      ? oursEnv(history, rpcUrl, databaseUrl, endpoints)
      : {
          DATABASE_URL: databaseUrl,
          RPC_URL: rpcUrl,
          INDEXER_RPC_URLS: endpointList(rpcUrl, endpoints),
          CHAIN_ID: String(DEVNET_CHAIN_ID),
          LAUNCHER_ADDRESS: history.deployments.contracts.launcher as string,
          START_BLOCK: String(history.deployments.startBlock ?? 0),
          ETH_GET_LOGS_BLOCK_RANGE: logsBlockRange(history),
        };
  await settleHistory(rpcUrl, history.head);
  const logs: string[] = [];
  const started = performance.now();
  const ponder = startPonder({
    port: await freePort(),
    env,
    schema: "app",
    root: app === "bare" ? join(ROOT, "bench", "bare") : undefined,
    logLevel: "info",
    onLog: (line) => logs.push(line),
  });
  try {
    // 15 minutes, and a minute more per 50k events beyond 100k (the million-event history's backfill runs longer).
    await waitForIndexed(ponder, history.head, 900_000 + Math.max(0, history.indexedEvents - 100_000) * 1.2);
  } catch (error) {
    await ponder.stop();
    throw new Error(`${(error as Error).message}\n${logs.slice(-20).join("\n")}`);
  }
  const seconds = (performance.now() - started) / 1000;
  // From ponder's own log lines: the first "Started backfill indexing" to "Completed backfill indexing".
  const parsed = logs.map((l) => {
    try {
      return JSON.parse(l) as { msg?: string; time?: number };
    } catch {
      return {};
    }
  });
  const start = parsed.find((l) => l.msg?.startsWith("Started backfill indexing"))?.time;
  const end = parsed.find((l) => l.msg === "Completed backfill indexing across all chains")?.time;
  const backfillSeconds = start !== undefined && end !== undefined ? (end - start) / 1000 : undefined;
  return { ponder, seconds, backfillSeconds, databaseUrl, logs };
}

/** ponder's built-in GraphQL serving the tables our indexer wrote (`ponder serve`, no indexing). */
export async function servePonderGraphql(history: History, rpcUrl: string, databaseUrl: string): Promise<PonderHandle> {
  const ponder = startPonder({
    port: await freePort(),
    env: { DATABASE_URL: databaseUrl, RPC_URL: rpcUrl, CHAIN_ID: String(DEVNET_CHAIN_ID), DEPLOYMENTS_FILE: history.deploymentsFile },
    schema: "app",
    root: join(ROOT, "bench", "serve"),
    command: "serve",
  });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`${ponder.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: "{ __typename }" }),
    }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return ponder;
    await new Promise((r) => setTimeout(r, 250));
  }
  await ponder.stop();
  throw new Error("ponder serve did not answer GraphQL within 120 s");
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : "n/a");
