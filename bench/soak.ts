/**
 * Soak and faults, bounded in time: mixed API load while the engine runs its cycles on a
 * live devnet (the market simulator trading); at random moments the engine is SIGKILLed and
 * restarted, or the chain is rolled back a few blocks (`evm_snapshot` / `evm_revert`: what a
 * reorg or a devnet restored from its last state snapshot does). At the end the engine must
 * have converged (no transaction left in flight, nothing lost that the watcher did not undo),
 * the ledger invariants must hold and no request may have failed with a 5xx.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { DEVNET_CHAIN_ID } from "../common/config.js";
import { ROOT } from "../devnet/compile.js";
import { startMarket, mulberry32 } from "../devnet/market.js";
import { startPonder, waitForIndexed } from "../devnet/ponder.js";
import { freePort } from "../devnet/ports.js";
import { openEngineDb } from "../core/db/client.js";
import { checkLedgerInvariants, reorgDeficits } from "../core/ledger/ledger.js";
import type { History } from "./history.js";
import { BENCH_RATE_LIMIT_SCALE, type Bench, log, logsBlockRange, serveHistory } from "./lib.js";

export type SoakResult = {
  seconds: number;
  requests: number;
  byStatus: Record<string, number>;
  server5xx: number;
  networkErrors: number;
  engineKills: number;
  /** Chain rollbacks (a few blocks forgotten at once). */
  rollbacks: number;
  invariants: { ok: boolean; violations: string[] };
  ledgerRows: number;
  /** Rollbacks deeper than CONFIRMATIONS that took back fees already spent: recorded per leg, and the legs still short at the end. */
  deficits: { recorded: number; open: number };
};

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

export async function benchSoak(bench: Bench, history: History, options: { seconds: number; seed: number; concurrency: number }): Promise<SoakResult> {
  const random = mulberry32(options.seed);
  const anvil = await serveHistory(history);
  const databaseUrl = await bench.createDatabase("soak");
  const env = {
    DATABASE_URL: databaseUrl,
    RPC_URL: anvil.rpcUrl,
    CHAIN_ID: String(DEVNET_CHAIN_ID),
    DEPLOYMENTS_FILE: history.deploymentsFile,
    WORKER_INTERVAL_SCALE: "0.01",
    RATE_LIMIT_SCALE: BENCH_RATE_LIMIT_SCALE,
    ETH_GET_LOGS_BLOCK_RANGE: logsBlockRange(history),
    LOG_LEVEL: "warn",
  };
  // A block a second, like the npm start devnet, so the engine and market see time pass.
  await fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "evm_setIntervalMining", params: [1] }) });
  const ponder = startPonder({ port: await freePort(), env, schema: "app" });
  const market = startMarket({ rpcUrl: anvil.rpcUrl, deployments: history.deployments, seed: options.seed, intervalMs: 1_000 });
  let engine: ChildProcess | undefined;
  const startEngine = () => {
    engine = spawn(process.execPath, ["--import", "tsx/esm", join(ROOT, "engine", "main.ts")], { cwd: ROOT, env: { ...process.env, ...env }, stdio: "ignore" });
  };
  const byStatus: Record<string, number> = {};
  let requests = 0;
  let networkErrors = 0;
  let engineKills = 0;
  let rollbacks = 0;
  const rpc = async (method: string, params: unknown[] = []) => {
    const res = await fetch(anvil.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  try {
    await waitForIndexed(ponder, history.head, 600_000);
    startEngine();
    const deadline = Date.now() + options.seconds * 1000;
    const base = ponder.url;
    const worker = async () => {
      while (Date.now() < deadline) {
        const path = PATHS[Math.floor(random() * PATHS.length)]!;
        try {
          const res = await fetch(`${base}${path}`);
          await res.arrayBuffer();
          byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
        } catch {
          networkErrors++;
        }
        requests++;
      }
    };
    const chaos = async () => {
      const margin = Math.min(5_000, options.seconds * 100);
      while (Date.now() < deadline - margin) {
        // Half the faults are chain rollbacks: the blocks mined while we wait are forgotten.
        const snapshot = random() < 0.5 ? ((await rpc("evm_snapshot")) as string) : undefined;
        // Short soaks (the smoke run) strike every few seconds, long ones every 5–25 s.
        await new Promise((r) => setTimeout(r, options.seconds < 60 ? 2_000 + random() * 4_000 : 5_000 + random() * 20_000));
        if (Date.now() >= deadline - margin) break;
        if (snapshot) {
          await rpc("evm_revert", [snapshot]);
          rollbacks++;
          log(`soak: chain rolled back (${rollbacks})`);
          continue;
        }
        engine?.kill("SIGKILL");
        engineKills++;
        log(`soak: engine killed (${engineKills}); restarting`);
        await new Promise((r) => setTimeout(r, 500 + random() * 2_000));
        startEngine();
      }
    };
    await Promise.all([...Array.from({ length: options.concurrency }, worker), chaos()]);
    await market.stop();
    // Converged: the engine settles what the faults left in flight (the watcher ticks every 5 s).
    const db = openEngineDb(databaseUrl, "launchpad-bench");
    try {
      const until = Date.now() + 60_000;
      for (;;) {
        const { rows } = await db.pool.query<{ n: string }>("SELECT COUNT(*)::text AS n FROM engine.tx_intents WHERE status IN ('pending', 'signed', 'broadcast')");
        if (rows[0]!.n === "0" || Date.now() > until) break;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    } finally {
      await db.close();
    }
  } finally {
    await market.stop();
    if (engine && engine.exitCode === null) {
      engine.kill("SIGTERM");
      await new Promise((r) => engine!.once("exit", r));
    }
  }
  const db = openEngineDb(databaseUrl, "launchpad-bench");
  try {
    const invariants = await checkLedgerInvariants(db.db);
    const { rows: inFlight } = await db.pool.query<{ key: string; status: string }>("SELECT key, status FROM engine.tx_intents WHERE status IN ('pending', 'signed', 'broadcast')");
    if (inFlight.length) invariants.violations.push(`not converged: ${inFlight.map((r) => `${r.key} ${r.status}`).join(", ")}`);
    invariants.ok = invariants.violations.length === 0;
    const { rows } = await db.pool.query<{ n: string }>("SELECT COUNT(*)::text AS n FROM engine.ledger");
    const { rows: recorded } = await db.pool.query<{ n: string }>("SELECT COUNT(*)::text AS n FROM engine.agent_log WHERE decision = 'reorg-deficit'");
    const deficits = { recorded: Number(recorded[0]?.n ?? 0), open: (await reorgDeficits(db.db)).length };
    const server5xx = Object.entries(byStatus).filter(([s]) => Number(s) >= 500).reduce((a, [, n]) => a + n, 0);
    return { seconds: options.seconds, requests, byStatus, server5xx, networkErrors, engineKills, rollbacks, invariants, ledgerRows: Number(rows[0]?.n ?? 0), deficits };
  } finally {
    await db.close();
    await ponder.stop();
    await anvil.stop();
  }
}
