/**
 * Crash injection: the engine runs as a real process (the CLI's one-cycle mode, and the full
 * engine with its scheduler) and kills itself with SIGKILL at each named point — after
 * signing before broadcast, after broadcast before the receipt, between a swap and its burn,
 * mid-batch in the fee claimer, after a desk order before its id is recorded. After a
 * restart: no transaction was sent twice (the operator's nonce advanced by exactly the
 * intents mined, each at its own nonce), no allocation was lost (the ledger equals the
 * chain's ClaimedRewards and ClaimTokens), and the ledger invariants hold.
 */
import { type Abi, type Address, type Hex, decodeEventLog, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { auditFromConfig, auditUntilSettled } from "../../core/audit.js";
import { type PrivateDevnet, startPrivateDevnet } from "./devnet.js";
import { type ChildResult, rpc, runTs, warmPriceWindow } from "./helpers.js";

/** These desks trade on the Avantis v1 simulator (the harness's keeper, `d.execute`, fills Avantis orders); the devnet's default venue is gains-v10. */
const AVANTIS = { PERPS_VENUE: "avantis-v1" };

const USDC = 1_000_000n;
const TRADER = 6;
let d: PrivateDevnet;
let db: EngineDb;
let operator: Address;
let baseNonce: number;

const cli = (args: string, extra: Record<string, string> = {}): Promise<ChildResult> =>
  runTs("engine/cli.ts", d.env({ ...AVANTIS, ARGS: args, ...extra }), { timeoutMs: 90_000 });

async function nonce(): Promise<number> {
  return Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]));
}

/** No transaction twice: every operator transaction since the engine started is one mined intent, at its own nonce. */
async function expectExactlyOnce(): Promise<void> {
  const { rows } = await db.pool.query("SELECT key, nonce, tx_hash, status FROM engine.tx_intents WHERE status IN ('mined', 'reverted') ORDER BY nonce");
  expect(await nonce()).toBe(baseNonce + rows.length);
  expect(rows.map((r) => r.nonce)).toEqual(rows.map((_, i) => baseNonce + i));
  for (const r of rows) {
    const tx = await rpc<{ nonce: Hex }>(d.rpcUrl, "eth_getTransactionByHash", [r.tx_hash]);
    expect(Number(tx.nonce)).toBe(r.nonce);
  }
  const { rows: stuck } = await db.pool.query("SELECT key, status FROM engine.tx_intents WHERE status IN ('signed', 'broadcast')");
  expect(stuck).toEqual([]);
}

async function sumLedger(where: string, params: unknown[] = []): Promise<bigint> {
  const { rows } = await db.pool.query(`SELECT COALESCE(SUM(amount), 0)::text AS s FROM engine.ledger WHERE ${where}`, params);
  return BigInt(rows[0].s);
}

/** No allocation lost: the ledger's attributed USDC equals what the fee locker paid, per token what ClaimedRewards paid. */
async function expectNothingLost(): Promise<void> {
  const claimLogs = await d.as(1).publicClient.getLogs({
    address: d.c.feeLocker,
    event: clankerFeeLockerAbi.find((e) => e.type === "event" && e.name === "ClaimTokens") as never,
    args: { feeOwner: operator, token: d.c.usdc } as never,
    fromBlock: 0n,
  });
  const claimed = (claimLogs as unknown as { args: { amountClaimed: bigint } }[]).reduce((s, l) => s + l.args.amountClaimed, 0n);
  expect(await sumLedger("currency = 'USDC' AND kind IN ('fee-claimed', 'unattributed')")).toBe(claimed);
  const report = await checkLedgerInvariants(db.db);
  expect(report).toEqual({ ok: true, violations: [] });
  // The three-way audit (ledger and chain here: no indexer runs in this suite) finds no difference.
  // Settled: nothing left in flight (what `audit --settle 30` waits for, here at once). In this
  // process: the restarts above are the children that matter; the stack suites run the CLI's own.
  const audit = await auditUntilSettled(() => auditFromConfig(d.config(AVANTIS), db), 30);
  expect(audit, JSON.stringify(audit.differences)).toMatchObject({ ok: true, settled: true, differences: [] });
  // Per token, what the locker's logs say the operator earned in USDC (claimed so far).
  const logs = await d.as(1).publicClient.getLogs({ address: d.c.lpLocker, fromBlock: 0n });
  const lastClaim = claimLogs.at(-1) as unknown as { blockNumber: bigint; logIndex: number } | undefined;
  const perToken = new Map<string, bigint>();
  for (const log of logs) {
    if (!lastClaim || log.blockNumber! > lastClaim.blockNumber || (log.blockNumber === lastClaim.blockNumber && log.logIndex! > lastClaim.logIndex)) continue;
    let e;
    try {
      e = decodeEventLog({ abi: clankerLpLockerAbi, data: log.data, topics: log.topics });
    } catch {
      continue;
    }
    if (e.eventName !== "ClaimedRewards") continue;
    const token = getAddress(e.args.token);
    const info = await d
      .as(1)
      .read<{ poolKey: { currency0: Address; currency1: Address }; rewardRecipients: Address[] }>(d.c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [
        token,
      ]);
    const idx = info.rewardRecipients.findIndex((r) => getAddress(r) === operator);
    const usdc = getAddress(d.c.usdc!);
    if (idx < 0 || (getAddress(info.poolKey.currency0) !== usdc && getAddress(info.poolKey.currency1) !== usdc)) continue;
    const amount = getAddress(info.poolKey.currency0) === usdc ? e.args.rewards0[idx]! : e.args.rewards1[idx]!;
    perToken.set(token, (perToken.get(token) ?? 0n) + amount);
  }
  for (const [token, amount] of perToken) {
    expect(await sumLedger("kind = 'fee-claimed' AND leg = 'claimed' AND currency = 'USDC' AND token = $1", [token])).toBe(amount);
  }
}

