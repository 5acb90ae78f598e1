/**
 * The devnet is as strict as Base (reference/production.md §1-3): the launcher refuses a hook,
 * MEV module or locker that is not enabled with production's errors; every pool runs through
 * a V2 hook (the static-fee hook: fee by direction, of any size up to 10%; or the dynamic-fee
 * hook: a fee that rises with volatility), with a 20% protocol fee to the factory, and opens with
 * the sniper auction (sniper-auction.test.ts).
 */
import { type Abi, type Address, type Hex, BaseError, type TransactionReceipt, decodeErrorResult, erc20Abi, parseAbi, parseEventLogs, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { clankerFactoryAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { clankerHookAbi } from "../../common/abis/clanker-hook.js";
import { knownErrorsAbi } from "../../common/abis/errors.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../../common/config.js";
import { DEFAULT_SPLIT } from "../../common/constants.js";
import type { OperatorSender } from "../../core/launch/sender.js";
import { createChainLauncher } from "../../core/launch/deploy-and-enroll.js";
import {
  DYNAMIC_BASIC_FEES,
  type DeploymentConfig,
  type DynamicPoolFees,
  buildDeploymentConfig,
  encodeDynamicPoolData,
  encodePoolData,
  launchSplitRewards,
} from "../../common/deploy-config.js";
import type { PoolKey } from "../../common/uniswap.js";
import { compileProject } from "../../devnet/compile.js";
import { createDevnetContext } from "../../devnet/context.js";
import { type MarketPool, buyToken, marketContracts, sellToken } from "../../devnet/market.js";
import { HOOK_PERMISSIONS, deployHookAt, devnetDynamicLaunchFees, devnetLaunchFees, devnetPrivateKey } from "../../devnet/protocol.js";
import { launchToken } from "../helpers/actions.js";
import { testConfig, testEnv } from "../helpers/env.js";
import { afterSwapProtocolFee, exactInBuyProtocolFee, protocolFeeMints } from "./protocol-fee.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const m = marketContracts(deployments);
const operatorCtx = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
const trader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(1));
const operator = deployments.operator;
const creator = privateKeyToAccount(generatePrivateKey()).address;

const claimsAbi = parseAbi(["function balanceOf(address owner, uint256 id) view returns (uint256)"]);
const factoryAdminAbi = parseAbi(["function setHook(address hook, bool enabled)"]);

const receipt = (hash: Hex) => trader.publicClient.getTransactionReceipt({ hash });
const balanceOf = (token: Address, owner: Address) => trader.read<bigint>(token, erc20Abi, "balanceOf", [owner]);
/** The protocol fees a hook holds as PoolManager claims, paid to the factory at the start of the next swap. */
const hookClaims = (hook: Address, currency: Address) => trader.read<bigint>(c.v4PoolManager!, claimsAbi, "balanceOf", [hook, BigInt(currency)]);
/** The protocol fee the hook took off a receipt's last swap (its last claims minted to itself). */
const lastProtocolFee = (r: TransactionReceipt, hook: Address) => protocolFeeMints(r.logs, c.v4PoolManager!, hook, c.usdc!).at(-1);
const rpc = (method: string, params: unknown[] = []) =>
  (trader.publicClient.request as (a: { method: string; params: unknown[] }) => Promise<unknown>)({ method, params });

/** The custom error a failed call reverted with, decoded with the known errors (unwrapping v4's WrappedError). */
function revertOf(error: unknown): { name: string; inner?: Hex } {
  let data: Hex | undefined;
  if (error instanceof BaseError) {
    error.walk((e) => {
      const raw = (e as { raw?: Hex; data?: unknown }).raw ?? (e as { data?: unknown }).data;
      if (typeof raw === "string" && raw.startsWith("0x") && raw.length >= 10) data = raw as Hex;
      return false;
    });
  }
  if (!data) throw error;
  const decoded = decodeErrorResult({ abi: knownErrorsAbi, data });
  return { name: decoded.errorName, inner: decoded.errorName === "WrappedError" ? ((decoded.args as readonly unknown[])[2] as Hex) : undefined };
}

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return revertOf(error);
  }
  throw new Error("expected a revert");
}

