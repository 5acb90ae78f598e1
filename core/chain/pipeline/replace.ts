/**
 * Gas bumps and re-sends: a transaction stuck in the mempool is replaced at the same nonce
 * with fees at least `feeBumpBps` higher, and an intent of a retryable kind that ran out of
 * gas is sent once more under a new intent with a higher limit.
 */
import { and, asc, eq, inArray, lt, sql } from "drizzle-orm";
import { type Address, type LocalAccount, keccak256 } from "viem";
import { tables } from "../../db/client.js";
import { classifyError } from "../../errors.js";
import { OUT_OF_GAS, isOutOfGas } from "../revert-cause.js";
import { sendRaw } from "./broadcast.js";
import { type PipelineContext, type PipelineOptions, withRetry } from "./context.js";
import { type IntentRequest, type IntentRow, type TxOutcome, intentFromRecord, transition } from "./store.js";

const t = tables.txIntents;

/** The key suffix of the one retry of an intent that ran out of gas. */
export const GAS_RETRY_SUFFIX = ":gas-retry";

/** Same nonce, fees raised by `feeBumpBps` (at least the current estimate), stored before it is sent. */
export async function replace(p: PipelineContext, account: LocalAccount, row: IntentRow): Promise<IntentRow> {
  p.fence?.assertHeld();
  const fees = await p.publicClient.estimateFeesPerGas();
  const bump = (old: bigint | null, now: bigint | undefined) => {
    const raised = ((old ?? 0n) * (10_000n + p.options.feeBumpBps)) / 10_000n + 1n;
    return now !== undefined && now > raised ? now : raised;
  };
  const maxPriorityFeePerGas = bump(row.maxPriorityFeePerGas, fees.maxPriorityFeePerGas);
  let maxFeePerGas = bump(row.maxFeePerGas, fees.maxFeePerGas);
  if (maxFeePerGas < maxPriorityFeePerGas) maxFeePerGas = maxPriorityFeePerGas;
  const raw = await account.signTransaction({
    chainId: p.chain.id,
    type: "eip1559",
    nonce: row.nonce!,
    to: row.to,
    data: row.data,
    value: row.value,
    gas: row.gasLimit!,
    maxFeePerGas,
    maxPriorityFeePerGas,
  });
  const hash = keccak256(raw);
  const replaced = await transition(
    p,
    row.id,
    {
      rawTx: raw,
      txHash: hash,
      txHashes: sql`${t.txHashes} || ${JSON.stringify([hash])}::jsonb`,
      maxFeePerGas: maxFeePerGas.toString(),
      maxPriorityFeePerGas: maxPriorityFeePerGas.toString(),
      replacements: sql`${t.replacements} + 1`,
      broadcastAt: sql`now()`,
    },
    "broadcast",
  );
  if (!replaced.written) return replaced.row;
  p.fence?.assertHeld();
  p.log.warn({ intent: row.key, nonce: row.nonce, hash, maxFeePerGas: String(maxFeePerGas) }, "stuck transaction replaced with higher fees");
  try {
    await sendRaw(p, raw);
  } catch (error) {
    const e = classifyError(error);
    if (e.code !== "already-known" && e.code !== "nonce-too-low" && e.code !== "replacement-underpriced") throw e;
  }
  return replaced.row;
}

/** An out-of-gas retry's least limit: twice the limit that ran out, within `gasCeiling`; undefined at the ceiling. */
export function raisedGasLimit(options: Pick<PipelineOptions, "gasCeiling">, gasLimit: bigint): bigint | undefined {
  const raised = gasLimit * 2n < options.gasCeiling ? gasLimit * 2n : options.gasCeiling;
  return raised > gasLimit ? raised : undefined;
}

/**
 * The retry of an intent of a retryable kind that ran out of gas: the intent
 * `<key>:gas-retry` with at least twice the limit (and a fresh estimate's headroom), within
 * `gasCeiling`. Undefined when the outcome stands (not out of gas, not retryable, already a
 * retry, or at the ceiling). A restart finds the retry by its key.
 */
export function gasRetryOf(p: PipelineContext, outcome: TxOutcome): IntentRequest | undefined {
  const row = outcome.intent;
  if (outcome.status !== "reverted" || !isOutOfGas(row.revertReason)) return undefined;
  if (row.key.endsWith(GAS_RETRY_SUFFIX) || !p.options.gasRetryKinds.includes(row.kind) || row.gasLimit === null) return undefined;
  const raised = raisedGasLimit(p.options, row.gasLimit);
  if (raised === undefined) {
    p.log.warn({ intent: row.key, gasLimit: String(row.gasLimit) }, `${row.key} ran out of gas at the ceiling ${p.options.gasCeiling}; not retried`);
    return undefined;
  }
  p.log.warn(
    { intent: row.key, gasLimit: String(row.gasLimit), retryLimit: String(raised) },
    `${row.key}: ${row.revertReason}; retrying once with at least ${raised}`,
  );
  const retry: IntentRequest = { key: `${row.key}${GAS_RETRY_SUFFIX}`, kind: row.kind, to: row.to, data: row.data, value: row.value, minGasLimit: raised };
  if (row.worker) retry.worker = row.worker;
  if (row.agentId) retry.agentId = row.agentId;
  return retry;
}

/**
 * A signer's intents of a retryable kind that ran out of gas below the ceiling and have no
 * retry row, oldest first. `send` retries the outcomes it returns itself; these are the
 * outcomes settled elsewhere: an intent driven to its receipt on a finality tick after a
 * restart, or re-mined after a reorg on a chain where it now runs out, whose cycle is done
 * and will never ask for it again.
 */
export async function outOfGasLeftBehind(p: PipelineContext, signer: Address): Promise<IntentRow[]> {
  if (!p.options.gasRetryKinds.length) return [];
  const rows = await withRetry(p, "load out-of-gas intents", () =>
    p.db
      .select()
      .from(t)
      .where(
        and(
          eq(t.signer, signer),
          eq(t.status, "reverted"),
          inArray(t.kind, p.options.gasRetryKinds),
          lt(t.gasLimit, p.options.gasCeiling.toString()),
          sql`${t.revertReason} LIKE ${`${OUT_OF_GAS}%`}`,
          sql`${t.key} NOT LIKE ${`%${GAS_RETRY_SUFFIX}`}`,
          sql`NOT EXISTS (SELECT 1 FROM engine.tx_intents r WHERE r.key = ${t.key} || ${GAS_RETRY_SUFFIX})`,
        ),
      )
      .orderBy(asc(t.id)),
  );
  return rows.map(intentFromRecord);
}
