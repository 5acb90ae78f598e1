import { describe, expect, it } from "vitest";
import { Q96 } from "../../common/uniswap.js";
import { minimumOut, priceImpactBps } from "../../common/quote.js";
import { decodeV4Slot0 } from "../../common/uniswap.js";

describe("swap bounds", () => {
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
