import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { decideDeskEntry, decideDeskIncrease, leverageCap, type PairLimits } from "../../engine/decisions/desk-entry.js";
import { defaultMandate } from "../../core/mandate.js";
import { closeValue, liquidationPrice, percentProfit } from "../../common/perps-math.js";
import { decideTakeProfit } from "../../engine/decisions/profit.js";
import { decideDeskRisk } from "../../engine/decisions/risk.js";
import { priceWindow } from "../../engine/decisions/window.js";

const X = PERPS_PRECISION;
const USDC = 1_000_000n;
const pair: PairLimits = { minLevPosUsdc: 100n * USDC, minLeverage: 2n * X, maxLeverage: 50n * X };
const mandate = defaultMandate(5n * USDC);
const rising = priceWindow([3000, 3001, 3003, 3002, 3005, 3006]);
const falling = priceWindow([3000, 2999, 2997, 2998, 2995, 2994]);

describe("price window", () => {
  it("measures momentum and volatility", () => {
    expect(rising.samples).toBe(6);
    expect(rising.momentum).toBeCloseTo(0.002, 6);
    expect(falling.momentum).toBeLessThan(0);
    expect(priceWindow([100, 100, 100]).volatility).toBe(0);
    expect(priceWindow([]).samples).toBe(0);
  });
});

describe("decideDeskEntry", () => {
  const base = { pair, minNotionalUsdc: 100n * USDC, mandate };

  it("opens long on positive momentum, short on negative, at the mandate's leverage", () => {
    const long = decideDeskEntry({ ...base, perpUsdc: 25n * USDC, window: rising });
    expect(long).toMatchObject({ action: "open", side: "long", leverage: 5n * X, collateral: 25n * USDC, notional: 125n * USDC });
    expect(decideDeskEntry({ ...base, perpUsdc: 25n * USDC, window: falling })).toMatchObject({ action: "open", side: "short" });
  });

  it("waits below the notional minimum: max(PERPS_MIN_NOTIONAL_USDC, the pair's minimum)", () => {
    expect(decideDeskEntry({ ...base, perpUsdc: 19n * USDC, window: rising })).toMatchObject({ action: "wait" });
    expect(decideDeskEntry({ ...base, perpUsdc: 20n * USDC, window: rising })).toMatchObject({ action: "open", notional: 100n * USDC });
    const strictPair = { ...pair, minLevPosUsdc: 150n * USDC };
    const d = decideDeskEntry({ ...base, pair: strictPair, perpUsdc: 25n * USDC, window: rising });
    expect(d.action).toBe("wait");
    expect(d.reason).toContain("the minimum 150 USDC");
  });

  it("waits without perp USDC or while the price window warms up", () => {
    expect(decideDeskEntry({ ...base, perpUsdc: 0n, window: rising }).reason).toMatch(/no perp USDC/);
    expect(decideDeskEntry({ ...base, perpUsdc: 50n * USDC, window: priceWindow([1, 2]) }).reason).toMatch(/warming up/);
    expect(decideDeskEntry({ ...base, perpUsdc: 50n * USDC, window: undefined }).reason).toMatch(/warming up/);
  });

  it("caps leverage by volatility and refuses when even the pair minimum is too much", () => {
    const choppy = priceWindow([3000, 3030, 2990, 3040, 2980, 3050, 2970]);
    const cap = leverageCap(choppy, pair, mandate);
    expect(cap).toBeLessThan(5n * X);
    expect(cap === 0n || cap >= pair.minLeverage).toBe(true);
    const wild = priceWindow([3000, 3600, 2400, 3900, 2100, 4000]);
    expect(leverageCap(wild, pair, mandate)).toBe(0n);
    expect(decideDeskEntry({ ...base, perpUsdc: 1_000n * USDC, window: wild })).toMatchObject({ action: "wait" });
  });

  it("respects the mandate's leverage and desk size caps", () => {
    const m = { ...mandate, maxLeverage: 3n * X, maxDeskUsdc: 40n * USDC };
    expect(decideDeskEntry({ ...base, mandate: m, perpUsdc: 100n * USDC, window: rising })).toMatchObject({
      action: "open",
      leverage: 3n * X,
      collateral: 40n * USDC,
    });
    expect(decideDeskEntry({ ...base, mandate: m, perpUsdc: 100n * USDC, window: rising, deskBasisUsdc: 40n * USDC })).toMatchObject({ action: "wait" });
  });

  it("never opens below the minimum notional or above the caps (property)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10_000n * USDC }),
        fc.array(fc.double({ min: 1000, max: 5000, noNaN: true }), { minLength: 0, maxLength: 20 }),
        (perpUsdc, prices) => {
          const d = decideDeskEntry({ ...base, perpUsdc, window: priceWindow(prices) });
          if (d.action === "open") {
            expect(d.notional >= 100n * USDC).toBe(true);
            expect(d.collateral <= perpUsdc).toBe(true);
            expect(d.leverage >= pair.minLeverage && d.leverage <= mandate.maxLeverage).toBe(true);
          }
        },
      ),
    );
  });
});

