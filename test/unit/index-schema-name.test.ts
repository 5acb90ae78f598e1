/**
 * The index's schema name (`lp_<hash>`) is new whenever what ponder indexes changes: the
 * indexer's code or the indexed configuration, the gTrade diamond included (on Base it is
 * Base's own, not among the deployments).
 */
import type { Address } from "viem";
import { describe, expect, it } from "vitest";
import { type IndexedConfig, indexedConfigText, ponderSchemaName } from "../../devnet/ponder.js";

const base: IndexedConfig = {
  chainId: 8453,
  startBlock: 100,
  operator: "0x00000000000000000000000000000000000000aa" as Address,
  protocolToken: "0x00000000000000000000000000000000000000bb" as Address,
  contracts: { usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as Address },
};

describe("ponderSchemaName", () => {
  it("is stable for the same configuration, whatever the case of its addresses", () => {
    const upper = { ...base, operator: base.operator!.toUpperCase().replace("0X", "0x") as Address };
    expect(ponderSchemaName(upper)).toBe(ponderSchemaName(base));
    expect(ponderSchemaName(base)).toMatch(/^lp_[0-9a-f]{12}$/);
  });

  it("changes with the gTrade diamond, the start block, the operator and a contract", () => {
    const names = new Set(
      [
        base,
        { ...base, gainsDiamond: "0x6a0ec1e48e3a4cd9d6cf03e02a1b7bc6aa6e21c1" as Address },
        { ...base, startBlock: 101 },
        { ...base, operator: "0x00000000000000000000000000000000000000ac" as Address },
        { ...base, contracts: { ...base.contracts, weth: "0x4200000000000000000000000000000000000006" as Address } },
      ].map(ponderSchemaName),
    );
    expect(names.size).toBe(5);
  });

  it("leaves an absent diamond out of the configuration's text", () => {
    expect(indexedConfigText(base)).not.toContain("gainsDiamond");
    expect(indexedConfigText({ ...base, gainsDiamond: "0xAbC0000000000000000000000000000000000001" as Address })).toContain(
      '"gainsDiamond":"0xabc0000000000000000000000000000000000001"',
    );
  });
});
