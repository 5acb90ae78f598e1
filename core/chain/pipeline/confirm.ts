/**
 * broadcast → mined | reverted: the receipt of any version of the intent (replacements
 * included), the revert reason of one that reverted, and the intents a reorg took back.
 *
 * A terminal intent whose receipt the chain no longer has was reorged away; the finality
 * watcher (`engine/reorg/finality.ts`) sends it back to broadcast, and its stored bytes are
 * mined again: the operator's by its next drive, another wallet's by `settleReorged`.
 */
import { type Address, type Hex, type LocalAccount, type TransactionReceipt, TransactionReceiptNotFoundError } from "viem";
import { sleep } from "../../../common/async.js";
import { EngineError, type RevertError, classifyError, decodeRevert, describeError, revertDataOf } from "../../errors.js";
import { outOfGasReason, traceFailure, usedWholeLimit } from "../revert-cause.js";
import { rebroadcast } from "./broadcast.js";
import { type PipelineContext, withRetry } from "./context.js";
import { replace } from "./replace.js";
import { ChainBehindError } from "./sign.js";
import { type IntentRow, TERMINAL, type TxOutcome, dropIntent, loadIntent, lowestOnChainNonce, reorgedIntents, updateIntent } from "./store.js";

/** The receipt of the first of `hashes` the chain has mined, if any. */
export async function findReceipt(p: PipelineContext, hashes: Hex[]): Promise<TransactionReceipt | undefined> {
  for (const hash of hashes) {
    try {
      return await p.publicClient.getTransactionReceipt({ hash });
    } catch (error) {
      if (error instanceof TransactionReceiptNotFoundError) continue;
      throw error;
    }
  }
  return undefined;
}

/** Waits for any version's receipt; replaces when stuck; drops an intent whose nonce went to another transaction. */
export async function awaitReceipt(p: PipelineContext, account: LocalAccount, row: IntentRow, deadline: number): Promise<TxOutcome | undefined> {
  let current = row;
  let consumedChecks = 0;
  for (;;) {
    const receipt = await findReceipt(p, current.txHashes);
    if (receipt) return settle(p, current, receipt);

    const latestNonce = await p.publicClient.getTransactionCount({ address: account.address, blockTag: "latest" });
    if (current.nonce !== null && latestNonce > current.nonce) {
      // The nonce is used, yet no receipt for any of our hashes: re-check (a node may serve
      // the count before the receipt) before concluding the slot went to something else.
      if (++consumedChecks >= 3) {
        await dropIntent(p, current, `nonce ${current.nonce} was used by a transaction that is not this intent's (sent outside the engine, or a reorg)`);
        return outcome(p, await loadIntent(p, current.id));
      }
    } else {
      consumedChecks = 0;
      if (current.nonce !== null && current.nonce > latestNonce) await assertChainNotBehind(p, account.address, latestNonce, current.nonce);
      const known = await isKnown(p, current.txHashes);
      const sinceBroadcast = Date.now() - (current.broadcastAt?.getTime() ?? 0);
      if (!known) {
        // Dropped from the mempool, never arrived, or its block was reorged away: the same bytes again.
        await rebroadcast(p, current);
      } else if (sinceBroadcast > p.options.stuckAfterMs && current.replacements < p.options.maxReplacements) {
        current = await replace(p, account, current);
        continue;
      }
    }
    if (Date.now() > deadline) {
      throw new EngineError(`no receipt yet for ${current.key} (${current.txHash})`, { code: "timeout", retryable: true });
    }
    await sleep(p.options.pollMs);
    current = await loadIntent(p, current.id);
    if (TERMINAL.includes(current.status)) return outcome(p, current);
    if (current.status !== "broadcast") return undefined;
  }
}

/** A nonce gap below ours that a transaction we recorded as mined should fill: the chain forgot it. */
async function assertChainNotBehind(p: PipelineContext, signer: Address, chainNonce: number, nonce: number): Promise<void> {
  const gap = await lowestOnChainNonce(p, signer, chainNonce, nonce);
  if (gap !== undefined) throw new ChainBehindError(signer, chainNonce, gap);
}

async function isKnown(p: PipelineContext, hashes: Hex[]): Promise<boolean> {
  for (const hash of hashes) {
    const tx = await p.publicClient.getTransaction({ hash }).catch((error) => {
      if (/not found|could not be found/i.test(String(error?.message ?? error))) return null;
      throw error;
    });
    if (tx) return true;
  }
  return false;
}

/** broadcast → mined or reverted, by its receipt. */
export async function settle(p: PipelineContext, row: IntentRow, receipt: TransactionReceipt): Promise<TxOutcome> {
  p.receipts.set(receipt.transactionHash, receipt);
  const mined = {
    txHash: receipt.transactionHash,
    blockNumber: Number(receipt.blockNumber),
    blockHash: receipt.blockHash,
    gasUsed: receipt.gasUsed.toString(),
    minedAt: new Date(),
  };
  if (receipt.status === "success") {
    const updated = await updateIntent(p, row.id, { status: "mined", ...mined, error: null }, "broadcast");
    if (updated.status !== "mined") return (await outcome(p, updated)) ?? settle(p, updated, receipt);
    p.log.info(
      { intent: row.key, hash: receipt.transactionHash, block: Number(receipt.blockNumber) },
      `${row.kind} transaction ${row.key} mined in block ${receipt.blockNumber}`,
    );
    return { status: "mined", intent: updated, receipt };
  }
  const reason = await revertReason(p, row, receipt);
  const updated = await updateIntent(p, row.id, { status: "reverted", ...mined, error: `reverted onchain: ${reason}`, revertReason: reason }, "broadcast");
  p.log.error({ intent: row.key, hash: receipt.transactionHash, reason }, `${row.kind} transaction ${row.key} reverted: ${reason}`);
  return { status: "reverted", intent: updated, receipt, reason };
}

