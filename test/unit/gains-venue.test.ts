/**
 * The `gains-v10` venue's pure parts: it is a known adapter declared for the devnet and Base (where
 * its preflight, engine/perps/gains-preflight.ts, gates each desk cycle), its calldata is gTrade v10's (selectors, 1e3 leverage, 1e10 prices,
 * USDC collateral index 1, 1% slippage), gTrade's minimum (collateral ≥ 5 × the pair's minimum fee)
 * reaches the desks as a minimum leveraged position that any allowed leverage meets only with that
 * collateral, a margin top-up lowers the leverage without pulling more than asked, and order ids are
 * pending-order indices read from the order's receipt.
 */
import { type Address, type Hex, type TransactionReceipt, decodeFunctionData, encodeAbiParameters, encodeEventTopics, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { gainsEventsAbi, gainsTradingAbi } from "../../common/abis/gains.js";
import { DEVNET_CHAIN_ID, loadConfig } from "../../common/config.js";
import { notionalOf } from "../../common/perps-math.js";
import { PERPS_VENUES, perpsVenueStatus } from "../../common/perps-venues.js";
import { requiredNotional } from "../../engine/decisions/desk-entry.js";
import {
  GAINS_SLIPPAGE_P,
  encodeGainsClose,
  encodeGainsIncrease,
  encodeGainsOpen,
  fromGainsLeverage,
  fromGainsTrade,
  gainsMarginLeverage,
  gainsMinCollateral,
  gainsOrderIdOf,
  gainsPairLimits,
  gainsV10,
  toGainsLeverage,
} from "../../engine/perps/gains-v10.js";
import { VENUES, selectPerpsVenue } from "../../engine/perps/venue.js";

const OPERATOR = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as Address;
const DIAMOND = "0x6cD5aC19a07518A8092eEFfDA4f1174C72704eeb" as Address;
const E10 = 10_000_000_000n;

describe("the gains-v10 adapter", () => {
  it("is a known PERPS_VENUE, declared for the devnet and Base", () => {
    expect(VENUES["gains-v10"]).toBe(gainsV10);
    expect(gainsV10.support).toEqual(PERPS_VENUES["gains-v10"]);
    expect(gainsV10.support).toEqual({ protocol: "Gains Network gTrade", version: "v10", chainIds: [DEVNET_CHAIN_ID, 8453] });
    const devnet = loadConfig({ PERPS_VENUE: "gains-v10" });
    expect(selectPerpsVenue(devnet).venue).toBe(gainsV10);
    expect(perpsVenueStatus({ perpsVenue: "gains-v10", chainId: 8453 }).enabled).toBe(true);
    const other = perpsVenueStatus({ perpsVenue: "gains-v10", chainId: 1 });
    expect(other.enabled).toBe(false);
    expect(other.enabled ? "" : other.reason).toMatch(
      /^desks are off: the perps adapter gains-v10 speaks Gains Network gTrade v10, which it declares for chains 31337, 8453 only, not chain 1/,
    );
  });

  it("finds Base's diamond on Base and the devnet twin in the deployments", () => {
    expect(loadConfig({ CHAIN_ID: "8453", DEPLOYMENTS_FILE: "/nonexistent.json" }).gainsDiamond).toBe(DIAMOND);
    expect(loadConfig({ DEPLOYMENTS_FILE: "/nonexistent.json" }).gainsDiamond).toBeUndefined();
  });
});

describe("units", () => {
  it("leverage: engine 1e10 to gTrade 1e3 rounding down, and back", () => {
    expect(toGainsLeverage(5n * E10)).toBe(5_000);
    expect(toGainsLeverage(3_456_789_012n * 10n)).toBe(3_456);
    expect(fromGainsLeverage(1_100)).toBe(11n * 10n ** 9n);
    expect(() => toGainsLeverage(9_999_999n)).toThrow(/outside gTrade's range/);
    expect(() => toGainsLeverage(-E10)).toThrow(/outside gTrade's range/);
  });

  it("a trade in the engine's terms: collateral, 1e10 price and leverage, side, the block it opened in", () => {
    const t = fromGainsTrade(
      {
        user: OPERATOR.toLowerCase() as Address,
        index: 7,
        pairIndex: 1,
        leverage: 12_500,
        long: false,
        isOpen: true,
        collateralIndex: 1,
        tradeType: 0,
        collateralAmount: 123_456_789n,
        openPrice: 3_000n * E10,
        tp: 0n,
        sl: 0n,
        isCounterTrade: false,
        positionSizeToken: 0n,
        __placeholder: 0,
      },
      42n,
    );
    expect(t).toEqual({
      trader: OPERATOR,
      pairIndex: 1,
      index: 7,
      collateral: 123_456_789n,
      openPrice: 3_000n * E10,
      side: "short",
      leverage: 125n * 10n ** 9n,
      timestamp: 42n,
    });
  });
});

describe("minimums", () => {
  it("collateral ≥ 5 × the pair's minimum fee (USD 1e18), in USDC at its USD price, rounded up", () => {
    // Arbitrum's crypto pairs: $166.667 × 0.06% = $0.1000002: half a dollar of USDC, rounded up.
    expect(gainsMinCollateral(100_000_200_000_000_000n)).toBe(500_001n);
    expect(gainsMinCollateral(100_000_000_000_000_000n)).toBe(500_000n);
    // USDC at $0.5 doubles it.
    expect(gainsMinCollateral(100_000_000_000_000_000n, 50_000_000n)).toBe(1_000_000n);
    expect(() => gainsMinCollateral(1n, 0n)).toThrow(/not positive/);
  });

  it("as pair limits: any leverage within the bounds reaches the notional minimum only with the minimum collateral", () => {
    const limits = gainsPairLimits({ minLeverage: 1_100n, maxLeverage: 150_000n, minCollateral: 500_001n });
    expect(limits).toEqual({ minLevPosUsdc: 75_000_150n, minLeverage: 11n * 10n ** 9n, maxLeverage: 150n * E10, leverageStep: 10n ** 7n });
    // Beside PERPS_MIN_NOTIONAL_USDC: the larger wins.
    expect(requiredNotional(100_000_000n, limits)).toBe(100_000_000n);
    expect(requiredNotional(10_000_000n, limits)).toBe(75_000_150n);
    for (const leverage of [limits.minLeverage, 5n * E10, limits.maxLeverage]) {
      // The least collateral whose notional reaches the minimum at this leverage meets gTrade's rule.
      const required = requiredNotional(0n, limits);
      const collateral = (required * E10 + leverage - 1n) / leverage;
      expect(notionalOf(collateral, leverage)).toBeGreaterThanOrEqual(required);
      expect(collateral).toBeGreaterThanOrEqual(500_001n);
    }
  });
});

describe("calldata", () => {
  it("opens a market trade: openTrade with the 15-field Trade, 1% slippage, no referrer, no ETH", () => {
    const data = encodeGainsOpen({ trader: OPERATOR, pairIndex: 1, collateral: 25_000_000n, price: 3_123n * E10, side: "long", leverage: 7n * E10 });
    expect(data.slice(0, 10)).toBe("0x5bfcc4f8");
    const { functionName, args } = decodeFunctionData({ abi: gainsTradingAbi, data });
    expect(functionName).toBe("openTrade");
    expect(args).toEqual([
      {
        user: OPERATOR,
        index: 0,
        pairIndex: 1,
        leverage: 7_000,
        long: true,
        isOpen: true,
        collateralIndex: 1,
        tradeType: 0,
        collateralAmount: 25_000_000n,
        openPrice: 3_123n * E10,
        tp: 0n,
        sl: 0n,
        isCounterTrade: false,
        positionSizeToken: 0n,
        __placeholder: 0,
      },
      GAINS_SLIPPAGE_P,
      "0x0000000000000000000000000000000000000000",
    ]);
    expect(GAINS_SLIPPAGE_P).toBe(1_000);
  });

  it("closes all with closeTradeMarket(index, expectedPrice), part with decreasePositionSize(index, amount, 0, expectedPrice)", () => {
    const full = encodeGainsClose({ index: 3, amount: 10_000_000n, collateral: 10_000_000n, price: 60_000n * E10 });
    expect(full.slice(0, 10)).toBe(toFunctionSelector("closeTradeMarket(uint32,uint64)"));
    expect(decodeFunctionData({ abi: gainsTradingAbi, data: full }).args).toEqual([3, 60_000n * E10]);
    const part = encodeGainsClose({ index: 3, amount: 4_000_000n, collateral: 10_000_000n, price: 60_000n * E10 });
    expect(part.slice(0, 10)).toBe("0xa7cac572");
    expect(decodeFunctionData({ abi: gainsTradingAbi, data: part }).args).toEqual([3, 4_000_000n, 0, 60_000n * E10]);
  });

  it("increases with increasePositionSize(index, collateral, leverage 1e3, expectedPrice, slippage)", () => {
    const data = encodeGainsIncrease({ index: 2, collateral: 5_000_000n, leverage: 3n * E10, price: 2_900n * E10 });
    expect(data.slice(0, 10)).toBe("0x24058ad3");
    expect(decodeFunctionData({ abi: gainsTradingAbi, data }).args).toEqual([2, 5_000_000n, 3_000, 2_900n * E10, 1_000]);
  });

  it("adds margin by lowering the leverage at the same size, rounded up so no more than the amount is pulled", () => {
    // 100 USDC at 5x + 25 USDC: 4x exactly, pulling 25.
    expect(gainsMarginLeverage({ collateral: 100_000_000n, leverage: 5_000, amount: 25_000_000n })).toBe(4_000);
    // 100 USDC at 5x + 30 USDC: 3.846x → 3.847x, pulling 29.97… ≤ 30.
    const lev = gainsMarginLeverage({ collateral: 100_000_000n, leverage: 5_000, amount: 30_000_000n });
    expect(lev).toBe(3_847);
    const pulled = (100_000_000n * 5_000n) / BigInt(lev) - 100_000_000n;
    expect(pulled).toBeLessThanOrEqual(30_000_000n);
    expect(pulled).toBeGreaterThan(29_900_000n);
    expect(() => gainsMarginLeverage({ collateral: 0n, leverage: 5_000, amount: 1n })).toThrow(/no collateral/);
  });
});

describe("order ids", () => {
  const log = (eventName: "MarketOrderInitiated" | "PositionSizeUpdateInitiated", index: number) => {
    const abiEvent = gainsEventsAbi.find((e) => e.type === "event" && e.name === eventName)!;
    const topics =
      eventName === "MarketOrderInitiated"
        ? encodeEventTopics({ abi: gainsEventsAbi, eventName, args: { trader: OPERATOR, pairIndex: 1 } })
        : encodeEventTopics({ abi: gainsEventsAbi, eventName, args: { trader: OPERATOR, pairIndex: 1n, index: 4n } });
    const inputs = (abiEvent as { inputs: readonly { indexed?: boolean }[] }).inputs.filter((i) => !i.indexed);
    const values = eventName === "MarketOrderInitiated" ? [{ user: OPERATOR, index }, true] : [{ user: OPERATOR, index }, true, 5n, 0n];
    return { address: DIAMOND, topics, data: encodeAbiParameters(inputs as never, values as never) as Hex };
  };
  const receipt = (logs: unknown[]) => ({ logs }) as unknown as TransactionReceipt;

  it("is the pending-order index of the order's MarketOrderInitiated or PositionSizeUpdateInitiated", () => {
    expect(gainsOrderIdOf(receipt([log("MarketOrderInitiated", 17)]))).toBe(17n);
    expect(gainsOrderIdOf(receipt([log("PositionSizeUpdateInitiated", 9)]))).toBe(9n);
    expect(gainsOrderIdOf(receipt([]))).toBeUndefined();
  });
});
