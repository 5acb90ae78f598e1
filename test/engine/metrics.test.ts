/**
 * The engine's Prometheus metrics after a short money path on a private devnet: trades, the
 * fee claim and its split, then a scrape over HTTP whose figures are checked against the
 * ledger, the intents table, the chain's nonce and the worker cycles that ran.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../common/config.js";
import { createLogger } from "../../common/logger.js";
import { ledgerTotals } from "../../core/ledger/totals.js";
import { type EngineMetrics, type MetricsServer, createEngineMetrics, serveMetrics } from "../../engine/runtime/metrics.js";
import { observeCycles, runWorkerCycle } from "../../engine/runtime/scheduler.js";
import { setState } from "../../engine/runtime/state.js";
import { WORKERS } from "../../engine/workers/index.js";
import { freePort } from "../helpers/ports.js";
import { runTs } from "./helpers.js";
import { type Scenario, startScenario } from "./scenario.js";

const USDC = 1_000_000n;
const TRADER = 5;
let sc: Scenario;
let metrics: EngineMetrics;
let server: MetricsServer;

type Sample = { name: string; labels: Record<string, string>; value: number };

/** Parses the Prometheus text exposition into samples (comments skipped). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

async function scrape(port = server.port): Promise<{ text: string; value: (name: string, labels?: Record<string, string>) => number | undefined }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const samples = parseExposition(text);
  return {
    text,
    value: (name, labels = {}) => samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value,
  };
}

beforeAll(async () => {
  sc = await startScenario();
  const { engine } = sc;
  metrics = createEngineMetrics({ pool: engine.ctx.pool, publicClient: engine.ctx.publicClient, operator: sc.operator, log: createLogger("metrics", "warn") });
  observeCycles(engine.ctx, metrics.observeCycle);
  server = await serveMetrics(metrics, await freePort(), "127.0.0.1");
}, 240_000);

afterAll(async () => {
  await server?.close();
  metrics?.stop();
  await sc?.stop();
});

describe("engine metrics", () => {
  it("reads ENGINE_METRICS_PORT: 9464 by default, 0 disables, anything else is refused", () => {
    expect(loadConfig({}).engineMetricsPort).toBe(9464);
    expect(loadConfig({ ENGINE_METRICS_PORT: "0" }).engineMetricsPort).toBe(0);
    expect(loadConfig({ ENGINE_METRICS_PORT: "9100" }).engineMetricsPort).toBe(9100);
    expect(() => loadConfig({ ENGINE_METRICS_PORT: "70000" })).toThrow(ConfigError);
  });

  it("after a fee claim, reports worker cycles, intents, nonce lag and pending USDC as the ledger and the chain hold them", async () => {
    const { d, engine, usdcToken, wethToken } = sc;
    await d.buy(TRADER, usdcToken, 6_000n * USDC);
    await d.buy(TRADER, wethToken, 3_000n * USDC);
    for (let i = 0; i < 3; i++) await sc.run("price-sampler");
    await sc.run("fee-claimer");

    const m = await scrape();

    // Worker cycles: what ran in this process, with a duration per cycle.
    expect(m.value("engine_worker_runs_total", { worker: "price-sampler" })).toBe(3);
    expect(m.value("engine_worker_runs_total", { worker: "fee-claimer" })).toBe(1);
    expect(m.value("engine_worker_failures_total", { worker: "fee-claimer" }) ?? 0).toBe(0);
    expect(m.value("engine_worker_duration_seconds_count", { worker: "fee-claimer", outcome: "ok" })).toBe(1);
    expect(m.value("engine_worker_duration_seconds_sum", { worker: "fee-claimer", outcome: "ok" })).toBeGreaterThan(0);
    expect(m.value("engine_worker_duration_seconds_bucket", { worker: "price-sampler", outcome: "ok", le: "+Inf" })).toBe(3);

    // Intents by status: exactly the table's counts (the claim and the WETH conversion sent some).
    const { rows } = await engine.ctx.pool.query<{ status: string; n: string }>("SELECT status, count(*)::text AS n FROM engine.tx_intents GROUP BY status");
    const byStatus = new Map(rows.map((r) => [r.status, Number(r.n)]));
    expect(byStatus.get("mined") ?? 0).toBeGreaterThan(0);
    for (const status of ["pending", "signed", "broadcast", "mined", "reverted", "failed"]) {
      expect(m.value("engine_tx_intents", { status })).toBe(byStatus.get(status) ?? 0);
    }
    // Reverts by cause, as the table holds them; a reverted collect that ran out of gas counts as out-of-gas.
    const { rows: causes } = await engine.ctx.pool.query<{ oog: boolean; n: string }>(
      "SELECT revert_reason LIKE 'out of gas%' AS oog, count(*) AS n FROM engine.tx_intents WHERE status = 'reverted' GROUP BY 1",
    );
    for (const cause of ["out-of-gas", "revert"]) {
      expect(m.value("engine_tx_reverted_intents", { cause })).toBe(Number(causes.find((r) => r.oog === (cause === "out-of-gas"))?.n ?? 0));
    }
    expect(m.value("engine_tx_out_of_gas_unretried")).toBe(0);

    // Oldest non-final intent: the table's, in seconds (0 when every intent is final).
    const { rows: oldest } = await engine.ctx.pool.query<{ age: string | null }>(
      `SELECT EXTRACT(EPOCH FROM now() - min(created_at))::text AS age FROM engine.tx_intents
        WHERE status IN ('pending', 'signed', 'broadcast') OR (status IN ('mined', 'reverted') AND final_at IS NULL)`,
    );
    const expectedAge = oldest[0]?.age == null ? 0 : Number(oldest[0].age);
    expect(Math.abs(m.value("engine_tx_intent_oldest_nonfinal_age_seconds")! - expectedAge)).toBeLessThan(2);

    // Nonce lag: the chain's pending nonce against the highest mined nonce; settled, nothing lags.
    const chainNonce = await engine.ctx.publicClient.getTransactionCount({ address: sc.operator, blockTag: "pending" });
    const { rows: nonce } = await engine.ctx.pool.query<{ n: number }>(
      "SELECT max(nonce) AS n FROM engine.tx_intents WHERE status IN ('mined', 'reverted') AND signer = $1",
      [sc.operator],
    );
    expect(m.value("engine_nonce_lag")).toBe(chainNonce - (nonce[0]!.n + 1));
    expect(m.value("engine_nonce_lag")).toBe(0);

    // Pending USDC per leg, base units: the ledger's running balances, non-zero after the split.
    const totals = await ledgerTotals(engine.ctx.db);
    expect(totals.pending.protocolUsdc).toBeGreaterThan(0n);
    expect(totals.pending.perpUsdc).toBeGreaterThan(0n);
    expect(m.value("engine_pending_usdc_base_units", { leg: "protocol" })).toBe(Number(totals.pending.protocolUsdc));
    expect(m.value("engine_pending_usdc_base_units", { leg: "asset" })).toBe(Number(totals.pending.assetUsdc));
    expect(m.value("engine_pending_usdc_base_units", { leg: "perp" })).toBe(Number(totals.pending.perpUsdc));
    expect(m.value("engine_pending_usdc_base_units", { leg: "creator-buyback" })).toBe(Number(totals.pending.creatorBuybackUsdc));

    // Not leading until told; a standby reports 0.
    expect(m.value("engine_leader")).toBe(0);
    metrics.setLeader(true);
    expect((await scrape()).value("engine_leader")).toBe(1);
  }, 240_000);

  it("counts a failed worker cycle as a run and a failure", async () => {
    const failing = { ...WORKERS["price-sampler"], run: async () => Promise.reject(new Error("sampler down")) };
    const before = (await scrape()).value("engine_worker_runs_total", { worker: "price-sampler" })!;
    const outcome = await runWorkerCycle(sc.engine.ctx, failing);
    expect(outcome.ok).toBe(false);
    const m = await scrape();
    expect(m.value("engine_worker_runs_total", { worker: "price-sampler" })).toBe(before + 1);
    expect(m.value("engine_worker_failures_total", { worker: "price-sampler" })).toBe(1);
    expect(m.value("engine_worker_duration_seconds_count", { worker: "price-sampler", outcome: "failed" })).toBe(1);
  });

  it("counts each failed RPC check of the monitor once, and shows whether the last one succeeded", async () => {
    const { db } = sc.engine.ctx;
    await setState(db, "rpc", { reachable: true, block: 1, lastError: null, checkedAt: "2030-01-01T00:00:00.000Z" });
    let m = await scrape();
    expect(m.value("engine_rpc_reachable")).toBe(1);
    expect(m.value("engine_rpc_errors_total")).toBe(0);

    await setState(db, "rpc", { reachable: false, block: null, lastError: "fetch failed", checkedAt: "2030-01-01T00:00:05.000Z" });
    m = await scrape();
    expect(m.value("engine_rpc_reachable")).toBe(0);
    expect(m.value("engine_rpc_errors_total")).toBe(1);
    await metrics.sampleRpc(); // the same check seen again is not a new failure
    expect((await scrape()).value("engine_rpc_errors_total")).toBe(1);

    await setState(db, "rpc", { reachable: false, block: null, lastError: "fetch failed", checkedAt: "2030-01-01T00:00:10.000Z" });
    await metrics.sampleRpc(); // sampled between scrapes
    await setState(db, "rpc", { reachable: true, block: 2, lastError: null, checkedAt: "2030-01-01T00:00:15.000Z" });
    m = await scrape();
    expect(m.value("engine_rpc_errors_total")).toBe(2);
    expect(m.value("engine_rpc_reachable")).toBe(1);
  });

  it("the engine process serves them on ENGINE_METRICS_PORT while it leads, and stops cleanly", async () => {
    const port = await freePort();
    const engine = runTs("engine/main.ts", sc.d.env({ ENGINE_METRICS_PORT: String(port), WORKER_INTERVAL_SCALE: "0.01" }), { timeoutMs: 90_000 });
    try {
      let seen: Awaited<ReturnType<typeof scrape>> | undefined;
      await expect
        .poll(
          async () => {
            seen = await scrape(port).catch(() => undefined);
            return seen?.value("engine_leader") === 1 && (seen.value("engine_worker_runs_total", { worker: "price-sampler" }) ?? 0) > 0;
          },
          { timeout: 60_000, interval: 500 },
        )
        .toBe(true);
      expect(seen!.text).toContain("# TYPE engine_worker_duration_seconds histogram");
      expect(seen!.value("process_resident_memory_bytes")).toBeGreaterThan(0);
    } finally {
      engine.child.kill("SIGTERM");
    }
    const exit = await engine;
    expect(exit.code, exit.stderr).toBe(0);
  }, 120_000);

  it("serves only GET /metrics", async () => {
    const res = await fetch(`http://127.0.0.1:${server.port}/other`);
    expect(res.status).toBe(404);
    await res.text();
  });
});
