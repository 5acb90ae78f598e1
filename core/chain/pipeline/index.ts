/**
 * The transaction pipeline of every signer (the operator wallet and agent wallets):
 * exactly-once sends that survive a crash at any instant and a chain that forgets blocks.
 *
 * Every transaction is first an intent row keyed by what caused it (`tx_intents.key`), and
 * one ordered queue per signer drives it through these states, each change one guarded write
 * (store.ts):
 *
 *   send(request)
 *        │
 *        ▼           simulation reverted (never sent)
 *     pending ──────────────────────────────────────────────────▶ failed
 *      │   ▲
 *      │   └── nonce released (broadcast.ts): the node refused the bytes for good,
 *      │       or the wallet cannot pay
 *      │ sign.ts: simulate, estimate, then nonce under a database lock + sign
 *      │          + store the raw bytes, in one commit
 *      ▼
 *    signed
 *      │ broadcast.ts: the stored bytes, the same every time
 *      ▼
 *   broadcast ◀──┐ replace.ts: stuck → same nonce, fees ≥ 10% higher
 *      │  │  └───┘
 *      │  └──────────────────────────────────────────────────────▶ dropped
 *      │      its nonce went to a transaction not its own
 *      │ confirm.ts: the receipt of any version (replacements included)
 *      ▼
 *   mined | reverted ── final after CONFIRMATIONS blocks (engine/reorg/finality.ts)
 *      │
 *      └──▶ broadcast again when a reorg takes the block (the finality watcher);
 *           the stored bytes are re-sent as they are (confirm.ts)
 *
 *   reverted for lack of gas, of a retryable kind ──▶ a new intent `<key>:gas-retry`
 *   with twice the limit (replace.ts): by `send`, or, for an outcome no `send` saw (settled
 *   on a finality tick, re-mined out of gas after a reorg), by `retryOutOfGasLeftBehind`
 *
 * Terminal: mined, reverted, failed, dropped. Each step's result is in the row before the
 * next step starts, so after a restart an intent resumes from its row: signed bytes are
 * rebroadcast as they are, a broadcast intent is looked up by every hash it ever had — never
 * a second spend. A dropped intent's caller plans the work again under a new intent.
 * drive.ts runs one intent step by step; health reads the table (health.ts).
 */
import PQueue from "p-queue";
import type pg from "pg";
import type { Address, Chain, LocalAccount, PublicClient } from "viem";
import { MissingConfigError } from "../../../common/config.js";
import type { Logger } from "../../../common/logger.js";
import { dbOf } from "../../db/client.js";
import { NO_FAULTS, type Faults } from "../../faults.js";
import type { Fence } from "../../leadership.js";
import type { ChainClients } from "../client.js";
import { outcome, settleReorged } from "./confirm.js";
import { DEFAULT_PIPELINE_OPTIONS, type PipelineContext, type PipelineOptions } from "./context.js";
import { driveInFlight, driveOne } from "./drive.js";
import { gasRetryOf, outOfGasLeftBehind } from "./replace.js";
import { type IntentRequest, type IntentRow, TERMINAL, type TxOutcome, assignUnsignedIntents, ensureIntent, getIntent } from "./store.js";

export { backoff, DEFAULT_PIPELINE_OPTIONS, type PipelineOptions } from "./context.js";
export { pipelineHealth, type PendingIntent } from "./health.js";
export { GAS_RETRY_SUFFIX, raisedGasLimit } from "./replace.js";
export { ChainBehindError, WalletUnderfundedError } from "./sign.js";
export { intentFromRow, type IntentRequest, type IntentRow, type IntentStatus, type TxOutcome } from "./store.js";

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
  | { publicClient: PublicClient; chain: Chain /** The operator wallet, when this process signs as the operator. */; operator?: LocalAccount }
);

export class TxPipeline {
  readonly options: PipelineOptions;
  readonly publicClient: PublicClient;
  readonly chain: Chain;
  readonly fence: Fence | undefined;
  private readonly p: PipelineContext;
  private readonly queues = new Map<Address, PQueue>();
  private prepared: Promise<void> | undefined;

