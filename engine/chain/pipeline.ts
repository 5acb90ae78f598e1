/**
 * The operator wallet's transaction pipeline: exactly-once sends that survive a crash at any
 * instant.
 *
 * Every transaction is first an intent row keyed by what caused it (`tx_intents.key`). One
 * ordered queue then takes it through: simulate → estimate → (nonce under a database lock +
 * sign + store the raw bytes, one commit) → broadcast → receipt. Each step's result is in the
 * row before the next step starts, so after a restart an intent resumes from its row: signed
 * bytes are rebroadcast as they are, a broadcast intent is looked up by every hash it ever
 * had (replacements included) — never a second spend. A transaction stuck in the mempool is
 * replaced at the same nonce with fees at least 10% higher. Only when the nonce is provably
 * consumed by none of the intent's own transactions is it signed again with a fresh nonce.
 */
import PQueue from "p-queue";
import type pg from "pg";
import {
  type Address,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  keccak256,
} from "viem";
import type { Logger } from "../../common/logger.js";
import { sleep } from "../../common/async.js";
import { EngineError, RevertError, classifyError, decodeRevert, describeError, revertDataOf } from "../errors.js";
import { type Faults, NO_FAULTS } from "../faults.js";
import type { ChainClients } from "./client.js";

/** Tuning of the pipeline (defaults are for a live chain; tests and the devnet shorten them). */
export type PipelineOptions = {
  /** Receipt poll interval. */
  pollMs: number;
  /** Without a receipt this long after a broadcast, replace with higher fees. */
  stuckAfterMs: number;
  /** Fee increase of a replacement, in bps (geth and anvil require ≥ 10%). */
  feeBumpBps: bigint;
  maxReplacements: number;
  /** Gas limit = estimate × (1 + this / 10000). */
  gasMarginBps: bigint;
  /** How long one `send` keeps retrying an unreachable RPC before giving up (the intent stays resumable). */
  maxWaitMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
};

export const DEFAULT_PIPELINE_OPTIONS: PipelineOptions = {
  pollMs: 1_000,
  stuckAfterMs: 45_000,
  feeBumpBps: 1_250n,
  maxReplacements: 8,
  gasMarginBps: 2_500n,
  maxWaitMs: 120_000,
  backoffBaseMs: 250,
  backoffMaxMs: 10_000,
};

/** Advisory lock key for nonce assignment. */
const NONCE_LOCK_KEY = 0x6e6f6e6365n; // "nonce"

export type IntentStatus = "pending" | "signed" | "broadcast" | "mined" | "reverted" | "failed";

export type IntentRequest = {
  /** Idempotency key, derived from the cause (e.g. `buyback:12:swap`). */
  key: string;
  kind: string;
  worker?: string;
  to: Address;
  data: Hex;
  value?: bigint;
};

export type IntentRow = {
  id: number;
  key: string;
  kind: string;
  worker: string | null;
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
  error: string | null;
  revertReason: string | null;
  broadcastAt: Date | null;
};

export type TxOutcome =
  | { status: "mined"; intent: IntentRow; receipt: TransactionReceipt }
  | { status: "reverted"; intent: IntentRow; receipt: TransactionReceipt; reason: string }
  /** Never sent: the simulation reverted or a permanent error happened before signing. */
  | { status: "failed"; intent: IntentRow; reason: string };

const TERMINAL: IntentStatus[] = ["mined", "reverted", "failed"];
const IN_FLIGHT: IntentStatus[] = ["signed", "broadcast"];