/**
 * The reason of an onchain revert: out of gas when the receipt used the whole limit or the
 * trace says a call ran out; otherwise the same call replayed on the parent block, and when
 * that does not reproduce it (the transactions before it in its block changed the state),
 * the trace's failing call.
 */
async function revertReason(p: PipelineContext, row: IntentRow, receipt: TransactionReceipt): Promise<string> {
  const trace = await traceFailure(p.publicClient, receipt.transactionHash);
  if (usedWholeLimit(receipt, row.gasLimit) || trace?.outOfGasIn) return outOfGasReason(row.gasLimit, receipt.gasUsed, trace?.outOfGasIn);
  const replayed = await replayRevert(p, row, receipt);
  if (replayed) return replayed;
  // "not reproducible by a call" marks these: a caller may replay on the block's own state (swap/revert.ts).
  if (trace?.reason) return `${trace.reason} (from the transaction's trace; not reproducible by a call on the parent block)`;
  return trace
    ? "reverted without a reason (not reproducible by a call on the parent block)"
    : "reverted (not reproducible by a call on the parent block, and the node offers no trace)";
}

/** The same call on the parent block: its revert reason, or undefined when it does not revert there. */
async function replayRevert(p: PipelineContext, row: IntentRow, receipt: TransactionReceipt): Promise<string | undefined> {
  try {
    await p.publicClient.call({
      account: row.signer ?? p.operatorAccount?.address,
      to: row.to,
      data: row.data,
      value: row.value,
      gas: row.gasLimit ?? undefined,
      blockNumber: receipt.blockNumber > 0n ? receipt.blockNumber - 1n : receipt.blockNumber,
    });
    return undefined;
  } catch (error) {
    const data = revertDataOf(error);
    return data ? decodeRevert(data) : ((classifyError(error) as RevertError).reason ?? "reverted");
  }
}

/**
 * The outcome of a terminal intent. A mined or reverted intent whose receipt the chain no
 * longer has was reorged away: undefined, so the caller drives it again (the finality
 * watcher sends it back to broadcast).
 */
export async function outcome(p: PipelineContext, row: IntentRow): Promise<TxOutcome | undefined> {
  if (row.status === "failed") return { status: "failed", intent: row, reason: row.revertReason ?? row.error ?? "failed" };
  if (row.status === "dropped") return { status: "dropped", intent: row, reason: row.error ?? "dropped" };
  const hash = row.txHash!;
  let receipt = p.receipts.get(hash);
  if (!receipt || (row.blockHash && receipt.blockHash !== row.blockHash)) {
    try {
      receipt = await withRetry(p, "fetch receipt", () => p.publicClient.getTransactionReceipt({ hash }));
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError) && !(classifyError(error).cause instanceof TransactionReceiptNotFoundError)) throw error;
      await unmine(p, row, `receipt of ${hash} no longer on the chain`);
      return undefined;
    }
    if (row.blockHash && receipt.blockHash !== row.blockHash) {
      await unmine(p, row, `block ${row.blockNumber} (${row.blockHash}) replaced by ${receipt.blockHash}`);
      return undefined;
    }
    p.receipts.set(hash, receipt);
  }
  if (row.status === "mined") return { status: "mined", intent: row, receipt };
  return { status: "reverted", intent: row, receipt, reason: row.revertReason ?? "reverted" };
}

/**
 * A recorded receipt is gone: the finality watcher owns that case (it reverses the derived
 * ledger rows in the same transaction); here we only wait for it, so the caller never
 * builds on a forgotten block.
 */
async function unmine(p: PipelineContext, row: IntentRow, why: string): Promise<void> {
  p.log.warn({ intent: row.key, why }, "a mined transaction left the chain; waiting for the finality watcher");
  throw new EngineError(`transaction ${row.key} left the chain (${why}); the finality watcher re-sends it`, { code: "timeout", retryable: true });
}

/**
 * Settles the intents a reorg sent back to broadcast, of any signer, whose re-sent bytes are
 * mined again; re-sends another wallet's signed bytes (the operator's are re-sent by its
 * next drive). Returns the keys settled.
 */
export async function settleReorged(p: PipelineContext): Promise<string[]> {
  const rows = await reorgedIntents(p);
  const settled: string[] = [];
  for (const row of rows) {
    const receipt = await findReceipt(p, row.txHashes);
    if (receipt) {
      await settle(p, row, receipt);
      settled.push(row.key);
    } else if (row.rawTx && row.signer && row.signer !== p.operatorAccount?.address) {
      await resendOthers(p, row);
    }
  }
  return settled;
}

/** Re-sends another wallet's signed bytes after a reorg; a refusal is logged, never thrown (the next call tries again). */
async function resendOthers(p: PipelineContext, row: IntentRow): Promise<void> {
  try {
    await rebroadcast(p, row);
  } catch (error) {
    const e = classifyError(error);
    const why = e.code === "insufficient-funds" ? `wallet ${row.signer} cannot pay for it (its funding may have left with the reorg)` : describeError(error);
    const last = p.resendWarnedAt.get(row.key) ?? 0;
    if (Date.now() - last < 60_000) return; // once a minute per intent
    p.resendWarnedAt.set(row.key, Date.now());
    p.log.warn({ intent: row.key, signer: row.signer, nonce: row.nonce, why }, `reorged transaction ${row.key} not re-sent yet: ${why}`);
  }
}
