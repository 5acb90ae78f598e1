/**
 * The devnet's sniper auction runs as Clanker's SniperAuctionV2 does (the recorded traces of
 * ../shared/reference/clanker-v4-traces, a and e): the launch block and the next refuse swaps
 * (`NotAuctionBlock()` wrapped by v4); round 1's auction block is launch + 2, where a swap must
 * carry a bid (a plain one reverts with empty data); the bid is the gas price above the round's
 * peg (basefee × 1.125²), paid in WETH at 0.0001 WETH per unit, 20% to the factory and 80% to the
 * reward recipients; each won round opens the next two blocks later (`AuctionReset`), five at
 * most (`AuctionEnded`); the sniper fee then decays parabolically from the last auction's
 * timestamp and is set through the hook only above the pool's own fee.
 */
import {
  type Abi,
  type Address,
  type BaseError,
  type Hex,
  type TransactionReceipt,
  decodeErrorResult,
  erc20Abi,
  keccak256,
  maxUint256,
  parseAbi,
  parseEventLogs,
  toFunctionSelector,
  toHex,
  zeroAddress,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { clankerFactoryAbi, clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { clankerHookAbi, encodeAuctionBid, sniperAuctionAbi } from "../../common/abis/clanker-hook.js";
import { knownErrorsAbi } from "../../common/abis/errors.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { DEVNET_CHAIN_ID } from "../../common/config.js";
import { DEFAULT_SNIPER_FEES, buildDeploymentConfig, encodeMevModuleData, launchSplitRewards } from "../../common/deploy-config.js";
import type { PoolKey } from "../../common/uniswap.js";
import { UNIVERSAL_ROUTER_ABI, routerPlan, v4ExactInSingle } from "../../common/universal-router.js";
import { decayedSniperFee, sniperAuctionStatus } from "../../common/sniper-auction.js";
import { createDevnetContext } from "../../devnet/context.js";
import { ensureRouterApproval, marketContracts } from "../../devnet/market.js";
import { devnetLaunchFees, devnetPrivateKey } from "../../devnet/protocol.js";
import { launchToken } from "../helpers/actions.js";
import { testEnv } from "../helpers/env.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const m = marketContracts(deployments);
const trader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(1));
const operator = deployments.operator;
const creator = privateKeyToAccount(generatePrivateKey()).address;
const wethAbi = parseAbi(["function deposit() payable"]);
const PER_GAS = 100_000_000_000_000n;

const rpc = <T = unknown>(method: string, params: unknown[] = []) =>
  (trader.publicClient.request as (a: { method: string; params: unknown[] }) => Promise<T>)({ method, params });
const mine = async (blocks: number) => {
  for (let i = 0; i < blocks; i++) await rpc("evm_mine");
};
const block = (blockNumber: bigint) => trader.publicClient.getBlock({ blockNumber });
const moduleState = async (poolId: Hex) => {
  const read = <T>(functionName: string) => trader.read<T>(c.mevModule!, sniperAuctionAbi as Abi, functionName, [poolId]);
  return {
    round: await read<bigint>("round"),
    nextAuctionBlock: await read<bigint>("nextAuctionBlock"),
    gasPeg: await read<bigint>("gasPeg"),
    poolDecayStartTime: await read<bigint>("poolDecayStartTime"),
    getFee: await read<number>("getFee"),
  };
};
const auctionEvents = (r: TransactionReceipt) =>
  parseEventLogs({ abi: sniperAuctionAbi, logs: r.logs.filter((l) => l.address.toLowerCase() === c.mevModule!.toLowerCase()) });
const hookEvents = (r: TransactionReceipt) =>
  parseEventLogs({ abi: clankerHookAbi, logs: r.logs.filter((l) => l.address.toLowerCase() === c.clankerHook!.toLowerCase()) });
const swapFee = (r: TransactionReceipt, poolId: Hex) =>
  parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: r.logs }).find((l) => l.args.id === poolId)?.args.fee;
const peg = (baseFee: bigint) => (baseFee * 1125n * 1125n) / (1000n * 1000n);

