/**
 * Spending only what is final, on a real devnet with `CONFIRMATIONS=3`: fees claimed in the
 * last three blocks are pending but no worker spends them. A reorg deeper than that can still
 * take back fees a buyback already spent; the chain then paid the swap from the operator's
 * other USDC. The protocol leg is left short by the difference, the rewind records it as the
 * leg's deficit, the audit still matches the chain, and the next fees repay it before
 * anything more is bought.
 */
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finalBlock } from "../../core/context.js";
import { Legs } from "../../core/ledger/legs.js";
import { legBalance, spendableBalance } from "../../core/ledger/reads.js";
import { reorgDeficits } from "../../core/ledger/reorg.js";
import { rpc } from "./devnet.js";
import { type Scenario, expectConverged, startScenario } from "./scenario.js";

const USDC = 1_000_000n;
const TRADER = 5;
const CONFIRMATIONS = 3;
let sc: Scenario;

const mine = (blocks: number) => rpc(sc.d.rpcUrl, "anvil_mine", [`0x${blocks.toString(16)}`]);
const protocolLeg = () => legBalance(sc.engine.ctx.db, Legs.protocol);
const buybackSpends = () => sc.sumRows("kind = 'buyback-spend'");

beforeAll(async () => {
  sc = await startScenario({ logLevel: "error", confirmations: CONFIRMATIONS });
}, 240_000);

afterAll(async () => {
  await sc?.stop();
});

describe(`spending final fees only (CONFIRMATIONS=${CONFIRMATIONS})`, () => {
  let beforeFees: Hex;
  let spent: bigint;

  it("fees claimed in the last blocks are pending, and spent once they are final", async () => {
    beforeFees = await rpc<Hex>(sc.d.rpcUrl, "evm_snapshot");
    await sc.d.buy(TRADER, sc.usdcToken, 8_000n * USDC);
    await sc.run("fee-claimer");
    const pending = await protocolLeg();
    expect(pending).toBeGreaterThanOrEqual(500_000n); // above the protocol buyback minimum
    expect(await spendableBalance(sc.engine.ctx.db, Legs.protocol, undefined, await finalBlock(sc.engine.ctx))).toBe(0n);

    const early = await sc.run("buyback-engine");
    expect(early.buybacks).toEqual([]);
    expect(await buybackSpends()).toBe(0n);
    expect(await protocolLeg()).toBe(pending);

    await mine(CONFIRMATIONS);
    const final = await sc.run("buyback-engine");
    expect(final.buybacks).toEqual([expect.objectContaining({ status: "done" })]);
    expect(await buybackSpends()).toBe(-pending);
    expect(await protocolLeg()).toBe(0n);
    spent = pending;
    await expectConverged(sc);
  });

  it("a reorg deeper than that takes back fees a buyback spent: the leg records the deficit, and the next fees repay it", async () => {
    // The chain forgets the trade, the claim and the buyback. On the new branch a smaller
    // trade pays fewer fees; the claim and the buyback are mined again from their bytes.
    expect(await rpc<boolean>(sc.d.rpcUrl, "evm_revert", [beforeFees])).toBe(true);
    await sc.d.buy(TRADER, sc.usdcToken, 2_000n * USDC);
    await mine(1);
    const report = await sc.engine.checkFinality();
    expect(report.reopened).toEqual(expect.arrayContaining([expect.stringMatching(/^claim-cycle:/), expect.stringMatching(/^buyback:\d+:swap$/)]));
    await sc.run("fee-claimer");
    await sc.run("buyback-engine");

    const reallocated = await sc.sumRows("leg = 'protocol' AND kind = 'allocation'");
    expect(reallocated).toBeGreaterThan(0n);
    expect(reallocated).toBeLessThan(spent);
    // The same buyback spent the same USDC on the new branch: the leg owes the difference.
    expect(await buybackSpends()).toBe(-spent);
    expect(await protocolLeg()).toBe(reallocated - spent);
    expect(await reorgDeficits(sc.engine.ctx.db)).toEqual([{ leg: Legs.protocol, token: null, currency: "USDC", balance: reallocated - spent }]);
    // The rewind recorded the whole spend as the deficit (the claim's allocation was reversed
    // before it was derived again); the re-derived allocation has repaid part of it.
    const { rows: log } = await sc.engine.ctx.pool.query("SELECT token, data FROM engine.agent_log WHERE decision = 'reorg-deficit'");
    expect(log).toEqual([{ token: null, data: expect.objectContaining({ leg: Legs.protocol, currency: "USDC", deficit: spent.toString() }) }]);
    // The invariants accept the recorded deficit, and the operator's USDC still equals the legs.
    const audit = await expectConverged(sc);
    expect(audit.deficits).toEqual([`leg protocol is ${spent - reallocated} USDC (base units) short after a reorg`]);

    // More fees: once final, they repay the deficit first, and only the rest is bought with.
    await sc.d.buy(TRADER, sc.usdcToken, 8_000n * USDC);
    await sc.run("fee-claimer");
    await mine(CONFIRMATIONS);
    const repaid = await protocolLeg();
    const allocated = await sc.sumRows("leg = 'protocol' AND kind = 'allocation'");
    expect(repaid).toBe(allocated - spent);
    expect(repaid).toBeGreaterThan(500_000n);
    const after = await sc.run("buyback-engine");
    expect(after.buybacks).toEqual([expect.objectContaining({ status: "done" })]);
    expect(await buybackSpends()).toBe(-spent - repaid);
    expect(await protocolLeg()).toBe(0n);
    expect(await reorgDeficits(sc.engine.ctx.db)).toEqual([]);
    expect((await expectConverged(sc)).deficits).toEqual([]);
  });
});
