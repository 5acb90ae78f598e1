/**
 * The audit fails only on real differences: at every stage of a claim, a buyback and a desk
 * order — a transaction broadcast (mined on chain, its receipt not yet seen by the engine), a
 * claim mined and not attributed, a buyback between its swap and its burn, a desk close the
 * keeper executed and the engine has not applied, blocks the index has not reached — the
 * amounts that work explains are reported as `pending`, with those amounts, and `ok` stays
 * true. Once nothing is in flight and the index has reached the engine's block, the audit is
 * settled and clean; a real difference (USDC leaving the operator wallet outside the engine)
 * is `ok: false`.
 *
 * The engine runs in process on a private devnet; each stage is reached by stopping a worker
 * cycle at a real point of its work (as a power cut would, but in process), ponder indexes the
 * same chain into the same database, and SIGSTOP on ponder holds the index behind.
 */
import pino from "pino";
import { type Address, type Hex, type Log, erc20Abi, getAddress, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { perpsCallbacksAbi } from "../../common/abis/perps.js";
import { type AuditReport, auditThreeWay } from "../../core/audit.js";
import type { CrashPoint, Faults } from "../../core/faults.js";
import { peekPerpUsdc } from "../../core/ledger/accumulators.js";
import { Legs } from "../../core/ledger/legs.js";
import { legBalance } from "../../core/ledger/reads.js";
import { type PonderHandle, waitForIndexed } from "../../devnet/ponder.js";
import { tradesWithStatus } from "../../engine/desks/trades.js";
import type { WorkerName } from "../../engine/workers/index.js";
import { startTestPonder } from "../helpers/env.js";
import { type Scenario, startScenario } from "./scenario.js";

/** These desks trade on the Avantis v1 simulator (the harness's keeper, `d.execute`, fills Avantis orders); the devnet's default venue is gains-v10. */
const AVANTIS = { PERPS_VENUE: "avantis-v1" };

const USDC = 1_000_000n;
const TRADER = 5;
const INDEX_SCHEMA = "launchpad";

let sc: Scenario;
let d: Scenario["d"];
let ponder: PonderHandle & { logs: string[] };
let operator: Address;
let usdcToken: Address;
let wethToken: Address;

/** Where the next worker cycle stops: after broadcasting the intent whose key matches, or at a named point. */
let stopAt: { point: CrashPoint; key?: RegExp } | null = null;
/** The key and transaction of the intent the pipeline broadcast last (from its debug log line, written synchronously). */
let lastBroadcast = "";
let lastBroadcastHash: Hex | undefined;
const faults: Faults = {
  hit(point) {
    if (!stopAt || stopAt.point !== point || (stopAt.key && !stopAt.key.test(lastBroadcast))) return;
    const at = stopAt.key ? `${point} of ${lastBroadcast}` : point;
    stopAt = null;
    throw new Error(`cycle stopped at ${at}`);
  },
};
const log = pino(
  { level: "debug" },
  {
    write(line: string) {
      if (!line.includes('"msg":"broadcast"')) return;
      const entry = JSON.parse(line) as { intent?: string; hash?: Hex };
      lastBroadcast = entry.intent ?? "";
      lastBroadcastHash = entry.hash;
    },
  },
);

/** One worker cycle stopped at `at`: the cycle must fail there (the stage was reached). */
async function runUntil(name: WorkerName, at: { point: CrashPoint; key?: RegExp }): Promise<void> {
  stopAt = at;
  const outcome = await sc.engine.runOnce(name);
  const missed = stopAt !== null;
  stopAt = null;
  expect(missed, `${name} never reached ${at.point} ${at.key ?? ""}`).toBe(false);
  expect(outcome.ok ? "completed" : outcome.error).toMatch(/cycle stopped at/);
  // Stopped after a broadcast: the node answers the broadcast before its block is mined, so the
  // transaction is on chain once its receipt is (the stage the test then audits).
  if (at.point === "after-broadcast" && lastBroadcastHash)
    await d.as(1).publicClient.waitForTransactionReceipt({ hash: lastBroadcastHash, pollingInterval: 50, timeout: 60_000 });
}

async function head(): Promise<bigint> {
  return d.as(1).publicClient.getBlockNumber({ cacheTime: 0 });
}

async function indexed(): Promise<void> {
  await waitForIndexed(ponder, await head(), 120_000).catch((error) => {
    throw new Error(`${error.message}\n${ponder.logs.slice(-30).join("\n")}`);
  });
}

async function audit(): Promise<AuditReport> {
  return auditThreeWay({
    db: sc.engine.ctx.db,
    pool: sc.engine.ctx.pool,
    publicClient: sc.engine.ctx.publicClient,
    operator,
    usdc: d.c.usdc!,
    weth: d.c.weth!,
    protocolToken: d.protocolToken,
    indexSchema: INDEX_SCHEMA,
  });
}

/** The audit once the index has reached the head: its pending amounts by check (and currency or token). */
async function auditIndexed(): Promise<AuditReport> {
  await indexed();
  return audit();
}

const pendingOf = (r: AuditReport, check: string, by: { currency?: string; token?: Address } = {}) =>
  r.pending.filter((p) => p.check === check && (!by.currency || p.currency === by.currency) && (!by.token || p.token === by.token));

/** An unsettled audit that finds nothing wrong: every amount it cannot compare yet is pending. */
function expectPendingOnly(r: AuditReport): void {
  expect(r.differences).toEqual([]);
  expect(r.ok).toBe(true);
  expect(r.settled).toBe(false);
}

/** Settled and clean: nothing in flight, the index at the engine's block, no pending amount, no difference. */
async function expectSettledClean(): Promise<AuditReport> {
  const r = await auditIndexed();
  expect(r.inFlight).toEqual([]);
  expect(r.pending).toEqual([]);
  expect(r.differences).toEqual([]);
  expect(r.settled).toBe(true);
  expect(r.ok).toBe(true);
  if (r.engineBlock !== null) expect(r.indexedTo).toBeGreaterThanOrEqual(r.engineBlock);
  expect(r.checks).toContain("operator holdings: chain vs ledger legs");
  expect(r.checks).toContain("fees claimed: ledger vs indexed ClaimTokens");
  return r;
}

/** Holds the index where it is (the indexer process stopped) while `fn` runs, then lets it catch up. */
async function withIndexStopped<T>(fn: () => Promise<T>): Promise<T> {
  ponder.process.kill("SIGSTOP");
  try {
    return await fn();
  } finally {
    ponder.process.kill("SIGCONT");
  }
}

beforeAll(async () => {
  sc = await startScenario({ faults, log, env: AVANTIS });
  ({ d, operator, usdcToken, wethToken } = sc);
  ponder = await startTestPonder(d.databaseUrl, d.env(AVANTIS));
  await indexed();
}, 360_000);

afterAll(async () => {
  await ponder?.stop();
  await sc?.stop();
});

describe("the audit with work in flight", () => {
  it("before any work: settled and clean", async () => {
    await expectSettledClean();
  });

  it("a claim: broadcast, mined and not attributed, attributed, then claimed while the index is behind", async () => {
    await d.buy(TRADER, usdcToken, 6_000n * USDC);
    await d.sell(TRADER, usdcToken, (await d.balance(usdcToken, d.as(TRADER).account.address)) / 3n);
    await d.buy(TRADER, wethToken, 4_000n * USDC);
    await d.buy(TRADER, d.protocolToken, 500n * USDC);
    for (let i = 0; i < 6; i++) await sc.run("price-sampler");
    const usdcBefore = await sc.claimedOnchain(d.c.usdc!);
    const wethBefore = await sc.claimedOnchain(d.c.weth!);

    // 1. The USDC claim broadcast (and mined on chain): the engine has not seen its receipt.
    await runUntil("fee-claimer", { point: "after-broadcast", key: /^claim-cycle:\d+:claim:usdc$/ });
    const usdcClaimed = (await sc.claimedOnchain(d.c.usdc!)) - usdcBefore;
    expect(usdcClaimed).toBeGreaterThan(0n);
    let r = await auditIndexed();
    expectPendingOnly(r);
    expect(r.inFlight).toContainEqual(expect.stringMatching(/^transaction claim-cycle:\d+:claim:usdc broadcast$/));
    expect(pendingOf(r, "operator USDC (ledger vs chain)")).toEqual([expect.objectContaining({ amount: usdcClaimed.toString() })]);
    // The index has its ClaimTokens, the ledger not yet: the ledger is short by the claim.
    expect(pendingOf(r, "fees claimed (index vs ledger)", { currency: "USDC" })).toEqual([
      expect.objectContaining({ amount: (-usdcClaimed).toString(), what: expect.arrayContaining([expect.stringMatching(/claim:usdc broadcast/)]) }),
    ]);

    // 2. The USDC claim mined and not attributed; the WETH claim broadcast.
    await runUntil("fee-claimer", { point: "after-broadcast", key: /^claim-cycle:\d+:claim:weth$/ });
    const wethClaimed = (await sc.claimedOnchain(d.c.weth!)) - wethBefore;
    expect(wethClaimed).toBeGreaterThan(0n);
    r = await auditIndexed();
    expectPendingOnly(r);
    expect(r.inFlight).toContainEqual(expect.stringMatching(/^claim claim-cycle:\d+:claim:usdc not attributed yet$/));
    expect(r.inFlight).toContainEqual(expect.stringMatching(/^transaction claim-cycle:\d+:claim:weth broadcast$/));
    expect(pendingOf(r, "operator USDC (ledger vs chain)")).toEqual([expect.objectContaining({ amount: usdcClaimed.toString() })]);
    expect(pendingOf(r, "operator WETH (ledger vs chain)")).toEqual([expect.objectContaining({ amount: wethClaimed.toString() })]);
    expect(pendingOf(r, "fees claimed (index vs ledger)", { currency: "USDC" })).toEqual([expect.objectContaining({ amount: (-usdcClaimed).toString() })]);
    expect(pendingOf(r, "fees claimed (index vs ledger)", { currency: "WETH" })).toEqual([expect.objectContaining({ amount: (-wethClaimed).toString() })]);

    // 3. The cycle completes (attribution, WETH conversion): settled and clean.
    await sc.run("fee-claimer");
    expect(await sc.sumRows("currency = 'USDC' AND kind IN ('fee-claimed', 'unattributed')")).toBe(await sc.claimedOnchain(d.c.usdc!));
    await expectSettledClean();

    // 4. A whole claim while the index is held behind: the ledger is ahead of the index by exactly
    //    that claim, pending until the index reaches the engine's block; the chain checks are exact.
    const before = await sc.claimedOnchain(d.c.usdc!);
    await d.buy(TRADER, usdcToken, 3_000n * USDC);
    await indexed();
    r = await withIndexStopped(async () => {
      await sc.run("fee-claimer");
      return audit();
    });
    const claimed = (await sc.claimedOnchain(d.c.usdc!)) - before;
    expect(claimed).toBeGreaterThan(0n);
    expectPendingOnly(r);
    expect(r.inFlight).toEqual([]);
    expect(r.indexedTo).toBeLessThan(r.engineBlock!);
    expect(r.pending).toEqual([
      expect.objectContaining({
        check: "fees claimed (index vs ledger)",
        currency: "USDC",
        amount: claimed.toString(),
        what: [expect.stringMatching(/behind the engine's block .* not indexed yet/)],
      }),
    ]);
    await expectSettledClean();
  });

  it("a desk order: open broadcast, executed and not applied, open, then a close the keeper executed and the engine has not applied", async () => {
    expect(await peekPerpUsdc(sc.engine.ctx.db, usdcToken, Infinity)).toBeGreaterThan(20n * USDC);
    const usdcBefore = await d.balance(d.c.usdc!, operator);

    // 1. The first open order broadcast (mined: its collateral left the wallet), its receipt unseen.
    await runUntil("desk-manager", { point: "after-broadcast", key: /^desk-trade:\d+:open$/ });
    const { rows: planned } = await sc.engine.ctx.pool.query<{ id: number; basis: string; sent: boolean }>(
      `SELECT t.id::int, t.basis_usdc::text AS basis, i.status = 'broadcast' AS sent FROM engine.desk_trades t
       LEFT JOIN engine.tx_intents i ON i.key = 'desk-trade:' || t.id || ':open' WHERE t.status = 'opening' ORDER BY t.id`,
    );
    const sent = planned.filter((t) => t.sent);
    expect(sent.length).toBe(1);
    // The ledger booked every planned trade's spend; the wallet has paid the one sent.
    expect(usdcBefore - (await d.balance(d.c.usdc!, operator))).toBe(BigInt(sent[0]!.basis));
    const unsent = planned.filter((t) => !t.sent).reduce((s, t) => s + BigInt(t.basis), 0n);
    let r = await auditIndexed();
    expectPendingOnly(r);
    expect(r.inFlight).toContain(`desk trade ${sent[0]!.id} opening`);
    expect(r.inFlight).toContain(`transaction desk-trade:${sent[0]!.id}:open broadcast`);
    expect(r.inFlightWork).toContainEqual({ what: `desk trade ${sent[0]!.id} opening`, area: "desks", amount: sent[0]!.basis, currency: "USDC" });
    expect(pendingOf(r, "operator USDC (ledger vs chain)").map((p) => p.amount)).toEqual(unsent ? [unsent.toString()] : []);

    // 2. Every order placed and executed by the keeper; the engine has not applied the executions.
    await sc.run("desk-manager");
    const opening = await tradesWithStatus(sc.engine.ctx.db, ["opening"]);
    expect(opening.map((t) => t.token)).toContain(usdcToken);
    expect(opening.every((t) => t.orderId !== null)).toBe(true);
    await d.execute(opening.map((t) => t.orderId!));
    r = await auditIndexed();
    expectPendingOnly(r);
    for (const t of opening) expect(r.inFlight).toContain(`desk trade ${t.id} opening`);

    // 3. Applied: settled and clean.
    await sc.run("profit-checker");
    expect((await tradesWithStatus(sc.engine.ctx.db, ["open"])).map((t) => t.id).sort()).toEqual(opening.map((t) => t.id).sort());
    await expectSettledClean();

    // 4. Take-profit: the closes requested and executed by the keeper; the USDC is back in the
    //    wallet and in the index, the engine has not applied it.
    const eth = await d.price("ETH_USD");
    await d.setPrice("ETH_USD", (eth * 105n) / 100n);
    await sc.run("profit-checker");
    const closing = await tradesWithStatus(sc.engine.ctx.db, ["closing"]);
    expect(closing.length).toBeGreaterThan(0);
    const hash = await d.as(9).write(d.c.perpsTrading!, keeperAbi, "executeMarketOrders", [closing.map((t) => t.closeOrderId!)]);
    const receipt = await d.as(1).publicClient.getTransactionReceipt({ hash });
    const returned = parseEventLogs({ abi: perpsCallbacksAbi, eventName: "MarketExecuted", logs: receipt.logs as Log[] })
      .filter((e) => getAddress(e.args.t.trader) === operator)
      .reduce((s, e) => s + e.args.usdcSentToTrader, 0n);
    expect(returned).toBeGreaterThan(closing.reduce((s, t) => s + t.basisUsdc, 0n));
    r = await auditIndexed();
    expectPendingOnly(r);
    const closingWork = closing.map((t) => `desk trade ${t.id} closing`);
    expect(r.inFlight).toEqual(expect.arrayContaining(closingWork));
    expect(pendingOf(r, "operator USDC (ledger vs chain)")).toEqual([
      expect.objectContaining({ amount: returned.toString(), what: expect.arrayContaining(closingWork) }),
    ]);
    expect(pendingOf(r, "desk USDC returned (index vs engine)")).toEqual([
      expect.objectContaining({ amount: (-returned).toString(), what: expect.arrayContaining(closingWork) }),
    ]);

    // 5. Applied (the profit queued as a creator buyback): settled and clean.
    await sc.run("profit-checker");
    await d.setPrice("ETH_USD", eth);
    await expectSettledClean();
  });

  it("a buyback: swap broadcast, between swap and burn, burn mined while the index is behind then indexed, done", async () => {
    expect(await legBalance(sc.engine.ctx.db, Legs.protocol)).toBeGreaterThanOrEqual(500_000n);
    const deadAddress = "0x000000000000000000000000000000000000dEaD" as Address;

    // 1. The swap broadcast (mined: USDC out, tokens in), its receipt unseen.
    await runUntil("buyback-engine", { point: "after-broadcast", key: /^buyback:\d+:swap$/ });
    let r = await auditIndexed();
    expectPendingOnly(r);
    const swapping = r.inFlightWork.find((w) => /^buyback \d+ swapping$/.test(w.what))!;
    expect(swapping).toMatchObject({ area: "buybacks", currency: "USDC" });
    const id = Number(/^buyback (\d+)/.exec(swapping.what)![1]);
    expect(r.inFlight).toContain(`transaction buyback:${id}:swap broadcast`);

    // 2. Swapped, not burned: the bought tokens sit in the operator wallet.
    await runUntil("buyback-engine", { point: "between-swap-and-burn" });
    const { rows } = await sc.engine.ctx.pool.query("SELECT status, tokens_bought::text FROM engine.buybacks WHERE id = $1", [id]);
    expect(rows[0]).toMatchObject({ status: "burning" });
    const bought = BigInt(rows[0].tokens_bought);
    expect(await d.balance(d.protocolToken, operator)).toBe(bought);
    r = await auditIndexed();
    expectPendingOnly(r);
    expect(r.inFlightWork).toContainEqual({ what: `buyback ${id} burning`, area: "buybacks", amount: bought.toString(), currency: d.protocolToken });

    // 3. The burn mined while the index is held behind: the dead address is compared at the
    //    block the index reached, so the burn it has not indexed is no difference.
    const deadBefore = await d.balance(d.protocolToken, deadAddress);
    let burnBlock = 0n;
    r = await withIndexStopped(async () => {
      await runUntil("buyback-engine", { point: "after-broadcast", key: /^buyback:\d+:burn$/ });
      // The burn's receipt, so that the node's head includes its block before the audit reads it
      // (under load, a state read can see a transaction a block-number read does not yet).
      const { rows: sent } = await sc.engine.ctx.pool.query("SELECT tx_hash FROM engine.tx_intents WHERE key = $1", [`buyback:${id}:burn`]);
      burnBlock = (await d.as(1).publicClient.waitForTransactionReceipt({ hash: sent[0].tx_hash, pollingInterval: 50 })).blockNumber;
      for (const until = Date.now() + 10_000; (await head()) < burnBlock && Date.now() < until; ) await new Promise((ok) => setTimeout(ok, 20));
      expect((await d.balance(d.protocolToken, deadAddress)) - deadBefore).toBe(bought);
      return audit();
    });
    expectPendingOnly(r);
    expect(r.block, "the audit reads the head at or past the burn's block").toBeGreaterThanOrEqual(Number(burnBlock));
    expect(r.indexedTo, `the index, held behind, has not reached the burn's block ${burnBlock}`).toBeLessThan(Number(burnBlock));
    // Read at the head, the dead address would hold the unindexed burn more than the index says.
    expect(r.checks).toContain("dead address: chain vs indexed burns");
    expect(r.pending.filter((p) => p.check === "dead address balance (index vs chain)")).toEqual([]);
    expect(r.inFlight).toContain(`transaction buyback:${id}:burn broadcast`);

    // 4. The index has the burn, the engine has not seen it: the engine's burns are short by it.
    r = await auditIndexed();
    expectPendingOnly(r);
    expect(pendingOf(r, "buyback burns (index vs engine)", { token: d.protocolToken })).toEqual([
      expect.objectContaining({ amount: (-bought).toString(), what: expect.arrayContaining([`buyback ${id} burning`]) }),
    ]);
    expect(pendingOf(r, "dead address balance (index vs chain)")).toEqual([]);

    // 5. Done: settled and clean; what the swap paid (the hook's protocol fee included) is what the index saw it pay.
    await sc.run("buyback-engine");
    const clean = await expectSettledClean();
    expect(clean.checks).toContain("buyback spends: engine vs indexed buyback swaps");
    const paid = await sc.engine.ctx.pool.query("SELECT amount_in::text AS a, currency_in FROM engine.buybacks WHERE id = $1", [id]);
    expect(paid.rows[0]).toMatchObject({ currency_in: "USDC" });
    expect(BigInt(paid.rows[0].a)).toBeGreaterThan(0n);
  });

  it("a buyback whose recorded spend differs from the indexed swap's is a difference once settled", async () => {
    await expectSettledClean();
    const { rows } = await sc.engine.ctx.pool.query("SELECT id, amount_in::text AS a FROM engine.buybacks WHERE status = 'done' ORDER BY id DESC LIMIT 1");
    const [{ id, a }] = rows;
    // The engine's record of what it paid, one base unit off what the chain's swap took.
    await sc.engine.ctx.pool.query("UPDATE engine.buybacks SET amount_in = amount_in + 1 WHERE id = $1", [id]);
    try {
      const r = await auditIndexed();
      expect(r.settled).toBe(true);
      expect(r.ok).toBe(false);
      expect(r.differences).toEqual([
        expect.objectContaining({ check: "buyback spends (index vs engine)", token: d.protocolToken, currency: "USDC", leg: "protocol", difference: "1" }),
      ]);
    } finally {
      await sc.engine.ctx.pool.query("UPDATE engine.buybacks SET amount_in = $2 WHERE id = $1", [id, a]);
    }
    await expectSettledClean();
  });

  it("a real difference is ok: false once settled, and clean again once repaid", async () => {
    await expectSettledClean();
    const away = 1_234_567n;
    await d.as(0).write(d.c.usdc!, erc20Abi, "transfer", [d.as(3).account.address, away]);
    const r = await auditIndexed();
    expect(r.settled).toBe(true);
    expect(r.ok).toBe(false);
    expect(r.pending).toEqual([]);
    expect(r.differences).toEqual([expect.objectContaining({ check: "operator USDC (ledger vs chain)", currency: "USDC", difference: (-away).toString() })]);
    await d.as(3).write(d.c.usdc!, erc20Abi, "transfer", [operator, away]);
    await expectSettledClean();
  });
});

const keeperAbi = [
  { type: "function", name: "executeMarketOrders", stateMutability: "nonpayable", inputs: [{ name: "orderIds", type: "uint256[]" }], outputs: [] },
] as const;
