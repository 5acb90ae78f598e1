/**
 * A chain that forgets blocks: anvil `evm_snapshot` / `evm_revert` after each stage of the
 * money path (a fee claim mined, a buyback swap mined but not burned, a desk order mined,
 * an agent wallet's transaction mined), then the engine's finality watcher. Each stage must
 * end converged: the lost intents re-mined from their stored bytes (same hashes), the ledger
 * rows of lost blocks reversed and derived again, the invariants clean and the ledger equal
 * to the chain to the base unit. Also: a transaction sent from the operator key outside the
 * engine takes a signed intent's nonce; the intent is dropped and the work goes on.
 */
import { type Address, type Hex, encodeFunctionData, erc20Abi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_OPERATOR_KEY } from "../../common/config.js";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { tradesWithStatus } from "../../engine/desks/trades.js";
import { readWorkerHealth } from "../../core/health.js";
import type { Engine } from "../../engine/runtime/engine.js";
import type { CrashPoint, Faults } from "../../core/faults.js";
import { peekPerpUsdc, pendingBuybackUsdc } from "../../core/ledger/accumulators.js";
import { Legs } from "../../core/ledger/legs.js";
import { legBalance } from "../../core/ledger/reads.js";
import type { WorkerName } from "../../engine/workers/index.js";
import { ANVIL_KEYS } from "../helpers/env.js";
import { rpc } from "./devnet.js";
import { type Scenario, expectConverged as expectConvergedWith, startScenario } from "./scenario.js";

/** These desks trade on the Avantis v1 simulator (the harness's keeper, `d.execute`, fills Avantis orders); the devnet's default venue is gains-v10. */
const AVANTIS = { PERPS_VENUE: "avantis-v1" };

const USDC = 1_000_000n;
const TRADER = 5;
let sc: Scenario;
let d: Scenario["d"];
let engine: Engine;
let operator: Address;
let usdcToken: Address;
let wethToken: Address;

/** Faults that throw at a chosen point (a worker cycle that stops there, as a crash would). */
const stops = new Set<CrashPoint>();
const faults: Faults = {
  hit(point) {
    if (stops.delete(point)) throw new Error(`stopped at ${point}`);
  },
};

const run = (name: WorkerName) => sc.run(name);
const sumRows = (where: string, params: unknown[] = []) => sc.sumRows(where, params);
const claimedOnchain = (currency: Address) => sc.claimedOnchain(currency);

const snapshot = () => rpc<Hex>(d.rpcUrl, "evm_snapshot");
async function revertTo(id: Hex, mine = 0) {
  expect(await rpc<boolean>(d.rpcUrl, "evm_revert", [id])).toBe(true);
  // The new branch grows past the old heights, as a competing chain would.
  if (mine) await rpc(d.rpcUrl, "anvil_mine", [`0x${mine.toString(16)}`]);
}

const expectConverged = () => expectConvergedWith(sc);

beforeAll(async () => {
  sc = await startScenario({ faults, logLevel: "error", env: AVANTIS });
  ({ d, engine, operator, usdcToken, wethToken } = sc);
}, 240_000);

afterAll(async () => {
  await sc?.stop();
});

