/**
 * The intents as stored in `engine.tx_intents`: their states, the row as the pipeline and
 * the finality watcher see it, and every transition, each one guarded write (only from the
 * expected status, and for the engine leader only while its lease epoch is current).
 */
import { and, asc, eq, gt, gte, inArray, isNull, lt, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { Address, Hex, TransactionReceipt } from "viem";
import { getAddress } from "viem";
import type { txIntents } from "../../../schema/engine.js";
import { tables } from "../../db/client.js";
import { FencedError, fenceGuard, readLease } from "../../leadership.js";
import { type PipelineContext, withRetry } from "./context.js";

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

const t = tables.txIntents;
type IntentFields = PgUpdateSetSource<typeof t>;

/** The current row of an intent, by key. */
export async function getIntent(p: PipelineContext, key: string): Promise<IntentRow | undefined> {
  const [row] = await p.db.select().from(t).where(eq(t.key, key)).limit(1);
  return row ? intentFromRecord(row) : undefined;
}

export async function loadIntent(p: PipelineContext, id: number): Promise<IntentRow> {
  const [row] = await withRetry(p, "load intent", () => p.db.select().from(t).where(eq(t.id, id)).limit(1));
  return intentFromRecord(row!);
}

/** The intent of `r.key`: a new pending row from `signer`, or the existing one (unchanged). */
export async function ensureIntent(p: PipelineContext, signer: Address, r: IntentRequest): Promise<IntentRow> {
  const [row] = await withRetry(p, "record intent", () =>
    p.db
      .insert(t)
      .values({
        key: r.key,
        kind: r.kind,
        worker: r.worker ?? null,
        signer,
        agentId: r.agentId ?? null,
        status: "pending",
        to: r.to,
        data: r.data,
        value: (r.value ?? 0n).toString(),
        // Before signing, the column holds the floor of the limit (an out-of-gas retry's).
        gasLimit: r.minGasLimit === undefined ? null : r.minGasLimit.toString(),
        epoch: p.fence?.epoch ?? null,
      })
      .onConflictDoUpdate({ target: t.key, set: { key: sql`excluded.key` } })
      .returning(),
  );
  return intentFromRecord(row!);
}

/** Rows written before intents had a signer belong to `operator`. */
export async function assignUnsignedIntents(p: PipelineContext, operator: Address): Promise<void> {
  await withRetry(p, "assign signers", () => p.db.update(t).set({ signer: operator }).where(isNull(t.signer)));
}

/** The ids of a signer's intents holding a nonce (signed or broadcast), in nonce order. */
export async function inFlightIntentIds(p: PipelineContext, signer: Address): Promise<number[]> {
  const rows = await withRetry(p, "load in-flight intents", () =>
    p.db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.signer, signer), inArray(t.status, IN_FLIGHT)))
      .orderBy(asc(t.nonce), asc(t.id)),
  );
  return rows.map((r) => r.id);
}

/** Intents of any signer that a reorg sent back to broadcast, oldest first. */
export async function reorgedIntents(p: PipelineContext): Promise<IntentRow[]> {
  const rows = await withRetry(p, "load reorged intents", () =>
    p.db
      .select()
      .from(t)
      .where(and(eq(t.status, "broadcast"), gt(t.reorgs, 0)))
      .orderBy(asc(t.id)),
  );
  return rows.map(intentFromRecord);
}

/** The lowest nonce in [from, below) of a signer's intents recorded as mined or reverted. */
export async function lowestOnChainNonce(p: PipelineContext, signer: Address, from: number, below: number): Promise<number | undefined> {
  const [gap] = await p.db
    .select({ nonce: sql<number | null>`MIN(${t.nonce})` })
    .from(t)
    .where(and(eq(t.signer, signer), inArray(t.status, ON_CHAIN), gte(t.nonce, from), lt(t.nonce, below)));
  return gap?.nonce !== null && gap?.nonce !== undefined ? Number(gap.nonce) : undefined;
}

/**
 * One transition of an intent, written only from `expect` (a status or several) and, for the
 * engine leader, only while its lease epoch is current (the row then carries that epoch). No
 * row written: the fence is checked (FencedError when another engine leads), then the
 * current row is returned, unchanged.
 */
export async function transition(
  p: PipelineContext,
  id: number,
  fields: IntentFields,
  expect?: IntentStatus | IntentStatus[],
): Promise<{ row: IntentRow; written: boolean }> {
  const status = expect === undefined ? undefined : Array.isArray(expect) ? inArray(t.status, expect) : eq(t.status, expect);
  const [row] = await withRetry(p, "update intent", () =>
    p.db
      .update(t)
      .set({ ...fields, updatedAt: sql`now()`, ...(p.fence ? { epoch: p.fence.epoch } : {}) })
      .where(and(eq(t.id, id), status, fenceGuard(p.fence)))
      .returning(),
  );
  if (row) return { row: intentFromRecord(row), written: true };
  await checkFence(p);
  return { row: await loadIntent(p, id), written: false };
}

/** `transition`, returning the row as it is afterwards. */
export async function updateIntent(p: PipelineContext, id: number, fields: IntentFields, expectStatus?: IntentStatus): Promise<IntentRow> {
  return (await transition(p, id, fields, expectStatus)).row;
}

/**
 * After a fenced write changed nothing: FencedError when the lease is no longer this
 * leader's term (another engine took over: the process stands down) or it expired unrenewed
 * (the term is suspended until a renewal at this epoch).
 */
export async function checkFence(p: PipelineContext): Promise<void> {
  const fence = p.fence;
  if (!fence) return;
  const lease = await readLease(p.db);
  if (!lease || lease.holder !== fence.holder || lease.epoch !== fence.epoch) {
    throw fence.lost(`the lease is now ${lease ? `held by ${lease.holder} at epoch ${lease.epoch}` : "gone"}; this engine led at epoch ${fence.epoch}`);
  }
  // Expired but still this epoch: nobody took over, the term is suspended until renewed.
  if (lease.expiresAt.getTime() <= Date.now()) throw new FencedError(`leadership suspended: the lease of epoch ${fence.epoch} expired before it was renewed`);
}

/** pending → failed: never sent (the simulation reverted). */
export async function failIntent(p: PipelineContext, row: IntentRow, error: string, reason: string): Promise<void> {
  await updateIntent(p, row.id, { status: "failed", error, revertReason: reason }, "pending");
  p.log.warn({ intent: row.key, reason }, "intent failed permanently (not sent)");
}

/** Back to pending without a nonce: only when no version of this intent was ever accepted by a node. */
export async function releaseNonce(p: PipelineContext, row: IntentRow, why: string): Promise<void> {
  await transition(p, row.id, { status: "pending", nonce: null, rawTx: null, txHash: null, error: why }, IN_FLIGHT);
  p.log.warn({ intent: row.key, nonce: row.nonce, why }, "nonce released; the intent will be signed again");
}

/** The signed bytes can never be mined: the intent is dropped and its caller plans the work again. */
export async function dropIntent(p: PipelineContext, row: IntentRow, reason: string): Promise<void> {
  await transition(p, row.id, { status: "dropped", error: reason }, IN_FLIGHT);
  p.log.warn({ intent: row.key, signer: row.signer, nonce: row.nonce, reason }, `transaction ${row.key} dropped: ${reason}`);
}
