/**
 * The launch config builder: exact encodings against clanker-sdk, reward splits, tick maths.
 * No chain needed (the on-chain launch is covered in test/contracts/launch.test.ts).
 */
import { getTickFromMarketCapUSDC } from "clanker-sdk";
import { Clanker as ClankerSdk } from "clanker-sdk/v4";
import { type Hex, encodeAbiParameters, encodeFunctionData, keccak256, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { FeeIn } from "../../common/abis/clanker.js";
import { loadConfig, requireContract, requireLaunchFees } from "../../common/config.js";
import { MAX_TICK, MIN_TICK } from "../../common/uniswap.js";
import {
  type RewardRecipient,
  DEFAULT_POOL_FEES,
  DEFAULT_SNIPER_FEES,
  DYNAMIC_BASIC_FEES,
  LaunchConfigError,
  buildDeploymentConfig,
  decodeMevModuleData,
  decodePoolData,
  describeDeploymentConfig,
  encodeMevModuleData,
  encodePoolData,
  encodeDeployToken,
  encodeLockerData,
  launchSplitRewards,
  marketCapAtTick,
  sqrtPriceAtTick,
  tickFromMarketCap,
} from "../../common/deploy-config.js";

const OPERATOR = "0x1111111111111111111111111111111111111111" as const;
const CREATOR = "0x2222222222222222222222222222222222222222" as const;
const LOCKER = "0x63D2DfEA64b3433F4071A98665bcD7Ca14d93496" as const; // Base fee-conversion locker
const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
const SALT = keccak256(toHex("salt"));
const FEES = {
  hook: "0x3333333333333333333333333333333333333333",
  mevModule: "0x4444444444444444444444444444444444444444",
  ...DEFAULT_POOL_FEES,
  ...DEFAULT_SNIPER_FEES,
} as const;

const base = {
  tokenAdmin: CREATOR,
  name: "Test Token",
  symbol: "TEST",
  image: "ipfs://image",
  metadata: "{}",
  context: '{"interface":"SDK"}',
  salt: SALT,
  chainId: 8453,
  pairedToken: BASE_USDC,
  locker: LOCKER,
  rewards: launchSplitRewards({ operator: OPERATOR, creator: CREATOR }),
  fees: FEES,
};

describe("launchSplitRewards", () => {
  it("gives the creator its leg and the operator the rest, both in the paired token", () => {
    expect(launchSplitRewards({ operator: OPERATOR, creator: CREATOR })).toEqual([
      { admin: OPERATOR, recipient: OPERATOR, bps: 9050, feeIn: FeeIn.Paired },
      { admin: CREATOR, recipient: CREATOR, bps: 950, feeIn: FeeIn.Paired },
    ]);
    const custom = launchSplitRewards({ operator: OPERATOR, creator: CREATOR, split: { assetBps: 5000, perpBps: 1000, creatorBps: 3500 } });
    expect(custom.map((r) => r.bps)).toEqual([6500, 3500]);
    expect(custom.reduce((sum, r) => sum + r.bps, 0)).toBe(10_000);
  });

  it("leaves the operator alone when the creator leg is zero", () => {
    expect(launchSplitRewards({ operator: OPERATOR, creator: CREATOR, split: { assetBps: 9500, perpBps: 0, creatorBps: 0 } })).toEqual([
      { admin: OPERATOR, recipient: OPERATOR, bps: 10_000, feeIn: FeeIn.Paired },
    ]);
  });

  it.each([
    { assetBps: 2850, perpBps: 5700, creatorBps: 951 },
    { assetBps: 2850, perpBps: 5701, creatorBps: 949 - 1 },
    { assetBps: -1, perpBps: 5701, creatorBps: 9800 },
    { assetBps: 2850.5, perpBps: 5699.5, creatorBps: 950 },
  ])("rejects a split not summing to 9500 in whole bps: %o", (split) => {
    expect(() => launchSplitRewards({ operator: OPERATOR, creator: CREATOR, split })).toThrow(LaunchConfigError);
  });
});

describe("tick maths", () => {
  it("sqrtPriceAtTick is TickMath's (known values)", () => {
    expect(sqrtPriceAtTick(0)).toBe(2n ** 96n);
    expect(sqrtPriceAtTick(MIN_TICK)).toBe(4295128739n);
    expect(sqrtPriceAtTick(MAX_TICK)).toBe(1461446703485210103287273052203988822378723970342n);
    expect(() => sqrtPriceAtTick(MAX_TICK + 1)).toThrow(RangeError);
  });

  it.each([1_000n, 10_000n, 27_000n, 69_420n, 1_000_000n, 1_500_000_000n])("a %s USDC market cap gives the SDK's tick (getTickFromMarketCapUSDC)", (usdc) => {
    expect(tickFromMarketCap(usdc * 10n ** 6n, 200)).toBe(getTickFromMarketCapUSDC(Number(usdc), 200));
    expect(tickFromMarketCap(usdc * 10n ** 6n, 60)).toBe(getTickFromMarketCapUSDC(Number(usdc), 60));
  });

  it("rounds down to the spacing and brackets the market cap", () => {
    const cap = 10_000n * 10n ** 6n;
    const tick = tickFromMarketCap(cap, 200);
    expect(tick).toBe(-437_600);
    expect(marketCapAtTick(tick)).toBeLessThanOrEqual(cap);
    expect(marketCapAtTick(tick + 200)).toBeGreaterThan(cap);
    // Exact at a boundary: the market cap of a tick maps back to that tick.
    const exact = tickFromMarketCap(marketCapAtTick(-437_601) + 1n, 1);
    expect(exact).toBe(-437_601);
  });

  it("takes the market cap in base units of any paired token (3 WETH)", () => {
    expect(tickFromMarketCap(3n * 10n ** 18n, 200)).toBe(Math.floor(Math.log(3e18 / 1e29) / Math.log(1.0001) / 200) * 200);
  });

  it("rejects a non-positive market cap", () => {
    expect(() => tickFromMarketCap(0n)).toThrow(LaunchConfigError);
  });
});

describe("buildDeploymentConfig", () => {
  const baseConfig = loadConfig({ CHAIN_ID: "8453", RPC_URL: "https://base.example" });
  const sdkTransaction = async (
    fees: { clankerFee: number; pairedFee: number; startingFee: number; endingFee: number; secondsToDecay: number },
    startTick: number,
  ) => {
    const tx = await new ClankerSdk().getDeployTransaction({
      chainId: 8453,
      name: base.name,
      symbol: base.symbol,
      image: base.image,
      tokenAdmin: CREATOR,
      salt: SALT,
      metadata: {},
      context: { interface: "SDK" },
      pool: {
        pairedToken: BASE_USDC,
        tickIfToken0IsClanker: startTick,
        tickSpacing: 200,
        positions: [{ tickLower: startTick, tickUpper: startTick + 110_400, positionBps: 10_000 }],
      },
      // The SDK takes LP fees in bps; the hook and our config take pips.
      fees: { type: "static", clankerFee: fees.clankerFee / 100, pairedFee: fees.pairedFee / 100 },
      sniperFees: { startingFee: fees.startingFee, endingFee: fees.endingFee, secondsToDecay: fees.secondsToDecay },
      rewards: {
        recipients: [
          { admin: OPERATOR, recipient: OPERATOR, bps: 9050, token: "Paired" },
          { admin: CREATOR, recipient: CREATOR, bps: 950, token: "Paired" },
        ],
      },
    } as never);
    return { to: tx.address, data: encodeFunctionData({ abi: tx.abi, functionName: tx.functionName, args: tx.args } as never), value: tx.value };
  };

  it.each([
    ["the default fees", baseConfig.launchFees],
    ["other fees", { ...baseConfig.launchFees, clankerFee: 5_000, pairedFee: 20_000, startingFee: 500_000, endingFee: 50_000, secondsToDecay: 30 }],
  ])("builds clanker-sdk's deploy transaction for Base byte for byte with %s", async (_, fees) => {
    const startTick = tickFromMarketCap(10_000n * 10n ** 6n, 200);
    const config = { ...baseConfig, launchFees: fees };
    const ours = buildDeploymentConfig({
      ...base,
      locker: requireContract(config, "lpLocker"),
      startingMarketCap: 10_000n * 10n ** 6n,
      fees: requireLaunchFees(config),
    });
    const tx = { to: requireContract(config, "launcher"), data: encodeDeployToken(ours), value: 0n };
    expect(tx).toEqual(await sdkTransaction(fees, startTick));
    expect(ours.poolConfig.hook).toBe("0xb429d62f8f3bFFb98CdB9569533eA23bF0Ba28CC");
    expect(ours.mevModuleConfig.mevModule).toBe("0xebB25BB797D82CB78E1bc70406b13233c0854413");
  });

  it("builds clanker-sdk's deploy transaction for Base byte for byte with a dynamic fee (the dynamic-fee V2 hook)", async () => {
    const startTick = tickFromMarketCap(10_000n * 10n ** 6n, 200);
    // The operator picks the dynamic-fee V2 hook and its fee range by config; the curve's other knobs are the SDK's.
    const dynamicConfig = loadConfig({ CHAIN_ID: "8453", RPC_URL: "https://base.example", LAUNCH_FEE_TYPE: "dynamic", LAUNCH_DYNAMIC_MAX_FEE_PIPS: "80000" });
    const configured = requireLaunchFees(dynamicConfig);
    expect(configured).toMatchObject({ hook: "0xd60D6B218116cFd801E28F78d011a203D2b068Cc", dynamic: { ...DYNAMIC_BASIC_FEES, maxLpFee: 80_000 } });
    const fees = { ...configured, dynamic: { ...configured.dynamic!, feeControlNumerator: 123_456_789n, resetTickFilter: 150 } };
    const ours = buildDeploymentConfig({ ...base, locker: requireContract(baseConfig, "lpLocker"), startingMarketCap: 10_000n * 10n ** 6n, fees });
    const tx = await new ClankerSdk().getDeployTransaction({
      chainId: 8453,
      name: base.name,
      symbol: base.symbol,
      image: base.image,
      tokenAdmin: CREATOR,
      salt: SALT,
      metadata: {},
      context: { interface: "SDK" },
      pool: {
        pairedToken: BASE_USDC,
        tickIfToken0IsClanker: startTick,
        tickSpacing: 200,
        positions: [{ tickLower: startTick, tickUpper: startTick + 110_400, positionBps: 10_000 }],
      },
      // The SDK takes the base and maximum fees in bps; the hook and our config take pips.
      fees: {
        type: "dynamic",
        baseFee: 100,
        maxFee: 800,
        referenceTickFilterPeriod: 30,
        resetPeriod: 120,
        resetTickFilter: 150,
        feeControlNumerator: 123_456_789,
        decayFilterBps: 7_500,
      },
      rewards: {
        recipients: [
          { admin: OPERATOR, recipient: OPERATOR, bps: 9050, token: "Paired" },
          { admin: CREATOR, recipient: CREATOR, bps: 950, token: "Paired" },
        ],
      },
    } as never);
    const theirs = { to: tx.address, data: encodeFunctionData({ abi: tx.abi, functionName: tx.functionName, args: tx.args } as never), value: tx.value };
    expect({ to: requireContract(baseConfig, "launcher"), data: encodeDeployToken(ours), value: 0n }).toEqual(theirs);
    expect(ours.poolConfig.hook).toBe("0xd60D6B218116cFd801E28F78d011a203D2b068Cc");
    expect(decodePoolData(ours.poolConfig.poolData).dynamic).toEqual(fees.dynamic);
    expect(describeDeploymentConfig(ours, { symbol: "USDC", decimals: 6 }).hook.buyFee).toMatch(/^1% to 8% LP fee, rising with the pool's volatility/);
  });

  it("refuses a dynamic fee range the hook would refuse, naming the variable", () => {
    const env = { CHAIN_ID: "8453", RPC_URL: "https://base.example", LAUNCH_FEE_TYPE: "dynamic" };
    expect(() => loadConfig({ ...env, LAUNCH_FEE_TYPE: "curvy" })).toThrow(/LAUNCH_FEE_TYPE.*static or dynamic/);
    expect(() => loadConfig({ ...env, LAUNCH_DYNAMIC_BASE_FEE_PIPS: "1000" })).toThrow(/LAUNCH_DYNAMIC_BASE_FEE_PIPS/);
    expect(() => loadConfig({ ...env, LAUNCH_DYNAMIC_BASE_FEE_PIPS: "30000", LAUNCH_DYNAMIC_MAX_FEE_PIPS: "20000" })).toThrow(
      /LAUNCH_DYNAMIC_MAX_FEE_PIPS.*at least/,
    );
    expect(requireLaunchFees(loadConfig({ CHAIN_ID: "8453", RPC_URL: "https://base.example" })).dynamic).toBeUndefined();
  });

  it("encodes the 1%/1% V2 pool data as the eight words production expects", () => {
    const words = [0x20, 0, 0x60, 0x80, 0, 0x40, 0x2710, 0x2710].map((w) => w.toString(16).padStart(64, "0")).join("");
    expect(encodePoolData(10_000, 10_000)).toBe(`0x${words}`);
    expect(decodePoolData(encodePoolData(3_000, 70_000))).toMatchObject({ clankerFee: 3_000, pairedFee: 70_000 });
    expect(decodeMevModuleData(encodeMevModuleData(666_777, 41_673, 15))).toEqual({ startingFee: 666_777, endingFee: 41_673, secondsToDecay: 15 });
  });

  it("describes the whole launch in words", () => {
    const config = buildDeploymentConfig({ ...base, tickIfToken0IsClanker: -230_400, fees: FEES });
    const words = describeDeploymentConfig(config, { symbol: "USDC", decimals: 6 });
    expect(words.hook.buyFee).toBe("1% LP fee when USDC is the input (pairedFee)");
    // Asymmetric fees: the text says what a buy after a sell really pays.
    const lopsided = describeDeploymentConfig(buildDeploymentConfig({ ...base, tickIfToken0IsClanker: -230_400, fees: { ...FEES, clankerFee: 50_000 } }), {
      symbol: "USDC",
      decimals: 6,
    });
    expect(lopsided.hook.buyFee).toMatch(/^1% LP fee when USDC is the input \(pairedFee\); a buy that follows a sell pays the sell fee/);
    expect(lopsided.hook.sellFee).toMatch(/^5% LP fee when the token is the input/);
    expect(words.mevModule.decay).toBe("sniper fee 66.6777% decaying to 4.1673% over 15 s from the last auction");
    expect(words.rewards.map((r) => [r.share, r.paidIn])).toEqual([
      ["9050 bps (90.5%)", "the paired token"],
      ["950 bps (9.5%)", "the paired token"],
    ]);
    expect(words.startingMarketCap).toMatch(/^\d+\.\d+ USDC \(tick -230400\)$/);
  });

  it("places the whole supply in one standard-width position from the starting tick", () => {
    const config = buildDeploymentConfig({ ...base, tickIfToken0IsClanker: -230_400 });
    expect(config.poolConfig.tickIfToken0IsClanker).toBe(-230_400);
    expect(config.lockerConfig.tickLower).toEqual([-230_400]);
    expect(config.lockerConfig.tickUpper).toEqual([-120_000]);
    expect(config.lockerConfig.positionBps).toEqual([10_000]);
    const odd = buildDeploymentConfig({ ...base, tickIfToken0IsClanker: -230_340, tickSpacing: 60 });
    expect(odd.lockerConfig.tickUpper).toEqual([-230_340 + 110_400]);
  });

  it("encodes lockerData as abi.encode((uint8[] feePreference))", () => {
    const expected: Hex = `0x${[0x20, 0x20, 2, FeeIn.Paired, FeeIn.Paired].map((w) => w.toString(16).padStart(64, "0")).join("")}`;
    expect(encodeLockerData([FeeIn.Paired, FeeIn.Paired])).toBe(expected);
    expect(buildDeploymentConfig({ ...base, tickIfToken0IsClanker: 0 }).lockerConfig.lockerData).toBe(expected);
    expect(encodeLockerData([FeeIn.Both, FeeIn.Clanker, FeeIn.Paired])).toBe(
      encodeAbiParameters([{ type: "tuple", components: [{ name: "feePreference", type: "uint8[]" }] }], [{ feePreference: [0, 2, 1] }]),
    );
  });

  it("encodes deployToken with the production selector", () => {
    const data = encodeDeployToken(buildDeploymentConfig({ ...base, tickIfToken0IsClanker: 0 }));
    expect(data.slice(0, 10)).toBe("0xdf40224a");
  });

  const reward = (bps: number, feeIn: number = FeeIn.Paired): RewardRecipient => ({ admin: OPERATOR, recipient: OPERATOR, bps, feeIn: feeIn as never });
  it.each([
    ["bps not summing to 10000", { rewards: [reward(9000)] }],
    ["a zero bps entry", { rewards: [reward(10_000), reward(0)] }],
    ["more than 7 recipients", { rewards: Array.from({ length: 8 }, () => reward(1250)) }],
    ["no recipients", { rewards: [] }],
    ["an unknown fee preference", { rewards: [reward(10_000, 3)] }],
    ["a zero recipient", { rewards: [{ ...reward(10_000), recipient: "0x0000000000000000000000000000000000000000" }] }],
    ["a tick off the spacing", { tickIfToken0IsClanker: -230_401 }],
    ["both a tick and a market cap", { tickIfToken0IsClanker: 0, startingMarketCap: 1n }],
    ["neither a tick nor a market cap", {}],
    ["a range past the top tick", { tickIfToken0IsClanker: MAX_TICK - (MAX_TICK % 200) - 200 }],
    ["a starting tick below the bottom tick", { tickIfToken0IsClanker: MIN_TICK - (MIN_TICK % 200) - 200 }],
    ["a short salt", { salt: "0x01", tickIfToken0IsClanker: 0 }],
    ["an empty symbol", { symbol: " ", tickIfToken0IsClanker: 0 }],
    ["a zero hook", { tickIfToken0IsClanker: 0, fees: { ...FEES, hook: "0x0000000000000000000000000000000000000000" } }],
    ["a zero MEV module", { tickIfToken0IsClanker: 0, fees: { ...FEES, mevModule: "0x0000000000000000000000000000000000000000" } }],
    ["a pool fee above 10%", { tickIfToken0IsClanker: 0, fees: { ...FEES, pairedFee: 100_001 } }],
    ["a dynamic base fee below 0.25%", { tickIfToken0IsClanker: 0, fees: { ...FEES, dynamic: { ...DYNAMIC_BASIC_FEES, baseFee: 2_499 } } }],
    ["a dynamic maximum fee above 10%", { tickIfToken0IsClanker: 0, fees: { ...FEES, dynamic: { ...DYNAMIC_BASIC_FEES, maxLpFee: 100_001 } } }],
    ["a dynamic base fee above its maximum", { tickIfToken0IsClanker: 0, fees: { ...FEES, dynamic: { ...DYNAMIC_BASIC_FEES, baseFee: 60_000 } } }],
    ["a dynamic decay above 100%", { tickIfToken0IsClanker: 0, fees: { ...FEES, dynamic: { ...DYNAMIC_BASIC_FEES, decayFilterBps: 10_001 } } }],
    ["a sniper fee below 3%", { tickIfToken0IsClanker: 0, fees: { ...FEES, endingFee: 29_999 } }],
    ["a sniper fee that rises", { tickIfToken0IsClanker: 0, fees: { ...FEES, startingFee: 40_000, endingFee: 50_000 } }],
    ["a decay over 120 s", { tickIfToken0IsClanker: 0, fees: { ...FEES, secondsToDecay: 121 } }],
  ] as const)("rejects %s", (_, override) => {
    expect(() => buildDeploymentConfig({ ...base, ...(override as object) } as never)).toThrow(LaunchConfigError);
  });
});