describe("reorgs and rollbacks", () => {
  it("a fee claim reorged away is re-mined from its bytes, its attribution reversed and derived again with the new amounts", async () => {
    await d.buy(TRADER, usdcToken, 5_000n * USDC);
    await d.buy(TRADER, wethToken, 3_000n * USDC);
    for (let i = 0; i < 4; i++) await run("price-sampler");
    const before = await snapshot();
    const first = await run("fee-claimer");
    expect(first.claimed).toEqual(["usdc", "weth"]);
    const claimedFirst = await claimedOnchain(d.c.usdc!);
    expect(claimedFirst).toBeGreaterThan(0n);
    const { rows: mined } = await engine.ctx.pool.query(
      "SELECT key, tx_hash FROM engine.tx_intents WHERE key LIKE 'claim-cycle:%' AND status = 'mined' ORDER BY id",
    );
    expect(mined.length).toBeGreaterThanOrEqual(3);

    // The chain forgets the claim; the new branch has one more trade, so the re-mined
    // collectRewards pays more than the first time.
    await revertTo(before);
    await d.buy(TRADER, usdcToken, 2_000n * USDC);
    const report = await engine.checkFinality();
    expect(report.lost.length).toBeGreaterThan(0);
    expect(report.reopened).toEqual(expect.arrayContaining(mined.map((r) => r.key)));
    expect(report.reversed).toBeGreaterThan(0);

    // Same signed bytes: each intent mined again under its original hash.
    const { rows: again } = await engine.ctx.pool.query(
      "SELECT key, tx_hash, status, reorgs FROM engine.tx_intents WHERE key LIKE 'claim-cycle:%' ORDER BY id",
    );
    for (const r of mined) expect(again.find((a) => a.key === r.key)).toMatchObject({ tx_hash: r.tx_hash, status: "mined", reorgs: 1 });
    await run("fee-claimer");
    const claimedNow = await claimedOnchain(d.c.usdc!);
    expect(claimedNow).toBeGreaterThan(claimedFirst);
    await expectConverged();
    const { rows: log } = await engine.ctx.pool.query("SELECT decision FROM engine.agent_log WHERE decision IN ('tx-reorged', 'ledger-reversed')");
    expect(log.length).toBeGreaterThan(0);
    // Health names the reorg, and lists nothing stuck once converged.
    const health = await readWorkerHealth(engine.ctx.pool);
    expect(health.transactions.lastReorg?.reopened).toEqual(expect.arrayContaining(mined.map((r) => r.key)));
    expect(health.transactions.notFinal.filter((t) => ["pending", "signed", "broadcast"].includes(t.status))).toEqual([]);
  });

  it("a buyback swap mined but not burned, then reorged away, is swapped again and burned exactly once", async () => {
    const pending = await pendingBuybackUsdc(engine.ctx.db, Infinity);
    expect(pending).toBeGreaterThanOrEqual(500_000n);
    const dead = await d.balance(d.protocolToken, DEAD_ADDRESS);
    const before = await snapshot();
    stops.add("between-swap-and-burn");
    const stopped = await engine.runOnce("buyback-engine");
    expect(stopped.ok).toBe(false);
    const { rows: b1 } = await engine.ctx.pool.query("SELECT id, status FROM engine.buybacks WHERE kind = 'protocol' ORDER BY id DESC LIMIT 1");
    expect(b1[0].status).toBe("burning");

    await revertTo(before, 2);
    const report = await engine.checkFinality();
    expect(report.reopened).toContain(`buyback:${b1[0].id}:swap`);
    const { rows: b2 } = await engine.ctx.pool.query("SELECT status FROM engine.buybacks WHERE id = $1", [b1[0].id]);
    expect(b2[0].status).toBe("swapping");

    const result = await run("buyback-engine");
    const [b] = result.buybacks as { id: number; status: string; tokensBought: string; tokensBurned: string }[];
    expect(b).toMatchObject({ id: Number(b1[0].id), status: "done" });
    expect(b!.tokensBurned).toBe(b!.tokensBought);
    expect((await d.balance(d.protocolToken, DEAD_ADDRESS)) - dead).toBe(BigInt(b!.tokensBurned));
    expect(await d.balance(d.protocolToken, operator)).toBe(0n);
    expect(await pendingBuybackUsdc(engine.ctx.db, Infinity)).toBe(0n);
    await expectConverged();
  });

  it("a buyback swap and its burn both reorged away: the swap re-mined for more tokens, the rest is burned too", async () => {
    // The trader holds protocol tokens to sell on the new branch (a lower price: the same USDC buys more).
    await d.buy(TRADER, d.protocolToken, 200n * USDC);
    const held = await d.balance(d.protocolToken, d.as(TRADER).account.address);
    await d.buy(TRADER, usdcToken, 3_000n * USDC);
    await run("fee-claimer");
    expect(await pendingBuybackUsdc(engine.ctx.db, Infinity)).toBeGreaterThanOrEqual(500_000n);
    const dead = await d.balance(d.protocolToken, DEAD_ADDRESS);
    const before = await snapshot();
    const first = await run("buyback-engine");
    const [done] = first.buybacks as { id: number; status: string; tokensBought: string; tokensBurned: string }[];
    expect(done).toMatchObject({ status: "done" });

    await revertTo(before);
    await d.sell(TRADER, d.protocolToken, held);
    await rpc(d.rpcUrl, "anvil_mine", ["0x3"]);
    const report = await engine.checkFinality();
    expect(report.reopened).toEqual(expect.arrayContaining([`buyback:${done!.id}:swap`, `buyback:${done!.id}:burn`]));

    const result = await run("buyback-engine");
    const [b] = result.buybacks as { id: number; status: string; tokensBought: string; tokensBurned: string }[];
    expect(b).toMatchObject({ id: done!.id, status: "done" });
    // The re-mined swap bought more than the burn's signed bytes carry: the rest went in a second transfer.
    expect(BigInt(b!.tokensBought)).toBeGreaterThan(BigInt(done!.tokensBought));
    expect(b!.tokensBurned).toBe(b!.tokensBought);
    expect((await engine.ctx.pipeline.get(`buyback:${done!.id}:burn:rest`))?.status).toBe("mined");
    expect((await d.balance(d.protocolToken, DEAD_ADDRESS)) - dead).toBe(BigInt(b!.tokensBurned));
    expect(await d.balance(d.protocolToken, operator)).toBe(0n);
    await expectConverged();
  });

  it("a desk order reorged away is placed again from its bytes; the perp leg pays for it once", async () => {
    // More fees for the perp leg: enough for a desk.
    await d.buy(TRADER, usdcToken, 8_000n * USDC);
    await run("fee-claimer");
    for (let i = 0; i < 6; i++) await run("price-sampler");
    const perp = await peekPerpUsdc(engine.ctx.db, usdcToken, Infinity);
    expect(perp * 5n).toBeGreaterThanOrEqual(100n * USDC);
    const before = await snapshot();
    const managed = await run("desk-manager");
    expect(managed.actions).toContainEqual(expect.objectContaining({ token: usdcToken, action: "open" }));
    const [opening] = (await tradesWithStatus(engine.ctx.db, ["opening"])).filter((t) => t.token === usdcToken);
    expect(opening?.orderId).not.toBeNull();

    await revertTo(before, 1);
    const report = await engine.checkFinality();
    expect(report.reopened).toContain(`desk-trade:${opening!.id}:open`);
    await run("profit-checker"); // desk sync: reads the re-mined order
    const [again] = (await tradesWithStatus(engine.ctx.db, ["opening"])).filter((t) => t.id === opening!.id);
    expect(again?.orderId).not.toBeNull();
    await d.execute([again!.orderId!]);
    await run("profit-checker");
    const [open] = (await tradesWithStatus(engine.ctx.db, ["open"])).filter((t) => t.id === opening!.id);
    expect(open?.basisUsdc).toBe(perp);
    expect(await peekPerpUsdc(engine.ctx.db, usdcToken, Infinity)).toBe(0n);
    expect(await sumRows("key = $1", [`spend:desk-trade:${opening!.id}`])).toBe(-perp);
    // The exchange holds the collateral once.
    expect(await d.balance(d.c.usdc!, operator)).toBeGreaterThanOrEqual(await legBalance(engine.ctx.db, Legs.protocol));
    await expectConverged();
  });

  it("an applied desk execution reorged away is undone and applied again from the canonical log", async () => {
    const [open] = (await tradesWithStatus(engine.ctx.db, ["open"])).filter((t) => t.token === usdcToken);
    const eth = await d.price("ETH_USD");
    await d.setPrice("ETH_USD", (eth * 105n) / 100n);
    await run("profit-checker"); // take profit: the close order
    const [closing] = (await tradesWithStatus(engine.ctx.db, ["closing"])).filter((t) => t.id === open!.id);
    expect(closing?.closeOrderId).not.toBeNull();
    const before = await snapshot();
    await d.execute([closing!.closeOrderId!]);
    await run("profit-checker");
    const [closed] = (await tradesWithStatus(engine.ctx.db, ["closed"])).filter((t) => t.id === open!.id);
    const profit = closed!.usdcReturned - closed!.basisUsdc;
    expect(profit).toBeGreaterThan(0n);
    expect(await legBalance(engine.ctx.db, Legs.creatorBuyback, usdcToken)).toBe(profit);

    // The keeper's execution is forgotten: the trade is closing again, the profit reversed.
    await revertTo(before, 1);
    const report = await engine.checkFinality();
    expect(report.reversed).toBeGreaterThan(0);
    const [back] = (await tradesWithStatus(engine.ctx.db, ["closing"])).filter((t) => t.id === open!.id);
    expect(back?.closeOrderId).toBe(closing!.closeOrderId);
    expect(await legBalance(engine.ctx.db, Legs.creatorBuyback, usdcToken)).toBe(0n);

    // The keeper executes it again on the canonical branch.
    await d.execute([closing!.closeOrderId!]);
    await run("profit-checker");
    const [reclosed] = (await tradesWithStatus(engine.ctx.db, ["closed"])).filter((t) => t.id === open!.id);
    expect(await legBalance(engine.ctx.db, Legs.creatorBuyback, usdcToken)).toBe(reclosed!.usdcReturned - reclosed!.basisUsdc);
    await expectConverged();
  });

  it("a second rollback, below the first, never undoes the first one's reversals", async () => {
    await d.buy(TRADER, usdcToken, 3_000n * USDC);
    const before = await snapshot();
    await run("fee-claimer");
    await revertTo(before);
    const again = await snapshot(); // the chain as it was before the claim, once more
    await d.buy(TRADER, usdcToken, 1_000n * USDC);
    expect((await engine.checkFinality()).reversed).toBeGreaterThan(0);
    await run("fee-claimer");
    // The chain forgets again, down below the blocks of the reversed rows.
    await revertTo(again);
    await engine.checkFinality();
    await run("fee-claimer");
    const { rows } = await engine.ctx.pool.query("SELECT COUNT(*)::int AS n FROM engine.ledger WHERE key LIKE 'reversal:reversal:%'");
    expect(rows[0].n).toBe(0);
    await expectConverged();
  });

  it("a claim's block taken away and then back whole, under the same hash, is booked again: the ledger equals the chain", async () => {
    // A chain returning to the branch it left: the same signed bytes mined again on the same
    // parent at the same timestamps make the very same blocks (on a devnet, a second rollback
    // whose re-sent bytes land within the same second as the first time do too).
    await d.buy(TRADER, usdcToken, 2_000n * USDC);
    const client = d.as(1).publicClient;
    const fork = await client.getBlockNumber({ cacheTime: 0 });
    const before = await snapshot();
    const first = await run("fee-claimer");
    expect(first.claimed).toContain("usdc");
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const branch: { number: bigint; hash: Hex; timestamp: bigint; baseFee: bigint; raws: Hex[] }[] = [];
    for (let n = fork + 1n; n <= head; n++) {
      const block = await client.getBlock({ blockNumber: n });
      const raws = await Promise.all(block.transactions.map((hash) => rpc<Hex>(d.rpcUrl, "eth_getRawTransactionByHash", [hash])));
      branch.push({ number: block.number, hash: block.hash, timestamp: block.timestamp, baseFee: block.baseFeePerGas ?? 0n, raws });
    }
    const { rows: claims } = await engine.ctx.pool.query("SELECT block_hash FROM engine.tx_intents WHERE key = $1 AND status = 'mined'", [
      `claim-cycle:${first.cycle}:claim:usdc`,
    ]);
    const claimBlock = claims[0].block_hash as Hex;

    // Another branch: the claim re-mined there and booked from its new block.
    await revertTo(before);
    const again = await snapshot();
    await rpc(d.rpcUrl, "anvil_mine", ["0x1"]);
    expect((await engine.checkFinality()).reversed).toBeGreaterThan(0);
    await run("fee-claimer");
    await expectConverged();

    // The first branch comes back, block for block: same parent, bytes, timestamp and base fee.
    await revertTo(again);
    for (const block of branch) {
      await rpc(d.rpcUrl, "evm_setNextBlockTimestamp", [`0x${block.timestamp.toString(16)}`]);
      await rpc(d.rpcUrl, "anvil_setNextBlockBaseFeePerGas", [`0x${block.baseFee.toString(16)}`]);
      for (const raw of block.raws) await rpc(d.rpcUrl, "eth_sendRawTransaction", [raw]);
      await expect.poll(() => client.getBlockNumber({ cacheTime: 0 }), { timeout: 10_000 }).toBe(block.number);
      expect((await client.getBlock({ blockNumber: block.number })).hash).toBe(block.hash);
    }
    expect((await engine.checkFinality()).reversed).toBeGreaterThan(0);
    await run("fee-claimer");
    // The claim's facts, reversed when their block left, stand again now that it is back.
    const { rows } = await engine.ctx.pool.query(
      `SELECT COALESCE(SUM(amount), 0)::text AS s FROM engine.ledger l WHERE block_hash = $1 AND kind IN ('fee-claimed', 'unattributed')
         AND NOT EXISTS (SELECT 1 FROM engine.ledger r WHERE r.key = 'reversal:' || l.key)`,
      [claimBlock],
    );
    expect(BigInt(rows[0].s)).toBeGreaterThan(0n);
    await expectConverged();
  });

  it("an agent wallet's transaction goes through the same pipeline and survives a reorg", async () => {
    const agent = privateKeyToAccount(ANVIL_KEYS[2] as Hex);
    const before = await snapshot();
    const outcome = await engine.ctx.pipeline.send(
      { key: "test:agent-wallet:transfer", kind: "agent-transfer", agentId: "test-agent", to: d.c.usdc!, data: encodeTransfer(DEAD_ADDRESS, 1n) },
      agent,
    );
    expect(outcome.status).toBe("mined");
    const hash = outcome.status === "mined" ? outcome.receipt.transactionHash : undefined;
    await revertTo(before, 1);
    const report = await engine.checkFinality();
    expect(report.reopened).toContain("test:agent-wallet:transfer");
    const again = await engine.ctx.pipeline.send(
      { key: "test:agent-wallet:transfer", kind: "agent-transfer", to: d.c.usdc!, data: encodeTransfer(DEAD_ADDRESS, 1n) },
      agent,
    );
    expect(again).toMatchObject({ status: "mined" });
    expect(again.status === "mined" && again.receipt.transactionHash).toBe(hash);
    const row = await engine.ctx.pipeline.get("test:agent-wallet:transfer");
    expect(row).toMatchObject({ signer: agent.address, agentId: "test-agent", reorgs: 1 });
    await expectConverged();
  });

  it("a transaction from the operator key sent outside the engine takes a signed intent's nonce: the intent is dropped, the engine goes on", async () => {
    stops.add("after-sign");
    const request = { key: "test:outside:approve", kind: "approve", to: d.c.usdc!, data: encodeApprove(DEAD_ADDRESS, 1n) };
    await expect(engine.ctx.pipeline.send(request)).rejects.toThrow(/after-sign/);
    const signed = await engine.ctx.pipeline.get(request.key);
    expect(signed?.status).toBe("signed");
    // The operator claims by hand, with the same nonce.
    const outside = privateKeyToAccount(DEVNET_OPERATOR_KEY);
    const raw = await outside.signTransaction({
      chainId: 31337,
      type: "eip1559",
      nonce: signed!.nonce!,
      to: d.c.usdc!,
      data: encodeApprove(d.c.feeLocker!, 0n),
      gas: 100_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    await rpc(d.rpcUrl, "eth_sendRawTransaction", [raw]);
    const outcome = await engine.ctx.pipeline.send(request);
    expect(outcome.status).toBe("dropped");
    expect(outcome.status === "dropped" && outcome.reason).toMatch(/nonce \d+ was used/);
    // The next intent takes a fresh nonce and mines.
    const next = await engine.ctx.pipeline.send({ ...request, key: "test:outside:approve:2" });
    expect(next.status).toBe("mined");
    await expectConverged();
  });

  it("an operator transaction whose drive gave up, and whose bytes the node lost, is driven again by the next watcher tick", async () => {
    // Sent with automining off, the drive stops right after the broadcast (a cycle that gave
    // up); then the node loses its mempool (a devnet restarted from its state file does).
    // No worker will send this key again: only the watcher's tick can settle it.
    await rpc(d.rpcUrl, "evm_setAutomine", [false]);
    const request = { key: "test:stranded:approve", kind: "approve", to: d.c.usdc!, data: encodeApprove(DEAD_ADDRESS, 2n) };
    try {
      stops.add("after-broadcast");
      await expect(engine.ctx.pipeline.send(request)).rejects.toThrow(/after-broadcast/);
      expect((await engine.ctx.pipeline.get(request.key))?.status).toBe("broadcast");
      await rpc(d.rpcUrl, "anvil_dropAllTransactions");
    } finally {
      await rpc(d.rpcUrl, "evm_setAutomine", [true]);
    }
    await engine.checkFinality();
    const row = await engine.ctx.pipeline.get(request.key);
    expect(row?.status).toBe("mined");
    const onchain = await rpc<{ status: string } | null>(d.rpcUrl, "eth_getTransactionReceipt", [row!.txHash]);
    expect(onchain?.status).toBe("0x1");
    await expectConverged();
  });
});

const encodeTransfer = (to: Address, amount: bigint): Hex => encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, amount] });
const encodeApprove = (spender: Address, amount: bigint): Hex => encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, amount] });
