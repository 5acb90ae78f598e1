/**
 * Engine failover and fencing: two real engine processes on one database and one anvil.
 * One leads (it holds the lease), the other waits as a standby.
 *
 * - The leader is SIGKILLed mid-cycle: the standby takes over within 15 s (the default lease
 *   term is 10 s), resumes what was in flight from its rows, and finishes the work.
 * - The leader is frozen with SIGSTOP (a 6 s lease): its lease runs out, the standby takes over; thawed with
 *   SIGCONT, the old leader finds its term over and stands down (exit 75) without writing or
 *   sending anything under its old epoch.
 * - The leader's link to PostgreSQL is frozen by a TCP proxy while it still reaches the chain:
 *   it cannot renew, its own clock suspends its term (nothing signed or written), the standby
 *   takes over; when the link comes back, the old leader finds the new epoch and stands down
 *   (exit 75) without sending anything.
 *
 * After each: every operator transaction on the chain is one mined intent at its own nonce
 * (nothing sent twice, nothing sent outside an intent), and the three-way audit is clean.
 */
import type { Address, Hex } from "viem";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { readWorkerHealth } from "../../core/health.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { type LeaseRow, readLease } from "../../core/leadership.js";
import { type PrivateDevnet, startPrivateDevnet } from "./devnet.js";
import { type ChildResult, type Proxy as FaultProxy, rpc, runTs, startProxy } from "./helpers.js";

const USDC = 1_000_000n;
const TRADER = 6;
let d: PrivateDevnet;
let db: EngineDb;
let operator: Address;
let baseNonce: number;
const running: ReturnType<typeof runTs>[] = [];

type Engine = ReturnType<typeof runTs>;

function startEngine(env: Record<string, string> = {}): Engine {
  const engine = runTs("engine/main.ts", d.env({ WORKER_INTERVAL_SCALE: "0.01", LOG_LEVEL: "info", LOG_FORMAT: "json", ...env }), { timeoutMs: 240_000 });
  running.push(engine);
  return engine;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The lease once `engine` holds it (its holder id carries the process id). */
const leaseOf = (engine: Engine) =>
  waitFor(`engine ${engine.child.pid} to lead`, async () => {
    const lease = await readLease(db.db);
    return lease && lease.holder.split(":")[1] === String(engine.child.pid) && lease.expiresAt.getTime() > Date.now() ? lease : undefined;
  });

/** Each engine's stdout (JSON log lines) as it comes. */
const engineOut = new Map<Engine, string>();
function collect(engine: Engine): Engine {
  engineOut.set(engine, "");
  engine.child.stdout!.on("data", (b: Buffer) => engineOut.set(engine, engineOut.get(engine)! + b.toString()));
  return engine;
}

const standingBy = (engine: Engine) =>
  waitFor(`engine ${engine.child.pid} to wait as standby`, async () => /waiting as standby/.test(engineOut.get(engine) ?? ""));

async function operatorNonce(): Promise<number> {
  return Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]));
}

async function trade(): Promise<void> {
  await d.buy(TRADER, d.c.usdcPairedToken!, 3_000n * USDC);
  await d.buy(TRADER, d.c.wethPairedToken!, 2_000n * USDC);
}

/** Work in flight: an intent not yet terminal, or a buyback / purchase between its steps. */
async function inFlight(): Promise<number> {
  const { rows } = await db.pool.query(
    `SELECT (SELECT COUNT(*) FROM engine.tx_intents WHERE status IN ('pending', 'signed', 'broadcast'))
          + (SELECT COUNT(*) FROM engine.buybacks WHERE status IN ('swapping', 'burning'))
          + (SELECT COUNT(*) FROM engine.asset_purchases WHERE status IN ('swapping', 'staking')) AS n`,
  );
  return Number(rows[0].n);
}

async function buybacksDone(): Promise<number> {
  const { rows } = await db.pool.query("SELECT COUNT(*)::int AS n FROM engine.buybacks WHERE status = 'done'");
  return rows[0].n;
}