function config(overrides: (c: DeploymentConfig) => DeploymentConfig): DeploymentConfig {
  return overrides(
    buildDeploymentConfig({
      tokenAdmin: trader.account.address,
      name: "Strict",
      symbol: "STRICT",
      salt: `0x${Date.now().toString(16).padStart(64, "0")}`,
      chainId: DEVNET_CHAIN_ID,
      pairedToken: c.usdc!,
      locker: c.lpLocker!,
      rewards: launchSplitRewards({ operator, creator }),
      startingMarketCap: 10_000n * 10n ** 6n,
      fees: devnetLaunchFees({ clankerHook: c.clankerHook!, mevModule: c.mevModule! }),
    }),
  );
}

const simulateLaunch = (deployment: DeploymentConfig) =>
  trader.publicClient.simulateContract({
    address: c.launcher!,
    abi: [...clankerFactoryAbi, ...knownErrorsAbi],
    functionName: "deployToken",
    args: [deployment],
    account: trader.account,
  });

describe("the launcher refuses what Base refuses, with production's errors", () => {
  it("accepts the devnet's hook, module and locker", async () => {
    await expect(simulateLaunch(config((d) => d))).resolves.toBeDefined();
  });

  it("hook 0: HookNotEnabled()", async () => {
    expect((await rejection(simulateLaunch(config((d) => ({ ...d, poolConfig: { ...d.poolConfig, hook: zeroAddress } }))))).name).toBe("HookNotEnabled");
  });

  it("a hook that is not enabled: HookNotEnabled()", async () => {
    expect((await rejection(simulateLaunch(config((d) => ({ ...d, poolConfig: { ...d.poolConfig, hook: c.registry! } }))))).name).toBe("HookNotEnabled");
  });

  it("an MEV module that is not enabled (0 or any other): MevModuleNotEnabled()", async () => {
    for (const mevModule of [zeroAddress, "0xebB25BB797D82CB78E1bc70406b13233c0854413" as const]) {
      const refused = await rejection(simulateLaunch(config((d) => ({ ...d, mevModuleConfig: { ...d.mevModuleConfig, mevModule } }))));
      expect(refused.name).toBe("MevModuleNotEnabled");
    }
  });

  it("accepts static fees of any size up to 10% each way; above it the hook's ClankerFeeTooHigh() / PairedFeeTooHigh()", async () => {
    const withFees = (clankerFee: number, pairedFee: number) =>
      config((d) => ({ ...d, poolConfig: { ...d.poolConfig, poolData: encodePoolData(clankerFee, pairedFee) } }));
    for (const [clankerFee, pairedFee] of [
      [0, 0],
      [50_000, 50_000],
      [100_000, 3_000],
      [1, 100_000],
    ]) {
      await expect(simulateLaunch(withFees(clankerFee!, pairedFee!)), `${clankerFee}/${pairedFee}`).resolves.toBeDefined();
    }
    expect((await rejection(simulateLaunch(withFees(100_001, 10_000)))).name).toBe("ClankerFeeTooHigh");
    expect((await rejection(simulateLaunch(withFees(10_000, 100_001)))).name).toBe("PairedFeeTooHigh");
  });

  it("accepts the dynamic-fee V2 hook (enabled, with the same locker); refuses a curve out of its bounds", async () => {
    const dynamic = (d: DynamicPoolFees) =>
      config((cfg) => ({ ...cfg, poolConfig: { ...cfg.poolConfig, hook: c.clankerDynamicHook!, poolData: encodeDynamicPoolData(d) } }));
    expect(BigInt(c.clankerDynamicHook!) & 0x3fffn).toBe(BigInt(HOOK_PERMISSIONS));
    await expect(simulateLaunch(dynamic(DYNAMIC_BASIC_FEES))).resolves.toBeDefined();
    await expect(simulateLaunch(dynamic({ ...DYNAMIC_BASIC_FEES, baseFee: 2_500, maxLpFee: 100_000 }))).resolves.toBeDefined();
    expect((await rejection(simulateLaunch(dynamic({ ...DYNAMIC_BASIC_FEES, baseFee: 2_499 })))).name).toBe("BaseFeeTooLow");
    expect((await rejection(simulateLaunch(dynamic({ ...DYNAMIC_BASIC_FEES, maxLpFee: 100_001 })))).name).toBe("MaxLpFeeTooHigh");
    expect((await rejection(simulateLaunch(dynamic({ ...DYNAMIC_BASIC_FEES, baseFee: 60_000 })))).name).toBe("BaseFeeGreaterThanMaxLpFee");
    // The dynamic hook cannot read the static hook's two-fee data.
    await expect(simulateLaunch(config((cfg) => ({ ...cfg, poolConfig: { ...cfg.poolConfig, hook: c.clankerDynamicHook! } })))).rejects.toThrow();
  });

  it("a locker not enabled for that exact hook: LockerNotEnabled()", async () => {
    // A second hook, enabled, for which the locker was never enabled.
    const other = await deployHookAt(operatorCtx, compileProject().ClankerHookStaticFeeV2!, [c.v4PoolManager!, operator], HOOK_PERMISSIONS);
    expect(BigInt(other) & 0x3fffn).toBe(BigInt(HOOK_PERMISSIONS));
    await operatorCtx.write(c.launcher!, factoryAdminAbi, "setHook", [other, true]);
    try {
      expect((await rejection(simulateLaunch(config((d) => ({ ...d, poolConfig: { ...d.poolConfig, hook: other } }))))).name).toBe("LockerNotEnabled");
    } finally {
      await operatorCtx.write(c.launcher!, factoryAdminAbi, "setHook", [other, false]);
    }
  });
});

