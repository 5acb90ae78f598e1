import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_SPLIT } from "../../common/constants.js";
import { splitProtocolUsdc } from "../../common/split.js";

const splitArb = fc
  .tuple(fc.integer({ min: 0, max: 9_500 }), fc.integer({ min: 0, max: 9_500 }))
  .filter(([a, p]) => a + p <= 9_500)
  .map(([assetBps, perpBps]) => ({ assetBps, perpBps }));

describe("splitProtocolUsdc", () => {
  it("splits the default 500 : 2850 : 5700 to the base unit", () => {
    // 9050 base units divide exactly: 500 / 2850 / 5700.
    expect(splitProtocolUsdc(9_050n, DEFAULT_SPLIT)).toEqual({ protocol: 500n, asset: 2_850n, perp: 5_700n });
    // 1 USDC: asset = floor(1e6·2850/9050) = 314917, perp = floor(1e6·5700/9050) = 629834, protocol takes the rest.
    expect(splitProtocolUsdc(1_000_000n, DEFAULT_SPLIT)).toEqual({ protocol: 55_249n, asset: 314_917n, perp: 629_834n });
    expect(splitProtocolUsdc(0n, DEFAULT_SPLIT)).toEqual({ protocol: 0n, asset: 0n, perp: 0n });
    expect(splitProtocolUsdc(1n, DEFAULT_SPLIT)).toEqual({ protocol: 1n, asset: 0n, perp: 0n });
  });

  it("gives everything to the protocol leg when the token keeps no asset or perp share", () => {
    expect(splitProtocolUsdc(123_456_789n, { assetBps: 0, perpBps: 0 })).toEqual({ protocol: 123_456_789n, asset: 0n, perp: 0n });
  });

  it("legs always sum to the input and are never negative (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), splitArb, (usdc, split) => {
        const legs = splitProtocolUsdc(usdc, split);
        expect(legs.protocol + legs.asset + legs.perp).toBe(usdc);
        expect(legs.protocol >= 0n && legs.asset >= 0n && legs.perp >= 0n).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });

  it("each leg is within one base unit of its exact proportion, the remainder on the protocol leg (property)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 24n }), splitArb, (usdc, split) => {
        const legs = splitProtocolUsdc(usdc, split);
        const w = BigInt(500 + split.assetBps + split.perpBps);
        // floor(x) ≤ x < floor(x) + 1, for asset and perp
        expect(legs.asset * w <= usdc * BigInt(split.assetBps)).toBe(true);
        expect((legs.asset + 1n) * w > usdc * BigInt(split.assetBps)).toBe(true);
        expect(legs.perp * w <= usdc * BigInt(split.perpBps)).toBe(true);
        // protocol gets its exact share plus less than 2 units of remainder
        expect(legs.protocol * w >= usdc * 500n).toBe(true);
        expect(legs.protocol * w < usdc * 500n + 2n * w).toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });

  it("rejects negative amounts and invalid splits", () => {
    expect(() => splitProtocolUsdc(-1n, DEFAULT_SPLIT)).toThrow(RangeError);
    expect(() => splitProtocolUsdc(1n, { assetBps: -1, perpBps: 0 })).toThrow(RangeError);
    expect(() => splitProtocolUsdc(1n, { assetBps: 1.5, perpBps: 0 })).toThrow(RangeError);
  });
});
