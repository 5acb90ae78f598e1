/**
 * The rows of `engine.tx_intents`, as the pipeline and its finality watcher see them: the
 * states of an intent, the row type and its mapping from PostgreSQL.
 */
import type { Address, Hex, TransactionReceipt } from "viem";
import { getAddress } from "viem";
import type { txIntents } from "../../schema/engine.js";

/**
 * pending → signed → broadcast → mined | reverted (final after `CONFIRMATIONS` blocks).
 * failed: never sent (the simulation reverted, or a permanent error before signing).
 * dropped: the signed bytes can never be mined (their nonce went to another transaction).
 * A reorg that takes a mined or reverted intent's block away sends it back to broadcast.
 */
export type IntentStatus = "pending" | "signed" | "broadcast" | "mined" | "reverted" | "failed" | "dropped";

export const TERMINAL: IntentStatus[] = ["mined", "reverted", "failed", "dropped"];
/** Statuses that hold a nonce not yet known to be mined. */
export const IN_FLIGHT: IntentStatus[] = ["signed", "broadcast"];
/** Statuses whose receipt is recorded (and can be taken away by a reorg). */
export const ON_CHAIN: IntentStatus[] = ["mined", "reverted"];

export type IntentRequest = {
  /** Idempotency key, derived from the cause (e.g. `buyback:12:swap`). */
  key: string;
  kind: string;
  worker?: string;
  /** The agent an agent-wallet transaction belongs to. */
  agentId?: string;
  to: Address;
  data: Hex;
  value?: bigint;
  /** The least gas limit to sign with (an out-of-gas retry's), whatever the estimate says. */
  minGasLimit?: bigint;
};

export type IntentRow = {
  id: number;
  key: string;
  kind: string;
  worker: string | null;
  signer: Address | null;
  agentId: string | null;
  status: IntentStatus;
  to: Address;
  data: Hex;
  value: bigint;
  nonce: number | null;
  gasLimit: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  rawTx: Hex | null;
  txHash: Hex | null;
  txHashes: Hex[];
  attempts: number;
  replacements: number;
  blockNumber: number | null;
  blockHash: Hex | null;
  finalAt: Date | null;
  reorgs: number;
  error: string | null;
  revertReason: string | null;
  createdAt: Date | null;
  broadcastAt: Date | null;
};

export type TxOutcome =
  | { status: "mined"; intent: IntentRow; receipt: TransactionReceipt }
  | { status: "reverted"; intent: IntentRow; receipt: TransactionReceipt; reason: string }
  /** Never sent: the simulation reverted or a permanent error happened before signing. */
  | { status: "failed"; intent: IntentRow; reason: string }
  /** Signed but never mined: its nonce went to another transaction. The work must be planned again. */
  | { status: "dropped"; intent: IntentRow; reason: string };

/** A `tx_intents` database row as an IntentRow. */
export function intentFromRow(r: Record<string, unknown>): IntentRow {
  const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as string));
  return {
    id: Number(r.id),
    key: r.key as string,
    kind: r.kind as string,
    worker: (r.worker as string | null) ?? null,
    signer: r.signer ? getAddress(r.signer as string) : null,
    agentId: (r.agent_id as string | null) ?? null,
    status: r.status as IntentStatus,
    to: r.to as Address,
    data: r.data as Hex,
    value: BigInt(r.value as string),
    nonce: r.nonce === null || r.nonce === undefined ? null : Number(r.nonce),
    gasLimit: big(r.gas_limit),
    maxFeePerGas: big(r.max_fee_per_gas),
    maxPriorityFeePerGas: big(r.max_priority_fee_per_gas),
    rawTx: (r.raw_tx as Hex | null) ?? null,
    txHash: (r.tx_hash as Hex | null) ?? null,
    txHashes: (r.tx_hashes as Hex[]) ?? [],
    attempts: Number(r.attempts),
    replacements: Number(r.replacements),
    blockNumber: r.block_number === null || r.block_number === undefined ? null : Number(r.block_number),
    blockHash: (r.block_hash as Hex | null) ?? null,
    finalAt: (r.final_at as Date | null) ?? null,
    reorgs: Number(r.reorgs ?? 0),
    error: (r.error as string | null) ?? null,
    revertReason: (r.revert_reason as string | null) ?? null,
    createdAt: (r.created_at as Date | null) ?? null,
    broadcastAt: (r.broadcast_at as Date | null) ?? null,
  };
}

/** A `tx_intents` row read through drizzle (camelCase fields) as an IntentRow. */
export function intentFromRecord(r: typeof txIntents.$inferSelect): IntentRow {
  const big = (v: string | null) => (v === null ? null : BigInt(v));
  return {
    id: r.id,
    key: r.key,
    kind: r.kind,
    worker: r.worker,
    signer: r.signer ? getAddress(r.signer) : null,
    agentId: r.agentId,
    status: r.status as IntentStatus,
    to: r.to as Address,
    data: r.data as Hex,
    value: BigInt(r.value),
    nonce: r.nonce,
    gasLimit: big(r.gasLimit),
    maxFeePerGas: big(r.maxFeePerGas),
    maxPriorityFeePerGas: big(r.maxPriorityFeePerGas),
    rawTx: r.rawTx as Hex | null,
    txHash: r.txHash as Hex | null,
    txHashes: (r.txHashes ?? []) as Hex[],
    attempts: r.attempts,
    replacements: r.replacements,
    blockNumber: r.blockNumber,
    blockHash: r.blockHash as Hex | null,
    finalAt: r.finalAt,
    reorgs: r.reorgs,
    error: r.error,
    revertReason: r.revertReason,
    createdAt: r.createdAt,
    broadcastAt: r.broadcastAt,
  };
}
