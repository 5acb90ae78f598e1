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

/** The part of a token's split that the operator wallet receives (the creator leg is paid by the locker). */
export type OperatorSplit = Pick<Split, "assetBps" | "perpBps">;

/**
 * `splitProtocolUsdc`: divides the operator's USDC for one token into the protocol, asset and
 * perp legs in proportion `PROTOCOL_REWARD_BPS : assetBps : perpBps` (500 : assetBps :
 * perpBps). Base units; the asset and perp legs are rounded down and the remainder goes to
 * the protocol leg, so the legs always sum exactly to `usdc`. RangeError on a negative amount
 * or a split whose parts are not non-negative integers.
 */
export function splitProtocolUsdc(usdc: bigint, split: OperatorSplit): OperatorLegs {
  if (usdc < 0n) throw new RangeError("cannot split a negative amount");
  if (!Number.isInteger(split.assetBps) || !Number.isInteger(split.perpBps) || split.assetBps < 0 || split.perpBps < 0) {
    throw new RangeError(`invalid split ${split.assetBps}/${split.perpBps}`);
  }
  const weight = BigInt(PROTOCOL_REWARD_BPS + split.assetBps + split.perpBps);
  const asset = (usdc * BigInt(split.assetBps)) / weight;
  const perp = (usdc * BigInt(split.perpBps)) / weight;
  return { protocol: usdc - asset - perp, asset, perp };
}

/** The indexer's name for `splitProtocolUsdc` (indexer/fees.ts), until it imports that name. */
export const splitOperatorShare = splitProtocolUsdc;