const swapOf = (r: TransactionReceipt, poolId: Hex) =>
  parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: r.logs }).find((l) => l.args.id === poolId)!.args;
const hookEvents = (r: TransactionReceipt) =>
  parseEventLogs({ abi: clankerHookAbi, logs: r.logs.filter((l) => l.address.toLowerCase() === c.clankerHook!.toLowerCase()) });
const blockTime = async (r: TransactionReceipt) => (await trader.publicClient.getBlock({ blockNumber: r.blockNumber })).timestamp;

// The sniper auction's rounds, bids and fee curve: sniper-auction.test.ts.

describe("the static-fee V2 hook", () => {
  it("charges the LP fee by direction and a protocol fee of 20% of it on top in the paired token, paid to the factory at the next swap", async () => {
    const fees = { pairedFee: 20_000, clankerFee: 5_000 };
    const launched = await launchToken(trader, c, { name: "Directional", symbol: "DIR", operator, creator, fees });
    const info = await trader.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [launched.token]);
    const pool: MarketPool = { token: launched.token, pairedToken: c.usdc!, poolKey: info.poolKey };
    const usdcIs0 = info.poolKey.currency0 === c.usdc;
    const heldBefore = await hookClaims(c.clankerHook!, c.usdc!);
    const factoryBefore = await balanceOf(c.usdc!, c.launcher!);

    // A buy: USDC in, the paired fee; the protocol fee comes off the USDC input before the swap:
    // amountIn·p/(1e6+p) with p = 4,000 pips, minted to the hook as claims. The claims it held
    // from earlier swaps go to the factory first, as USDC.
    const usdcIn = 3_000_000n;
    const buy = await receipt(await buyToken(trader, m, pool, usdcIn));
    const buySwap = swapOf(buy, launched.poolId);
    expect(buySwap.fee).toBe(fees.pairedFee);
    const buyProtocol = exactInBuyProtocolFee(usdcIn, fees.pairedFee);
    expect(buyProtocol).toBe((usdcIn * 4_000n) / 1_004_000n);
    expect(lastProtocolFee(buy, c.clankerHook!)).toBe(buyProtocol);
    expect(
      hookEvents(buy)
        .filter((e) => e.eventName === "ClaimProtocolFees")
        .map((e) => e.args),
    ).toEqual(heldBefore > 0n ? [{ token: c.usdc, amount: heldBefore }] : []);
    expect(-(usdcIs0 ? buySwap.amount0 : buySwap.amount1)).toBe(usdcIn - buyProtocol);
    expect(hookEvents(buy).map((e) => e.eventName)).toContain("MevModuleDisabled");

    // A sell: the token in, the clanker fee; the protocol fee comes off the USDC output after the swap.
    const tokens = (await balanceOf(launched.token, trader.account.address)) / 2n;
    const usdcBefore = await balanceOf(c.usdc!, trader.account.address);
    const sell = await receipt(await sellToken(trader, m, pool, tokens));
    const sellSwap = swapOf(sell, launched.poolId);
    expect(sellSwap.fee).toBe(fees.clankerFee);
    const out = usdcIs0 ? sellSwap.amount0 : sellSwap.amount1;
    const sellProtocol = afterSwapProtocolFee(out, fees.clankerFee);
    expect(sellProtocol).toBe((out * 1_000n) / 1_000_000n);
    expect(lastProtocolFee(sell, c.clankerHook!)).toBe(sellProtocol);
    // The buy's protocol fee reaches the factory, in USDC, first thing in the sell.
    expect(hookEvents(sell).find((e) => e.eventName === "ClaimProtocolFees")!.args).toEqual({ token: c.usdc, amount: buyProtocol });
    expect((await balanceOf(c.usdc!, trader.account.address)) - usdcBefore).toBe(out - sellProtocol);

    // LP recipients keep 100% of the LP fee: the sell's collection (one swap late) stores the whole buy fee.
    const claimed = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "ClaimedRewards", logs: sell.logs })[0]!.args;
    const usdcFee = usdcIs0 ? claimed.amount0 : claimed.amount1;
    const lpFee = ((usdcIn - buyProtocol) * 20_000n + 999_999n) / 1_000_000n;
    expect(usdcFee).toBeLessThanOrEqual(lpFee);
    expect(usdcFee).toBeGreaterThanOrEqual(lpFee - 1n);

    // The factory holds the USDC paid so far; the hook the claims of the sell (and of its collection's conversions).
    expect((await balanceOf(c.usdc!, c.launcher!)) - factoryBefore).toBe(heldBefore + buyProtocol);
    const sellMints = protocolFeeMints(sell.logs, c.v4PoolManager!, c.clankerHook!, c.usdc!);
    expect(await hookClaims(c.clankerHook!, c.usdc!)).toBe(sellMints.reduce((a, b) => a + b, 0n));
  });
});

