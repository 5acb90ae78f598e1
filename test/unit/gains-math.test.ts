/**
 * gTrade v10's liquidation price in integers (common/perps-math.ts `gainsLiquidationPrice`), as the gTrade SDK's
 * trade/liquidation `getLiquidationPrice` describes it: the open price moved by
 * openPrice × (collateral × 90% − fees) / collateral / leverage, fees being the closing fee and holding fees
 * less the PnL already realized net of its trading fees.
 */
import { describe, expect, it } from "vitest";
import { GAINS_LIQ_THRESHOLD_P, gainsLiquidationPrice, gainsPositionFee, liquidationPrice } from "../../common/perps-math.js";

const X = 10_000_000_000n; // 1e10: prices, leverage, percent
const USDC = (n: bigint) => n * 1_000_000n;

describe("gainsLiquidationPrice", () => {
  const trade = { openPrice: 3_000n * X, leverage: 10n * X, collateral: USDC(100n) };

  it("without fees: 90% of the collateral lost, the same price as Avantis v1's formula", () => {
    expect(GAINS_LIQ_THRESHOLD_P).toBe(90n * X);
    expect(gainsLiquidationPrice({ ...trade, side: "long" })).toBe(2_730n * X); // 3000 × (1 − 0.9 / 10)
    expect(gainsLiquidationPrice({ ...trade, side: "short" })).toBe(3_270n * X);
    expect(gainsLiquidationPrice({ ...trade, side: "long" })).toBe(liquidationPrice(trade.openPrice, "long", trade.leverage));
  });

  it("the closing fee brings it toward the open price", () => {
    // 0.06% of the 1,000 USDC position: 0.6 USDC. Distance 3000 × (90 − 0.6) / 100 / 10 = 268.2.
    const closingFee = gainsPositionFee(USDC(1_000n), 600_000_000n, 0n);
    expect(closingFee).toBe(600_000n);
    expect(gainsLiquidationPrice({ ...trade, side: "long", closingFee })).toBe(27_318n * (X / 10n)); // 2731.8
    expect(gainsLiquidationPrice({ ...trade, side: "short", closingFee })).toBe(32_682n * (X / 10n)); // 3268.2
  });

  it("realized PnL net of its trading fees offsets the fees; holding fees add to them", () => {
    // fees = 0.6 + 0 − (1 − 0.6) = 0.2 USDC: distance 3000 × 89.8 / 1000 = 269.4.
    const realized = { closingFee: 600_000n, realizedPnl: USDC(1n), realizedTradingFees: 600_000n };
    expect(gainsLiquidationPrice({ ...trade, side: "long", ...realized })).toBe(27_306n * (X / 10n));
    // Holding fees of 0.4 USDC: fees 0.6, distance 3000 × 89.4 / 1000 = 268.2.
    expect(gainsLiquidationPrice({ ...trade, side: "long", ...realized, holdingFees: 400_000n })).toBe(27_318n * (X / 10n));
  });

  it("a group's threshold replaces the default 90%", () => {
    // 80%: distance 3000 × 0.8 / 10 = 240.
    expect(gainsLiquidationPrice({ ...trade, side: "long", liqThresholdP: 80n * X })).toBe(2_760n * X);
  });

  it("rounds the distance toward zero, in base units of the 1e10 price", () => {
    // 1 × 0.9 / 7 = 0.12857142857142…: 1285714285 at 1e10.
    const t = { openPrice: X, leverage: 7n * X, collateral: USDC(1n) };
    expect(gainsLiquidationPrice({ ...t, side: "long" })).toBe(8_714_285_715n);
    expect(gainsLiquidationPrice({ ...t, side: "short" })).toBe(11_285_714_285n);
  });

  it("fees beyond the threshold put it past the open price; it never goes below zero", () => {
    // fees 1 USDC on 1 USDC of collateral at 10x: distance 1 × (0.9 − 1) / 10 = −0.01.
    const t = { openPrice: X, leverage: 10n * X, collateral: USDC(1n), closingFee: USDC(1n) };
    expect(gainsLiquidationPrice({ ...t, side: "long" })).toBe(X + X / 100n);
    expect(gainsLiquidationPrice({ ...t, side: "short" })).toBe(X - X / 100n);
    // Realized profit of 10 USDC at 1x: a long is never liquidated above zero.
    expect(gainsLiquidationPrice({ openPrice: X, leverage: X, collateral: USDC(1n), realizedPnl: USDC(10n), side: "long" })).toBe(0n);
  });

  it("answers zero for a trade without leverage or collateral", () => {
    expect(gainsLiquidationPrice({ ...trade, side: "long", leverage: 0n })).toBe(0n);
    expect(gainsLiquidationPrice({ ...trade, side: "long", collateral: 0n })).toBe(0n);
  });
});
