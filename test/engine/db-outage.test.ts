/**
 * Database outage: the engine (a real process, workers on fast intervals) runs against a
 * PostgreSQL server of its own, which the test stops with a fast shutdown (open sessions
 * terminated, as in a maintenance restart or a failover) and keeps down for
 * `DB_OUTAGE_SECONDS` (15 by default: five times the lease term of 3 s the engine runs with here,
 * and past any retry budget),
 * then starts again on the same data. The engine waits it out in the same process: no
 * crash, no exit, its leadership suspended then renewed at the same epoch (nobody took
 * over), and its work resumes by itself — the fees bought during the outage are claimed and
 * attributed, nothing lost or sent twice.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PostgresHandle, startPostgres } from "../../devnet/postgres.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { readLease } from "../../core/leadership.js";
import { type PrivateDevnet, startPrivateDevnet } from "./devnet.js";
import { freePort } from "../helpers/ports.js";
import { attributed as attributedOf, claimedOnchain as claimedOnchainOf, lines, rpc, runTs } from "./helpers.js";

const USDC = 1_000_000n;
/** How long PostgreSQL stays down (s). */
const OUTAGE_SECONDS = Number(process.env.DB_OUTAGE_SECONDS ?? 15);
/** The engine's lease term here (s): the outage outlasts it several times over. */
const LEASE_SECONDS = 3;

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const dir = mkdtempSync(join(tmpdir(), "engine-db-outage-"));
chmodSync(dir, 0o755); // PostgreSQL runs as the `postgres` user when we are root
let d: PrivateDevnet;
let postgres: PostgresHandle;
let port: number;
let db: EngineDb;
let operator: Address;

beforeAll(async () => {
  d = await startPrivateDevnet();
  port = await freePort();
  postgres = await startPostgres({ dataDir: join(dir, "pg"), port });
  db = openEngineDb(postgres.url);
  operator = d.config().operator!;
}, 240_000);

afterAll(async () => {
  await db?.close();
  await postgres?.stop();
  await d?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const claimedOnchain = () => claimedOnchainOf(d, operator);
const attributed = () => attributedOf(db.pool);

describe("database outage", () => {
  it(
    `the engine waits out PostgreSQL down for ${OUTAGE_SECONDS} s in the same process, then resumes its work`,
    async () => {
      const baseNonce = Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]));
      await d.buy(7, d.c.usdcPairedToken as Address, 2_000n * USDC);
      let stdout = "";
      const engine = runTs(
        "engine/main.ts",
        d.env({
          DATABASE_URL: postgres.url,
          WORKER_INTERVAL_SCALE: "0.01",
          LEADER_LEASE_SECONDS: String(LEASE_SECONDS),
          LOG_LEVEL: "info",
          LOG_FORMAT: "json",
        }),
        {
          timeoutMs: (OUTAGE_SECONDS + 240) * 1000,
          onStdout: (line) => (stdout += `${line}\n`),
        },
      );
      const pid = engine.child.pid!;
      try {
        await waitFor("the first claim", async () => (await claimedOnchain()) > 0n && (await attributed()) === (await claimedOnchain()), 90_000);
        const leaseBefore = (await readLease(db.db))!;
        expect(leaseBefore.holder.split(":")[1]).toBe(String(pid));

        // Fast shutdown: every session terminated (57P01), then nothing listens on the port.
        await postgres.stop();
        const downAt = Date.now();
        // Fees keep accruing on chain while the database is away.
        await d.buy(7, d.c.usdcPairedToken as Address, 3_000n * USDC);
        while (Date.now() - downAt < OUTAGE_SECONDS * 1000) {
          expect(engine.child.exitCode, `the engine exited during the outage:\n${engine.child.exitCode}`).toBeNull();
          await new Promise((r) => setTimeout(r, 1_000));
        }
        // The lease term ran out long ago: the leadership is suspended, not given up.
        expect(stdout).toMatch(/leadership suspended/);

        postgres = await startPostgres({ dataDir: join(dir, "pg"), port });
        const upAt = Date.now();
        // Work resumes by itself: the fees bought during the outage are claimed and attributed.
        const before = await claimedOnchain();
        await waitFor("claims after the outage", async () => (await claimedOnchain()) > before && (await attributed()) === (await claimedOnchain()), 90_000);
        const recoveredMs = Date.now() - upAt;
        expect(recoveredMs).toBeLessThan(60_000);
        // The same process, still leading at the same epoch: nobody took over, it renewed its term.
        expect(engine.child.exitCode).toBeNull();
        const leaseAfter = (await readLease(db.db))!;
        expect(leaseAfter.holder).toBe(leaseBefore.holder);
        expect(leaseAfter.epoch).toBe(leaseBefore.epoch);
        expect(stdout).toMatch(/engine leadership renewed at epoch/);
        const { rows: workers } = await db.pool.query("SELECT name, running FROM engine.worker_state WHERE last_success_at > now() - interval '30 seconds'");
        expect(workers.length).toBeGreaterThan(3);
      } finally {
        engine.child.kill("SIGTERM");
      }
      const exit = await engine;
      expect(exit.code, exit.stderr.slice(-3000)).toBe(0);
      expect(exit.stderr).not.toMatch(/unhandled|Unhandled/);
      expect(lines(exit.stdout).filter((l) => /unhandled rejection/.test(l.msg ?? ""))).toEqual([]);

      expect(await checkLedgerInvariants(db.db)).toEqual({ ok: true, violations: [] });
      const { rows } = await db.pool.query("SELECT nonce FROM engine.tx_intents WHERE status IN ('mined', 'reverted') ORDER BY nonce");
      expect(Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]))).toBe(baseNonce + rows.length);
      expect(rows.map((r) => r.nonce)).toEqual(rows.map((_, i) => baseNonce + i));
    },
    (OUTAGE_SECONDS + 400) * 1000,
  );
});