type Launched = Awaited<ReturnType<typeof launchToken>> & { key: PoolKey };
async function launch(fees: Parameters<typeof launchToken>[2]["fees"] = {}): Promise<Launched> {
  const launched = await launchToken(trader, c, { name: "Auctioned", symbol: "AUCT", operator, creator, auction: "keep", fees });
  const info = await trader.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [launched.token]);
  return { ...launched, key: info.poolKey };
}

/** A USDC buy sent as it is, with a fixed gas limit and a legacy gas price (a bid's), mined even when it reverts. */
async function buy(key: PoolKey, usdcIn: bigint, p: { hookData?: Hex; gasPrice?: bigint } = {}) {
  const zeroForOne = key.currency0.toLowerCase() === c.usdc!.toLowerCase();
  const { commands, inputs } = routerPlan([
    v4ExactInSingle({ poolKey: key, zeroForOne, amountIn: usdcIn, amountOutMin: 0n, payerIsUser: true, hookData: p.hookData }),
  ]);
  const gasPrice = p.gasPrice ?? (await trader.publicClient.getBlock()).baseFeePerGas! * 2n + 1n;
  const hash = await trader.walletClient.writeContract({
    account: trader.account,
    chain: trader.walletClient.chain,
    address: c.universalRouter!,
    abi: UNIVERSAL_ROUTER_ABI as Abi,
    functionName: "execute",
    args: [commands, inputs, 2n ** 40n],
    gas: 3_000_000n,
    gasPrice,
  } as never);
  return trader.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

/** The hook's error inside v4's WrappedError of a reverted transaction: its selector, or "0x" for empty data. */
async function hookRevert(r: TransactionReceipt): Promise<Hex> {
  expect(r.status).toBe("reverted");
  const trace = await rpc<{ output?: Hex }>("debug_traceTransaction", [r.transactionHash, { tracer: "callTracer" }]);
  let data = trace.output!;
  for (;;) {
    const decoded = decodeErrorResult({ abi: knownErrorsAbi, data });
    if (decoded.errorName === "WrappedError") return (decoded.args as readonly unknown[])[2] as Hex;
    if (decoded.errorName !== "ExecutionFailed") throw new Error(`not a wrapped hook error: ${decoded.errorName}`);
    data = (decoded.args as readonly unknown[])[1] as Hex;
  }
}

describe("the sniper auction as Clanker's SniperAuctionV2 runs it", () => {
  beforeAll(async () => {
    await ensureRouterApproval(trader, m, c.usdc!, maxUint256 / 2n);
    await trader.write(c.weth!, wethAbi, "deposit", [], 10n ** 17n);
    await trader.write(c.weth!, erc20Abi, "approve", [c.mevModule!, maxUint256]);
  });

  it("the fee curve is the module's: parabolic, 177,806 pips 8 s into the SDK's default decay (trace a)", () => {
    expect(decayedSniperFee({ ...DEFAULT_SNIPER_FEES, secondsToDecay: 15n }, 100n, 108n)).toBe(177_806);
    expect(decayedSniperFee({ ...DEFAULT_SNIPER_FEES, secondsToDecay: 15n }, 100n, 100n)).toBe(DEFAULT_SNIPER_FEES.startingFee);
    expect(decayedSniperFee({ ...DEFAULT_SNIPER_FEES, secondsToDecay: 15n }, 100n, 115n)).toBe(DEFAULT_SNIPER_FEES.endingFee);
    expect(decayedSniperFee({ ...DEFAULT_SNIPER_FEES, secondsToDecay: 15n }, 100n, 116n)).toBe(0);
  });

  it("launch: round 1's auction block is launch + 2 with a peg of basefee × 1.125²; launch + 1 refuses (NotAuctionBlock), a plain swap in the auction block reverts with empty data", async () => {
    const launched = await launch();
    const L = launched.receipt.blockNumber;
    const launchBlock = await block(L);
    const events = auctionEvents(launched.receipt);
    expect(events.map((e) => e.eventName)).toEqual(["AuctionInitialized", "FeeConfigSet"]);
    expect(events[0]!.args).toEqual({ poolId: launched.poolId, gasPeg: peg(launchBlock.baseFeePerGas!), auctionBlock: L + 2n, round: 1n });
    expect(hookEvents(launched.receipt).find((e) => e.eventName === "PoolExtensionRegistered")?.args).toEqual({
      poolId: launched.poolId,
      extension: zeroAddress,
    });
    expect(await moduleState(launched.poolId)).toEqual({
      round: 1n,
      nextAuctionBlock: L + 2n,
      gasPeg: peg(launchBlock.baseFeePerGas!),
      poolDecayStartTime: 0n,
      getFee: DEFAULT_SNIPER_FEES.startingFee,
    });
    const status = await sniperAuctionStatus(trader.publicClient, launched.key, 15);
    expect(status).toMatchObject({ over: false, phase: "auction", afterBlock: L + 2n, round: 1n });

    const early = await buy(launched.key, 1_000_000n);
    expect(early.blockNumber).toBe(L + 1n);
    expect(await hookRevert(early)).toBe(toFunctionSelector("NotAuctionBlock()"));
    const plain = await buy(launched.key, 1_000_000n);
    expect(plain.blockNumber).toBe(L + 2n);
    expect(await hookRevert(plain)).toBe("0x");
    expect((await moduleState(launched.poolId)).round).toBe(1n);
  });

  it("five won rounds, one every two blocks, then AuctionEnded; the fee decays from the last round's auction; the engine sees no clear block before", async () => {
    const launched = await launch();
    const L = launched.receipt.blockNumber;
    const fees = { before: { operator: 0n, creator: 0n, factory: 0n } };
    const available = (owner: Address) => trader.read<bigint>(c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [owner, c.weth!]);
    fees.before = {
      operator: await available(operator),
      creator: await available(creator),
      factory: await trader.read<bigint>(c.weth!, erc20Abi, "balanceOf", [c.launcher!]),
    };
    await mine(1); // launch + 1
    let auctionBlock = L + 2n;
    let lastWin: TransactionReceipt | undefined;
    for (let round = 1n; round <= 5n; round++) {
      const status = await sniperAuctionStatus(trader.publicClient, launched.key, 15);
      expect(status, `before round ${round}`).toMatchObject({ over: false, phase: "auction", afterBlock: auctionBlock, round });
      const state = await moduleState(launched.poolId);
      expect(state.nextAuctionBlock).toBe(auctionBlock);
      const r = await buy(launched.key, 2_000_000n, { hookData: encodeAuctionBid(trader.account.address), gasPrice: state.gasPeg + 100n });
      expect(r.status).toBe("success");
      expect(r.blockNumber).toBe(auctionBlock);
      const events = auctionEvents(r);
      const baseFee = (await block(r.blockNumber)).baseFeePerGas!;
      expect(events.map((e) => e.eventName)).toEqual(["AuctionWon", "AuctionRewardsTransferred", round < 5n ? "AuctionReset" : "AuctionEnded"]);
      expect(events[0]!.args).toEqual({ poolId: launched.poolId, payee: trader.account.address, paymentAmount: 100n * PER_GAS, round });
      expect(events[1]!.args).toEqual({ poolId: launched.poolId, lpPayment: 80n * PER_GAS, factoryPayment: 20n * PER_GAS });
      if (round < 5n) expect(events[2]!.args).toEqual({ poolId: launched.poolId, gasPeg: peg(baseFee), auctionBlock: auctionBlock + 2n, round: round + 1n });
      else expect(events[2]!.args).toEqual({ poolId: launched.poolId });
      expect(hookEvents(r).find((e) => e.eventName === "MevModuleSetFee")?.args).toEqual([launched.poolId, DEFAULT_SNIPER_FEES.startingFee]);
      expect(swapFee(r, launched.poolId)).toBe(DEFAULT_SNIPER_FEES.startingFee);
      lastWin = r;
      auctionBlock += 2n;
      if (round < 5n) await mine(1);
    }
    // 80% of each bid to the recipients by their bps (the operator's 9050, the creator the rest), 20% to the factory.
    const lp = 80n * PER_GAS;
    expect((await available(operator)) - fees.before.operator).toBe(5n * ((lp * 9_050n) / 10_000n));
    expect((await available(creator)) - fees.before.creator).toBe(5n * (lp - (lp * 9_050n) / 10_000n));
    expect((await trader.read<bigint>(c.weth!, erc20Abi, "balanceOf", [c.launcher!])) - fees.before.factory).toBe(5n * 20n * PER_GAS);

    const T5 = (await block(lastWin!.blockNumber)).timestamp;
    expect(await moduleState(launched.poolId)).toMatchObject({ round: 6n, poolDecayStartTime: T5 });
    const during = await sniperAuctionStatus(trader.publicClient, launched.key, 15);
    expect(during).toMatchObject({ over: false, phase: "decay", until: T5 + 15n });
    await rpc("evm_setNextBlockTimestamp", [Number(T5 + 8n)]);
    const decaying = await buy(launched.key, 2_000_000n);
    expect(auctionEvents(decaying).map((e) => e.eventName)).toEqual([]);
    expect(hookEvents(decaying).find((e) => e.eventName === "MevModuleSetFee")?.args).toEqual([launched.poolId, 177_806]);
    expect(swapFee(decaying, launched.poolId)).toBe(177_806);

    // The decay's last second is still the decay (the next block may share its timestamp); the one after is clear.
    await rpc("evm_setNextBlockTimestamp", [Number(T5 + 15n)]);
    await mine(1);
    expect(await sniperAuctionStatus(trader.publicClient, launched.key, 15)).toMatchObject({ over: false, phase: "decay" });
    await rpc("evm_setNextBlockTimestamp", [Number(T5 + 16n)]);
    await mine(1);
    expect(await sniperAuctionStatus(trader.publicClient, launched.key, 15)).toEqual({ over: true });
    const after = await buy(launched.key, 2_000_000n);
    expect(auctionEvents(after).map((e) => e.eventName)).toEqual(["DecayPeriodOver"]);
    expect(hookEvents(after).find((e) => e.eventName === "MevModuleDisabled")?.args).toEqual([launched.poolId]);
    expect(swapFee(after, launched.poolId)).toBe(10_000);
  });

  it("a round nobody wins expires at the next swap; the fee then decays from the last won auction (trace a: 177,806 pips 8 s after it)", async () => {
    const launched = await launch();
    const L = launched.receipt.blockNumber;
    await mine(1);
    const state = await moduleState(launched.poolId);
    const win = await buy(launched.key, 2_000_000n, { hookData: encodeAuctionBid(trader.account.address), gasPrice: state.gasPeg + 100n });
    expect(win.blockNumber).toBe(L + 2n);
    const T = (await block(win.blockNumber)).timestamp;
    await mine(1);
    const plain = await buy(launched.key, 2_000_000n); // round 2's auction block, no bid
    expect(plain.blockNumber).toBe(L + 4n);
    expect(await hookRevert(plain)).toBe("0x");
    await mine(1);
    // Round 2's block has passed without a winner: the engine sees the decay, bounded by that block's time.
    const status = await sniperAuctionStatus(trader.publicClient, launched.key, 15);
    expect(status).toMatchObject({ over: false, phase: "decay" });
    await rpc("evm_setNextBlockTimestamp", [Number(T + 8n)]);
    const r = await buy(launched.key, 2_000_000n);
    expect(r.status).toBe("success");
    expect(auctionEvents(r).map((e) => [e.eventName, e.args])).toEqual([["AuctionExpired", { poolId: launched.poolId, round: 2n }]]);
    expect(hookEvents(r).find((e) => e.eventName === "MevModuleSetFee")?.args).toEqual([launched.poolId, 177_806]);
    expect(swapFee(r, launched.poolId)).toBe(177_806);
    expect(await moduleState(launched.poolId)).toMatchObject({ round: 2n, nextAuctionBlock: L + 4n, poolDecayStartTime: T });
  });

  it("without any winner the decay starts at the launch; a fee at or under the pool's own is not set by the module", async () => {
    const fees = { startingFee: 500_000, endingFee: 30_000, secondsToDecay: 30, pairedFee: 50_000, clankerFee: 5_000 };
    const launched = await launch(fees);
    const T0 = (await block(launched.receipt.blockNumber)).timestamp;
    await mine(2); // round 1's auction block passes empty
    await rpc("evm_setNextBlockTimestamp", [Number(T0 + 10n)]);
    const r = await buy(launched.key, 2_000_000n);
    expect(auctionEvents(r).map((e) => e.eventName)).toEqual(["AuctionExpired"]);
    const fee = decayedSniperFee({ ...fees, secondsToDecay: 30n }, T0, T0 + 10n);
    expect(fee).toBe(238_888);
    expect(hookEvents(r).find((e) => e.eventName === "MevModuleSetFee")?.args).toEqual([launched.poolId, fee]);
    expect(swapFee(r, launched.poolId)).toBe(fee);
    // 29 s in, the decayed fee (30,522 pips) is under the pool's 5%: the swap pays 5%, no MevModuleSetFee.
    await rpc("evm_setNextBlockTimestamp", [Number(T0 + 29n)]);
    const low = await buy(launched.key, 2_000_000n);
    expect(hookEvents(low).map((e) => e.eventName)).not.toContain("MevModuleSetFee");
    expect(swapFee(low, launched.poolId)).toBe(fees.pairedFee);
    await rpc("evm_setNextBlockTimestamp", [Number(T0 + 31n)]);
    const after = await buy(launched.key, 2_000_000n);
    expect(auctionEvents(after).map((e) => e.eventName)).toEqual(["DecayPeriodOver"]);
    expect(swapFee(after, launched.poolId)).toBe(fees.pairedFee);
  });

  it("validates the fee curve with the module's named errors; endingFee 0 and endingFee = startingFee are allowed", async () => {
    const moduleErrors = parseAbi([
      "error StartingFeeMustBeGreaterThanZero()",
      "error StartingFeeMustBeGreaterThanEndingFee()",
      "error TimeDecayMustBeGreaterThanZero()",
      "error TimeDecayLongerThanMaxMevDelay()",
      "error StartingFeeGreaterThanMaxLpFee()",
    ]);
    const outcome = async (startingFee: number, endingFee: number, secondsToDecay: number) => {
      const config = buildDeploymentConfig({
        tokenAdmin: trader.account.address,
        name: "Curve",
        symbol: "CURVE",
        salt: keccak256(toHex(`curve-${startingFee}-${endingFee}-${secondsToDecay}-${Date.now()}`)),
        chainId: DEVNET_CHAIN_ID,
        pairedToken: c.usdc!,
        locker: c.lpLocker!,
        rewards: launchSplitRewards({ operator, creator }),
        startingMarketCap: 10_000n * 10n ** 6n,
        fees: devnetLaunchFees({ clankerHook: c.clankerHook!, mevModule: c.mevModule! }),
      });
      config.mevModuleConfig.mevModuleData = encodeMevModuleData(startingFee, endingFee, secondsToDecay);
      try {
        await trader.publicClient.simulateContract({
          address: c.launcher!,
          abi: [...clankerFactoryAbi, ...moduleErrors],
          functionName: "deployToken",
          args: [config],
          account: trader.account,
        });
        return "ok";
      } catch (error) {
        let data: Hex | undefined;
        (error as BaseError).walk((e) => {
          const raw = (e as { raw?: Hex; data?: unknown }).raw ?? (e as { data?: unknown }).data;
          if (typeof raw === "string" && raw.startsWith("0x") && raw.length >= 10) data = raw as Hex;
          return false;
        });
        return data ? decodeErrorResult({ abi: moduleErrors, data }).errorName : String(error);
      }
    };
    expect(await outcome(300_000, 300_000, 10)).toBe("ok");
    expect(await outcome(300_000, 0, 10)).toBe("ok");
    expect(await outcome(0, 0, 10)).toBe("StartingFeeMustBeGreaterThanZero");
    expect(await outcome(100_000, 200_000, 10)).toBe("StartingFeeMustBeGreaterThanEndingFee");
    expect(await outcome(300_000, 0, 0)).toBe("TimeDecayMustBeGreaterThanZero");
    expect(await outcome(800_001, 0, 10)).toBe("StartingFeeGreaterThanMaxLpFee");
    expect(await outcome(300_000, 0, 121)).toBe("TimeDecayLongerThanMaxMevDelay");
  });
});