/** A `tx_intents`-shaped database row as an IntentRow (shared with the agent wallets' intents). */
export function intentFromRow(r: Record<string, unknown>): IntentRow {
  const big = (v: unknown) => (v === null || v === undefined ? null : BigInt(v as string));
  return {
    id: Number(r.id),
    key: r.key as string,
    kind: r.kind as string,
    worker: (r.worker as string | null) ?? null,
    status: r.status as IntentStatus,
    to: r.to as Address,
    data: r.data as Hex,
    value: BigInt(r.value as string),
    nonce: r.nonce === null ? null : Number(r.nonce),
    gasLimit: big(r.gas_limit),
    maxFeePerGas: big(r.max_fee_per_gas),
    maxPriorityFeePerGas: big(r.max_priority_fee_per_gas),
    rawTx: (r.raw_tx as Hex | null) ?? null,
    txHash: (r.tx_hash as Hex | null) ?? null,
    txHashes: (r.tx_hashes as Hex[]) ?? [],
    attempts: Number(r.attempts),
    replacements: Number(r.replacements),
    blockNumber: r.block_number === null ? null : Number(r.block_number),
    error: (r.error as string | null) ?? null,
    revertReason: (r.revert_reason as string | null) ?? null,
    broadcastAt: (r.broadcast_at as Date | null) ?? null,
  };
}

export type PipelineDeps = {
  pool: pg.Pool;
  clients: ChainClients;
  log: Logger;
  faults?: Faults;
  options?: Partial<PipelineOptions>;
};

export class TxPipeline {
  readonly queue = new PQueue({ concurrency: 1 });
  readonly options: PipelineOptions;
  private readonly pool: pg.Pool;
  private readonly publicClient: PublicClient;
  private readonly clients: ChainClients;
  private readonly log: Logger;
  private readonly faults: Faults;
  private readonly receipts = new Map<string, TransactionReceipt>();

  constructor(deps: PipelineDeps) {
    this.pool = deps.pool;
    this.clients = deps.clients;
    this.publicClient = deps.clients.publicClient;
    this.log = deps.log.child({ component: "tx-pipeline" });
    this.faults = deps.faults ?? NO_FAULTS;
    this.options = { ...DEFAULT_PIPELINE_OPTIONS, ...deps.options };
  }

  get operator(): Address {
    return this.clients.account.address;
  }

  /**
   * Sends the intent once: creates its row if new, then runs it through the queue to a
   * terminal state. An existing key returns the existing intent's outcome (resuming it if in
   * flight). Throws a retryable EngineError when the RPC stays unreachable; the intent then
   * stays resumable from its row.
   */
  async send(request: IntentRequest): Promise<TxOutcome> {
    const row = await this.ensureIntent(request);
    if (TERMINAL.includes(row.status)) return this.outcome(row);
    return this.queue.add(() => this.drive(row.id), { throwOnTimeout: true });
  }

  /** The current row of an intent, by key. */
  async get(key: string): Promise<IntentRow | undefined> {
    const { rows } = await this.pool.query("SELECT * FROM engine.tx_intents WHERE key = $1", [key]);
    return rows[0] ? intentFromRow(rows[0]) : undefined;
  }

  /** The outcome of a terminal intent, or undefined while it is not terminal. */
  async result(key: string): Promise<TxOutcome | undefined> {
    const row = await this.get(key);
    return row && TERMINAL.includes(row.status) ? this.outcome(row) : undefined;
  }

  /**
   * Resumes every intent holding a nonce (signed or broadcast) in nonce order: at startup,
   * and before any new intent takes a nonce, so the account's nonces never have a gap.
   */
  async resumeInFlight(): Promise<void> {
    await this.queue.add(() => this.driveInFlight(undefined));
  }

  private async driveInFlight(except: number | undefined): Promise<void> {
    const { rows } = await this.withRetry("load in-flight intents", () =>
      this.pool.query("SELECT id FROM engine.tx_intents WHERE status = ANY($1) ORDER BY nonce, id", [IN_FLIGHT]),
    );
    for (const r of rows) {
      if (Number(r.id) !== except) await this.driveOne(Number(r.id));
    }
  }

  private async drive(id: number): Promise<TxOutcome> {
    await this.driveInFlight(id);
    return this.driveOne(id);
  }

  private async ensureIntent(r: IntentRequest): Promise<IntentRow> {
    const { rows } = await this.withRetry("record intent", () =>
      this.pool.query(
        `INSERT INTO engine.tx_intents (key, kind, worker, status, "to", data, value)
         VALUES ($1, $2, $3, 'pending', $4, $5, $6)
         ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
         RETURNING *`,
        [r.key, r.kind, r.worker ?? null, r.to, r.data, (r.value ?? 0n).toString()],
      ),
    );
    return intentFromRow(rows[0]);
  }

