/**
 * Base is shared: strangers launch through the same launcher, trade in their own v4 pools,
 * collect and claim their fees, burn their tokens. On a private devnet, beside our tokens'
 * activity (our swaps in the same blocks as theirs), the indexer must keep our world only:
 * no foreign token, pool, fee or activity row, figures that count ours, and after a reorg of
 * a block holding both foreign and our events, tables equal to a fresh reindex.
 */
import { type Abi, type Address, type Hex, encodeFunctionData, parseAbi, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerFactoryAbi } from "../../common/abis/clanker.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { UNIVERSAL_ROUTER_ABI, routerPlan, v4ExactInSingle } from "../../common/universal-router.js";
import type { DevnetContext } from "../../devnet/context.js";
import { ensureRouterApproval } from "../../devnet/market.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import * as act from "../helpers/actions.js";
import { createDatabase, dumpPonderTables, startTestPonder } from "../helpers/env.js";
import { startPrivateDevnet } from "../engine/devnet.js";

const USDC = (n: bigint) => n * 1_000_000n;
const tokenAdminAbi = parseAbi(["function updateImage(string image)", "function updateMetadata(string metadata)"]);
const OPERATOR = 0;
const CREATOR = 1;
const TRADER = 2;
// Accounts no devnet token or suite uses: strangers.
const STRANGER = 8;
const STRANGE_TRADER = 9;

