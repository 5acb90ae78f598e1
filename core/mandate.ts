/**
 * A token's mandate: the limits its desk and buybacks obey (desk market, leverage cap,
 * drawdown halt, take-profit, buyback minimum), and their defaults. An agent's charter
 * states one (`charterMandate`); token-mandate.ts finds the one that applies to a token.
 *
 * Workers pass a mandate to the decision functions (`decideDeskEntry`, `decideRisk`, …).
 */
import { PERPS_PRECISION } from "../common/abis/perps.js";

export type Mandate = {
  /** Perps pair the desk trades (0 = ETH/USD, 1 = BTC/USD on the devnet). */
  deskPairIndex: number;
  /** Highest leverage, 1e10 precision (5x = 5e10). */
  maxLeverage: bigint;
  /** Loss of the desk against what it paid in, in bps, at which desk-risk halts it. */
  maxDrawdownBps: number;
  /** Unrealised profit, in bps of what a trade paid in, at which profit-checker takes it. */
  takeProfitBps: number;
  /** Distance of the price to the liquidation price, in bps of the price, below which desk-risk halts. */
  liquidationBufferBps: number;
  /** Smallest creator buyback of this token (USDC base units). */
  buybackMinUsdc: bigint;
  /** Most USDC the desk may hold in trades (paid in), or null for no cap. */
  maxDeskUsdc: bigint | null;
};

export const DEFAULT_MANDATE: Omit<Mandate, "buybackMinUsdc"> = {
  deskPairIndex: 0,
  maxLeverage: 5n * PERPS_PRECISION,
  maxDrawdownBps: 5_000,
  takeProfitBps: 1_000,
  liquidationBufferBps: 500,
  maxDeskUsdc: null,
};

/** The default mandate, with the configured creator buyback minimum. */
export function defaultMandate(creatorBuybackMinUsdc: bigint): Mandate {
  return { ...DEFAULT_MANDATE, buybackMinUsdc: creatorBuybackMinUsdc };
}

/** Overlays the set fields of a stored mandate on the defaults. */
export function mergeMandate(base: Mandate, stored: Partial<{ [K in keyof Mandate]: Mandate[K] | null | undefined }>): Mandate {
  const merged = { ...base };
  for (const [key, value] of Object.entries(stored) as [keyof Mandate, unknown][]) {
    if (value !== null && value !== undefined) (merged as Record<string, unknown>)[key] = value;
  }
  return merged;
}
