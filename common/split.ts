/**
 * The fee split, as pure integer maths shared by the engine (which allocates the operator's
 * USDC) and the indexer (which keeps per-leg totals). docs/design.md §5.1.
 */
import { CONFIGURABLE_BPS, PROTOCOL_REWARD_BPS } from "./constants.js";

export type Split = { assetBps: number; perpBps: number; creatorBps: number };
export type OperatorLegs = { protocol: bigint; asset: bigint; perp: bigint };

/** Whether a split is valid: integers, each ≥ 0, summing to 9,500 bps. */
export function isValidSplit(split: Split): boolean {
  const parts = [split.assetBps, split.perpBps, split.creatorBps];
  return parts.every((p) => Number.isInteger(p) && p >= 0) && parts.reduce((a, b) => a + b, 0) === CONFIGURABLE_BPS;
}

/**
 * Divides the operator's share of a token's fees into the protocol, asset and perp legs in
 * proportion 500 : assetBps : perpBps. Base units; the rounding remainder goes to the
 * protocol leg, so the legs always sum exactly to `amount`.
 */
export function splitOperatorShare(amount: bigint, split: Pick<Split, "assetBps" | "perpBps">): OperatorLegs {
  if (amount < 0n) throw new RangeError("cannot split a negative amount");
  const weight = BigInt(PROTOCOL_REWARD_BPS + split.assetBps + split.perpBps);
  const asset = (amount * BigInt(split.assetBps)) / weight;
  const perp = (amount * BigInt(split.perpBps)) / weight;
  return { protocol: amount - asset - perp, asset, perp };
}
