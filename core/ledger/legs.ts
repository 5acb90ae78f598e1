/**
 * The leg vocabulary: every ledger row moves one leg (an account) in one currency, for one
 * token or pooled over every token.
 */

export const Legs = {
  /** Fees attributed to a token and converted to USDC (one row per attribution). */
  claimed: "claimed",
  /** WETH fees attributed to a token, awaiting conversion to USDC. */
  wethClaimed: "weth-claimed",
  /** USDC waiting for the protocol-token buyback: the spec's `pendingBuybackUsdc`. */
  protocol: "protocol",
  /** USDC waiting for the secondary-asset purchase. */
  asset: "asset",
  /** Perp USDC allocated to a token and not yet in a trade (`peekPerpUsdc`, `consumePerpUsdc`). */
  perp: "perp",
  /** The creator buyback queue: desk profits per token (`consumeCreatorBuybacksAbove`). */
  creatorBuyback: "creator-buyback",
  /** The legacy WETH accumulator, drained by the buyback engine as a fallback. */
  legacyWeth: "legacy-weth",
  /** Operator revenue no worker spends: the protocol token's own fees, unattributed claims. */
  operator: "operator",
} as const;
export type Leg = (typeof Legs)[keyof typeof Legs];
export type Currency = "USDC" | "WETH";

/** Legs a worker spends (their balance is what is pending). */
export const SPENDABLE_LEGS: Leg[] = [Legs.protocol, Legs.asset, Legs.perp, Legs.creatorBuyback, Legs.legacyWeth, Legs.wethClaimed];
/** Legs tracked per token; the others are pooled across tokens. */
export const PER_TOKEN_LEGS: Leg[] = [Legs.claimed, Legs.wethClaimed, Legs.perp, Legs.creatorBuyback];
