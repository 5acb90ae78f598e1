/**
 * pending → signed: simulate, estimate, then take the signer's next nonce under a database
 * lock, sign, and store the raw bytes, in one commit. The nonce is the chain's pending count,
 * or one past the signer's highest nonce in flight, whichever is higher.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { type Address, type LocalAccount, keccak256 } from "viem";
import { tables } from "../../db/client.js";
import { EngineError, RevertError, classifyError } from "../../errors.js";
import { fenceGuard } from "../../leadership.js";
import type { PipelineContext } from "./context.js";
import { IN_FLIGHT, type IntentRow, ON_CHAIN, checkFence, failIntent } from "./store.js";

const t = tables.txIntents;

/** The wallet cannot pay for the transaction (value plus gas): the caller must fund it. */
export class WalletUnderfundedError extends EngineError {
  override name = "WalletUnderfundedError";
  constructor(
    readonly wallet: Address,
    cause?: unknown,
  ) {
    super(`wallet ${wallet} cannot pay for the transaction and its gas`, { code: "insufficient-funds", retryable: false, cause });
  }
}

/** The chain's nonce for a signer is below a transaction we recorded as mined: a reorg the watcher has not handled yet. */
export class ChainBehindError extends EngineError {
  override name = "ChainBehindError";
  constructor(
    readonly signer: Address,
    chainNonce: number,
    recorded: number,
  ) {
    super(`the chain counts ${chainNonce} transactions of ${signer} but nonce ${recorded} was recorded as mined: waiting for the finality watcher`, {
      code: "timeout",
      retryable: true,
    });
  }
}

/** Simulate, estimate, then assign a nonce, sign and store the raw bytes in one commit. */
export async function signPending(p: PipelineContext, account: LocalAccount, row: IntentRow): Promise<void> {
  const isOperator = account.address === p.operatorAccount?.address;
  const call = { account: account.address, to: row.to, data: row.data, value: row.value };
  let gas: bigint;
  try {
    await p.publicClient.call(call);
    gas = await p.publicClient.estimateGas(call);
  } catch (error) {
    const e = classifyError(error);
    if (e instanceof RevertError) {
      await failIntent(p, row, `simulation reverted: ${e.reason}`, e.reason);
      return;
    }
    if (e.code === "insufficient-funds" && !isOperator) throw new WalletUnderfundedError(account.address, e);
    throw e;
  }
  const gasLimit = gasLimitOf(p, row, gas);
  const fees = await p.publicClient.estimateFeesPerGas();
  const pendingNonce = await p.publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
  if (!isOperator) {
    const balance = await p.publicClient.getBalance({ address: account.address });
    if (balance < row.value + gasLimit * fees.maxFeePerGas!) throw new WalletUnderfundedError(account.address);
  }

  p.fence?.assertHeld();
  const signed = await p.db.transaction(async (tx) => {
    // Raw SQL: a transaction-scoped advisory lock, so the API, agent flows and the engine
    // never take the same nonce of a signer.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${`nonce:${account.address}`}, 0))`);
    const [nonces] = await tx
      .select({
        next: sql<string | null>`MAX(${t.nonce}) FILTER (WHERE ${inArray(t.status, IN_FLIGHT)}) + 1`,
        mined: sql<string | null>`MAX(${t.nonce}) FILTER (WHERE ${inArray(t.status, ON_CHAIN)})`,
      })
      .from(t)
      .where(eq(t.signer, account.address));
    const minedNonce = nonces?.mined;
    if (minedNonce !== null && minedNonce !== undefined && Number(minedNonce) >= pendingNonce) {
      // A transaction we saw mined at this nonce is no longer counted by the chain: a reorg
      // or a rolled-back devnet. Signing now would reuse its nonce.
      throw new ChainBehindError(account.address, pendingNonce, Number(minedNonce));
    }
    const nonce = Math.max(pendingNonce, Number(nonces?.next ?? 0));
    const raw = await account.signTransaction({
      chainId: p.chain.id,
      type: "eip1559",
      nonce,
      to: row.to,
      data: row.data,
      value: row.value,
      gas: gasLimit,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const hash = keccak256(raw);
    const written = await tx
      .update(t)
      .set({
        status: "signed",
        nonce,
        rawTx: raw,
        txHash: hash,
        txHashes: sql`${t.txHashes} || ${JSON.stringify([hash])}::jsonb`,
        gasLimit: gasLimit.toString(),
        maxFeePerGas: fees.maxFeePerGas!.toString(),
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas!.toString(),
        attempts: sql`${t.attempts} + 1`,
        error: null,
        updatedAt: sql`now()`,
        ...(p.fence ? { epoch: p.fence.epoch } : {}),
      })
      .where(and(eq(t.id, row.id), eq(t.status, "pending"), fenceGuard(p.fence)))
      .returning({ id: t.id });
    return written.length ? { raw, hash, nonce } : undefined;
  });
  if (!signed) await checkFence(p);
  if (signed) {
    p.log.debug({ intent: row.key, signer: account.address, nonce: signed.nonce, hash: signed.hash }, "signed");
    p.faults.hit("after-sign");
  }
}

/** The estimate with its kind's headroom, within the ceiling, and never below the row's floor. */
export function gasLimitOf(p: PipelineContext, row: IntentRow, estimate: bigint): bigint {
  const margin = p.options.gasMarginBpsByKind[row.kind] ?? p.options.gasMarginBps;
  let limit = estimate + (estimate * margin) / 10_000n;
  if (limit > p.options.gasCeiling) limit = estimate > p.options.gasCeiling ? estimate : p.options.gasCeiling;
  return row.gasLimit !== null && row.gasLimit > limit ? row.gasLimit : limit;
}