describe("static fees of any allowed size", () => {
  it("a 5% pool charges 5% each way, and 20% of it (1%) on top for the factory", async () => {
    const fees = { pairedFee: 50_000, clankerFee: 50_000 };
    const launched = await launchToken(trader, c, { name: "Five", symbol: "FIVE", operator, creator, fees });
    expect(parseEventLogs({ abi: clankerHookAbi, eventName: "PoolInitialized", logs: launched.receipt.logs })[0]!.args).toEqual({
      poolId: launched.poolId,
      clankerFee: 50_000,
      pairedFee: 50_000,
    });
    const info = await trader.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [launched.token]);
    const pool: MarketPool = { token: launched.token, pairedToken: c.usdc!, poolKey: info.poolKey };
    const usdcIs0 = info.poolKey.currency0 === c.usdc;

    const usdcIn = 10_000_000n;
    const buy = await receipt(await buyToken(trader, m, pool, usdcIn));
    const buySwap = swapOf(buy, launched.poolId);
    expect(buySwap.fee).toBe(50_000);
    const protocol = exactInBuyProtocolFee(usdcIn, 50_000);
    expect(protocol).toBe((usdcIn * 10_000n) / 1_010_000n);
    expect(lastProtocolFee(buy, c.clankerHook!)).toBe(protocol);
    expect(-(usdcIs0 ? buySwap.amount0 : buySwap.amount1)).toBe(usdcIn - protocol);

    const sell = await receipt(await sellToken(trader, m, pool, (await balanceOf(launched.token, trader.account.address)) / 2n));
    expect(swapOf(sell, launched.poolId).fee).toBe(50_000);
    // The next collection stores the buy's 5% LP fee (of the USDC the pool received), to the base unit.
    const claimed = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "ClaimedRewards", logs: sell.logs })[0]!.args;
    const lpFee = ((usdcIn - protocol) * 50_000n + 999_999n) / 1_000_000n;
    const usdcFee = usdcIs0 ? claimed.amount0 : claimed.amount1;
    expect(usdcFee).toBeGreaterThanOrEqual(lpFee - 1n);
    expect(usdcFee).toBeLessThanOrEqual(lpFee);
  });
});

/** The dynamic-fee hook's own events: its curve at the launch, and the tick each swap is estimated to end at. */
const dynamicHookEventsAbi = parseAbi([
  "event PoolInitialized(bytes32 poolId, uint24 baseFee, uint24 maxLpFee, uint256 referenceTickFilterPeriod, uint256 resetPeriod, int24 resetTickFilter, uint256 feeControlNumerator, uint24 decayFilterBps)",
  "event EstimatedTickDifference(int24 beforeTick, int24 afterTick)",
]);

