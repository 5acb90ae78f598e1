import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Q96 } from "../../common/uniswap.js";
import { estimateSwapOut, minimumOut, priceImpactBps } from "../../common/quote.js";
import { decodeV4Slot0 } from "../../core/chain/pool-state.js";

describe("swap estimates", () => {
  it("matches the spot price for a tiny trade in deep liquidity, less the fee", () => {
    // price 1 (sqrtP = Q96), 1% fee: 1_000_000 in → ~990_000 out
    const out = estimateSwapOut({ amountIn: 1_000_000n, sqrtPriceX96: Q96, liquidity: 10n ** 24n, zeroForOne: true, feePips: 10_000 });
    expect(out).toBeGreaterThanOrEqual(989_999n);
    expect(out).toBeLessThanOrEqual(990_000n);
  });

  it("never pays more than the spot price; more input never yields less (property)", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1_000_000n, max: 10n ** 24n }),
        fc.bigInt({ min: 10n ** 12n, max: 10n ** 26n }),
        fc.bigInt({ min: Q96 / 1000n, max: Q96 * 1000n }),
        fc.boolean(),
        (amountIn, liquidity, sqrtPriceX96, zeroForOne) => {
          const out = estimateSwapOut({ amountIn, sqrtPriceX96, liquidity, zeroForOne, feePips: 3000 });
          const double = estimateSwapOut({ amountIn: amountIn * 2n, sqrtPriceX96, liquidity, zeroForOne, feePips: 3000 });
          const spot = zeroForOne ? (amountIn * sqrtPriceX96 * sqrtPriceX96) >> 192n : (amountIn << 192n) / (sqrtPriceX96 * sqrtPriceX96);
          expect(out <= spot + 1n).toBe(true);
          expect(double >= out).toBe(true);
        },
      ),
    );
  });

  it("derives the slippage bound and the impact", () => {
    expect(minimumOut(10_000n, 150)).toBe(9_850n);
    expect(priceImpactBps(1_000n, 900n)).toBe(1_000);
    expect(priceImpactBps(0n, 0n)).toBe(0);
  });

  it("decodes a v4 slot0 word", () => {
    const sqrt = Q96 * 3n;
    const tick = -23_028;
    const word = (BigInt(3000) << 208n) | (0n << 184n) | ((BigInt(tick) & 0xffffffn) << 160n) | sqrt;
    expect(decodeV4Slot0(`0x${word.toString(16).padStart(64, "0")}`)).toEqual({ sqrtPriceX96: sqrt, tick, protocolFee: 0, lpFee: 3000 });
  });
});