async function trade(): Promise<void> {
  const token = getAddress(d.c.usdcPairedToken!);
  await d.buy(TRADER, token, 3_000n * USDC);
  await d.buy(TRADER, getAddress(d.c.wethPairedToken!), 2_000n * USDC);
}

function expectKilled(r: ChildResult): void {
  expect(r.signal, `expected a crash; exit ${r.code}\n${r.stderr.slice(-2000)}`).toBe("SIGKILL");
  expect(r.stderr).toMatch(/crash injection at/);
}
function expectOk(r: ChildResult): void {
  expect(r.code, r.stderr.slice(-3000)).toBe(0);
}

beforeAll(async () => {
  d = await startPrivateDevnet();
  operator = d.config(AVANTIS).operator!;
  db = openEngineDb(d.databaseUrl);
  await migrate(db.pool);
  baseNonce = await nonce();
}, 240_000);

afterAll(async () => {
  await db?.close();
  await d?.stop();
});

describe("crash injection (SIGKILL) and restart", () => {
  it("mid-batch in the fee claimer: the same batch resumes, each collect sent once", async () => {
    await trade();
    expectKilled(await cli("run fee-claimer", { ENGINE_CRASH_AT: "mid-claim-batch" }));
    const { rows } = await db.pool.query("SELECT id, status, tokens FROM engine.claim_cycles");
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe("collecting");
    expectOk(await cli("run fee-claimer"));
    const { rows: done } = await db.pool.query("SELECT status FROM engine.claim_cycles");
    expect(done.map((r) => r.status)).toEqual(["done"]);
    const { rows: collects } = await db.pool.query("SELECT key FROM engine.tx_intents WHERE kind = 'collect-rewards' ORDER BY id");
    expect(collects.map((r) => r.key)).toEqual((rows[0].tokens as string[]).map((t) => `claim-cycle:${rows[0].id}:collect:${t}`));
    await expectExactlyOnce();
    await expectNothingLost();
  });

  it("after signing, before broadcast: the stored bytes are sent on restart, once", async () => {
    await trade();
    expectKilled(await cli("run fee-claimer", { ENGINE_CRASH_AT: "after-sign:2" }));
    const { rows } = await db.pool.query("SELECT key FROM engine.tx_intents WHERE status = 'signed'");
    expect(rows).toHaveLength(1);
    expectOk(await cli("run fee-claimer"));
    await expectExactlyOnce();
    await expectNothingLost();
  });

  it("after broadcast, before the receipt: the restart finds it mined, never sends it again", async () => {
    await trade();
    expectKilled(await cli("run fee-claimer", { ENGINE_CRASH_AT: "after-broadcast:3" }));
    const { rows } = await db.pool.query("SELECT key FROM engine.tx_intents WHERE status = 'broadcast'");
    expect(rows).toHaveLength(1);
    expectOk(await cli("run fee-claimer"));
    await expectExactlyOnce();
    await expectNothingLost();
  });

  it("between swap and burn: the restart burns exactly what was bought", async () => {
    const token = d.protocolToken;
    const dead = await d.balance(token, DEAD_ADDRESS);
    expectKilled(await cli("run buyback-engine", { ENGINE_CRASH_AT: "between-swap-and-burn" }));
    const { rows } = await db.pool.query("SELECT status, tokens_bought::text FROM engine.buybacks WHERE kind = 'protocol'");
    expect(rows).toEqual([{ status: "burning", tokens_bought: expect.any(String) }]);
    expect(await d.balance(token, operator)).toBe(BigInt(rows[0].tokens_bought)); // bought, not yet burned
    expectOk(await cli("run buyback-engine"));
    const { rows: after } = await db.pool.query(
      "SELECT status, tokens_bought::text AS bought, tokens_burned::text AS burned FROM engine.buybacks WHERE kind = 'protocol'",
    );
    expect(after).toEqual([{ status: "done", bought: rows[0].tokens_bought, burned: rows[0].tokens_bought }]);
    expect(await d.balance(token, operator)).toBe(0n);
    expect((await d.balance(token, DEAD_ADDRESS)) - dead).toBe(BigInt(rows[0].tokens_bought));
    await expectExactlyOnce();
    await expectNothingLost();
  });

  it("after a desk order, before its id is recorded: the restart records it and opens nothing twice", async () => {
    // Warm the price window (what five price-sampler cycles would record).
    await warmPriceWindow(db.pool, "ETH_USD", await d.price("ETH_USD"), 5);
    expectKilled(await cli("run desk-manager", { ENGINE_CRASH_AT: "after-open-order" }));
    const { rows } = await db.pool.query("SELECT id, order_id FROM engine.desk_trades WHERE status = 'opening'");
    expect(rows.some((r) => r.order_id === null)).toBe(true);
    expectOk(await cli("run desk-manager"));
    const { rows: trades } = await db.pool.query("SELECT id, order_id::text FROM engine.desk_trades WHERE status = 'opening' ORDER BY id");
    expect(trades.every((t) => t.order_id !== null)).toBe(true);
    const { rows: opens } = await db.pool.query("SELECT COUNT(*)::int AS n FROM engine.tx_intents WHERE kind = 'perps-open' AND status = 'mined'");
    expect(opens[0].n).toBe(trades.length);
    await d.execute(trades.map((t) => BigInt(t.order_id)));
    expectOk(await cli("run profit-checker"));
    const { rows: open } = await db.pool.query("SELECT COUNT(*)::int AS n FROM engine.desk_trades WHERE status = 'open'");
    expect(open[0].n).toBe(trades.length);
    await expectExactlyOnce();
    await expectNothingLost();
  });

  it("the full engine killed mid-cycle resumes on restart and finishes the work", async () => {
    await trade();
    // The whole engine (scheduler and all eight workers, fast intervals) dies at the first swap→burn gap.
    const first = runTs("engine/main.ts", d.env({ ...AVANTIS, ENGINE_CRASH_AT: "between-swap-and-burn", WORKER_INTERVAL_SCALE: "0.01" }), {
      timeoutMs: 60_000,
    });
    expectKilled(await first);
    const { rows } = await db.pool.query(
      "SELECT id, kind FROM engine.buybacks WHERE status = 'burning' UNION ALL SELECT id, 'asset' FROM engine.asset_purchases WHERE status = 'staking'",
    );
    expect(rows.length).toBeGreaterThanOrEqual(1);
    // Restart: reconciliation, then the workers finish the interrupted cycle.
    const second = runTs("engine/main.ts", d.env({ ...AVANTIS, WORKER_INTERVAL_SCALE: "0.01" }), { timeoutMs: 60_000 });
    const deadline = Date.now() + 40_000;
    for (;;) {
      const { rows: open } = await db.pool.query(
        "SELECT (SELECT COUNT(*) FROM engine.buybacks WHERE status IN ('swapping', 'burning')) + (SELECT COUNT(*) FROM engine.asset_purchases WHERE status IN ('swapping', 'staking')) AS n",
      );
      if (Number(open[0].n) === 0 || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    second.child.kill("SIGTERM");
    expectOk(await second);
    const { rows: left } = await db.pool.query("SELECT COUNT(*)::int AS n FROM engine.buybacks WHERE status IN ('swapping', 'burning')");
    expect(left[0].n).toBe(0);
    expect(await d.balance(d.protocolToken, operator)).toBe(0n);
    await expectExactlyOnce();
    await expectNothingLost();
  });

  it("audit --settle without a number of seconds is a usage error, not an audit", async () => {
    const run = await cli("audit --settle soon");
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--settle takes a number of seconds/);
  });
});
