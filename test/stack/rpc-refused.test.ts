/**
 * `npm start` through an RPC that refuses connections for `STACK_RPC_OUTAGE_SECONDS` (25 by default): the stack talks to its chain
 * (an anvil of the test's own, a block a second) through a TCP proxy that the test stops —
 * nothing listens on the RPC's port, every connection is refused, as when a provider's
 * endpoint goes away — and starts again. Meanwhile `/health` is degraded; afterwards the
 * index is back within 10 blocks of the head within 60 s (by itself, or restarted by the
 * supervisor's watchdog with its reason logged), health is `ok` again, the audit settles
 * clean and every operator transaction is one mined intent.
 *
 * What ponder 0.16.10 does (node_modules/ponder/dist/esm/rpc/index.js, sync-realtime): a
 * refused connection is an immediate HttpRequestError, neither a TimeoutError nor a 429, so
 * its client does not cut the endpoint's rate (it does so only on timeouts and 429s, 5% each,
 * down to 3 requests/s, which is what a freeze does). Each request is retried 9 times, 125 ms
 * × 2^i apart (about 64 s at the last wait), inside one of the queue's 25 slots; the polling
 * subscription (every 250 ms here) keeps queueing `eth_getBlockByNumber("latest")`, and a
 * failed poll only counts an error (ponder gives up after 10 minutes of them). When the RPC
 * is back, retries still sleeping in their backoff hold slots until they wake, then the
 * realtime sync fetches the missing blocks 50 at a time.
 */
import type { Hex } from "viem";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrivateDevnet, startPrivateDevnet } from "../engine/devnet.js";
import { rpc } from "../engine/helpers.js";
import { freePort } from "../helpers/ports.js";
import { type AuditRun, type Stack, cliAudit, startStack } from "../helpers/stack.js";
import { type FaultProxy, startFaultProxy } from "../../bench/fault-proxy.js";

/** Long enough for the index to fall well behind a chain mining a block a second. */
const OUTAGE_SECONDS = Number(process.env.STACK_RPC_OUTAGE_SECONDS ?? 25);
const dir = mkdtempSync(join(tmpdir(), "launchpad-rpc-refused-"));
chmodSync(dir, 0o755);
let d: PrivateDevnet;
let proxy: FaultProxy;
let stack: Stack | undefined;
let operator: string;
let baseNonce: number;

beforeAll(async () => {
  d = await startPrivateDevnet();
  operator = d.config().operator!;
  baseNonce = Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]));
  // A block every second, like a live chain.
  await rpc(d.rpcUrl, "evm_setIntervalMining", [1]);
  proxy = await startFaultProxy(d.rpcUrl);
}, 240_000);

