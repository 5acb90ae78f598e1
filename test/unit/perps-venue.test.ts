/**
 * Selecting the perps venue: `PERPS_VENUE` names the adapter, each adapter declares the
 * protocol version and chains it speaks to, and on any other chain desks are off with a
 * reason (nothing is sent). The avantis-v1 adapter's calldata is Avantis v1's.
 */
import { type Address, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { GAINS_BASE_DIAMOND, GAINS_USDC_COLLATERAL_INDEX } from "../../common/abis/gains.js";
import { ConfigError, DEVNET_CHAIN_ID, loadConfig } from "../../common/config.js";
import { DEFAULT_PERPS_VENUE, PERPS_VENUES, PERPS_VENUE_IDS, perpsVenueStatus } from "../../common/perps-venues.js";
import { desksHealth } from "../../core/health.js";
import type { EngineContext } from "../../core/context.js";
import { avantisV1 } from "../../engine/perps/avantis-v1.js";
import { PerpsVenueOffError, VENUES, desksOffReason, perpsVenue, requirePerpsVenue, selectPerpsVenue } from "../../engine/perps/venue.js";

const BASE = 8453;
const TRADING = "0x44914408af82bC9983bbb330e3578E1105e11d4e" as Address;

describe("PERPS_VENUE", () => {
  it("defaults to gains-v10 (the devnet and Base) and accepts only a known adapter", () => {
    expect(loadConfig({}).perpsVenue).toBe("gains-v10");
    expect(loadConfig({ CHAIN_ID: String(BASE) }).perpsVenue).toBe("gains-v10");
    expect(DEFAULT_PERPS_VENUE).toBe("gains-v10");
    expect(loadConfig({ PERPS_VENUE: "avantis-v1" }).perpsVenue).toBe("avantis-v1");
    expect(loadConfig({ PERPS_VENUE: "gains-v10" }).perpsVenue).toBe("gains-v10");
    const bad = () => loadConfig({ PERPS_VENUE: "avantis-v2" });
    expect(bad).toThrow(ConfigError);
    expect(bad).toThrow(/^PERPS_VENUE: expected one of avantis-v1, gains-v10 \(got "avantis-v2"\)$/);
  });

  it("every adapter declares the support listed for its name", () => {
    for (const id of PERPS_VENUE_IDS) {
      expect(VENUES[id].id).toBe(id);
      expect(VENUES[id].support).toEqual(PERPS_VENUES[id]);
    }
    expect(avantisV1.support).toEqual({ protocol: "Avantis", version: "v1", chainIds: [DEVNET_CHAIN_ID] });
  });
});

describe("venue selection by chain", () => {
  it("trades on the devnet with avantis-v1 when PERPS_VENUE names it", () => {
    const config = loadConfig({ PERPS_VENUE: "avantis-v1" });
    expect(perpsVenueStatus(config)).toEqual({ enabled: true, venue: "avantis-v1", protocol: "Avantis", version: "v1", chainId: DEVNET_CHAIN_ID });
    expect(selectPerpsVenue(config).venue).toBe(avantisV1);
    expect(perpsVenue({ config })).toBe(avantisV1);
    expect(requirePerpsVenue({ config })).toBe(avantisV1);
    expect(desksOffReason(config)).toBeUndefined();
    expect(desksHealth(config)).toEqual({ enabled: true, venue: "avantis-v1", protocol: "Avantis v1", chainId: DEVNET_CHAIN_ID, reason: null });
  });

  it("is off on Base with avantis-v1, as Avantis runs v2 there: no venue, and the reason says why", () => {
    const config = loadConfig({ CHAIN_ID: String(BASE), PERPS_VENUE: "avantis-v1" });
    const status = perpsVenueStatus(config);
    expect(status.enabled).toBe(false);
    const reason = desksOffReason(config)!;
    expect(reason).toMatch(/^desks are off: the perps adapter avantis-v1 speaks Avantis v1, which it declares for chain 31337 only, not chain 8453/);
    expect(reason).toContain("Base runs Avantis v2 since 2026-08-12");
    expect(reason).toContain("the perp leg keeps accumulating");
    expect(selectPerpsVenue(config)).toEqual({ venue: undefined, status });
    expect(perpsVenue({ config })).toBeUndefined();
    expect(() => requirePerpsVenue({ config })).toThrow(PerpsVenueOffError);
    expect(() => requirePerpsVenue({ config })).toThrow(reason);
    expect(desksHealth(config)).toEqual({ enabled: false, venue: "avantis-v1", protocol: "Avantis v1", chainId: BASE, reason });
  });

  it("trades on Base by default with gains-v10, at Base's diamond (USDC is its collateral 1)", () => {
    const config = loadConfig({ CHAIN_ID: String(BASE), DEPLOYMENTS_FILE: "/nonexistent.json" });
    expect(config).toMatchObject({ perpsVenue: "gains-v10", gainsDiamond: GAINS_BASE_DIAMOND });
    expect(GAINS_USDC_COLLATERAL_INDEX).toBe(1);
    expect(perpsVenueStatus(config)).toEqual({ enabled: true, venue: "gains-v10", protocol: "Gains Network gTrade", version: "v10", chainId: BASE });
    expect(desksOffReason(config)).toBeUndefined();
  });

  it("is off on any chain the adapter does not declare", () => {
    for (const chainId of [1, 84532, 31338]) {
      const reason = desksOffReason({ perpsVenue: "avantis-v1", chainId });
      expect(reason).toMatch(new RegExp(`not chain ${chainId}; no perps call is sent`));
    }
  });
});

describe("avantis-v1 calldata", () => {
  const ctx = { contract: () => TRADING, config: { isDevnet: true } } as unknown as EngineContext;

  it("closes with v1's three-argument closeTradeMarket, never v2's four-argument one", async () => {
    const call = await avantisV1.close(ctx, { pairIndex: 0, index: 2, amount: 5_000_000n });
    expect(call.to).toBe(TRADING);
    expect(call.value).toBe(0n);
    expect(call.data.slice(0, 10)).toBe(toFunctionSelector("closeTradeMarket(uint256,uint256,uint256)"));
    expect(call.data.slice(0, 10)).toBe("0x2c3cbce4");
    expect(call.data.slice(0, 10)).not.toBe("0xe5a97c92");
    expect((call.data.length - 10) / 64).toBe(3);
  });

  it("tops up with v1's updateMargin and has no increase call", async () => {
    const call = await avantisV1.updateMargin(ctx, { pairIndex: 1, index: 0, amount: 1n });
    expect(call.data.slice(0, 10)).toBe(toFunctionSelector("updateMargin(uint256,uint256,uint8,uint256,bytes[])"));
    expect(avantisV1.increase(ctx, { pairIndex: 1, index: 0, collateral: 1n, leverage: 1n })).toBeUndefined();
  });

  it("charges the execution fee off the devnet", async () => {
    const live = { contract: () => TRADING, config: { isDevnet: false } } as unknown as EngineContext;
    expect((await avantisV1.close(live, { pairIndex: 0, index: 0, amount: 1n })).value).toBe(350_000_000_000_000n);
  });
});