describe("decideDeskIncrease", () => {
  const base = { pair, minNotionalUsdc: 100n * USDC, mandate, side: "long" as const, window: rising };
  it("opens another trade when the notional minimum is reached and a slot is free", () => {
    expect(decideDeskIncrease({ ...base, perpUsdc: 30n * USDC, trades: [{ id: 1, collateral: 20n * USDC, leverage: 5n * X }], freeSlots: 2 })).toMatchObject({
      action: "open",
      side: "long",
    });
  });
  it("tops up margin down to the pair's minimum leverage otherwise", () => {
    const d = decideDeskIncrease({ ...base, perpUsdc: 5n * USDC, trades: [{ id: 7, collateral: 20n * USDC, leverage: 5n * X }], freeSlots: 2 });
    expect(d).toMatchObject({ action: "top-up", tradeId: 7, amount: 5n * USDC, newLeverage: 4n * X });
    // size 100 USDC at the 2x minimum allows at most 50 USDC of collateral: 30 more.
    expect(decideDeskIncrease({ ...base, perpUsdc: 80n * USDC, trades: [{ id: 7, collateral: 20n * USDC, leverage: 5n * X }], freeSlots: 0 })).toMatchObject({
      action: "top-up",
      amount: 30n * USDC,
      newLeverage: 2n * X,
    });
    expect(decideDeskIncrease({ ...base, perpUsdc: 5n * USDC, trades: [{ id: 7, collateral: 50n * USDC, leverage: 2n * X }], freeSlots: 0 })).toMatchObject({
      action: "wait",
    });
  });
  it("on a venue with a leverage step (gTrade's 0.001×), tops up only when the leverage, rounded up to a step, goes down", () => {
    const stepped = { ...base, pair: { ...pair, leverageStep: X / 1_000n } };
    const trade = { id: 7, collateral: 22_321_611n, leverage: 4_820n * (X / 1_000n) };
    // 0.817170 USDC on 22.321611 USDC at 4.820×: 4.6498…×, taken as 4.650×.
    expect(decideDeskIncrease({ ...stepped, perpUsdc: 817_170n, trades: [trade], freeSlots: 0 })).toMatchObject({
      action: "top-up",
      amount: 817_170n,
      newLeverage: 4_650n * (X / 1_000n),
    });
    // 0.002 USDC moves it less than a step: gTrade would keep 4.820× and refuse the update, so nothing is sent.
    expect(decideDeskIncrease({ ...stepped, perpUsdc: 2_000n, trades: [trade], freeSlots: 0 })).toMatchObject({
      action: "wait",
      reason: expect.stringContaining("would not lower trade 7's leverage by the venue's step"),
    });
    // Without a step (Avantis v1), the same top-up is sent.
    expect(decideDeskIncrease({ ...base, perpUsdc: 2_000n, trades: [trade], freeSlots: 0 })).toMatchObject({ action: "top-up", amount: 2_000n });
  });
});

