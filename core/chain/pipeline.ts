/**
 * The transaction pipeline of every signer (the operator wallet and agent wallets):
 * exactly-once sends that survive a crash at any instant and a chain that forgets blocks.
 *
 * Every transaction is first an intent row keyed by what caused it (`tx_intents.key`). One
 * ordered queue per signer then takes it through: simulate → estimate → (nonce under a
 * database lock + sign + store the raw bytes, one commit) → broadcast → receipt (block number
 * and hash recorded). Each step's result is in the row before the next step starts, so after
 * a restart an intent resumes from its row: signed bytes are rebroadcast as they are, a
 * broadcast intent is looked up by every hash it ever had (replacements included) — never a
 * second spend. A transaction stuck in the mempool is replaced at the same nonce with fees at
 * least 10% higher. When the nonce went to a transaction that is none of the intent's own
 * (another wallet user, or a reorg that let something else take it), the intent is dropped
 * with its reason and the caller plans the work again under a new intent.
 *
 * Reorgs are the finality watcher's business (`finality.ts`): it sends intents whose block
 * left the canonical chain back to broadcast, and this pipeline re-mines their stored bytes.
 */
import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import PQueue from "p-queue";
import type pg from "pg";
import {
  type Address,
  type Chain,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
  TransactionReceiptNotFoundError,
  keccak256,
} from "viem";
import type { Logger } from "../../common/logger.js";
import { sleep } from "../../common/async.js";
import { MissingConfigError } from "../../common/config.js";
import { EngineError, RevertError, classifyError, decodeRevert, describeError, revertDataOf } from "../errors.js";
import { type Faults, NO_FAULTS } from "../faults.js";
import { type Db, dbOf, tables } from "../db/client.js";
import { type Fence, FencedError, fenceGuard, readLease } from "../leadership.js";
import type { ChainClients } from "./client.js";
import { isOutOfGas, outOfGasReason, traceFailure, usedWholeLimit } from "./revert-cause.js";
import { IN_FLIGHT, type IntentRequest, type IntentRow, type IntentStatus, ON_CHAIN, TERMINAL, type TxOutcome, intentFromRecord } from "./intents.js";

const t = tables.txIntents;
/** The key suffix of the one retry of an intent that ran out of gas. */
export const GAS_RETRY_SUFFIX = ":gas-retry";
type IntentFields = PgUpdateSetSource<typeof t>;

export { IN_FLIGHT, intentFromRecord, intentFromRow, TERMINAL, type IntentRequest, type IntentRow, type IntentStatus, type TxOutcome } from "./intents.js";

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
  /**
   * Headroom by intent kind where the gas a call needs moves with state the estimate cannot
   * see: a `collectRewards` converts fees by swapping, and a swap that crosses more ticks
   * when it is mined than when it was estimated needs more gas.
   */
  gasMarginBpsByKind: Record<string, bigint>;
  /** No gas limit above this (a retry after out of gas included), unless the estimate itself is higher. */
  gasCeiling: bigint;
  /**
   * Kinds retried once, under a new intent with a higher limit, after an out-of-gas revert.
   * Only kinds whose repetition is harmless: a reorg could still mine the reverted bytes.
   */
  gasRetryKinds: string[];
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
  gasMarginBpsByKind: { "collect-rewards": 10_000n, "claim-fees": 5_000n },
  gasCeiling: 8_000_000n,
  gasRetryKinds: ["collect-rewards", "claim-fees"],
  maxWaitMs: 120_000,
  backoffBaseMs: 250,
  backoffMaxMs: 10_000,
};

/** The wallet cannot pay for the transaction (value plus gas): the caller must fund it. */
export class WalletUnderfundedError extends EngineError {
  override name = "WalletUnderfundedError";
  constructor(readonly wallet: Address, cause?: unknown) {
    super(`wallet ${wallet} cannot pay for the transaction and its gas`, { code: "insufficient-funds", retryable: false, cause });
  }
}

/** The chain's nonce for a signer is below a transaction we recorded as mined: a reorg the watcher has not handled yet. */
export class ChainBehindError extends EngineError {
  override name = "ChainBehindError";
  constructor(readonly signer: Address, chainNonce: number, recorded: number) {
    super(`the chain counts ${chainNonce} transactions of ${signer} but nonce ${recorded} was recorded as mined: waiting for the finality watcher`, {
      code: "timeout",
      retryable: true,
    });
  }
}