afterAll(async () => {
  await stack?.killAll();
  await proxy?.close();
  await d?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("npm start through an RPC refusing connections", () => {
  it(`the index is back within 10 blocks of the head within 60 s of the RPC's return, health degraded meanwhile`, async () => {
    stack = startStack({
      DATA_DIR: join(dir, "data"),
      DATABASE_URL: d.databaseUrl,
      RPC_URL: proxy.url,
      CHAIN_ID: d.env().CHAIN_ID!,
      DEPLOYMENTS_FILE: d.deploymentsFile,
      PORT: String(await freePort()),
      WORKER_INTERVAL_SCALE: "0.01",
      LOG_LEVEL: "warn",
      LOG_FORMAT: "json",
    });
    const s = stack;
    await s.waitFor("health ok", 300_000, async () => ((await s.health())?.body.status === "ok" ? true : undefined));
    await s.waitFor("the index at the head", 60_000, async () => ((await s.indexerLag(d.rpcUrl).catch(() => 99)) < 3 ? true : undefined));

    // The RPC refuses every connection for OUTAGE_SECONDS.
    await proxy.refuse();
    const stoppedAt = Date.now();
    const during: { code: number; status: string; reasons: string[] }[] = [];
    while (Date.now() - stoppedAt < OUTAGE_SECONDS * 1000) {
      const h = await s.health();
      if (h) during.push({ code: h.code, status: h.body.status, reasons: h.body.reasons });
      expect(s.child.exitCode, s.output().slice(-4_000)).toBeNull();
      await new Promise((r) => setTimeout(r, 2_000));
    }
    const lagAtReturn = await s.indexerLag(d.rpcUrl);
    await proxy.restore();
    const resumedAt = Date.now();

    // Health told the truth meanwhile: degraded (never a 500), with its reasons.
    expect(during.length).toBeGreaterThan(5);
    expect(during.filter((h) => h.code >= 500 && h.code !== 503)).toEqual([]);
    const degraded = during.filter((h) => h.status !== "ok");
    expect(degraded.length, JSON.stringify(during.slice(-3))).toBeGreaterThan(0);
    console.log(
      `while the RPC refused connections: ${degraded.length} of ${during.length} health answers degraded; reasons seen: ${[...new Set(degraded.flatMap((h) => h.reasons.map((r) => r.replace(/\d+/g, "N"))))].join(" | ")}`,
    );
    expect(lagAtReturn).toBeGreaterThanOrEqual(OUTAGE_SECONDS - 5);

    // Back within 10 blocks of the head within 60 s; health degraded while it is not.
    let caughtUpAfter: number | undefined;
    let lastLag: number | undefined;
    let degradedWhileBehind = false;
    let okWhileBehind = 0;
    while (Date.now() - resumedAt < 90_000) {
      lastLag = await s.indexerLag(d.rpcUrl).catch(() => undefined);
      if (lastLag !== undefined && lastLag < 10) {
        caughtUpAfter = (Date.now() - resumedAt) / 1000;
        break;
      }
      const h = await s.health();
      const lagAfter = await s.indexerLag(d.rpcUrl).catch(() => undefined);
      if (h && lastLag !== undefined && lagAfter !== undefined && lagAfter >= 12) {
        if (h.body.status === "ok") okWhileBehind++;
        else degradedWhileBehind = true;
      }
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const watchdog = s
      .output()
      .split("\n")
      .filter((l) => /restarting it/.test(l));
    console.log(
      `RPC refused connections ${OUTAGE_SECONDS} s: ${lagAtReturn} blocks behind at its return, within 10 blocks of the head ${caughtUpAfter?.toFixed(1)} s after (last lag ${lastLag}); ` +
        (watchdog.length ? `the watchdog restarted ponder: ${watchdog.join(" / ")}` : "ponder recovered by itself (no watchdog restart)"),
    );
    expect(caughtUpAfter, s.output().slice(-6_000)).toBeDefined();
    expect(caughtUpAfter!).toBeLessThan(60);
    if (caughtUpAfter! > 5) expect(degradedWhileBehind).toBe(true);
    expect(okWhileBehind).toBe(0);
    // A restart by the watchdog says why.
    for (const line of watchdog) expect(line).toMatch(/the indexer is \d+ blocks behind the head and has not caught up for \d+ s while the RPC answers/);
    // The stack never stopped, and comes back to ok.
    await s.waitFor("health ok after the RPC's return", 120_000, async () => ((await s.health())?.body.status === "ok" ? true : undefined));
    expect(s.child.exitCode).toBeNull();

    // The audit settles clean, and every operator transaction is one mined intent.
    let last: AuditRun | undefined;
    await s
      .waitFor("a settled clean audit", 90_000, async () => {
        last = await cliAudit(join(dir, "data"), { ...d.env(), RPC_URL: d.rpcUrl });
        return last.code === 0 && last.report?.settled ? true : undefined;
      })
      .catch((error) => {
        throw new Error(`${(error as Error).message}\n${JSON.stringify(last?.report)}`);
      });
    expect(last!.report).toMatchObject({ ok: true, settled: true, pending: [], differences: [] });

    s.child.kill("SIGTERM");
    await new Promise((r) => (s.child.exitCode !== null || s.child.signalCode !== null ? r(null) : s.child.once("exit", r)));
    stack = undefined;
    const client = new pg.Client({ connectionString: d.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT nonce FROM engine.tx_intents WHERE status IN ('mined', 'reverted') ORDER BY nonce");
      const { rows: open } = await client.query("SELECT key, status FROM engine.tx_intents WHERE status IN ('signed', 'broadcast')");
      expect(open).toEqual([]);
      expect(Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]))).toBe(baseNonce + rows.length);
      expect(rows.map((r) => r.nonce)).toEqual(rows.map((_, i) => baseNonce + i));
    } finally {
      await client.end();
    }
  }, 900_000);
});