  private async load(id: number): Promise<IntentRow> {
    const { rows } = await this.withRetry("load intent", () => this.pool.query("SELECT * FROM engine.tx_intents WHERE id = $1", [id]));
    return intentFromRow(rows[0]);
  }

  private async update(id: number, fields: Record<string, unknown>, expectStatus?: IntentStatus): Promise<IntentRow> {
    const keys = Object.keys(fields);
    const sets = keys.map((k, i) => `"${k}" = $${i + 2}`).join(", ");
    const values = keys.map((k) => {
      const v = fields[k];
      return typeof v === "bigint" ? v.toString() : k === "tx_hashes" ? JSON.stringify(v) : v;
    });
    const guard = expectStatus ? ` AND status = '${expectStatus}'` : "";
    const { rows } = await this.withRetry("update intent", () =>
      this.pool.query(`UPDATE engine.tx_intents SET ${sets}, updated_at = now() WHERE id = $1${guard} RETURNING *`, [id, ...values]),
    );
    if (!rows[0]) return this.load(id);
    return intentFromRow(rows[0]);
  }

  /** Runs one intent to a terminal state (or throws retryable after `maxWaitMs`). */
  private async driveOne(id: number): Promise<TxOutcome> {
    const deadline = Date.now() + this.options.maxWaitMs;
    let failures = 0;
    for (;;) {
      const row = await this.load(id);
      if (TERMINAL.includes(row.status)) return this.outcome(row);
      try {
        if (row.status === "pending") await this.signPending(row);
        else if (row.status === "signed") await this.broadcast(row);
        else if (row.status === "broadcast") {
          const done = await this.awaitReceipt(row, deadline);
          if (done) return done;
        }
        failures = 0;
      } catch (error) {
        const e = classifyError(error);
        if (!e.retryable) throw e;
        failures++;
        if (Date.now() > deadline) {
          await this.update(id, { error: describeError(e) });
          throw new EngineError(`intent ${row.key} waiting: ${e.message}`, { code: e.code, retryable: true, cause: e });
        }
        const delay = backoff(failures, this.options);
        this.log.warn({ intent: row.key, status: row.status, err: e.message, retryInMs: delay }, "transaction step failed; retrying");
        await sleep(delay);
      }
    }
  }

