/**
 * Fee split maths (docs/design.md §5.1). Pure and integer-only: legs are bigint base units that
 * always add up exactly to the input.
 */
import { splitOperatorShare } from "../../common/split.js";

/** The part of a token's split that the operator wallet receives (the creator leg is paid by the locker). */
export type OperatorSplit = { assetBps: number; perpBps: number };

export type ProtocolUsdcLegs = { protocol: bigint; asset: bigint; perp: bigint };

/**
 * Divides the operator's USDC for one token into the protocol, asset and perp legs in
 * proportion `PROTOCOL_REWARD_BPS : assetBps : perpBps`. The asset and perp legs are rounded
 * down; the rounding remainder goes to the protocol leg, so the legs sum exactly to `usdc`.
 */
export function splitProtocolUsdc(usdc: bigint, split: OperatorSplit): ProtocolUsdcLegs {
  if (usdc < 0n) throw new RangeError("cannot split a negative amount");
  if (!Number.isInteger(split.assetBps) || !Number.isInteger(split.perpBps) || split.assetBps < 0 || split.perpBps < 0) {
    throw new RangeError(`invalid split ${split.assetBps}/${split.perpBps}`);
  }
  // One implementation of the maths, shared with the indexer's per-leg totals.
  return splitOperatorShare(usdc, split);
}
