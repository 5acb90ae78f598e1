/**
 * Soak and faults, bounded in time: mixed API load while the engine runs its cycles on a
 * live devnet (the market simulator trading); at random moments the engine is SIGKILLed and
 * restarted, the chain is rolled back a few blocks (`evm_snapshot` / `evm_revert`: what a
 * reorg or a devnet restored from its last state snapshot does), PostgreSQL goes away (every
 * connection reset, new ones refused, as in a restart or a failover) or the RPC freezes (every
 * connection held unanswered), each for a few seconds. The engine and ponder reach both
 * through a fault proxy; the market and the checks reach them directly. After each fault the
 * soak records how long until the API answers and the index is within 10 blocks of the head
 * again, and the indexer's lag then. At the end the engine must have converged (no
 * transaction left in flight, nothing lost that the watcher did not undo), the ledger
 * invariants must hold and no request may have failed with a 5xx — but the 503s the API
 * answers while the database is away, which are its contract.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { DEVNET_CHAIN_ID, loadConfig } from "../common/config.js";
import { settlesWithin } from "../common/async.js";
import { ROOT } from "../devnet/compile.js";
import { startMarket, mulberry32 } from "../devnet/market.js";
import { type AnvilHandle, rpc as anvilRpc, startAnvil, stateHistoryBlocksFromEnv } from "../devnet/anvil.js";
import { residentBytes } from "../devnet/memory-bound.js";
import { writeFileAtomic } from "../devnet/state.js";
import { stripTraces } from "../devnet/traces.js";
import { watchIndexer } from "../devnet/indexer-watchdog.js";
import { EXIT_WITH_PARENT, type PonderHandle, startApiReplica, startPonder, waitForIndexed, waitForReady } from "../devnet/ponder.js";
import { freePort } from "../devnet/ports.js";
import { openEngineDb } from "../core/db/client.js";
import { checkLedgerInvariants } from "../core/ledger/invariants.js";
import { reorgDeficits } from "../core/ledger/reorg.js";
import type pg from "pg";
import { startFaultProxy } from "./fault-proxy.js";
import type { History } from "./history.js";
import { type MemoryReport, startMemorySampler } from "./memory.js";
import { BENCH_RATE_LIMIT_SCALE, type Bench, INDEXER_ENDPOINTS, endpointList, log, logsBlockRange, serveHistory } from "./lib.js";

/**
 * The longest the soak waits for a recovery after a fault. The same in the smoke's short soak:
 * a recovery on a loaded machine (the test suite's two lanes on two cores) can take several
 * times what it takes alone, and the wait ends as soon as it is seen.
 */
export const RECOVERY_CAP_MS = 60_000;

/** The longest the soak's load waits for one answer; a request past it counts as a network error. */
const REQUEST_TIMEOUT_MS = 15_000;

export type SoakFault = {
  kind: "engine-kill" | "rollback" | "database-outage" | "rpc-freeze";
  /** How long the fault lasted (s). */
  seconds: number;
  /**
   * From the fault's end until the API answers 200 on /api/v1/health and the index is within
   * 10 blocks of the head, or no further behind than before the fault when the load already
   * kept it further (s); null if not within RECOVERY_CAP_MS.
   */
  recoveredSeconds: number | null;
  /** What the last look before recovery (or before giving up) saw: health's status, the index's lag, whether it stood on the chain's blocks. */
  lastSeen: string;
  /** The indexer's lag (blocks behind the head) just before the fault, when it ended, and once recovered (or after 60 s). */
  lagBefore: number | null;
  lagAtEnd: number | null;
  lagAfter: number | null;
};