  /** Simulate, estimate, then assign a nonce, sign and store the raw bytes in one commit. */
  private async signPending(row: IntentRow): Promise<void> {
    const account = this.clients.account;
    const call = { account: account.address, to: row.to, data: row.data, value: row.value };
    try {
      await this.publicClient.call(call);
    } catch (error) {
      const e = classifyError(error);
      if (e instanceof RevertError) {
        await this.fail(row, `simulation reverted: ${e.reason}`, e.reason);
        return;
      }
      throw e;
    }
    let gas: bigint;
    try {
      gas = await this.publicClient.estimateGas(call);
    } catch (error) {
      const e = classifyError(error);
      if (e instanceof RevertError) {
        await this.fail(row, `gas estimation reverted: ${e.reason}`, e.reason);
        return;
      }
      throw e;
    }
    const gasLimit = gas + (gas * this.options.gasMarginBps) / 10_000n;
    const fees = await this.publicClient.estimateFeesPerGas();
    const pendingNonce = await this.publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });

    const client = await this.pool.connect();
    let signed: { raw: Hex; hash: Hex; nonce: number } | undefined;
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock($1)", [NONCE_LOCK_KEY.toString()]);
      const { rows } = await client.query<{ next: number | null }>(
        "SELECT MAX(nonce) + 1 AS next FROM engine.tx_intents WHERE status = ANY($1)",
        [IN_FLIGHT],
      );
      const nonce = Math.max(pendingNonce, Number(rows[0]?.next ?? 0));
      const raw = await account.signTransaction({
        chainId: this.clients.chain.id,
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
      const res = await client.query(
        `UPDATE engine.tx_intents SET status = 'signed', nonce = $2, raw_tx = $3, tx_hash = $4,
           tx_hashes = tx_hashes || $5::jsonb, gas_limit = $6, max_fee_per_gas = $7, max_priority_fee_per_gas = $8,
           attempts = attempts + 1, error = NULL, updated_at = now()
         WHERE id = $1 AND status = 'pending'`,
        [row.id, nonce, raw, hash, JSON.stringify([hash]), gasLimit.toString(), fees.maxFeePerGas!.toString(), fees.maxPriorityFeePerGas!.toString()],
      );
      await client.query("COMMIT");
      if (res.rowCount) signed = { raw, hash, nonce };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    if (signed) {
      this.log.debug({ intent: row.key, nonce: signed.nonce, hash: signed.hash }, "signed");
      this.faults.hit("after-sign");
    }
  }

  private async fail(row: IntentRow, error: string, reason: string): Promise<void> {
    await this.update(row.id, { status: "failed", error, revert_reason: reason }, "pending");
    this.log.warn({ intent: row.key, reason }, "intent failed permanently (not sent)");
  }

  /** Broadcasts the stored raw bytes (the same bytes every time). */
  private async broadcast(row: IntentRow): Promise<void> {
    try {
      await this.publicClient.request({ method: "eth_sendRawTransaction", params: [row.rawTx!] });
    } catch (error) {
      const e = classifyError(error);
      if (e.code === "already-known") {
        // The node has it: same as a successful broadcast.
      } else if (e.code === "nonce-too-low") {
        // Its nonce is used: by one of our own versions (then a receipt exists) or by nothing of ours.
        await this.update(row.id, { status: "broadcast", broadcast_at: new Date() }, "signed");
        return;
      } else if (e.code === "insufficient-funds" || e.retryable) {
        throw e;
      } else {
        // The node refused these bytes for good (e.g. intrinsic gas): nothing of ours can mine
        // at this nonce unless an earlier version is in flight, which awaitReceipt settles.
        if (row.txHashes.length > 1) {
          await this.update(row.id, { status: "broadcast", error: describeError(e) }, "signed");
          return;
        }
        await this.releaseNonce(row, `broadcast refused: ${e.message}`);
        throw new EngineError(`broadcast refused: ${e.message}`, { code: "unknown", retryable: false, cause: e });
      }
    }
    await this.update(row.id, { status: "broadcast", broadcast_at: new Date() }, "signed");
    this.log.debug({ intent: row.key, hash: row.txHash }, "broadcast");
    this.faults.hit("after-broadcast");
  }

  /** Back to pending without a nonce: only when no version of this intent can ever be mined. */
  private async releaseNonce(row: IntentRow, why: string): Promise<void> {
    await this.pool.query(
      `UPDATE engine.tx_intents SET status = 'pending', nonce = NULL, raw_tx = NULL, tx_hash = NULL, error = $2, updated_at = now()
       WHERE id = $1 AND status = ANY($3)`,
      [row.id, why, IN_FLIGHT],
    );
    this.log.warn({ intent: row.key, nonce: row.nonce, why }, "nonce released; the intent will be signed again");
  }

  private async findReceipt(hashes: Hex[]): Promise<TransactionReceipt | undefined> {
    for (const hash of hashes) {
      try {
        return await this.publicClient.getTransactionReceipt({ hash });
      } catch (error) {
        if (error instanceof TransactionReceiptNotFoundError) continue;
        throw error;
      }
    }
    return undefined;
  }

  /** Waits for any version's receipt; replaces when stuck; detects a nonce lost to nothing of ours. */
  private async awaitReceipt(row: IntentRow, deadline: number): Promise<TxOutcome | undefined> {
    let current = row;
    let consumedChecks = 0;
    for (;;) {
      const receipt = await this.findReceipt(current.txHashes);
      if (receipt) return this.settle(current, receipt);

      const latestNonce = await this.publicClient.getTransactionCount({ address: this.operator, blockTag: "latest" });
      if (current.nonce !== null && latestNonce > current.nonce) {
        // The nonce is used, yet no receipt for any of our hashes: re-check (a node may serve
        // the count before the receipt) before concluding the slot went to something else.
        if (++consumedChecks >= 3) {
          await this.releaseNonce(current, "nonce consumed by a transaction of no version of this intent");
          return undefined;
        }
      } else {
        consumedChecks = 0;
        const known = await this.isKnown(current.txHashes);
        const sinceBroadcast = Date.now() - (current.broadcastAt?.getTime() ?? 0);
        if (!known) {
          // Dropped from the mempool (or never arrived): the same bytes again.
          await this.rebroadcast(current);
        } else if (sinceBroadcast > this.options.stuckAfterMs && current.replacements < this.options.maxReplacements) {
          current = await this.replace(current);
          continue;
        }
      }
      if (Date.now() > deadline) {
        throw new EngineError(`no receipt yet for ${current.key} (${current.txHash})`, { code: "timeout", retryable: true });
      }
      await sleep(this.options.pollMs);
      current = await this.load(current.id);
      if (TERMINAL.includes(current.status)) return this.outcome(current);
      if (current.status !== "broadcast") return undefined;
    }
  }

  private async isKnown(hashes: Hex[]): Promise<boolean> {
    for (const hash of hashes) {
      const tx = await this.publicClient.getTransaction({ hash }).catch((error) => {
        if (/not found|could not be found/i.test(String(error?.message ?? error))) return null;
        throw error;
      });
      if (tx) return true;
    }
    return false;
  }

  private async rebroadcast(row: IntentRow): Promise<void> {
    try {
      await this.publicClient.request({ method: "eth_sendRawTransaction", params: [row.rawTx!] });
      this.log.info({ intent: row.key, hash: row.txHash }, "rebroadcast the signed transaction");
    } catch (error) {
      const e = classifyError(error);
      if (e.code === "already-known" || e.code === "nonce-too-low" || e.code === "replacement-underpriced") return;
      throw e;
    }
  }

  /** Same nonce, fees raised by `feeBumpBps` (at least the current estimate), stored before it is sent. */
  private async replace(row: IntentRow): Promise<IntentRow> {
    const fees = await this.publicClient.estimateFeesPerGas();
    const bump = (old: bigint | null, now: bigint | undefined) => {
      const raised = ((old ?? 0n) * (10_000n + this.options.feeBumpBps)) / 10_000n + 1n;
      return now !== undefined && now > raised ? now : raised;
    };
    const maxPriorityFeePerGas = bump(row.maxPriorityFeePerGas, fees.maxPriorityFeePerGas);
    let maxFeePerGas = bump(row.maxFeePerGas, fees.maxFeePerGas);
    if (maxFeePerGas < maxPriorityFeePerGas) maxFeePerGas = maxPriorityFeePerGas;
    const raw = await this.clients.account.signTransaction({
      chainId: this.clients.chain.id,
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
    const { rows } = await this.pool.query(
      `UPDATE engine.tx_intents SET raw_tx = $2, tx_hash = $3, tx_hashes = tx_hashes || $4::jsonb, max_fee_per_gas = $5,
         max_priority_fee_per_gas = $6, replacements = replacements + 1, broadcast_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'broadcast' RETURNING *`,
      [row.id, raw, hash, JSON.stringify([hash]), maxFeePerGas.toString(), maxPriorityFeePerGas.toString()],
    );
    if (!rows[0]) return this.load(row.id);
    this.log.warn({ intent: row.key, nonce: row.nonce, hash, maxFeePerGas: String(maxFeePerGas) }, "stuck transaction replaced with higher fees");
    try {
      await this.publicClient.request({ method: "eth_sendRawTransaction", params: [raw] });
    } catch (error) {
      const e = classifyError(error);
      if (e.code !== "already-known" && e.code !== "nonce-too-low" && e.code !== "replacement-underpriced") throw e;
    }
    return intentFromRow(rows[0]);
  }

  private async settle(row: IntentRow, receipt: TransactionReceipt): Promise<TxOutcome> {
    this.receipts.set(receipt.transactionHash, receipt);
    if (receipt.status === "success") {
      const updated = await this.update(row.id, {
        status: "mined",
        tx_hash: receipt.transactionHash,
        block_number: Number(receipt.blockNumber),
        gas_used: receipt.gasUsed,
        mined_at: new Date(),
        error: null,
      });
      this.log.info({ intent: row.key, hash: receipt.transactionHash, block: Number(receipt.blockNumber) }, "transaction mined");
      return { status: "mined", intent: updated, receipt };
    }
    const reason = await this.revertReason(row, receipt);
    const updated = await this.update(row.id, {
      status: "reverted",
      tx_hash: receipt.transactionHash,
      block_number: Number(receipt.blockNumber),
      gas_used: receipt.gasUsed,
      mined_at: new Date(),
      error: `reverted onchain: ${reason}`,
      revert_reason: reason,
    });
    this.log.error({ intent: row.key, hash: receipt.transactionHash, reason }, "transaction reverted");
    return { status: "reverted", intent: updated, receipt, reason };
  }

  /** The reason of an onchain revert: the same call replayed on the parent block. */
  private async revertReason(row: IntentRow, receipt: TransactionReceipt): Promise<string> {
    try {
      await this.publicClient.call({
        account: this.operator,
        to: row.to,
        data: row.data,
        value: row.value,
        gas: row.gasLimit ?? undefined,
        blockNumber: receipt.blockNumber > 0n ? receipt.blockNumber - 1n : receipt.blockNumber,
      });
      return "reverted (not reproducible by a call)";
    } catch (error) {
      const data = revertDataOf(error);
      return data ? decodeRevert(data) : (classifyError(error) as RevertError).reason ?? "reverted";
    }
  }

  private async outcome(row: IntentRow): Promise<TxOutcome> {
    if (row.status === "failed") return { status: "failed", intent: row, reason: row.revertReason ?? row.error ?? "failed" };
    const hash = row.txHash!;
    let receipt = this.receipts.get(hash);
    if (!receipt) {
      receipt = await this.withRetry("fetch receipt", () => this.publicClient.getTransactionReceipt({ hash }));
      this.receipts.set(hash, receipt);
    }
    if (row.status === "mined") return { status: "mined", intent: row, receipt };
    return { status: "reverted", intent: row, receipt, reason: row.revertReason ?? "reverted" };
  }

  /** Retries a step on retryable errors with jittered exponential backoff, up to `maxWaitMs`. */
  private async withRetry<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.options.maxWaitMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        const e = classifyError(error);
        if (!e.retryable || Date.now() > deadline) throw e;
        await sleep(backoff(attempt, this.options));
        this.log.debug({ what, err: e.message }, "retrying");
      }
    }
  }
}

