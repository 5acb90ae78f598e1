/** Explaining why a swap reverted or was refused: the price moved beyond its bound, or its deadline passed. */
import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import { decodeRevert, revertDataOf } from "../../errors.js";

/**
 * Why a swap reverted onchain. The pipeline replays a reverted call on the parent block; a
 * swap undercut by a trade earlier in its own block passes there, so it is replayed on its
 * block's final state, where that trade has moved the pool. A minimum-output revert says so.
 */
export async function swapRevertReason(
  client: PublicClient,
  intent: { signer: Address | null; to: Address; data: Hex; value: bigint },
  receipt: TransactionReceipt,
  reason: string,
): Promise<string> {
  let decoded = reason;
  if (/not reproducible/.test(reason)) {
    try {
      await client.call({ account: intent.signer ?? undefined, to: intent.to, data: intent.data, value: intent.value, blockNumber: receipt.blockNumber });
    } catch (error) {
      const data = revertDataOf(error);
      if (data) decoded = decodeRevert(data);
    }
  }
  return explainSwapBound(decoded);
}

/** A revert reason, saying so when it is the swap's minimum output (or deadline) that refused it. */
export function explainSwapBound(reason: string): string {
  if (/TooLittleReceived/.test(reason)) return `${reason}: the price moved beyond the slippage bound`;
  if (/DeadlinePassed/.test(reason)) return `${reason}: the swap's deadline passed before it was mined`;
  return reason;
}