export type PipelineDeps = {
  pool: pg.Pool;
  log: Logger;
  faults?: Faults;
  /**
   * The engine leader's fence: every intent transition is then written only while its lease
   * epoch is current, and nothing is signed or broadcast after the lease ran out. Pipelines
   * of other processes (the API's launches, agent wallets) have none.
   */
  fence?: Fence;
  options?: Partial<PipelineOptions>;
} & (
  | { clients: ChainClients }
  | { publicClient: PublicClient; chain: Chain; /** The operator wallet, when this process signs as the operator. */ operator?: LocalAccount }
);

export class TxPipeline {
  readonly options: PipelineOptions;
  readonly publicClient: PublicClient;
  readonly chain: Chain;
  readonly fence: Fence | undefined;
  private readonly db: Db;
  private readonly operatorAccount: LocalAccount | undefined;
  private readonly log: Logger;
  private readonly faults: Faults;
  private readonly queues = new Map<Address, PQueue>();
  private readonly receipts = new Map<string, TransactionReceipt>();
  private prepared: Promise<void> | undefined;

  constructor(deps: PipelineDeps) {
    this.db = dbOf(deps.pool);
    this.fence = deps.fence;
    if ("clients" in deps) {
      this.publicClient = deps.clients.publicClient;
      this.chain = deps.clients.chain;
      this.operatorAccount = deps.clients.account;
    } else {
      this.publicClient = deps.publicClient;
      this.chain = deps.chain;
      this.operatorAccount = deps.operator;
    }
    this.log = deps.log.child({ component: "tx-pipeline" });
    this.faults = deps.faults ?? NO_FAULTS;
    this.options = { ...DEFAULT_PIPELINE_OPTIONS, ...deps.options };
  }

  /** The operator wallet's address (MissingConfigError when this process has no operator key). */
  get operator(): Address {
    return this.operatorSigner().address;
  }

  private operatorSigner(): LocalAccount {
    if (!this.operatorAccount) throw new MissingConfigError("PROTOCOL_PRIVATE_KEY");
    return this.operatorAccount;
  }

