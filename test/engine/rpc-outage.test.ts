/**
 * RPC outage: the engine (a real process, all workers on fast intervals) talks to anvil
 * through a small TCP proxy the test can pause. While the RPC refuses every connection the
 * workers fail and back off and health turns degraded; fees keep accruing on chain. When
 * the RPC comes back, work resumes by itself: the fees are claimed and attributed, health
 * is ok again, and nothing was lost or sent twice.
 */
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { readWorkerHealth } from "../../core/health.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { type PrivateDevnet, startPrivateDevnet } from "./devnet.js";
import { type Proxy as FaultProxy, attributed as attributedOf, claimedOnchain as claimedOnchainOf, rpc, runTs, startProxy } from "./helpers.js";

const USDC = 1_000_000n;

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

let d: PrivateDevnet;
let proxy: FaultProxy;
let db: EngineDb;
let operator: Address;

beforeAll(async () => {
  d = await startPrivateDevnet();
  proxy = await startProxy(d.rpcUrl);
  operator = d.config().operator!;
  db = openEngineDb(d.databaseUrl);
  await migrate(db.pool);
}, 240_000);

afterAll(async () => {
  await db?.close();
  await proxy?.close();
  await d?.stop();
});

const claimedOnchain = () => claimedOnchainOf(d, operator);
const attributed = () => attributedOf(db.pool);

describe("RPC outage", () => {
  it("backs off, reports degraded health, loses nothing and resumes", async () => {
    const baseNonce = Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]));
    await d.buy(7, d.c.usdcPairedToken as Address, 2_000n * USDC);
    const engine = runTs("engine/main.ts", d.env({ RPC_URL: proxy.url, WORKER_INTERVAL_SCALE: "0.01" }), { timeoutMs: 120_000 });
    try {
      // Running: the first fees are claimed and attributed.
      await waitFor("the first claim", async () => (await claimedOnchain()) > 0n && (await attributed()) === (await claimedOnchain()));
      await waitFor("a healthy engine", async () => (await readWorkerHealth(db.pool)).status === "ok");

      proxy.pause();
      const pausedAt = Date.now();
      // Fees keep accruing while the engine cannot see the chain.
      await d.buy(7, d.c.usdcPairedToken as Address, 3_000n * USDC);
      const degraded = await waitFor("degraded health", async () => {
        const h = await readWorkerHealth(db.pool);
        return h.status === "degraded" && h.rpc.reachable === false && h.workers.some((w) => !w.healthy) ? h : undefined;
      });
      expect(degraded.reasons.join("\n")).toMatch(/RPC unreachable/);
      expect(degraded.workers.find((w) => !w.healthy)!.lastError).toMatch(/rpc-unavailable|timeout/);
      const during = await readWorkerHealth(db.pool);
      await new Promise((r) => setTimeout(r, 3_000));
      const later = await readWorkerHealth(db.pool);
      // Backing off: the price-sampler (0.4–0.7 s interval) fails far less often than it would retry without backoff.
      const sampler = (h: typeof later) => h.workers.find((w) => w.name === "price-sampler")!;
      const failuresInWindow = sampler(later).failures - sampler(during).failures;
      expect(failuresInWindow).toBeLessThan(8);
      expect(Date.now() - pausedAt).toBeGreaterThan(3_000);

      proxy.resume();
      // Work resumes: the fees bought during the outage are claimed and attributed, health is ok again.
      const before = await claimedOnchain();
      await waitFor("claims after the outage", async () => (await claimedOnchain()) > before && (await attributed()) === (await claimedOnchain()));
      await waitFor("healthy again", async () => (await readWorkerHealth(db.pool)).status === "ok");
    } finally {
      engine.child.kill("SIGTERM");
    }
    const exit = await engine;
    expect(exit.code, exit.stderr.slice(-2000)).toBe(0);

    expect(await checkLedgerInvariants(db.db)).toEqual({ ok: true, violations: [] });
    const { rows } = await db.pool.query("SELECT nonce FROM engine.tx_intents WHERE status IN ('mined', 'reverted') ORDER BY nonce");
    expect(Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]))).toBe(baseNonce + rows.length);
    expect(rows.map((r) => r.nonce)).toEqual(rows.map((_, i) => baseNonce + i));
  });
});
