/**
 * The perps venues the engine has an adapter for, and what each declares it supports: the
 * protocol, its version and the chains where that version runs. `perpsVenueStatus` decides
 * from the configuration alone whether desks may trade: on a chain the configured adapter does
 * not declare, the engine sends no perps call at all (docs/design.md §4.4), and the perp leg keeps
 * accumulating in the ledger until an adapter for that chain's venue exists.
 *
 * Pure data and one pure function, so the engine (which enforces it) and the API (which shows
 * it on `/health` and the prospectus page) read the same answer.
 */
/** The devnet's chain id (config.ts `DEVNET_CHAIN_ID`; not imported, as config.ts imports this module). */
const DEVNET = 31337;
/** Base mainnet. */
const BASE = 8453;

export type PerpsVenueSupport = {
  /** The exchange the adapter speaks to. */
  protocol: string;
  /** The protocol version whose ABI and calldata the adapter sends. */
  version: string;
  /** The chains where that version of the exchange runs. */
  chainIds: readonly number[];
};

/** Every adapter, by its `PERPS_VENUE` name. */
export const PERPS_VENUES = {
  /**
   * Avantis v1 (protocols.md §4): a second venue on the devnet only (its simulator is deployed beside the
   * gTrade twin), kept behind the same interface; Base runs Avantis v2 since 2026-08-12, which no adapter speaks.
   */
  "avantis-v1": { protocol: "Avantis", version: "v1", chainIds: [DEVNET] },
  /**
   * Gains Network gTrade v10 (common/abis/gains.ts): the devnet's twin of its diamond, and Base's
   * diamond, where the engine trades only while its preflight against the diamond passes
   * (engine/perps/gains-preflight.ts: facets, USDC's collateral index, trading activated, pair limits).
   */
  "gains-v10": { protocol: "Gains Network gTrade", version: "v10", chainIds: [DEVNET, BASE] },
} as const satisfies Record<string, PerpsVenueSupport>;

export type PerpsVenueId = keyof typeof PERPS_VENUES;
export const PERPS_VENUE_IDS = Object.keys(PERPS_VENUES) as [PerpsVenueId, ...PerpsVenueId[]];
/** gTrade v10 on the devnet (its twin of the diamond) and on Base (Base's diamond, USDC as collateral index 1). */
export const DEFAULT_PERPS_VENUE: PerpsVenueId = "gains-v10";

/** What is known to run on a chain the engine may be pointed at (production.md §6). */
const CHAIN_VENUES: Record<number, string> = {
  [BASE]: "Base runs Avantis v2 since 2026-08-12: new event topics, a four-argument closeTradeMarket, no published ABI",
};

export type PerpsVenueStatus =
  | { enabled: true; venue: PerpsVenueId; protocol: string; version: string; chainId: number }
  | { enabled: false; venue: PerpsVenueId; protocol: string; version: string; chainId: number; reason: string };

/** Whether the configured adapter may trade on the configured chain, and if not, why. */
export function perpsVenueStatus(config: { perpsVenue: PerpsVenueId; chainId: number }): PerpsVenueStatus {
  const { perpsVenue: venue, chainId } = config;
  const support: PerpsVenueSupport = PERPS_VENUES[venue];
  const base = { venue, protocol: support.protocol, version: support.version, chainId };
  if (support.chainIds.includes(chainId)) return { enabled: true, ...base };
  const known = CHAIN_VENUES[chainId];
  return {
    enabled: false,
    ...base,
    reason:
      `desks are off: the perps adapter ${venue} speaks ${support.protocol} ${support.version}, which it declares for chain${support.chainIds.length === 1 ? "" : "s"} ` +
      `${support.chainIds.join(", ")} only, not chain ${chainId}${known ? ` (${known})` : ""}; no perps call is sent and the perp leg keeps accumulating`,
  };
}