export type SoakResult = {
  seconds: number;
  /** The load: requests a second in all, paced over this many connections. */
  load: { requestsPerSecond: number; connections: number };
  requests: number;
  byStatus: Record<string, number>;
  server5xx: number;
  networkErrors: number;
  engineKills: number;
  /** Chain rollbacks (a few blocks forgotten at once). */
  rollbacks: number;
  databaseOutages: number;
  rpcFreezes: number;
  /** 503s answered while the database was away (or until the API recovered): expected, not counted in `server5xx`. */
  outage503: number;
  faults: SoakFault[];
  invariants: { ok: boolean; violations: string[] };
  ledgerRows: number;
  /** Rollbacks deeper than CONFIRMATIONS that took back fees already spent: recorded per leg, and the legs still short at the end. */
  deficits: { recorded: number; open: number };
  /** The engine's transactions by outcome; those that ran out of gas, and whether each one's retry (`<key>:gas-retry`) was mined. */
  transactions: TransactionOutcomes;
  /** API replicas (`ponder serve`) beside ponder; the load alternates between them. */
  replicas: number;
  /** anvil's `stateHistoryBlocks` (undefined: anvil's default). */
  stateHistoryBlocks: number | undefined;
  /** Every process's memory over the timed run, sampled every few seconds. */
  memory: MemoryReport;
  /** anvil at the end, and an anvil loaded from its chain without call traces: what `npm start`'s restart past its bound leaves. */
  tracelessReload: TracelessReload;
  /**
   * Each time ponder (indexer + API) exited before the end, or the indexer's watchdog stopped it:
   * when, and its last log lines or the watchdog's reason. Like `npm start`'s supervisor, the
   * soak started it again (1 s, then doubling to 10 s).
   */
  ponderExits: string[];
};

export type TransactionOutcomes = {
  mined: number;
  reverted: number;
  /** Every transaction that ran out of gas, retries included. */
  outOfGas: number;
  /** First tries that ran out of gas, and how many of them a retry with a higher limit made good. */
  outOfGasFirstTries: number;
  outOfGasRetried: number;
  /**
   * First tries out of gas whose retry was not mined (or never made): the key, then both rows
   * (status, gas limit and used, block, reorgs, error) and the engine's last lines naming it.
   */
  unretried: string[];
};

/**
 * The engine's transactions over the run: mined, reverted, and those that ran out of gas (the
 * revert reason the pipeline records, core/chain/revert-cause.ts) with their retries. An
 * out-of-gas one counts as retried when its `:gas-retry` intent was mined.
 */
export async function transactionOutcomes(pool: pg.Pool, engineLog?: string): Promise<TransactionOutcomes> {
  const { rows } = await pool.query<{ key: string; status: string; oog: boolean; first: string; retry: string | null; retry_status: string | null }>(
    `SELECT i.key, i.status, coalesce(i.revert_reason LIKE 'out of gas%', false) AS oog, r.status AS retry_status,
            concat_ws(', ', 'limit ' || i.gas_limit, 'used ' || i.gas_used, 'block ' || i.block_number, 'reorgs ' || i.reorgs, i.error) AS first,
            CASE WHEN r.id IS NOT NULL THEN concat_ws(', ', r.status, 'limit ' || r.gas_limit, 'used ' || r.gas_used, 'block ' || r.block_number, 'reorgs ' || r.reorgs, r.error) END AS retry
       FROM engine.tx_intents i LEFT JOIN engine.tx_intents r ON r.key = i.key || ':gas-retry'
      WHERE i.status IN ('mined', 'reverted')`,
  );
  const lines = engineLog ? readFileSync(engineLog, "utf8").split("\n") : [];
  const oog = rows.filter((r) => r.oog && !r.key.endsWith(":gas-retry"));
  const unretried = oog
    .filter((r) => r.retry_status !== "mined")
    .map((r) => {
      const said = lines.filter((l) => l.includes(r.key)).slice(-3);
      return `${r.key} (${r.first}; its retry: ${r.retry ?? "never made"}${said.length ? `; the engine said: ${said.map((l) => l.slice(0, 400)).join(" / ")}` : ""})`;
    });
  return {
    mined: rows.filter((r) => r.status === "mined").length,
    reverted: rows.filter((r) => r.status === "reverted").length,
    outOfGas: rows.filter((r) => r.oog).length,
    outOfGasFirstTries: oog.length,
    outOfGasRetried: oog.length - unretried.length,
    unretried,
  };
}

