/**
 * The indexed state must be a pure function of the final chain: after a reorg (anvil
 * snapshot/revert, then a different branch), every table equals what a fresh indexer builds
 * from scratch; after a SIGKILL mid-history and a restart, every table equals what that fresh
 * indexer, never stopped, holds of the longer history — fee collections, claims and WETH
 * conversions (whose queues the indexer keeps by key) included.
 */
import { type Abi, type Address, erc20Abi, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerFeeLockerAbi } from "../../common/abis/clanker.js";
import { UNIVERSAL_ROUTER_ABI, routerPlan, v3ExactIn } from "../../common/universal-router.js";
import type { DevnetContext } from "../../devnet/context.js";
import { ensureRouterApproval } from "../../devnet/market.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { V3_WETH_USDC_FEE } from "../../devnet/uniswap.js";
import * as act from "../helpers/actions.js";
import { createDatabase, dumpPonderTables, startTestPonder } from "../helpers/env.js";
import { startPrivateDevnet } from "../engine/devnet.js";

const USDC = (n: bigint) => n * 1_000_000n;

describe("indexer consistency", () => {
  let devnet: Awaited<ReturnType<typeof startPrivateDevnet>>;
  let c: Record<string, Address>;
  /** The fresh indexer (freshDump) and its database. */
  let fresh: Awaited<ReturnType<typeof startTestPonder>> | undefined;
  let freshUrl = "";

  beforeAll(async () => {
    devnet = await startPrivateDevnet();
    c = devnet.deployments.contracts as Record<string, Address>;
    await devnet.as(0).write(c.usdc!, parseAbi(["function mint(address to, uint256 amount)"]), "mint", [devnet.as(0).account.address, USDC(1_000_000n)]);
  });
  afterAll(async () => {
    await fresh?.stop();
    await devnet?.stop();
  });

  /** Trades, a collection and burns: a few blocks of everything the indexer follows. */
  async function activity(round: number) {
    const trader = devnet.as(2 + (round % 3));
    const operator = devnet.as(0);
    const token = round % 2 ? c.usdcPairedToken! : c.protocolToken!;
    await act.swapInPool(trader, c, token, c.usdc!, USDC(500n + BigInt(round) * 37n));
    await act.burnAll(trader, token);
    if (round % 3 === 0) await act.collectRewards(trader, c, c.usdcPairedToken!);
    if (round % 3 === 1) {
      // WETH fees: collected, claimed for the operator, converted to USDC by the operator's swap.
      await act.swapInPool(trader, c, c.wethPairedToken!, c.usdc!, USDC(300n + BigInt(round) * 11n));
      await act.collectRewards(trader, c, c.wethPairedToken!);
      for (const currency of [c.usdc!, c.weth!]) {
        const available = await trader.read<bigint>(c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [operator.account.address, currency]);
        if (available > 0n) await act.claimFees(trader, c, operator.account.address, currency);
      }
      await convertWeth(operator, (await operator.read<bigint>(c.weth!, erc20Abi, "balanceOf", [operator.account.address])) / 2n);
    }
    if (round % 4 === 1) {
      await act.swapInPool(operator, c, c.protocolToken!, c.usdc!, USDC(5n));
      await act.burnAll(operator, c.protocolToken!);
    }
  }

  /** The operator sells WETH for USDC to itself through the UniversalRouter, as the engine converts fee WETH. */
  async function convertWeth(operator: DevnetContext, amountIn: bigint) {
    const router = { permit2: c.permit2!, universalRouter: c.universalRouter! };
    await ensureRouterApproval(operator, router, c.weth!, amountIn);
    const { commands, inputs } = routerPlan([
      v3ExactIn({
        recipient: operator.account.address,
        amountIn,
        amountOutMin: 0n,
        path: { tokens: [c.weth!, c.usdc!], fees: [V3_WETH_USDC_FEE] },
        payerIsUser: true,
      }),
    ]);
    await operator.write(c.universalRouter!, UNIVERSAL_ROUTER_ABI as Abi, "execute", [commands, inputs, 2n ** 40n]);
  }

  /**
   * A fresh indexer of the chain as it is when the first test ends: its backfill is the reference
   * for the reorged index, and, left running, it follows the second test's history live, the
   * uninterrupted run the restarted index is compared with (one indexer start less).
   */
  async function freshDump(): Promise<Record<string, string[]>> {
    if (!fresh) {
      freshUrl = await createDatabase("fresh");
      fresh = await startTestPonder(freshUrl, devnet.chainEnv);
    }
    await waitForIndexed(fresh, await devnet.as(0).publicClient.getBlockNumber());
    return dumpPonderTables(freshUrl);
  }

  it("after a reorg, equals a fresh reindex of the final chain", async () => {
    const url = await createDatabase("reorg");
    const ponder = await startTestPonder(url, devnet.chainEnv);
    try {
      const base = await devnet.as(0).publicClient.getBlockNumber();
      await waitForIndexed(ponder, base);
      const snapshot = await devnet.rpc<string>("evm_snapshot");
      await activity(1); // branch A: a few blocks, indexed, then abandoned
      const headA = await devnet.as(0).publicClient.getBlockNumber();
      await waitForIndexed(ponder, headA);
      const branchA = await dumpPonderTables(url);
      expect(await devnet.rpc<boolean>("evm_revert", [snapshot])).toBe(true);
      await activity(2); // branch B: different trades, and longer
      const headB = await devnet.as(0).publicClient.getBlockNumber();
      await devnet.rpc("anvil_mine", [`0x${(headA > headB ? headA - headB + 5n : 5n).toString(16)}`]);
      const head = await devnet.as(0).publicClient.getBlockNumber();
      await waitForIndexed(ponder, head);
      const afterReorg = await dumpPonderTables(url);
      expect(afterReorg).not.toEqual(branchA);
      expect(afterReorg).toEqual(await freshDump());
    } finally {
      await ponder.stop();
    }
  });

  it("after SIGKILL mid-history and a restart, equals an uninterrupted run", async () => {
    const url = await createDatabase("restart");
    let ponder = await startTestPonder(url, devnet.chainEnv);
    await waitForIndexed(ponder, await devnet.as(0).publicClient.getBlockNumber());
    for (let round = 3; round < 6; round++) await activity(round);
    ponder.process.kill("SIGKILL");
    await new Promise((r) => ponder.process.once("exit", r));
    for (let round = 6; round < 9; round++) await activity(round); // history the killed indexer never saw
    ponder = await startTestPonder(url, devnet.chainEnv);
    try {
      await waitForIndexed(ponder, await devnet.as(0).publicClient.getBlockNumber());
      const dump = await dumpPonderTables(url);
      // The first test's fresh indexer ran through this whole history without a stop (run alone,
      // this test starts it here: a backfill of the same chain).
      expect(dump).toEqual(await freshDump());
      // The history held WETH fees claimed and converted: their USDC was divided among tokens.
      expect(dump.fee_conversion!.some((r) => BigInt(JSON.parse(r).attributed) > 0n)).toBe(true);
    } finally {
      await ponder.stop();
    }
    // Two indexers start and index the devnet's history from block 0 (the killed one, its
    // restart): on a loaded 2-core machine 30–48 s each; the default 120 s is too tight.
  }, 300_000);
});