  constructor(deps: PipelineDeps) {
    const clients =
      "clients" in deps
        ? { publicClient: deps.clients.publicClient, chain: deps.clients.chain, operatorAccount: deps.clients.account }
        : { publicClient: deps.publicClient, chain: deps.chain, operatorAccount: deps.operator };
    this.p = {
      ...clients,
      db: dbOf(deps.pool),
      fence: deps.fence,
      log: deps.log.child({ component: "tx-pipeline" }),
      faults: deps.faults ?? NO_FAULTS,
      options: { ...DEFAULT_PIPELINE_OPTIONS, ...deps.options },
      receipts: new Map(),
      resendWarnedAt: new Map(),
    };
    this.options = this.p.options;
    this.publicClient = this.p.publicClient;
    this.chain = this.p.chain;
    this.fence = this.p.fence;
  }

  /** The operator wallet's address (MissingConfigError when this process has no operator key). */
  get operator(): Address {
    return this.operatorSigner().address;
  }

  private operatorSigner(): LocalAccount {
    if (!this.p.operatorAccount) throw new MissingConfigError("PROTOCOL_PRIVATE_KEY");
    return this.p.operatorAccount;
  }

  /** Waits until every queued send of every signer has finished. */
  async onIdle(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.onIdle()));
  }

  /**
   * Sends the intent once from `signer` (default: the operator wallet): creates its row if
   * new, then runs it through the signer's queue to a terminal state. An existing key returns
   * the existing intent's outcome (resuming it if in flight). Throws a retryable EngineError
   * when the RPC stays unreachable; the intent then stays resumable from its row. An intent
   * of a retryable kind that ran out of gas is sent once more (`gasRetryOf`), and that
   * retry's outcome is the caller's.
   */
  async send(request: IntentRequest, signer?: LocalAccount): Promise<TxOutcome> {
    const account = signer ?? this.operatorSigner();
    await this.prepare();
    const row = await ensureIntent(this.p, account.address, request);
    if (row.signer !== account.address) throw new Error(`intent ${request.key} belongs to ${row.signer}, not ${account.address}`);
    if (TERMINAL.includes(row.status)) {
      const done = await outcome(this.p, row);
      if (done) return this.retryOutOfGas(account, done);
    }
    const done = await this.queueOf(account.address).add(() => this.drive(account, row.id), { throwOnTimeout: true });
    return this.retryOutOfGas(account, done);
  }

  private async retryOutOfGas(account: LocalAccount, done: TxOutcome): Promise<TxOutcome> {
    const retry = gasRetryOf(this.p, done);
    return retry ? this.send(retry, account) : done;
  }

  /**
   * Sends the one retry of every out-of-gas intent of a signer (default: the operator) whose
   * outcome came to no `send`: settled on a finality tick after a restart, or re-mined out of
   * gas after a reorg, once its cycle was done (`outOfGasLeftBehind`). Returns the keys
   * retried. Idempotent: each retry is an intent of its own key.
   */
  async retryOutOfGasLeftBehind(signer?: LocalAccount): Promise<string[]> {
    const account = signer ?? this.operatorSigner();
    await this.prepare();
    const retried: string[] = [];
    for (const row of await outOfGasLeftBehind(this.p, account.address)) {
      const done = await outcome(this.p, row);
      const retry = done && gasRetryOf(this.p, done);
      if (!retry) continue;
      retried.push(row.key);
      await this.send(retry, account);
    }
    return retried;
  }

  /** The current row of an intent, by key. */
  async get(key: string): Promise<IntentRow | undefined> {
    return getIntent(this.p, key);
  }

  /** The outcome of a terminal intent, or undefined while it is not terminal. */
  async result(key: string): Promise<TxOutcome | undefined> {
    const row = await this.get(key);
    return row && TERMINAL.includes(row.status) ? outcome(this.p, row) : undefined;
  }

  /**
   * Resumes every intent of a signer (default: the operator) holding a nonce (signed or
   * broadcast) in nonce order: at startup, after a reorg, and before any new intent of the
   * signer takes a nonce, so the signer's nonces never have a gap.
   */
  async resumeInFlight(signer?: LocalAccount): Promise<void> {
    const account = signer ?? this.operatorSigner();
    await this.prepare();
    await this.queueOf(account.address).add(() => driveInFlight(this.p, account, undefined));
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
    return settleReorged(this.p);
  }

  /** Rows written before intents had a signer belong to the operator. */
  private prepare(): Promise<void> {
    const operator = this.p.operatorAccount;
    if (!operator) return Promise.resolve();
    this.prepared ??= assignUnsignedIntents(this.p, operator.address).catch((error) => {
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

  private async drive(account: LocalAccount, id: number): Promise<TxOutcome> {
    await driveInFlight(this.p, account, id);
    return driveOne(this.p, account, id);
  }
}