describe("perps maths", () => {
  it("matches the exchange's formulas", () => {
    const open = 3_000n * X;
    expect(percentProfit(open, 3_030n * X, "long", 5n * X)).toBe(5n * X); // +1% × 5 = +5%
    expect(percentProfit(open, 3_030n * X, "short", 5n * X)).toBe(-5n * X);
    expect(percentProfit(open, 0n, "long", 50n * X)).toBe(-100n * X);
    expect(closeValue(100n * USDC, 5n * X)).toBe(105n * USDC);
    expect(liquidationPrice(open, "long", 10n * X)).toBe(2_730n * X); // 9% below
    expect(liquidationPrice(open, "short", 10n * X)).toBe(3_270n * X);
  });
});

describe("decideTakeProfit", () => {
  const trade = { side: "long" as const, leverage: 5n * X, collateral: 99_600_000n, basisUsdc: 100n * USDC, openPrice: 3_000n * X };
  it("closes above the threshold and holds below", () => {
    // +3% × 5 = +15% on 99.6 → 114.54 USDC, profit 14.54 ≥ 10% of 100
    expect(decideTakeProfit({ trade, price: 3_090n * X, mandate, minProfitUsdc: USDC })).toMatchObject({ action: "close", profit: 14_540_000n });
    expect(decideTakeProfit({ trade, price: 3_030n * X, mandate, minProfitUsdc: USDC }).action).toBe("hold");
    expect(decideTakeProfit({ trade, price: 2_900n * X, mandate, minProfitUsdc: USDC }).action).toBe("hold");
  });
});

describe("decideDeskRisk", () => {
  const t = { id: 1, side: "long" as const, leverage: 10n * X, collateral: 100n * USDC, basisUsdc: 100n * USDC, openPrice: 3_000n * X };
  const input = { halted: false, trades: [t], mandate, minNotionalUsdc: 100n * USDC };

  it("holds within limits", () => {
    expect(decideDeskRisk({ ...input, price: 3_000n * X })).toMatchObject({ action: "hold", reduce: [] });
  });
  it("halts on drawdown and reduces by half", () => {
    // -6% × 10 = -60% ≥ 50% drawdown
    const d = decideDeskRisk({ ...input, price: 2_820n * X });
    expect(d.action).toBe("halt");
    expect(d.reason).toMatch(/drawdown 6000 bps/);
    expect(d.reduce).toEqual([{ id: 1, amount: 50n * USDC }]);
  });
  it("halts near liquidation and closes fully when half would fall below the minimum notional", () => {
    const small = { ...t, collateral: 15n * USDC, basisUsdc: 15n * USDC };
    // liquidation at 2730; 2740 is 36 bps away
    const d = decideDeskRisk({ ...input, trades: [small], price: 2_740n * X, mandate: { ...mandate, maxDrawdownBps: 10_000 } });
    expect(d.action).toBe("halt");
    expect(d.reason).toMatch(/from liquidation/);
    expect(d.reduce).toEqual([{ id: 1, amount: 15n * USDC }]);
  });
  it("keeps a halted desk halted until it is well within the limits, then unhalts", () => {
    expect(decideDeskRisk({ ...input, halted: true, price: 2_900n * X }).action).toBe("hold"); // -33%: recovering
    // At 10x the liquidation price sits 9% away: never twice the 5% buffer, so it stays halted; at 5x it is 18%.
    expect(decideDeskRisk({ ...input, halted: true, price: 3_000n * X }).action).toBe("hold");
    expect(decideDeskRisk({ ...input, halted: true, trades: [{ ...t, leverage: 5n * X }], price: 2_980n * X })).toMatchObject({ action: "unhalt" });
    expect(decideDeskRisk({ ...input, halted: true, trades: [], price: 2_000n * X })).toMatchObject({ action: "unhalt", reason: "no open exposure" });
  });
  it("never asks to close more than a trade holds (property)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10_000n * USDC }),
        fc.bigInt({ min: 2n, max: 50n }),
        fc.bigInt({ min: 1_000n, max: 5_000n }),
        fc.boolean(),
        (collateral, lev, price, halted) => {
          const d = decideDeskRisk({ ...input, halted, trades: [{ ...t, collateral, basisUsdc: collateral, leverage: lev * X }], price: price * X });
          for (const r of d.reduce) expect(r.amount > 0n && r.amount <= collateral).toBe(true);
          if (halted) expect(d.action).not.toBe("halt");
          else expect(d.action).not.toBe("unhalt");
        },
      ),
    );
  });
});