/** Seconds between memory samples of the soak's processes. */
const MEMORY_SAMPLE_SECONDS = 10;

const KINDS: SoakFault["kind"][] = ["database-outage", "rpc-freeze", "engine-kill", "rollback"];

const PATHS = [
  "/api/v1/health",
  "/api/v1/stats",
  "/api/v1/activity?limit=20",
  "/api/v1/buybacks?limit=20",
  "/api/v1/tokens",
  "/api/v1/activity?kind=burn",
  "/api/v1/buybacks/0x0000000000000000000000000000000000000001",
  "/api/v1/activity?cursor=not-a-cursor",
];

export async function benchSoak(
  bench: Bench,
  history: History,
  options: { seconds: number; seed: number; concurrency: number; requestsPerSecond: number; replicas?: number },
): Promise<SoakResult> {
  const random = mulberry32(options.seed);
  // anvil bounded as the npm start devnet is (DEVNET_STATE_HISTORY_BLOCKS).
  const stateHistoryBlocks = stateHistoryBlocksFromEnv(process.env);
  const anvil = await serveHistory(history, undefined, { stateHistoryBlocks });
  const databaseUrl = await bench.createDatabase("soak");
  // The services reach PostgreSQL and the RPC through proxies the soak can cut.
  const dbProxy = await startFaultProxy(databaseUrl);
  const rpcProxy = await startFaultProxy(anvil.rpcUrl);
  const env = {
    DATABASE_URL: dbProxy.url,
    RPC_URL: rpcProxy.url,
    // The indexing runs' endpoints, all through the proxy (its freezes reach every one): one would
    // hold ponder's catch-up before the load to 20 requests/s.
    INDEXER_RPC_URLS: endpointList(rpcProxy.url, INDEXER_ENDPOINTS),
    CHAIN_ID: String(DEVNET_CHAIN_ID),
    DEPLOYMENTS_FILE: history.deploymentsFile,
    WORKER_INTERVAL_SCALE: "0.01",
    RATE_LIMIT_SCALE: BENCH_RATE_LIMIT_SCALE,
    ETH_GET_LOGS_BLOCK_RANGE: logsBlockRange(history),
    LOG_LEVEL: "warn",
  };
  // A block a second, like the npm start devnet, so the engine and market see time pass.
  await anvil.setBlockTime(1);
  const started = Date.now();
  // ponder (indexer + API), supervised as npm start supervises it: started again whenever it
  // exits (each exit reported with its last lines), and stopped by the indexer's watchdog when
  // it stays behind the head while the RPC answers (devnet/indexer-watchdog.ts).
  const ponderPort = await freePort();
  const ponderExits: string[] = [];
  let stopping = false;
  /** Set when the watchdog is stopping ponder: its next exit is reported as the watchdog's. */
  let watchdogStop: string | undefined;
  let ponder!: PonderHandle;
  let quickExits = 0;
  const runPonder = () => {
    const tail: string[] = [];
    const startedAt = Date.now();
    ponder = startPonder({
      port: ponderPort,
      env,
      schema: "app",
      onLog: (line) => {
        tail.push(line);
        if (tail.length > 5) tail.shift();
      },
    });
    ponder.process.once("exit", (code, signal) => {
      if (stopping) return;
      const at = `${Math.round((Date.now() - started) / 1000)} s into the soak`;
      const exit = watchdogStop
        ? `ponder stopped by the indexer watchdog ${at} (${watchdogStop})`
        : `ponder exited (${code ?? signal}) ${at}; its last lines: ${tail.map((l) => l.slice(0, 300)).join(" | ")}`;
      watchdogStop = undefined;
      ponderExits.push(exit);
      // Backoff from 1 s, doubling to 10 s while it keeps exiting within a minute of its start.
      quickExits = Date.now() - startedAt > 60_000 ? 0 : quickExits + 1;
      const delay = Math.min(10_000, 1_000 * 2 ** quickExits);
      log(`soak: ${exit}; starting it again in ${delay / 1000} s`);
      setTimeout(() => stopping || runPonder(), delay);
    });
  };
  runPonder();
  watchIndexer({
    apiUrl: ponder.url,
    rpcUrl: rpcProxy.url,
    maxLagBlocks: loadConfig({ ...process.env, ...env }).indexerMaxLagBlocks,
    ponder: () => ponder,
    stopping: () => stopping,
    log: { warn: (_fields, message) => log(`soak: watchdog: ${message}`) },
    onStop: (reason) => {
      watchdogStop = reason;
    },
  });
  const market = startMarket({ rpcUrl: anvil.rpcUrl, deployments: history.deployments, seed: options.seed, intervalMs: 1_000 });
  let engine: ChildProcess | undefined;
  const replicas: PonderHandle[] = [];
  let memory: MemoryReport | undefined;
  // The engine's lines, across its restarts, kept for the report's account of each unretried out-of-gas.
  const engineLog = join(mkdtempSync(join(tmpdir(), "launchpad-soak-")), "engine.log");
  const startEngine = () => {
    const out = openSync(engineLog, "a");
    // It stops if the bench dies (EXIT_WITH_PARENT), as ponder does.
    engine = spawn(process.execPath, ["--import", "tsx/esm", "--import", EXIT_WITH_PARENT, join(ROOT, "engine", "main.ts")], {
      cwd: ROOT,
      env: { ...process.env, ...env, LAUNCHPAD_SUPERVISOR_PID: String(process.pid) },
      stdio: ["ignore", out, out],
    });
    closeSync(out);
  };
  const byStatus: Record<string, number> = {};
  let requests = 0;
  let networkErrors = 0;
  let engineKills = 0;
  let rollbacks = 0;
  let databaseOutages = 0;
  let rpcFreezes = 0;
  let outage503 = 0;
  /** While the database is away, and until the API answers again after it. */
  let databaseAway = false;
  const faults: SoakFault[] = [];
  const rpc = (method: string, params: unknown[] = []) => anvilRpc(anvil.rpcUrl, method, params);
  /** The market's rounds end (once); one that does not end within 30 s is left behind, said, and the soak goes on. */
  let marketStopped: Promise<void> | undefined;
  const stopMarket = async () => {
    marketStopped ??= market.stop();
    if (!(await settlesWithin(marketStopped, 30_000))) log("soak: the market's round in flight did not end within 30 s; going on without it");
  };
  try {
    await waitForIndexed(ponder, history.head, 600_000);
    for (let i = 0; i < (options.replicas ?? 1); i++) replicas.push(startApiReplica({ port: await freePort(), env, schema: "app" }));
    // The engine starts while the replicas do: it needs the index, not them.
    startEngine();
    for (const replica of replicas) await waitForReady(replica);
    const sampler = startMemorySampler(
      () => ({
        anvil: anvil.process.pid,
        "ponder (indexer + API)": ponder.process.exitCode === null && ponder.process.signalCode === null ? ponder.process.pid : undefined,
        ...Object.fromEntries(replicas.map((r, i) => [`API replica ${i + 1}`, r.process.pid])),
        engine: engine && engine.exitCode === null && engine.signalCode === null ? engine.pid : undefined,
        PostgreSQL: bench.postgresPid,
        "supervisor (this process: market, load, faults)": process.pid,
      }),
      MEMORY_SAMPLE_SECONDS * 1000,
    );
    const memoryLog = setInterval(
      () =>
        log(
          `soak: memory MB ${Object.entries(sampler.latest())
            .map(([n, mb]) => `${n.split(" (")[0]} ${mb.toFixed(0)}`)
            .join(", ")}`,
        ),
      60_000,
    );
    memoryLog.unref();
    const deadline = Date.now() + options.seconds * 1000;
    const base = ponder.url;
    /** The API processes the load alternates between. */
    const bases = [ponder.url, ...replicas.map((r) => r.url)];
    let workers = 0;
    // Each connection paced to its share of the rate (catching up, never bursting past it, when
    // an answer is slow): a steady load like a deployment's, not one that takes every CPU cycle
    // from the indexer sharing ponder's process (the API part measures throughput).
    const gapMs = (options.concurrency * 1000) / options.requestsPerSecond;
    const worker = async () => {
      const api = bases[workers++ % bases.length]!;
      let next = Date.now() + random() * gapMs;
      while (Date.now() < deadline) {
        const wait = next - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        next = Math.max(next + gapMs, Date.now() - gapMs);
        const path = PATHS[Math.floor(random() * PATHS.length)]!;
        try {
          // Bounded: an answer held past the soak (a request stuck behind a frozen RPC) must not hold the run.
          const res = await fetch(`${api}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
          await res.arrayBuffer();
          byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
          if (res.status === 503 && databaseAway) outage503++;
        } catch {
          networkErrors++;
        }
        requests++;
      }
    };
    const head = async () => Number(BigInt((await rpc("eth_blockNumber")) as string));
    /**
     * The index's lag behind the head in blocks, and whether its last block is still the chain's
     * (after a rollback, until ponder reverts it, the index stands on blocks the chain no longer
     * has: its block's timestamp differs from the node's block at that height, or there is none).
     */
    const indexState = async (): Promise<{ lag: number; onChain: boolean } | null> => {
      try {
        const res = await fetch(`${base}/status`, { signal: AbortSignal.timeout(3_000) });
        const status = (await res.json()) as Record<string, { block?: { number: number; timestamp: number } }>;
        const indexed = Object.values(status)[0]?.block;
        if (!indexed) return null;
        const block = (await rpc("eth_getBlockByNumber", [`0x${indexed.number.toString(16)}`, false])) as { timestamp: string } | null;
        return { lag: (await head()) - indexed.number, onChain: !!block && Number(BigInt(block.timestamp)) === indexed.timestamp };
      } catch {
        return null;
      }
    };
    const lag = async (): Promise<number | null> => (await indexState())?.lag ?? null;
    /**
     * Seconds until the API answers health 200 and the index, on the chain's own blocks, is within
     * 10 blocks of the head or of its lag before the fault (null past RECOVERY_CAP_MS), the lag
     * then, and what the last look saw.
     */
    const recovery = async (before: number | null): Promise<{ seconds: number | null; lag: number | null; lastSeen: string }> => {
      const from = Date.now();
      const target = Math.max(10, before ?? 0);
      let last: number | null = null;
      let lastSeen = "nothing yet";
      while (Date.now() - from < RECOVERY_CAP_MS) {
        const health = await fetch(`${base}/api/v1/health`, { signal: AbortSignal.timeout(3_000) }).then(
          (r) => String(r.status),
          (error: Error) => error.name,
        );
        const state = await indexState();
        last = state?.lag ?? null;
        lastSeen = `health ${health}, ${state ? `index ${state.lag} blocks behind${state.onChain ? "" : " on blocks the chain no longer has"}` : "no index status"}`;
        if (health === "200" && state?.onChain && (state.lag < 10 || state.lag <= target))
          return { seconds: (Date.now() - from) / 1000, lag: state.lag, lastSeen };
        await new Promise((r) => setTimeout(r, 250));
      }
      return { seconds: null, lag: last, lastSeen };
    };
    const chaos = async () => {
      const margin = Math.min(5_000, options.seconds * 100);
      // Short soaks (the smoke run) strike every few seconds with 4-s outages, long ones every 5–25 s with 10–20 s outages.
      const outageMs = () => (options.seconds < 60 ? 4_000 : 10_000 + random() * 10_000);
      while (Date.now() < deadline - margin) {
        // A short soak takes the four faults in turn, outages first (it has room for few); a long one draws them.
        const roll = random();
        const kind: SoakFault["kind"] =
          options.seconds < 60
            ? KINDS[faults.length % KINDS.length]!
            : roll < 0.3
              ? "rollback"
              : roll < 0.55
                ? "engine-kill"
                : roll < 0.8
                  ? "database-outage"
                  : "rpc-freeze";
        // A rollback forgets the blocks mined while we wait.
        const snapshot = kind === "rollback" ? ((await rpc("evm_snapshot")) as string) : undefined;
        await new Promise((r) => setTimeout(r, options.seconds < 60 ? 2_000 + random() * 4_000 : 5_000 + random() * 20_000));
        if (Date.now() >= deadline - margin) break;
        const lagBefore = await lag();
        const startedAt = Date.now();
        if (kind === "rollback") {
          await rpc("evm_revert", [snapshot]);
          rollbacks++;
          log(`soak: chain rolled back (${rollbacks})`);
        } else if (kind === "engine-kill") {
          engine?.kill("SIGKILL");
          engineKills++;
          log(`soak: engine killed (${engineKills}); restarting`);
          await new Promise((r) => setTimeout(r, 500 + random() * 2_000));
          startEngine();
        } else if (kind === "database-outage") {
          databaseOutages++;
          const ms = outageMs();
          log(`soak: database away for ${(ms / 1000).toFixed(0)} s (${databaseOutages})`);
          databaseAway = true;
          await dbProxy.refuse();
          await new Promise((r) => setTimeout(r, ms));
          await dbProxy.restore();
        } else {
          rpcFreezes++;
          const ms = outageMs();
          log(`soak: RPC frozen for ${(ms / 1000).toFixed(0)} s (${rpcFreezes})`);
          rpcProxy.freeze();
          await new Promise((r) => setTimeout(r, ms));
          await rpcProxy.restore();
        }
        const endedAt = Date.now();
        const lagAtEnd = await lag();
        const recovered = await recovery(lagBefore);
        databaseAway = false;
        faults.push({
          kind,
          seconds: (endedAt - startedAt) / 1000,
          recoveredSeconds: recovered.seconds,
          lastSeen: recovered.lastSeen,
          lagBefore,
          lagAtEnd,
          lagAfter: recovered.lag,
        });
        log(
          `soak: ${kind} over; ${recovered.seconds === null ? `not recovered within ${RECOVERY_CAP_MS / 1000} s (last seen: ${recovered.lastSeen})` : `recovered in ${recovered.seconds.toFixed(1)} s`} (index lag ${lagBefore} before, ${lagAtEnd} at its end, ${recovered.lag} after)`,
        );
      }
    };
    await Promise.all([...Array.from({ length: options.concurrency }, worker), chaos()]);
    clearInterval(memoryLog);
    memory = sampler.stop();
    log("soak: load and faults over; stopping the market");
    await stopMarket();
    // Converged: the engine settles what the faults left in flight (the watcher ticks every 5 s).
    log("soak: waiting for the engine to settle what the faults left in flight");
    const db = openEngineDb(databaseUrl, "launchpad-bench");
    try {
      const until = Date.now() + 60_000;
      for (;;) {
        const { rows } = await db.pool.query<{ n: string }>(
          "SELECT COUNT(*)::text AS n FROM engine.tx_intents WHERE status IN ('pending', 'signed', 'broadcast')",
        );
        if (rows[0]!.n === "0" || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    } finally {
      await db.close();
    }
  } finally {
    await stopMarket();
    log("soak: stopping the API replicas and the engine");
    for (const replica of replicas) await replica.stop();
    if (engine && engine.exitCode === null) {
      const exited = new Promise((r) => engine!.once("exit", r));
      engine.kill("SIGTERM");
      if (!(await settlesWithin(exited, 20_000))) {
        log("soak: the engine did not stop within 20 s of SIGTERM; killed");
        engine.kill("SIGKILL");
        await exited;
      }
    }
  }
  const db = openEngineDb(databaseUrl, "launchpad-bench");
  try {
    const invariants = await checkLedgerInvariants(db.db);
    const { rows: inFlight } = await db.pool.query<{ key: string; status: string }>(
      "SELECT key, status FROM engine.tx_intents WHERE status IN ('pending', 'signed', 'broadcast')",
    );
    if (inFlight.length) invariants.violations.push(`not converged: ${inFlight.map((r) => `${r.key} ${r.status}`).join(", ")}`);
    invariants.ok = invariants.violations.length === 0;
    const { rows } = await db.pool.query<{ n: string }>("SELECT COUNT(*)::text AS n FROM engine.ledger");
    const { rows: recorded } = await db.pool.query<{ n: string }>("SELECT COUNT(*)::text AS n FROM engine.agent_log WHERE decision = 'reorg-deficit'");
    const deficits = { recorded: Number(recorded[0]?.n ?? 0), open: (await reorgDeficits(db.db)).length };
    const server5xx =
      Object.entries(byStatus)
        .filter(([s]) => Number(s) >= 500)
        .reduce((a, [, n]) => a + n, 0) - outage503;
    const report: SoakResult = {
      seconds: options.seconds,
      load: { requestsPerSecond: options.requestsPerSecond, connections: options.concurrency },
      requests,
      byStatus,
      server5xx,
      networkErrors,
      engineKills,
      rollbacks,
      databaseOutages,
      rpcFreezes,
      outage503,
      faults,
      invariants,
      ledgerRows: Number(rows[0]?.n ?? 0),
      deficits,
      transactions: await transactionOutcomes(db.pool, engineLog),
      replicas: replicas.length,
      stateHistoryBlocks,
      memory: memory!,
      tracelessReload: await tracelessReload(anvil, stateHistoryBlocks),
      ponderExits,
    };
    // A run that gets here leaves no engine log behind; one that failed keeps its log (launchpad-soak-* in the system's temp folder).
    rmSync(dirname(engineLog), { recursive: true, force: true });
    return report;
  } finally {
    stopping = true;
    await db.close();
    await ponder.stop();
    await dbProxy.close();
    await rpcProxy.close();
    await anvil.stop();
  }
}

export type TracelessReload = { beforeMb: number; afterMb: number; stateMb: number; tracesMb: number; seconds: number };

/**
 * anvil's resident memory at the end of the run, then that of a second anvil loaded from the
 * same chain without its call traces (devnet/traces.ts): what a restart past `npm start`'s
 * memory bound gives back (devnet/memory-bound.ts). The first anvil keeps running.
 */
async function tracelessReload(anvil: AnvilHandle, stateHistoryBlocks: number | undefined): Promise<TracelessReload> {
  const started = performance.now();
  const beforeMb = residentBytes(anvil.process.pid) / 1e6;
  const dir = mkdtempSync(join(tmpdir(), "launchpad-soak-reload-"));
  try {
    let plain = 0;
    const removed = { bytes: 0 };
    const counted = async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        plain += chunk.length;
        yield chunk;
      }
    };
    const file = join(dir, "state.json");
    await writeFileAtomic(file, await anvil.dumpState(), { gunzip: true, transform: (chunks) => stripTraces(counted(chunks), removed) });
    const reloaded = await startAnvil({ port: await freePort(), loadStateFile: file, stateHistoryBlocks });
    try {
      const [head, reloadedHead] = await Promise.all([anvilRpc<string>(anvil.rpcUrl, "eth_blockNumber"), anvilRpc<string>(reloaded.rpcUrl, "eth_blockNumber")]);
      if (BigInt(reloadedHead) < BigInt(head) - 5n) throw new Error(`the reloaded chain ends at ${reloadedHead}, the soak's at ${head}`);
      return {
        beforeMb,
        afterMb: residentBytes(reloaded.process.pid) / 1e6,
        stateMb: plain / 1e6,
        tracesMb: removed.bytes / 1e6,
        seconds: (performance.now() - started) / 1000,
      };
    } finally {
      await reloaded.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