/**
 * The dynamic-fee hook's curve, as its doc comment states it, replayed off-chain from each swap's
 * tick before it and the tick the hook estimated it ends at (`EstimatedTickDifference`: the swap
 * simulated at the fee in place before it, so not quite the tick it ends at), and times.
 */
function dynamicFeeModel(cfg: DynamicPoolFees) {
  const s = { referenceTick: 0, resetTick: 0, resetAt: 0n, lastSwapAt: 0n, appliedVR: 0n, prevVA: 0n };
  const distance = (a: number, b: number) => BigInt(Math.abs(a - b));
  const cap = (v: bigint) => (v > 0xffffffn ? 0xffffffn : v);
  const feeAt = (va: bigint) => {
    const fee = BigInt(cfg.baseFee) + (cfg.feeControlNumerator * va * va) / 10_000_000_000n;
    return Number(fee > BigInt(cfg.maxLpFee) ? BigInt(cfg.maxLpFee) : fee);
  };
  return {
    state: s,
    feeAt,
    /** The fee of a swap from `tickBefore`, estimated to end at `tickAfter`, in a block of time `now`. */
    swap(tickBefore: number, tickAfter: number, now: bigint): number {
      if (s.lastSwapAt + BigInt(cfg.referenceTickFilterPeriod) < now) {
        s.referenceTick = tickBefore;
        s.resetTick = tickBefore;
        s.resetAt = now;
        s.appliedVR = s.lastSwapAt + BigInt(cfg.resetPeriod) > now ? cap((s.prevVA * BigInt(cfg.decayFilterBps)) / 10_000n) : 0n;
      } else if (s.resetAt + BigInt(cfg.resetPeriod) < now) {
        if (distance(tickBefore, s.resetTick) > BigInt(Math.abs(cfg.resetTickFilter))) {
          s.resetTick = tickBefore;
          s.resetAt = now;
        } else {
          s.referenceTick = tickBefore;
          s.resetTick = tickBefore;
          s.resetAt = now;
          s.appliedVR = 0n;
        }
      }
      s.lastSwapAt = now;
      s.prevVA = cap(distance(s.referenceTick, tickAfter) + s.appliedVR);
      return feeAt(s.prevVA);
    },
  };
}

/** The hook's estimate of a swap's ticks (the outer swap's: the first of the transaction). */
function estimatedTicks(r: TransactionReceipt, hook: Address): { beforeTick: number; afterTick: number } {
  const logs = parseEventLogs({ abi: dynamicHookEventsAbi, eventName: "EstimatedTickDifference", logs: r.logs });
  const estimate = logs.find((l) => l.address.toLowerCase() === hook.toLowerCase());
  if (!estimate) throw new Error("no EstimatedTickDifference in the swap");
  return estimate.args;
}

