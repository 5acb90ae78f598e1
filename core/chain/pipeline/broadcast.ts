/**
 * signed → broadcast: the stored raw bytes go to the node, the same bytes every time, so a
 * restart or a retry can never spend twice.
 */
import type { Hex } from "viem";
import { EngineError, classifyError, describeError } from "../../errors.js";
import type { PipelineContext } from "./context.js";
import { WalletUnderfundedError } from "./sign.js";
import { type IntentRow, releaseNonce, updateIntent } from "./store.js";

export async function sendRaw(p: PipelineContext, raw: Hex): Promise<void> {
  await p.publicClient.request({ method: "eth_sendRawTransaction", params: [raw] });
}

/** Broadcasts the stored raw bytes (the same bytes every time). */
export async function broadcast(p: PipelineContext, row: IntentRow): Promise<void> {
  p.fence?.assertHeld();
  try {
    await sendRaw(p, row.rawTx!);
  } catch (error) {
    const e = classifyError(error);
    if (e.code === "already-known") {
      // The node has it: same as a successful broadcast.
    } else if (e.code === "nonce-too-low") {
      // Its nonce is used: by one of our own versions (then a receipt exists) or by another
      // transaction, which awaitReceipt settles.
      await updateIntent(p, row.id, { status: "broadcast", broadcastAt: new Date() }, "signed");
      return;
    } else if (e.code === "insufficient-funds" && row.signer !== p.operatorAccount?.address) {
      await releaseNonce(p, row, "the wallet cannot pay for the transaction");
      throw new WalletUnderfundedError(row.signer!, e);
    } else if (e.code === "insufficient-funds" || e.retryable) {
      throw e;
    } else {
      // The node refused these bytes for good (e.g. intrinsic gas): nothing of ours can mine
      // at this nonce unless an earlier version is in flight, which awaitReceipt settles.
      if (row.txHashes.length > 1) {
        await updateIntent(p, row.id, { status: "broadcast", error: describeError(e) }, "signed");
        return;
      }
      await releaseNonce(p, row, `broadcast refused: ${e.message}`);
      throw new EngineError(`broadcast refused: ${e.message}`, { code: "unknown", retryable: false, cause: e });
    }
  }
  await updateIntent(p, row.id, { status: "broadcast", broadcastAt: new Date() }, "signed");
  p.log.debug({ intent: row.key, hash: row.txHash }, "broadcast");
  p.faults.hit("after-broadcast");
}

/** The same signed bytes again (dropped from a mempool, or their block reorged away); "already there" counts as sent. */
export async function rebroadcast(p: PipelineContext, row: IntentRow): Promise<void> {
  p.fence?.assertHeld();
  try {
    await sendRaw(p, row.rawTx!);
    p.log.info({ intent: row.key, hash: row.txHash }, `re-sent the signed bytes of ${row.key}`);
  } catch (error) {
    const e = classifyError(error);
    if (e.code === "already-known" || e.code === "nonce-too-low" || e.code === "replacement-underpriced") return;
    throw e;
  }
}
