/**
 * The one formatter of amounts for people (common/units.ts): whole units, grouped, with the
 * currency; USDC exact, 18-decimal amounts cut to 2 decimals (4 significant digits below one),
 * bigint only.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { USDC_UNIT, formatUnits, showUnits } from "../../common/units.js";

const LAUNCH = { symbol: "LAUNCH", decimals: 18 };

describe("amounts for people", () => {
  it.each([
    [5_696_326_210_919_413_364_684_110n, LAUNCH, "5,696,326.21 LAUNCH"],
    [663_743n, USDC_UNIT, "0.663743 USDC"],
    [100_000_000n, USDC_UNIT, "100 USDC"],
    [1_234_567_890_000n, USDC_UNIT, "1,234,567.89 USDC"],
    [0n, LAUNCH, "0 LAUNCH"],
    [1_000n, LAUNCH, "0.000000000000001 LAUNCH"],
    [123_456_789_000n, LAUNCH, "0.0000001234 LAUNCH"],
    [-23_193_597n, USDC_UNIT, "-23.193597 USDC"],
    [10n ** 29n, LAUNCH, "100,000,000,000 LAUNCH"],
  ])("%s → %s", (value, unit, text) => {
    expect(showUnits(value, unit)).toBe(text);
  });

  it("exact keeps every digit; the shown amount never exceeds the amount and never reads zero for a non-zero amount", () => {
    expect(formatUnits(1_234_500_000_000_000_001n, 18, { exact: true })).toBe("1.234500000000000001");
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 40n }), (v) => {
        const shown = formatUnits(v, 18);
        expect(shown).not.toBe("0");
        const [whole, fraction = ""] = shown.replaceAll(",", "").split(".");
        const back = BigInt(whole!) * 10n ** 18n + BigInt(fraction.padEnd(18, "0") || "0");
        expect(back <= v).toBe(true);
        expect(shown.split(".")[0]).not.toMatch(/\d{4}/); // the whole part is grouped
      }),
    );
  });
});