describe("indexer: foreign launches, pools and fees leave no row", () => {
  let chain: Awaited<ReturnType<typeof startPrivateDevnet>>;
  /** anvil's accounts by index (the suite's helpers know 0..5; the strangers are 8 and 9). */
  const devnet = {
    as: (i: number) => chain.as(i),
    rpc: <T = unknown>(method: string, params: unknown[] = []) => chain.rpc<T>(method, params),
    get chainEnv() {
      return chain.chainEnv;
    },
  };
  let c: Record<string, Address>;
  let ours: Address;
  const foreign: { token: Address; poolId: Hex; launchTx: Hex }[] = [];

  beforeAll(async () => {
    chain = await startPrivateDevnet();
    c = chain.deployments.contracts as Record<string, Address>;
    const mint = parseAbi(["function mint(address to, uint256 amount)"]);
    for (const i of [TRADER, STRANGER, STRANGE_TRADER])
      await devnet.as(OPERATOR).write(c.usdc!, mint, "mint", [devnet.as(i).account.address, USDC(1_000_000n)]);

    // Strangers' launches through our launcher: their own reward recipients, never enrolled.
    const stranger = devnet.as(STRANGER);
    for (const symbol of ["FRN1", "FRN2"]) {
      const launched = await act.launchToken(stranger, c, {
        name: `Foreign ${symbol}`,
        symbol,
        operator: stranger.account.address,
        creator: devnet.as(STRANGE_TRADER).account.address,
      });
      foreign.push({ token: launched.token, poolId: launched.poolId, launchTx: launched.receipt.transactionHash });
    }
    // Ours: launched paying the operator, and enrolled.
    const operator = devnet.as(OPERATOR);
    const launched = await act.launchToken(operator, c, {
      name: "Ours",
      symbol: "OURS",
      operator: operator.account.address,
      creator: devnet.as(CREATOR).account.address,
    });
    ours = launched.token;
    await act.enroll(operator, c, ours, devnet.as(CREATOR).account.address);
  }, 300_000);

  afterAll(async () => {
    await chain?.stop();
  });

  /** Router calldata for a USDC → token buy (one v4 hop), as the market simulator sends it. */
  async function buyCall(ctx: DevnetContext, token: Address, usdcIn: bigint): Promise<{ to: Address; data: Hex }> {
    const poolKey = await act.poolKeyOf(ctx, c, token);
    await ensureRouterApproval(ctx, { permit2: c.permit2!, universalRouter: c.universalRouter! }, c.usdc!, usdcIn);
    const zeroForOne = poolKey.currency0.toLowerCase() === c.usdc!.toLowerCase();
    const { commands, inputs } = routerPlan([v4ExactInSingle({ poolKey, zeroForOne, amountIn: usdcIn, amountOutMin: 0n, payerIsUser: true })]);
    return {
      to: c.universalRouter!,
      data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI as Abi, functionName: "execute", args: [commands, inputs, 2n ** 40n] }),
    };
  }

  /** A stranger's buy and ours in one block (automine off while both wait in the pool). */
  async function sameBlock(round: number): Promise<bigint> {
    const stranger = devnet.as(STRANGE_TRADER);
    const trader = devnet.as(TRADER);
    const theirs = await buyCall(stranger, foreign[round % 2]!.token, USDC(700n + BigInt(round)));
    const mine = await buyCall(trader, ours, USDC(300n + BigInt(round) * 13n));
    await devnet.rpc("evm_setAutomine", [false]);
    let hashes: Hex[];
    try {
      hashes = [
        await stranger.walletClient.sendTransaction({ ...theirs, gas: 1_500_000n } as never),
        await trader.walletClient.sendTransaction({ ...mine, gas: 1_500_000n } as never),
      ];
      await devnet.rpc("evm_mine");
    } finally {
      await devnet.rpc("evm_setAutomine", [true]);
    }
    const receipts = await Promise.all(hashes.map((hash) => trader.publicClient.waitForTransactionReceipt({ hash })));
    expect(receipts.map((r) => r.status)).toEqual(["success", "success"]);
    expect(receipts[0]!.blockNumber).toBe(receipts[1]!.blockNumber);
    return receipts[0]!.blockNumber;
  }

  /** Foreign activity of every kind the shared contracts emit, and some of ours. */
  async function activity(round: number) {
    const stranger = devnet.as(STRANGER);
    const strangeTrader = devnet.as(STRANGE_TRADER);
    const f = foreign[round % 2]!;
    await act.swapInPool(strangeTrader, c, f.token, c.usdc!, USDC(400n + BigInt(round) * 7n));
    await act.swapInPool(strangeTrader, c, f.token, f.token, (await act.balanceOf(strangeTrader, f.token, strangeTrader.account.address)) / 3n);
    await act.burnAll(strangeTrader, f.token);
    await act.collectRewards(strangeTrader, c, f.token);
    await act.claimFees(stranger, c, stranger.account.address, c.usdc!);
    await sameBlock(round);
    await act.swapInPool(devnet.as(TRADER), c, ours, ours, (await act.balanceOf(devnet.as(TRADER), ours, devnet.as(TRADER).account.address)) / 2n);
    await act.burnAll(devnet.as(TRADER), ours);
    // Token admins' updates: ours (the operator is its admin) and a stranger's.
    await devnet.as(OPERATOR).write(ours, tokenAdminAbi, "updateImage", [`https://example.com/ours-${round}.png`]);
    await devnet.as(OPERATOR).write(ours, tokenAdminAbi, "updateMetadata", [`{"round":${round}}`]);
    await stranger.write(f.token, tokenAdminAbi, "updateImage", [`https://example.com/theirs-${round}.png`]);
  }

  async function freshDump(): Promise<Record<string, string[]>> {
    const url = await createDatabase("foreign_fresh");
    const ponder = await startTestPonder(url, devnet.chainEnv);
    try {
      await waitForIndexed(ponder, await devnet.as(0).publicClient.getBlockNumber());
      return await dumpPonderTables(url);
    } finally {
      await ponder.stop();
    }
  }

  /** Every value of every row, lowercased: where a foreign address or pool id would show. */
  const text = (dump: Record<string, string[]>) => JSON.stringify(dump).toLowerCase();

  it("a reorg of a block holding foreign and our swaps ends equal to a fresh reindex, with no foreign row", async () => {
    const url = await createDatabase("foreign");
    const ponder = await startTestPonder(url, devnet.chainEnv);
    try {
      await activity(0);
      await waitForIndexed(ponder, await devnet.as(0).publicClient.getBlockNumber());
      const snapshot = await devnet.rpc<string>("evm_snapshot");
      const reorged = await sameBlock(1); // branch A: one block with a foreign and our buy, indexed, then abandoned
      await waitForIndexed(ponder, reorged);
      const branchA = await dumpPonderTables(url);
      expect(await devnet.rpc<boolean>("evm_revert", [snapshot])).toBe(true);
      await activity(2); // branch B: other trades, and longer
      await devnet.rpc("anvil_mine", ["0x5"]);
      const head = await devnet.as(0).publicClient.getBlockNumber();
      await waitForIndexed(ponder, head);
      const dump = await dumpPonderTables(url);
      expect(dump).not.toEqual(branchA);
      expect(dump).toEqual(await freshDump());

      // The chain holds the strangers' launches and trades...
      const client = devnet.as(0).publicClient;
      const launches = await client.getLogs({
        address: c.launcher!,
        event: clankerFactoryAbi.find((e) => e.type === "event" && e.name === "TokenCreated") as never,
        fromBlock: 0n,
        toBlock: head,
      });
      expect(launches.length).toBe(6); // the devnet's three, two strangers', ours
      const swaps = parseEventLogs({
        abi: poolManagerAbi,
        eventName: "Swap",
        logs: await client.getLogs({ address: c.v4PoolManager!, fromBlock: 0n, toBlock: head }),
      });
      const foreignIds = new Set(foreign.map((f) => f.poolId));
      expect(swaps.filter((s) => foreignIds.has(s.args.id)).length).toBeGreaterThanOrEqual(6);
      // ...and the index none of it: no foreign token, pool, burn, fee or activity.
      const all = text(dump);
      for (const f of foreign) {
        expect(all).not.toContain(f.token.toLowerCase().slice(2));
        expect(all).not.toContain(f.poolId.toLowerCase().slice(2));
      }
      expect(all).not.toContain(devnet.as(STRANGER).account.address.toLowerCase().slice(2));
      // Figures count ours: the protocol token, the devnet's two creator tokens and ours.
      const totals = JSON.parse(dump.protocol_totals![0]!);
      expect(totals.tokens_launched).toBe(4);
      expect(dump.token!.length).toBe(4);
      expect(dump.pool!.length).toBe(4);
      // Our pool's swaps are all there, those in blocks shared with strangers included.
      const ourPoolId = JSON.parse(dump.token!.find((r) => JSON.parse(r).address === ours.toLowerCase())!).pool_id;
      const ourPool = JSON.parse(dump.pool!.find((r) => JSON.parse(r).pool_id === ourPoolId)!);
      expect(ourPool.swaps).toBe(swaps.filter((s) => s.args.id === ourPoolId).length);
      expect(ourPool.swaps).toBeGreaterThanOrEqual(3);
      // The hook's fees by direction (its PoolInitialized) and the protocol fee it took off our swaps (ClaimProtocolFees).
      expect(ourPool.clanker_fee).toBeGreaterThan(0);
      expect(ourPool.paired_fee).toBeGreaterThan(0);
      expect(BigInt(ourPool.protocol_fees)).toBeGreaterThan(0n);
      // Our token shows its admin's latest image and metadata (branch B's).
      const ourRow = JSON.parse(dump.token!.find((r) => JSON.parse(r).address === ours.toLowerCase())!);
      expect([ourRow.image, ourRow.metadata]).toEqual(["https://example.com/ours-2.png", '{"round":2}']);
      expect(all).not.toContain("theirs-");
      // Our burns, none of theirs.
      const burns = dump.burn!.map((r) => JSON.parse(r).token);
      expect(burns).toContain(ours.toLowerCase());
      expect(await act.balanceOf(devnet.as(0), foreign[0]!.token, DEAD_ADDRESS)).toBeGreaterThan(0n);
      // The strangers' fee balances and claims are not ours to keep.
      expect(dump.fee_balance!.every((r) => JSON.parse(r).owner === devnet.as(OPERATOR).account.address.toLowerCase())).toBe(true);
      expect(dump.reward_recipient!.every((r) => JSON.parse(r).token !== foreign[0]!.token.toLowerCase())).toBe(true);
    } finally {
      await ponder.stop();
    }
  }, 600_000);

  // A stranger's token enrolled after its launch (docs/base.md, "What stays off on Base"): it
  // becomes ours at its enrolment, and its launch facts are written then (indexer/launcher.ts,
  // `adoptLaunch`): the token and its pool as launched, brought up to the enrolment block (its
  // admin's updates, its reward slots, its pool's price). What happened before the enrolment —
  // its swaps, fees and burns — is not indexed; from the enrolment on, all of it is.
  it("a foreign token enrolled later: its launch facts written at the enrolment, its activity followed from then", async () => {
    const operator = devnet.as(OPERATOR);
    const strangeTrader = devnet.as(STRANGE_TRADER);
    const f = foreign[0]!; // bought, sold and burned by strangers before (the first test's rounds)
    const client = operator.publicClient;
    const burnedBefore = await act.balanceOf(operator, f.token, DEAD_ADDRESS);
    expect(burnedBefore).toBeGreaterThan(0n);
    // Before the enrolment its admin changes the image: the enrolment must see the new one.
    await devnet.as(STRANGER).write(f.token, tokenAdminAbi, "updateImage", ["https://example.com/theirs-before.png"]);
    const enrolled = await act.enroll(operator, c, f.token, devnet.as(STRANGER).account.address);
    await act.swapInPool(strangeTrader, c, f.token, c.usdc!, USDC(500n));
    const held = await act.balanceOf(strangeTrader, f.token, strangeTrader.account.address);
    expect(held).toBeGreaterThan(0n);
    await act.burnAll(strangeTrader, f.token);
    await devnet.as(STRANGER).write(f.token, tokenAdminAbi, "updateMetadata", ["theirs-enrolled"]);

    const dump = await freshDump();
    const token = f.token.toLowerCase();
    const rows = (table: string) => (dump[table] ?? []).map((r) => JSON.parse(r) as Record<string, unknown>);
    // The enrolment shows, and counts.
    expect(
      rows("enrollment")
        .filter((r) => r.token === token)
        .map((r) => BigInt(r.enrolled_block as string)),
    ).toEqual([enrolled.blockNumber]);
    // Its launch, found by its code's first block: the launch transaction and block, as launched.
    const launch = await client.getTransactionReceipt({ hash: f.launchTx });
    const [tokenRow] = rows("token").filter((r) => r.address === token);
    expect(tokenRow).toMatchObject({ name: "Foreign FRN1", symbol: "FRN1", launch_tx: f.launchTx, pool_id: f.poolId.toLowerCase() });
    expect(BigInt(tokenRow!.created_block as string)).toBe(launch.blockNumber);
    // Its state at the enrolment (the image changed before it), then its admin's later updates.
    expect(tokenRow).toMatchObject({ image: "https://example.com/theirs-before.png", metadata: "theirs-enrolled" });
    // Its reward slots as they stand: the stranger's, not ours.
    const slots = rows("reward_recipient").filter((r) => r.token === token);
    expect(slots.length).toBeGreaterThan(0);
    expect(slots.map((r) => r.recipient)).toEqual(expect.arrayContaining([devnet.as(STRANGER).account.address.toLowerCase()]));
    // Its pool, counting the swaps after the enrolment only (the trader's, and the locker's fee
    // conversion its hook's collection runs in the same pool), priced as of the last of them.
    const poolSwaps = parseEventLogs({
      abi: poolManagerAbi,
      eventName: "Swap",
      logs: await client.getLogs({ address: c.v4PoolManager!, fromBlock: 0n }),
    }).filter((l) => l.args.id === f.poolId);
    const swapsSince = poolSwaps.filter((l) => l.blockNumber > enrolled.blockNumber);
    expect(poolSwaps.length).toBeGreaterThan(swapsSince.length);
    const [poolRow] = rows("pool").filter((r) => r.pool_id === f.poolId.toLowerCase());
    expect(poolRow).toMatchObject({ token, swaps: swapsSince.length });
    expect(BigInt(poolRow!.sqrt_price_x_96 as string)).toBe(swapsSince.at(-1)!.args.sqrtPriceX96);
    expect(
      rows("activity")
        .filter((r) => r.token === token)
        .map((r) => r.kind),
    ).toEqual(expect.arrayContaining(["burn", "token-enrolled", "token-launched"]));
    // Its burns from the enrolment on, not before.
    const burns = rows("burn").filter((r) => r.token === token);
    expect(burns.map((r) => BigInt(r.amount as string))).toEqual([held]);
    expect(burns.every((r) => BigInt(r.block_number as string) > enrolled.blockNumber)).toBe(true);
    expect(await act.balanceOf(operator, f.token, DEAD_ADDRESS)).toBe(burnedBefore + held);
    // Counted as launched once it is ours; the other stranger's token still is not.
    const totals = rows("protocol_totals")[0]!;
    expect(totals.tokens_launched).toBe(5);
    expect(totals.tokens_enrolled).toBe(rows("enrollment").length);
    expect(rows("token").some((r) => r.address === foreign[1]!.token.toLowerCase())).toBe(false);
    expect(await client.getBlockNumber()).toBeGreaterThan(enrolled.blockNumber);
  }, 600_000);
});