/** Exponential backoff with full jitter. */
export function backoff(attempt: number, o: Pick<PipelineOptions, "backoffBaseMs" | "backoffMaxMs">): number {
  const cap = Math.min(o.backoffMaxMs, o.backoffBaseMs * 2 ** Math.min(attempt - 1, 16));
  return Math.round(cap / 2 + Math.random() * (cap / 2));
}

/** Counts of intents by status and the latest permanent failures, for health. */
export async function pipelineHealth(pool: pg.Pool, recent = 10): Promise<{
  counts: Record<string, number>;
  failures: { key: string; kind: string; status: string; error: string | null; at: string }[];
}> {
  const counts = await pool.query<{ status: string; n: string }>("SELECT status, COUNT(*)::text AS n FROM engine.tx_intents GROUP BY status");
  const failures = await pool.query<{ key: string; kind: string; status: string; error: string | null; at: Date }>(
    `SELECT key, kind, status, error, updated_at AS at FROM engine.tx_intents WHERE status IN ('failed', 'reverted') ORDER BY updated_at DESC LIMIT $1`,
    [recent],
  );
  return {
    counts: Object.fromEntries(counts.rows.map((r) => [r.status, Number(r.n)])),
    failures: failures.rows.map((r) => ({ key: r.key, kind: r.kind, status: r.status, error: r.error, at: r.at.toISOString() })),
  };
}