  /** Waits until every queued send of every signer has finished. */
  async onIdle(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.onIdle()));
  }

  /**
   * Sends the intent once from `signer` (default: the operator wallet): creates its row if
   * new, then runs it through the signer's queue to a terminal state. An existing key returns
   * the existing intent's outcome (resuming it if in flight). Throws a retryable EngineError
   * when the RPC stays unreachable; the intent then stays resumable from its row.
   */
  async send(request: IntentRequest, signer?: LocalAccount): Promise<TxOutcome> {
    const account = signer ?? this.operatorSigner();
    await this.prepare();
    const row = await this.ensureIntent(account.address, request);
    if (row.signer !== account.address) throw new Error(`intent ${request.key} belongs to ${row.signer}, not ${account.address}`);
    if (TERMINAL.includes(row.status)) {
      const outcome = await this.outcome(row);
      if (outcome) return this.retryOutOfGas(account, outcome);
    }
    const outcome = await this.queueOf(account.address).add(() => this.drive(account, row.id), { throwOnTimeout: true });
    return this.retryOutOfGas(account, outcome);
  }

  /**
   * An intent of a retryable kind that ran out of gas is sent once more, as the intent
   * `<key>:gas-retry` with at least twice the limit (and a fresh estimate's headroom), within
   * `gasCeiling`; its outcome is the caller's. A restart finds the retry by its key.
   */
  private async retryOutOfGas(account: LocalAccount, outcome: TxOutcome): Promise<TxOutcome> {
    const row = outcome.intent;
    if (outcome.status !== "reverted" || !isOutOfGas(row.revertReason)) return outcome;
    if (row.key.endsWith(GAS_RETRY_SUFFIX) || !this.options.gasRetryKinds.includes(row.kind) || row.gasLimit === null) return outcome;
    const raised = row.gasLimit * 2n < this.options.gasCeiling ? row.gasLimit * 2n : this.options.gasCeiling;
    if (raised <= row.gasLimit) {
      this.log.warn({ intent: row.key, gasLimit: String(row.gasLimit) }, `${row.key} ran out of gas at the ceiling ${this.options.gasCeiling}; not retried`);
      return outcome;
    }
    this.log.warn({ intent: row.key, gasLimit: String(row.gasLimit), retryLimit: String(raised) }, `${row.key}: ${row.revertReason}; retrying once with at least ${raised}`);
    const retry: IntentRequest = { key: `${row.key}${GAS_RETRY_SUFFIX}`, kind: row.kind, to: row.to, data: row.data, value: row.value, minGasLimit: raised };
    if (row.worker) retry.worker = row.worker;
    if (row.agentId) retry.agentId = row.agentId;
    return this.send(retry, account);
  }

  /** The current row of an intent, by key. */
  async get(key: string): Promise<IntentRow | undefined> {
    const [row] = await this.db.select().from(t).where(eq(t.key, key)).limit(1);
    return row ? intentFromRecord(row) : undefined;
  }

  /** The outcome of a terminal intent, or undefined while it is not terminal. */
  async result(key: string): Promise<TxOutcome | undefined> {
    const row = await this.get(key);
    return row && TERMINAL.includes(row.status) ? this.outcome(row) : undefined;
  }

  /**
   * Resumes every intent of a signer (default: the operator) holding a nonce (signed or
   * broadcast) in nonce order: at startup, after a reorg, and before any new intent of the
   * signer takes a nonce, so the signer's nonces never have a gap.
   */
  async resumeInFlight(signer?: LocalAccount): Promise<void> {
    const account = signer ?? this.operatorSigner();
    await this.prepare();
    await this.queueOf(account.address).add(() => this.driveInFlight(account, undefined));
  }

  /**
   * Settles the intents a reorg sent back to broadcast, of any signer, whose re-sent bytes are
   * mined again (no key needed: the receipt is looked up by every hash the intent had). Those
   * not mined yet stay broadcast; the next call, or the signer's next send, settles them.
   *
   * The operator's are re-sent by `resumeInFlight`. Another wallet's (an agent's launch steps)
   * have no worker to drive them, so their signed bytes are re-sent here, as they are: a node
   * that lost them (a devnet rolled back by a crash loses its mempool) mines them again. A
   * wallet whose funding left with the reorg cannot pay until it is funded again: the bytes
   * wait, and are re-sent on every call.
   */
  async settleReorged(): Promise<string[]> {
    const rows = await this.withRetry("load reorged intents", () =>
      this.db.select().from(t).where(and(eq(t.status, "broadcast"), gt(t.reorgs, 0))).orderBy(asc(t.id)),
    );
    const settled: string[] = [];
    for (const r of rows) {
      const row = intentFromRecord(r);
      const receipt = await this.findReceipt(row.txHashes);
      if (receipt) {
        await this.settle(row, receipt);
        settled.push(row.key);
      } else if (row.rawTx && row.signer && row.signer !== this.operatorAccount?.address) {
        await this.resendOthers(row);
      }
    }
    return settled;
  }

  private readonly resendWarnedAt = new Map<string, number>();

  /** Re-sends another wallet's signed bytes after a reorg; a refusal is logged, never thrown (the next call tries again). */
  private async resendOthers(row: IntentRow): Promise<void> {
    try {
      await this.rebroadcast(row);
    } catch (error) {
      const e = classifyError(error);
      const why = e.code === "insufficient-funds" ? `wallet ${row.signer} cannot pay for it (its funding may have left with the reorg)` : describeError(error);
      const last = this.resendWarnedAt.get(row.key) ?? 0;
      if (Date.now() - last < 60_000) return; // once a minute per intent
      this.resendWarnedAt.set(row.key, Date.now());
      this.log.warn({ intent: row.key, signer: row.signer, nonce: row.nonce, why }, `reorged transaction ${row.key} not re-sent yet: ${why}`);
    }
  }

  /** Rows written before intents had a signer belong to the operator. */
  private prepare(): Promise<void> {
    if (!this.operatorAccount) return Promise.resolve();
    this.prepared ??= this.withRetry("assign signers", () =>
      this.db.update(t).set({ signer: this.operatorAccount!.address }).where(isNull(t.signer)),
    )
      .then(() => undefined)
      .catch((error) => {
        this.prepared = undefined;
        throw error;
      });
    return this.prepared;
  }

  private queueOf(signer: Address): PQueue {
    let queue = this.queues.get(signer);
    if (!queue) {
      queue = new PQueue({ concurrency: 1 });
      this.queues.set(signer, queue);
    }
    return queue;
  }

  private async driveInFlight(account: LocalAccount, except: number | undefined): Promise<void> {
    const rows = await this.withRetry("load in-flight intents", () =>
      this.db
        .select({ id: t.id })
        .from(t)
        .where(and(eq(t.signer, account.address), inArray(t.status, IN_FLIGHT)))
        .orderBy(asc(t.nonce), asc(t.id)),
    );
    for (const r of rows) {
      if (r.id !== except) await this.driveOne(account, r.id);
    }
  }

  private async drive(account: LocalAccount, id: number): Promise<TxOutcome> {
    await this.driveInFlight(account, id);
    return this.driveOne(account, id);
  }

  private async ensureIntent(signer: Address, r: IntentRequest): Promise<IntentRow> {
    const [row] = await this.withRetry("record intent", () =>
      this.db
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
          epoch: this.fence?.epoch ?? null,
        })
        .onConflictDoUpdate({ target: t.key, set: { key: sql`excluded.key` } })
        .returning(),
    );
    return intentFromRecord(row!);
  }

  private async load(id: number): Promise<IntentRow> {
    const [row] = await this.withRetry("load intent", () => this.db.select().from(t).where(eq(t.id, id)).limit(1));
    return intentFromRecord(row!);
  }

  /**
   * One transition of an intent, written only from `expect` (a status or several) and, for the
   * engine leader, only while its lease epoch is current (the row then carries that epoch). No
   * row written: the fence is checked (FencedError when another engine leads), then the
   * current row is returned, unchanged.
   */
  private async transition(id: number, fields: IntentFields, expect?: IntentStatus | IntentStatus[]): Promise<{ row: IntentRow; written: boolean }> {
    const status = expect === undefined ? undefined : Array.isArray(expect) ? inArray(t.status, expect) : eq(t.status, expect);
    const [row] = await this.withRetry("update intent", () =>
      this.db
        .update(t)
        .set({ ...fields, updatedAt: sql`now()`, ...(this.fence ? { epoch: this.fence.epoch } : {}) })
        .where(and(eq(t.id, id), status, fenceGuard(this.fence)))
        .returning(),
    );
    if (row) return { row: intentFromRecord(row), written: true };
    await this.checkFence();
    return { row: await this.load(id), written: false };
  }

  private async update(id: number, fields: IntentFields, expectStatus?: IntentStatus): Promise<IntentRow> {
    return (await this.transition(id, fields, expectStatus)).row;
  }

  /**
   * After a fenced write changed nothing: FencedError when the lease is no longer this
   * leader's term (another engine took over: the process stands down) or it expired unrenewed
   * (the term is suspended until a renewal at this epoch).
   */
  private async checkFence(): Promise<void> {
    const fence = this.fence;
    if (!fence) return;
    const lease = await readLease(this.db);
    if (!lease || lease.holder !== fence.holder || lease.epoch !== fence.epoch) {
      throw fence.lost(`the lease is now ${lease ? `held by ${lease.holder} at epoch ${lease.epoch}` : "gone"}; this engine led at epoch ${fence.epoch}`);
    }
    // Expired but still this epoch: nobody took over, the term is suspended until renewed.
    if (lease.expiresAt.getTime() <= Date.now()) throw new FencedError(`leadership suspended: the lease of epoch ${fence.epoch} expired before it was renewed`);
  }

  /** Runs one intent to a terminal state (or throws retryable after `maxWaitMs`). */
  private async driveOne(account: LocalAccount, id: number): Promise<TxOutcome> {
    const deadline = Date.now() + this.options.maxWaitMs;
    let failures = 0;
    for (;;) {
      const row = await this.load(id);
      if (TERMINAL.includes(row.status)) {
        const outcome = await this.outcome(row);
        if (outcome) return outcome;
        continue;
      }
      try {
        if (row.status === "pending") await this.signPending(account, row);
        else if (row.status === "signed") await this.broadcast(row);
        else if (row.status === "broadcast") {
          const done = await this.awaitReceipt(account, row, deadline);
          if (done) return done;
        }
        failures = 0;
      } catch (error) {
        // The chain forgot transactions we recorded as mined: only the finality watcher can
        // reopen them, and it runs between worker cycles, so give up this drive at once.
        if (error instanceof ChainBehindError || error instanceof FencedError) throw error;
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
  private async signPending(account: LocalAccount, row: IntentRow): Promise<void> {
    const isOperator = account.address === this.operatorAccount?.address;
    const call = { account: account.address, to: row.to, data: row.data, value: row.value };
    let gas: bigint;
    try {
      await this.publicClient.call(call);
      gas = await this.publicClient.estimateGas(call);
    } catch (error) {
      const e = classifyError(error);
      if (e instanceof RevertError) {
        await this.fail(row, `simulation reverted: ${e.reason}`, e.reason);
        return;
      }
      if (e.code === "insufficient-funds" && !isOperator) throw new WalletUnderfundedError(account.address, e);
      throw e;
    }
    const gasLimit = this.gasLimitOf(row, gas);
    const fees = await this.publicClient.estimateFeesPerGas();
    const pendingNonce = await this.publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
    if (!isOperator) {
      const balance = await this.publicClient.getBalance({ address: account.address });
      if (balance < row.value + gasLimit * fees.maxFeePerGas!) throw new WalletUnderfundedError(account.address);
    }

    this.fence?.assertHeld();
    const signed = await this.db.transaction(async (tx) => {
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
        chainId: this.chain.id,
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
          ...(this.fence ? { epoch: this.fence.epoch } : {}),
        })
        .where(and(eq(t.id, row.id), eq(t.status, "pending"), fenceGuard(this.fence)))
        .returning({ id: t.id });
      return written.length ? { raw, hash, nonce } : undefined;
    });
    if (!signed) await this.checkFence();
    if (signed) {
      this.log.debug({ intent: row.key, signer: account.address, nonce: signed.nonce, hash: signed.hash }, "signed");
      this.faults.hit("after-sign");
    }
  }

  /** The estimate with its kind's headroom, within the ceiling, and never below the row's floor. */
  private gasLimitOf(row: IntentRow, estimate: bigint): bigint {
    const margin = this.options.gasMarginBpsByKind[row.kind] ?? this.options.gasMarginBps;
    let limit = estimate + (estimate * margin) / 10_000n;
    if (limit > this.options.gasCeiling) limit = estimate > this.options.gasCeiling ? estimate : this.options.gasCeiling;
    return row.gasLimit !== null && row.gasLimit > limit ? row.gasLimit : limit;
  }

  private async fail(row: IntentRow, error: string, reason: string): Promise<void> {
    await this.update(row.id, { status: "failed", error, revertReason: reason }, "pending");
    this.log.warn({ intent: row.key, reason }, "intent failed permanently (not sent)");
  }

  /** Broadcasts the stored raw bytes (the same bytes every time). */
  private async broadcast(row: IntentRow): Promise<void> {
    this.fence?.assertHeld();
    try {
      await this.sendRaw(row.rawTx!);
    } catch (error) {
      const e = classifyError(error);
      if (e.code === "already-known") {
        // The node has it: same as a successful broadcast.
      } else if (e.code === "nonce-too-low") {
        // Its nonce is used: by one of our own versions (then a receipt exists) or by another
        // transaction, which awaitReceipt settles.
        await this.update(row.id, { status: "broadcast", broadcastAt: new Date() }, "signed");
        return;
      } else if (e.code === "insufficient-funds" && row.signer !== this.operatorAccount?.address) {
        await this.releaseNonce(row, "the wallet cannot pay for the transaction");
        throw new WalletUnderfundedError(row.signer!, e);
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
    await this.update(row.id, { status: "broadcast", broadcastAt: new Date() }, "signed");
    this.log.debug({ intent: row.key, hash: row.txHash }, "broadcast");
    this.faults.hit("after-broadcast");
  }

  /** Back to pending without a nonce: only when no version of this intent was ever accepted by a node. */
  private async releaseNonce(row: IntentRow, why: string): Promise<void> {
    await this.transition(row.id, { status: "pending", nonce: null, rawTx: null, txHash: null, error: why }, IN_FLIGHT);
    this.log.warn({ intent: row.key, nonce: row.nonce, why }, "nonce released; the intent will be signed again");
  }

  /** The signed bytes can never be mined: the intent is dropped and its caller plans the work again. */
  private async drop(row: IntentRow, reason: string): Promise<void> {
    await this.transition(row.id, { status: "dropped", error: reason }, IN_FLIGHT);
    this.log.warn({ intent: row.key, signer: row.signer, nonce: row.nonce, reason }, `transaction ${row.key} dropped: ${reason}`);
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

  /** Waits for any version's receipt; replaces when stuck; drops an intent whose nonce went to another transaction. */
  private async awaitReceipt(account: LocalAccount, row: IntentRow, deadline: number): Promise<TxOutcome | undefined> {
    let current = row;
    let consumedChecks = 0;
    for (;;) {
      const receipt = await this.findReceipt(current.txHashes);
      if (receipt) return this.settle(current, receipt);

      const latestNonce = await this.publicClient.getTransactionCount({ address: account.address, blockTag: "latest" });
      if (current.nonce !== null && latestNonce > current.nonce) {
        // The nonce is used, yet no receipt for any of our hashes: re-check (a node may serve
        // the count before the receipt) before concluding the slot went to something else.
        if (++consumedChecks >= 3) {
          await this.drop(current, `nonce ${current.nonce} was used by a transaction that is not this intent's (sent outside the engine, or a reorg)`);
          return this.outcome(await this.load(current.id));
        }
      } else {
        consumedChecks = 0;
        if (current.nonce !== null && current.nonce > latestNonce) await this.assertChainNotBehind(account.address, latestNonce, current.nonce);
        const known = await this.isKnown(current.txHashes);
        const sinceBroadcast = Date.now() - (current.broadcastAt?.getTime() ?? 0);
        if (!known) {
          // Dropped from the mempool, never arrived, or its block was reorged away: the same bytes again.
          await this.rebroadcast(current);
        } else if (sinceBroadcast > this.options.stuckAfterMs && current.replacements < this.options.maxReplacements) {
          current = await this.replace(account, current);
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

  /** A nonce gap below ours that a transaction we recorded as mined should fill: the chain forgot it. */
  private async assertChainNotBehind(signer: Address, chainNonce: number, nonce: number): Promise<void> {
    const [gap] = await this.db
      .select({ nonce: sql<number | null>`MIN(${t.nonce})` })
      .from(t)
      .where(and(eq(t.signer, signer), inArray(t.status, ON_CHAIN), gte(t.nonce, chainNonce), lt(t.nonce, nonce)));
    if (gap?.nonce !== null && gap?.nonce !== undefined) throw new ChainBehindError(signer, chainNonce, Number(gap.nonce));
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

  private async sendRaw(raw: Hex): Promise<void> {
    await this.publicClient.request({ method: "eth_sendRawTransaction", params: [raw] });
  }

  private async rebroadcast(row: IntentRow): Promise<void> {
    this.fence?.assertHeld();
    try {
      await this.sendRaw(row.rawTx!);
      this.log.info({ intent: row.key, hash: row.txHash }, `re-sent the signed bytes of ${row.key}`);
    } catch (error) {
      const e = classifyError(error);
      if (e.code === "already-known" || e.code === "nonce-too-low" || e.code === "replacement-underpriced") return;
      throw e;
    }
  }

  /** Same nonce, fees raised by `feeBumpBps` (at least the current estimate), stored before it is sent. */
  private async replace(account: LocalAccount, row: IntentRow): Promise<IntentRow> {
    this.fence?.assertHeld();
    const fees = await this.publicClient.estimateFeesPerGas();
    const bump = (old: bigint | null, now: bigint | undefined) => {
      const raised = ((old ?? 0n) * (10_000n + this.options.feeBumpBps)) / 10_000n + 1n;
      return now !== undefined && now > raised ? now : raised;
    };
    const maxPriorityFeePerGas = bump(row.maxPriorityFeePerGas, fees.maxPriorityFeePerGas);
    let maxFeePerGas = bump(row.maxFeePerGas, fees.maxFeePerGas);
    if (maxFeePerGas < maxPriorityFeePerGas) maxFeePerGas = maxPriorityFeePerGas;
    const raw = await account.signTransaction({
      chainId: this.chain.id,
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
    const replaced = await this.transition(
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
    this.fence?.assertHeld();
    this.log.warn({ intent: row.key, nonce: row.nonce, hash, maxFeePerGas: String(maxFeePerGas) }, "stuck transaction replaced with higher fees");
    try {
      await this.sendRaw(raw);
    } catch (error) {
      const e = classifyError(error);
      if (e.code !== "already-known" && e.code !== "nonce-too-low" && e.code !== "replacement-underpriced") throw e;
    }
    return replaced.row;
  }

  private async settle(row: IntentRow, receipt: TransactionReceipt): Promise<TxOutcome> {
    this.receipts.set(receipt.transactionHash, receipt);
    const mined = {
      txHash: receipt.transactionHash,
      blockNumber: Number(receipt.blockNumber),
      blockHash: receipt.blockHash,
      gasUsed: receipt.gasUsed.toString(),
      minedAt: new Date(),
    };
    if (receipt.status === "success") {
      const updated = await this.update(row.id, { status: "mined", ...mined, error: null }, "broadcast");
      if (updated.status !== "mined") return (await this.outcome(updated)) ?? this.settle(updated, receipt);
      this.log.info({ intent: row.key, hash: receipt.transactionHash, block: Number(receipt.blockNumber) }, `${row.kind} transaction ${row.key} mined in block ${receipt.blockNumber}`);
      return { status: "mined", intent: updated, receipt };
    }
    const reason = await this.revertReason(row, receipt);
    const updated = await this.update(row.id, { status: "reverted", ...mined, error: `reverted onchain: ${reason}`, revertReason: reason }, "broadcast");
    this.log.error({ intent: row.key, hash: receipt.transactionHash, reason }, `${row.kind} transaction ${row.key} reverted: ${reason}`);
    return { status: "reverted", intent: updated, receipt, reason };
  }

  /**
   * The reason of an onchain revert: out of gas when the receipt used the whole limit or the
   * trace says a call ran out; otherwise the same call replayed on the parent block, and when
   * that does not reproduce it (the transactions before it in its block changed the state),
   * the trace's failing call.
   */
  private async revertReason(row: IntentRow, receipt: TransactionReceipt): Promise<string> {
    const trace = await traceFailure(this.publicClient, receipt.transactionHash);
    if (usedWholeLimit(receipt, row.gasLimit) || trace?.outOfGasIn) return outOfGasReason(row.gasLimit, receipt.gasUsed, trace?.outOfGasIn);
    const replayed = await this.replayRevert(row, receipt);
    if (replayed) return replayed;
    // "not reproducible by a call" marks these: a caller may replay on the block's own state (swap.ts).
    if (trace?.reason) return `${trace.reason} (from the transaction's trace; not reproducible by a call on the parent block)`;
    return trace ? "reverted without a reason (not reproducible by a call on the parent block)" : "reverted (not reproducible by a call on the parent block, and the node offers no trace)";
  }

  /** The same call on the parent block: its revert reason, or undefined when it does not revert there. */
  private async replayRevert(row: IntentRow, receipt: TransactionReceipt): Promise<string | undefined> {
    try {
      await this.publicClient.call({
        account: row.signer ?? this.operatorAccount?.address,
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
  private async outcome(row: IntentRow): Promise<TxOutcome | undefined> {
    if (row.status === "failed") return { status: "failed", intent: row, reason: row.revertReason ?? row.error ?? "failed" };
    if (row.status === "dropped") return { status: "dropped", intent: row, reason: row.error ?? "dropped" };
    const hash = row.txHash!;
    let receipt = this.receipts.get(hash);
    if (!receipt || (row.blockHash && receipt.blockHash !== row.blockHash)) {
      try {
        receipt = await this.withRetry("fetch receipt", () => this.publicClient.getTransactionReceipt({ hash }));
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError) && !(classifyError(error).cause instanceof TransactionReceiptNotFoundError)) throw error;
        await this.unmine(row, `receipt of ${hash} no longer on the chain`);
        return undefined;
      }
      if (row.blockHash && receipt.blockHash !== row.blockHash) {
        await this.unmine(row, `block ${row.blockNumber} (${row.blockHash}) replaced by ${receipt.blockHash}`);
        return undefined;
      }
      this.receipts.set(hash, receipt);
    }
    if (row.status === "mined") return { status: "mined", intent: row, receipt };
    return { status: "reverted", intent: row, receipt, reason: row.revertReason ?? "reverted" };
  }

  /**
   * A recorded receipt is gone: the finality watcher owns that case (it reverses the derived
   * ledger rows in the same transaction); here we only wait for it, so the caller never
   * builds on a forgotten block.
   */
  private async unmine(row: IntentRow, why: string): Promise<void> {
    this.log.warn({ intent: row.key, why }, "a mined transaction left the chain; waiting for the finality watcher");
    throw new EngineError(`transaction ${row.key} left the chain (${why}); the finality watcher re-sends it`, { code: "timeout", retryable: true });
  }

  /** Retries a step on retryable errors with jittered exponential backoff, up to `maxWaitMs`. */
  private async withRetry<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.options.maxWaitMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (error) {
        if (error instanceof FencedError) throw error;
        const e = classifyError(error);
        if (!e.retryable || Date.now() > deadline) throw error instanceof TransactionReceiptNotFoundError ? error : e;
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

export type PendingIntent = { key: string; kind: string; signer: string | null; status: string; nonce: number | null; ageSeconds: number; reorgs: number; error: string | null };

/**
 * For health: counts of intents by status, the latest permanent failures, and every intent not
 * yet final. Bounded by the work in flight, not by history: `counts` leaves out the mined
 * intents already final (the history) and counts everything else (in flight, awaiting
 * finality, reverted, failed, dropped); each query reads a partial index (migration 4).
 */
export async function pipelineHealth(pool: pg.Pool, recent = 10): Promise<{
  counts: Record<string, number>;
  failures: { key: string; kind: string; status: string; error: string | null; at: string }[];
  notFinal: PendingIntent[];
}> {
  const db = dbOf(pool);
  const unsettled = sql`${t.status} <> 'mined' OR ${t.finalAt} IS NULL`;
  const [counts, failures, notFinal] = await Promise.all([
    db.select({ status: t.status, n: sql<string>`COUNT(*)::text` }).from(t).where(unsettled).groupBy(t.status),
    db
      .select({ key: t.key, kind: t.kind, status: t.status, error: t.error, at: t.updatedAt })
      .from(t)
      .where(inArray(t.status, ["failed", "reverted", "dropped"]))
      .orderBy(desc(t.updatedAt))
      .limit(recent),
    db
      .select({
        key: t.key,
        kind: t.kind,
        signer: t.signer,
        status: t.status,
        nonce: t.nonce,
        reorgs: t.reorgs,
        error: t.error,
        age: sql<number>`EXTRACT(EPOCH FROM now() - ${t.createdAt})::int`,
      })
      .from(t)
      .where(sql`${inArray(t.status, ["pending", "signed", "broadcast"])} OR (${inArray(t.status, ["mined", "reverted"])} AND ${t.finalAt} IS NULL)`)
      .orderBy(asc(t.id))
      .limit(100),
  ]);
  return {
    counts: Object.fromEntries(counts.map((r) => [r.status, Number(r.n)])),
    failures: failures.map((r) => ({ key: r.key, kind: r.kind, status: r.status, error: r.error, at: r.at.toISOString() })),
    notFinal: notFinal.map((r) => ({
      key: r.key,
      kind: r.kind,
      signer: r.signer,
      status: r.status,
      nonce: r.nonce === null ? null : Number(r.nonce),
      ageSeconds: Number(r.age),
      reorgs: Number(r.reorgs),
      error: r.error,
    })),
  };
}
