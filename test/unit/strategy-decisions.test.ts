/** The desk decisions under each charter strategy (pure): side at entry, growth, and when profit is taken. */
import { describe, expect, it } from "vitest";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { type DeskStrategy, type PairLimits, decideDeskEntry, decideDeskIncrease } from "../../engine/decisions/desk-entry.js";
import { defaultMandate } from "../../core/mandate.js";
import { decideTakeProfit } from "../../engine/decisions/profit.js";
import { priceWindow } from "../../engine/decisions/window.js";

const X = PERPS_PRECISION;
const USDC = 1_000_000n;
const pair: PairLimits = { minLevPosUsdc: 100n * USDC, minLeverage: 2n * X, maxLeverage: 50n * X };
const mandate = { ...defaultMandate(5n * USDC), takeProfitBps: 1_000 };
const rising = priceWindow([3000, 3001, 3003, 3002, 3005, 3006]);
const falling = priceWindow([3000, 2999, 2997, 2998, 2995, 2994]);
const base = { pair, minNotionalUsdc: 100n * USDC, mandate, perpUsdc: 25n * USDC };

describe("desk side by strategy", () => {
  it("momentum (and a token without an agent) follows momentum; hold is long whatever the momentum", () => {
    const cases: [DeskStrategy | undefined, typeof rising, "long" | "short"][] = [
      [undefined, falling, "short"],
      [null, rising, "long"],
      ["momentum", falling, "short"],
      ["momentum", rising, "long"],
      ["hold", falling, "long"],
      ["hold", rising, "long"],
    ];
    for (const [strategy, window, side] of cases) {
      expect(decideDeskEntry({ ...base, window, strategy }), `${strategy} ${window.momentum}`).toMatchObject({ action: "open", side });
    }
    expect(decideDeskEntry({ ...base, window: falling, strategy: "hold" }).reason).toMatch(/hold mandate: long whatever the momentum/);
  });

  it("a hold desk never adds to a short; a momentum desk grows in its own direction", () => {
    const grow = { ...base, perpUsdc: 30n * USDC, window: falling, trades: [{ id: 1, collateral: 20n * USDC, leverage: 5n * X }], freeSlots: 2 };
    expect(decideDeskIncrease({ ...grow, side: "short", strategy: "hold" })).toMatchObject({
      action: "wait",
      reason: expect.stringMatching(/never adds to a short/),
    });
    expect(decideDeskIncrease({ ...grow, side: "long", strategy: "hold" })).toMatchObject({ action: "open", side: "long" });
    expect(decideDeskIncrease({ ...grow, side: "short", strategy: "momentum" })).toMatchObject({ action: "open", side: "short" });
  });
});

describe("take profit by strategy", () => {
  // Opened at 3000 at 5x with 20 USDC: +1% is +5% of what it paid in, under the 10% threshold.
  const long = { side: "long" as const, leverage: 5n * X, collateral: 20n * USDC, basisUsdc: 20n * USDC, openPrice: 3000n * X };
  const short = { ...long, side: "short" as const };
  const input = { mandate, minProfitUsdc: 500_000n };

  it("hold never takes profit before the threshold, even with momentum against it; takes it at the threshold", () => {
    expect(decideTakeProfit({ ...input, trade: long, price: 3030n * X, strategy: "hold", window: falling })).toMatchObject({
      action: "hold",
      reason: expect.stringMatching(/^hold mandate: profit 1 USDC below the take-profit threshold 2 USDC; held$/),
    });
    expect(decideTakeProfit({ ...input, trade: long, price: 3060n * X, strategy: "hold", window: falling })).toMatchObject({ action: "close" });
  });

  it("momentum takes a profit early when momentum turns against the trade, and only then", () => {
    expect(decideTakeProfit({ ...input, trade: long, price: 3030n * X, strategy: "momentum", window: falling })).toMatchObject({
      action: "close",
      reason: expect.stringMatching(/turned against the long/),
    });
    expect(decideTakeProfit({ ...input, trade: long, price: 3030n * X, strategy: "momentum", window: rising }).action).toBe("hold");
    expect(decideTakeProfit({ ...input, trade: short, price: 2970n * X, strategy: "momentum", window: rising })).toMatchObject({
      action: "close",
      reason: expect.stringMatching(/turned against the short/),
    });
    // Not in profit, or a window still warming up: nothing early.
    expect(decideTakeProfit({ ...input, trade: long, price: 2990n * X, strategy: "momentum", window: falling }).action).toBe("hold");
    expect(decideTakeProfit({ ...input, trade: long, price: 3030n * X, strategy: "momentum", window: priceWindow([3000, 2990]) }).action).toBe("hold");
    // A token without an agent keeps the threshold rule alone.
    expect(decideTakeProfit({ ...input, trade: long, price: 3030n * X, strategy: null, window: falling }).action).toBe("hold");
  });
});