describe("the dynamic-fee V2 hook", () => {
  const curve: DynamicPoolFees = { ...DYNAMIC_BASIC_FEES, maxLpFee: 100_000 };

  it("is the hook of the operator's launches when LAUNCH_FEE_TYPE=dynamic, with the configured fee range", async () => {
    // The operator's launch route as the API runs it, sending with the operator's key directly.
    const sender: OperatorSender = {
      operator: async () => operatorCtx.account.address,
      previous: async () => undefined,
      async send(tx) {
        const hash = await operatorCtx.walletClient.sendTransaction({ to: tx.to, data: tx.data, account: operatorCtx.account, chain: null });
        return operatorCtx.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      },
    };
    const config = testConfig("postgres://unused", { LAUNCH_FEE_TYPE: "dynamic", LAUNCH_DYNAMIC_BASE_FEE_PIPS: "5000", LAUNCH_DYNAMIC_MAX_FEE_PIPS: "60000" });
    const launcher = createChainLauncher({ config, publicClient: operatorCtx.publicClient, sender });
    const launched = await launcher.launch({ name: "Dynamic route", symbol: "DYNR", image: "", creator, split: DEFAULT_SPLIT });
    const info = await trader.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [launched.token]);
    expect(info.poolKey.hooks).toBe(c.clankerDynamicHook);
    const logs = (await receipt(launched.txHash)).logs;
    // The dynamic hook reports its curve (its own PoolInitialized), not the static hook's two fees.
    expect(parseEventLogs({ abi: clankerHookAbi, eventName: "PoolInitialized", logs })).toEqual([]);
    const initialized = parseEventLogs({ abi: dynamicHookEventsAbi, eventName: "PoolInitialized", logs });
    expect(initialized.length).toBe(1);
    expect(initialized[0]!.address.toLowerCase()).toBe(c.clankerDynamicHook!.toLowerCase());
    expect(initialized[0]!.args).toMatchObject({ poolId: launched.poolId, baseFee: 5_000, maxLpFee: 60_000 });
  });

  it("charges baseFee + k·volatility² for the ticks moved since the reference tick, the swap's own move included; less as the volatility decays; the base fee again after a calm reset period", async () => {
    const launched = await launchToken(trader, c, {
      name: "Dynamic",
      symbol: "DYN",
      operator,
      creator,
      fees: devnetDynamicLaunchFees({ clankerDynamicHook: c.clankerDynamicHook!, mevModule: c.mevModule! }, curve),
    });
    expect(launched.hook).toBe(c.clankerDynamicHook);
    const info = await trader.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [launched.token]);
    expect(info.poolKey.hooks).toBe(c.clankerDynamicHook);
    const pool: MarketPool = { token: launched.token, pairedToken: c.usdc!, poolKey: info.poolKey };
    const model = dynamicFeeModel(curve);

    // Buys only: their fees are USDC, which the locker stores without a conversion swap of its own.
    const buy = async (usdc: bigint, waitSeconds = 0) => {
      if (waitSeconds) await rpc("evm_increaseTime", [waitSeconds]);
      const r = await receipt(await buyToken(trader, m, pool, usdc * 1_000_000n));
      const swap = swapOf(r, launched.poolId);
      const { beforeTick, afterTick } = estimatedTicks(r, c.clankerDynamicHook!);
      const expected = model.swap(beforeTick, afterTick, await blockTime(r));
      expect(swap.fee, `fee of a swap from tick ${beforeTick} estimated to end at ${afterTick}`).toBe(expected);
      expect(lastProtocolFee(r, c.clankerDynamicHook!), "20% of the dynamic fee on the USDC input").toBe(exactInBuyProtocolFee(usdc * 1_000_000n, expected));
      return expected;
    };

    const first = await buy(300n); // the first swap sets the reference tick; its own move counts
    expect(model.state.prevVA).toBeGreaterThan(300n);
    expect(first).toBeGreaterThan(curve.baseFee + 5_000);
    const moved = await buy(1n); // right after: the same reference tick, so the 300 USDC move still counts
    expect(moved).toBeGreaterThan(curve.baseFee + 5_000);
    expect(moved).toBeLessThan(curve.maxLpFee);
    const decayed = await buy(1n, curve.referenceTickFilterPeriod + 1); // new reference tick: 75% of the volatility carried over
    expect(decayed).toBeLessThan(moved);
    expect(decayed).toBeGreaterThan(curve.baseFee);
    await buy(1n, curve.resetPeriod + 1); // moved since the last reset check: the volatility stays (decayed again)
    const reset = await buy(1n, curve.resetPeriod + 1); // calm for a whole reset period: the volatility is zeroed
    expect(reset).toBe(curve.baseFee);
  });

  it("caps the fee at maxLpFee", async () => {
    const tight = { ...curve, maxLpFee: 20_000 };
    const launched = await launchToken(trader, c, {
      name: "Capped",
      symbol: "CAP",
      operator,
      creator,
      fees: devnetDynamicLaunchFees({ clankerDynamicHook: c.clankerDynamicHook!, mevModule: c.mevModule! }, tight),
    });
    const info = await trader.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [launched.token]);
    const pool: MarketPool = { token: launched.token, pairedToken: c.usdc!, poolKey: info.poolKey };
    // 2,000 USDC moves the price far enough that its own move alone reaches the cap.
    expect(swapOf(await receipt(await buyToken(trader, m, pool, 2_000n * 1_000_000n)), launched.poolId).fee).toBe(tight.maxLpFee);
    expect(swapOf(await receipt(await buyToken(trader, m, pool, 1_000_000n)), launched.poolId).fee).toBe(tight.maxLpFee);
  });
});
