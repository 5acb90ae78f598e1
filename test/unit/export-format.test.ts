/**
 * The exports' fast paths against the service's reference functions: decimals from digit
 * strings against `formatDecimal` (bigint arithmetic), cached EIP-55 checksums against viem's
 * `getAddress`, for any value.
 */
import fc from "fast-check";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { formatDecimal } from "../../common/money.js";
import { decimalOfDigits, fastChecksum } from "../../api/read/export.js";

describe("decimalOfDigits", () => {
  it("equals formatDecimal for any integer and any decimals", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 40n), max: 10n ** 80n }), fc.integer({ min: 0, max: 30 }), (value, decimals) => {
        expect(decimalOfDigits(value.toString(), decimals)).toBe(formatDecimal(value, decimals));
      }),
      { numRuns: 5_000 },
    );
    for (const [v, d, out] of [
      [0n, 18, "0"],
      [1n, 6, "0.000001"],
      [1_500_000n, 6, "1.5"],
      [10n ** 18n, 18, "1"],
      [-1n, 6, "-0.000001"],
      [12n, 0, "12"],
    ] as const) {
      expect(decimalOfDigits(v.toString(), d)).toBe(out);
    }
  });
});

describe("fastChecksum", () => {
  it("equals viem's getAddress, from lowercase or checksummed input, cached or not", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
        const lower = `0x${Buffer.from(bytes).toString("hex")}`;
        const expected = getAddress(lower);
        expect(fastChecksum(lower)).toBe(expected);
        expect(fastChecksum(expected)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});