/** Lets the leader run until a buyback more than `before` is done and nothing is in flight. */
async function settled(before: number): Promise<void> {
  try {
    await waitFor("the work to settle", async () => (await buybacksDone()) > before && (await inFlight()) === 0, 150_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${engineTails()}`);
  }
}

/** What each engine was doing: the last lines it logged, and whether it still runs. */
function engineTails(): string {
  return [...engineOut]
    .map(([e, out]) => `engine ${e.child.pid} (exit ${e.child.exitCode ?? e.child.signalCode ?? "running"}):\n${out.split("\n").slice(-15).join("\n")}`)
    .join("\n");
}

/** No transaction twice, none outside an intent: the operator's nonce advanced once per mined intent, each at its own nonce. */
async function expectExactlyOnce(): Promise<void> {
  const { rows } = await db.pool.query(
    "SELECT key, nonce, tx_hash FROM engine.tx_intents WHERE signer = $1 AND status IN ('mined', 'reverted') ORDER BY nonce",
    [operator],
  );
  expect(await operatorNonce()).toBe(baseNonce + rows.length);
  expect(rows.map((r) => r.nonce)).toEqual(rows.map((_, i) => baseNonce + i));
  for (const r of rows) {
    const tx = await rpc<{ nonce: Hex }>(d.rpcUrl, "eth_getTransactionByHash", [r.tx_hash]);
    expect(Number(tx.nonce)).toBe(r.nonce);
  }
}

async function expectAuditClean(): Promise<void> {
  expect(await checkLedgerInvariants(db.db)).toEqual({ ok: true, violations: [] });
  const audit = await runTs("engine/cli.ts", d.env({ ARGS: "audit" }), { timeoutMs: 90_000 });
  expect(audit.code, audit.stdout + audit.stderr.slice(-2000)).toBe(0);
}

/** Nothing was written under the old leader's epoch after the new leader took the lease. */
async function expectNoWritesAfter(old: LeaseRow, next: LeaseRow): Promise<void> {
  const { rows } = await db.pool.query("SELECT key, status FROM engine.tx_intents WHERE epoch = $1 AND updated_at > $2", [
    old.epoch.toString(),
    next.acquiredAt,
  ]);
  expect(rows).toEqual([]);
}

async function stop(engine: Engine): Promise<ChildResult> {
  engine.child.kill("SIGTERM");
  return engine;
}

beforeAll(async () => {
  d = await startPrivateDevnet();
  operator = d.config().operator!;
  db = openEngineDb(d.databaseUrl);
  await migrate(db.pool);
  baseNonce = await operatorNonce();
}, 240_000);

/** Every engine a test started is gone before the next test (a frozen one is thawed first, then killed). */
async function killAll(): Promise<void> {
  engineOut.clear();
  for (const e of running.splice(0)) {
    if (e.child.exitCode !== null || e.child.signalCode !== null) continue;
    e.child.kill("SIGCONT");
    e.child.kill("SIGKILL");
    await e;
  }
}

afterEach(killAll);

afterAll(async () => {
  await killAll();
  await db?.close();
  await d?.stop();
});

describe("engine failover and fencing", () => {
  it("a leader SIGKILLed mid-cycle: the standby takes over within 15 s and finishes what was in flight, once", async () => {
    const a = collect(startEngine());
    const leaseA = await leaseOf(a);
    const b = collect(startEngine());
    await standingBy(b);
    const done = await buybacksDone();
    await trade();
    await waitFor("work in flight", async () => (await inFlight()) > 0);
    a.child.kill("SIGKILL");
    const killedAt = Date.now();
    expect((await a).signal).toBe("SIGKILL");
    const leaseB = await leaseOf(b);
    const tookOverMs = Date.now() - killedAt;
    expect(tookOverMs).toBeLessThan(15_000);
    expect(leaseB.epoch, engineTails()).toBe(leaseA.epoch + 1n);
    // Health names the engine that leads now, and since when.
    const health = await readWorkerHealth(db.pool);
    expect(health.leader).toMatchObject({ holder: leaseB.holder, epoch: leaseB.epoch.toString(), since: leaseB.acquiredAt.toISOString(), live: true });
    await settled(done);
    expect((await stop(b)).code).toBe(0);
    await expectExactlyOnce();
    await expectAuditClean();
  }, 240_000);

  it("a leader frozen with SIGSTOP: the standby takes over; thawed, the old leader stands down without sending", async () => {
    const lease = { LEADER_LEASE_SECONDS: "6" };
    const a = collect(startEngine(lease));
    const leaseA = await leaseOf(a);
    const b = collect(startEngine(lease));
    await standingBy(b);
    const done = await buybacksDone();
    await trade();
    await waitFor("work in flight", async () => (await inFlight()) > 0);
    a.child.kill("SIGSTOP");
    const leaseB = await leaseOf(b);
    expect(leaseB.epoch, engineTails()).toBe(leaseA.epoch + 1n);
    await settled(done);
    const nonceBefore = await operatorNonce();
    a.child.kill("SIGCONT");
    const thawed = await a;
    expect(thawed.code, thawed.stderr.slice(-2000)).toBe(75);
    expect(engineOut.get(a)).toMatch(/engine leadership lost/);
    // The new leader keeps working meanwhile: every transaction at or past that nonce is one of
    // its intents, under its epoch (with expectExactlyOnce: none outside an intent).
    // (Polled: a transaction of the new leader may be mined before it records the receipt.)
    const since = await waitFor(
      "every transaction since the freeze recorded as an intent",
      async () => {
        const { rows } = await db.pool.query(
          "SELECT key, epoch::text AS epoch FROM engine.tx_intents WHERE signer = $1 AND nonce >= $2 AND status IN ('mined', 'reverted')",
          [operator, nonceBefore],
        );
        return (await operatorNonce()) === nonceBefore + rows.length ? rows : undefined;
      },
      30_000,
    );
    for (const r of since) expect(r, r.key).toMatchObject({ epoch: leaseB.epoch.toString() });
    await expectNoWritesAfter(leaseA, leaseB);
    expect((await stop(b)).code).toBe(0);
    await expectExactlyOnce();
    await expectAuditClean();
  }, 240_000);

  it("a leader cut off from PostgreSQL (frozen TCP proxy) while it reaches the chain: it stands down, the standby leads", async () => {
    let proxy: FaultProxy | undefined;
    try {
      proxy = await startProxy(d.databaseUrl);
      const lease = { LEADER_LEASE_SECONDS: "6" };
      const a = collect(startEngine({ ...lease, DATABASE_URL: proxy.url }));
      const leaseA = await leaseOf(a);
      const b = collect(startEngine(lease));
      await standingBy(b);
      const done = await buybacksDone();
      await trade();
      await waitFor("work in flight", async () => (await inFlight()) > 0);
      const nonceAtCut = await operatorNonce();
      proxy.freeze();
      const leaseB = await leaseOf(b);
      expect(leaseB.epoch, engineTails()).toBe(leaseA.epoch + 1n);
      // The old leader's own clock suspended its term while the link is cut: it signs nothing.
      await waitFor("the old leader's term suspended", async () => /leadership suspended/.test(engineOut.get(a) ?? ""));
      await new Promise((r) => setTimeout(r, 2_000));
      expect(a.child.exitCode).toBeNull();
      expect(await operatorNonce()).toBeGreaterThanOrEqual(nonceAtCut);
      // Back in touch, it finds the new epoch and stands down.
      proxy.resume();
      const cut = await a;
      expect(cut.code, cut.stderr.slice(-2000)).toBe(75);
      expect(engineOut.get(a)).toMatch(/engine leadership lost/);
      await settled(done);
      await expectNoWritesAfter(leaseA, leaseB);
      expect(await operatorNonce()).toBeGreaterThanOrEqual(nonceAtCut);
      expect((await stop(b)).code).toBe(0);
      await expectExactlyOnce();
      await expectAuditClean();
    } finally {
      await proxy?.close();
    }
  }, 240_000);
});
