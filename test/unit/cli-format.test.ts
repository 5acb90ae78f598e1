/** The operator CLI's words: exact whole units with their currency, base units only on request. */
import { describe, expect, it } from "vitest";
import { amount, formatAudit, formatLedger, formatValue } from "../../engine/cli-format.js";

describe("CLI amounts in words", () => {
  it("prints exact whole units grouped by thousands, with the currency", () => {
    expect(amount(1_234_567_890_123n, "USDC")).toBe("1,234,567.890123 USDC");
    expect(amount("663743", "USDC")).toBe("0.663743 USDC");
    expect(amount(5_696_326_210_919_413_364_684_110n, "LAUNCH")).toBe("5,696,326.21091941336468411 LAUNCH");
    expect(amount(-2_908_005n, "USDC")).toBe("-2.908005 USDC");
    expect(amount(10n ** 18n, "WETH", { raw: true })).toBe("1 WETH (1000000000000000000 base units)");
  });

  it("reads currencies from field names in worker outcomes, and leaves counts and ids alone", () => {
    const lines = formatValue(
      {
        cycle: 110,
        claims: 3,
        claimedTotal: "1500000",
        pendingUsdc: "2908005",
        attributedUsdc: { claims: 2, attributed: { "0xabc": "1000000" } },
        attributedWeth: { claimedTotal: "5000000000000000" },
        batch: ["0xabc"],
      },
      { raw: false },
    );
    expect(lines).toEqual([
      "cycle: 110",
      "claims: 3",
      "claimedTotal: 1500000",
      "pendingUsdc: 2.908005 USDC",
      "attributedUsdc:",
      "  claims: 2",
      "  attributed:",
      "    0xabc: 1 USDC",
      "attributedWeth:",
      "  claimedTotal: 0.005 WETH",
      "batch:",
      "  - 0xabc",
    ]);
  });

  it("lays out the ledger and the audit with their currencies", () => {
    const totals = {
      feesClaimedUsdc: 547_200_000n,
      allocatedUsdc: { protocol: 27_360_000n, asset: 155_952_000n, perp: 311_904_000n, operator: 51_984_000n },
      pending: { protocolUsdc: 500_000n, assetUsdc: 0n, perpUsdc: 23_193_597n, creatorBuybackUsdc: 0n, legacyWeth: 0n, unconvertedWeth: 10n ** 15n },
    };
    const text = formatLedger(totals, { ok: false, violations: ["leg perp: spent more than allocated"] }, { raw: false });
    expect(text).toMatch(/fees claimed \(all legs\) +547\.2 USDC/);
    expect(text).toMatch(/perp desks +23\.193597 USDC/);
    expect(text).toMatch(/claimed WETH to convert +0\.001 WETH/);
    expect(text).toContain("Invariants: VIOLATED\n  - leg perp: spent more than allocated");
    expect(text).not.toMatch(/\b23193597\b/);
    const audit = formatAudit(
      {
        ok: false,
        block: 120,
        indexedBlock: 118,
        indexedTo: 119,
        engineBlock: 119,
        settled: false,
        inFlight: ["buyback 3 burning"],
        inFlightWork: [],
        pending: [
          {
            check: "operator USDC (ledger vs chain)",
            token: null,
            leg: "protocol",
            currency: "USDC",
            expected: "5000000",
            actual: "4000000",
            amount: "-1000000",
            what: ["buyback 3 burning"],
          },
        ],
        deficits: [],
        checks: ["ledger"],
        differences: [
          { check: "operator holdings", token: null, leg: "protocol", currency: "USDC", expected: "5000000", actual: "2091995", difference: "-2908005" },
        ],
      },
      { raw: false },
    );
    expect(audit).toContain("operator holdings (leg protocol): expected 5 USDC, found 2.091995 USDC, difference -2.908005 USDC");
    expect(audit).toContain("operator USDC (ledger vs chain) (leg protocol): -1 USDC until buyback 3 burning");
  });
});
