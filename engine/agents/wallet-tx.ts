/**
 * Exactly-once transactions from agent wallets, with the operator pipeline's discipline
 * (engine/chain/pipeline.ts) and a nonce sequence per signer: each transaction is first a
 * row of `engine.agent_tx_intents` keyed by its cause; the nonce is taken under a database
 * lock on the signer, the signed bytes are stored before broadcast, and a restart resumes
 * each intent from its row (rebroadcast the same bytes, find any version mined, replace a
 * stuck one at the same nonce) — never a second spend.
 *
 * Reuses the pipeline's types, tuning and error classes; the operator pipeline keeps its own
 * table, whose nonces are those of the operator alone.
 */
import PQueue from "p-queue";
import type pg from "pg";
import { type Address, type Chain, type Hex, type LocalAccount, type PublicClient, type TransactionReceipt, TransactionReceiptNotFoundError, getAddress, keccak256 } from "viem";
import { sleep } from "../../common/async.js";
import type { Logger } from "../../common/logger.js";
import { DEFAULT_PIPELINE_OPTIONS, type IntentRequest, type IntentRow, type IntentStatus, type PipelineOptions, type TxOutcome, backoff, intentFromRow } from "../chain/pipeline.js";
import { EngineError, RevertError, classifyError, decodeRevert, describeError, revertDataOf } from "../errors.js";
import { type Faults, NO_FAULTS } from "../faults.js";

const TERMINAL: IntentStatus[] = ["mined", "reverted", "failed"];
const IN_FLIGHT: IntentStatus[] = ["signed", "broadcast"];

/** The wallet cannot pay for the transaction (value plus gas): the caller must fund it. */
export class WalletUnderfundedError extends EngineError {
  override name = "WalletUnderfundedError";
  constructor(readonly wallet: Address, cause?: unknown) {
    super(`wallet ${wallet} cannot pay for the transaction and its gas`, { code: "insufficient-funds", retryable: false, cause });
  }
}

export type AgentIntentRequest = IntentRequest & { agentId?: string };
export type AgentIntentRow = IntentRow & { signer: Address; agentId: string | null };

function toRow(r: Record<string, unknown>): AgentIntentRow {
  return { ...intentFromRow(r), worker: null, signer: getAddress(r.signer as string), agentId: (r.agent_id as string | null) ?? null };
}

export type AgentSenderDeps = {
  pool: pg.Pool;
  publicClient: PublicClient;
  chain: Chain;
  log: Logger;
  faults?: Faults;
  options?: Partial<PipelineOptions>;
};

export class AgentWalletSender {
  readonly options: PipelineOptions;
  private readonly queues = new Map<Address, PQueue>();
  private readonly pool: pg.Pool;
  private readonly publicClient: PublicClient;
  private readonly chain: Chain;
  private readonly log: Logger;
  private readonly faults: Faults;

  constructor(deps: AgentSenderDeps) {
    this.pool = deps.pool;
    this.publicClient = deps.publicClient;
    this.chain = deps.chain;
    this.log = deps.log.child({ component: "agent-wallet-tx" });
    this.faults = deps.faults ?? NO_FAULTS;
    this.options = { ...DEFAULT_PIPELINE_OPTIONS, ...deps.options };
  }

  /**
   * Sends the intent once from `account`: a known key returns its outcome (resuming it if in
   * flight). In-flight intents of the same signer are driven first, so its nonces never gap.
   */
  async send(account: LocalAccount, request: AgentIntentRequest): Promise<TxOutcome> {
    const row = await this.ensureIntent(account.address, request);
    if (row.signer !== account.address) throw new Error(`intent ${request.key} belongs to ${row.signer}, not ${account.address}`);
    if (TERMINAL.includes(row.status)) return this.outcome(row);
    return this.queueOf(account.address).add(
      async () => {
        const { rows } = await this.pool.query("SELECT id FROM engine.agent_tx_intents WHERE signer = $1 AND status = ANY($2) AND id <> $3 ORDER BY nonce, id", [
          account.address,
          IN_FLIGHT,
          row.id,
        ]);
        for (const r of rows) await this.driveOne(account, Number(r.id));
        return this.driveOne(account, row.id);
      },
      { throwOnTimeout: true },
    );
  }

  async get(key: string): Promise<AgentIntentRow | undefined> {
    const { rows } = await this.pool.query("SELECT * FROM engine.agent_tx_intents WHERE key = $1", [key]);
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  private queueOf(signer: Address): PQueue {
    let queue = this.queues.get(signer);
    if (!queue) {
      queue = new PQueue({ concurrency: 1 });
      this.queues.set(signer, queue);
      queue.on("idle", () => this.queues.delete(signer));
    }
    return queue;
  }

  private async ensureIntent(signer: Address, r: AgentIntentRequest): Promise<AgentIntentRow> {
    const { rows } = await this.pool.query(
      `INSERT INTO engine.agent_tx_intents (key, kind, signer, agent_id, status, "to", data, value)
       VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7)
       ON CONFLICT (key) DO UPDATE SET key = EXCLUDED.key
       RETURNING *`,
      [r.key, r.kind, signer, r.agentId ?? null, r.to, r.data, (r.value ?? 0n).toString()],
    );
    return toRow(rows[0]);
  }

  private async load(id: number): Promise<AgentIntentRow> {
    const { rows } = await this.pool.query("SELECT * FROM engine.agent_tx_intents WHERE id = $1", [id]);
    return toRow(rows[0]);
  }

  private async update(id: number, fields: Record<string, unknown>, expectStatus?: IntentStatus): Promise<AgentIntentRow> {
    const keys = Object.keys(fields);
    const sets = keys.map((k, i) => `"${k}" = $${i + 2}`).join(", ");
    const values = keys.map((k) => {
      const v = fields[k];
      return typeof v === "bigint" ? v.toString() : k === "tx_hashes" ? JSON.stringify(v) : v;
    });
    const guard = expectStatus ? ` AND status = '${expectStatus}'` : "";
    const { rows } = await this.pool.query(`UPDATE engine.agent_tx_intents SET ${sets}, updated_at = now() WHERE id = $1${guard} RETURNING *`, [id, ...values]);
    return rows[0] ? toRow(rows[0]) : this.load(id);
  }

  private async driveOne(account: LocalAccount, id: number): Promise<TxOutcome> {
    const deadline = Date.now() + this.options.maxWaitMs;
    let failures = 0;
    for (;;) {
      const row = await this.load(id);
      if (TERMINAL.includes(row.status)) return this.outcome(row);
      try {
        if (row.status === "pending") await this.signPending(account, row);
        else if (row.status === "signed") await this.broadcast(row);
        else {
          const done = await this.awaitReceipt(account, row, deadline);
          if (done) return done;
        }
        failures = 0;
      } catch (error) {
        const e = classifyError(error);
        if (!e.retryable) throw e;
        if (Date.now() > deadline) {
          await this.update(id, { error: describeError(e) });
          throw new EngineError(`intent ${row.key} waiting: ${e.message}`, { code: e.code, retryable: true, cause: e });
        }
        const delay = backoff(++failures, this.options);
        this.log.warn({ intent: row.key, status: row.status, err: e.message, retryInMs: delay }, "agent transaction step failed; retrying");
        await sleep(delay);
      }
    }
  }

  /** Simulate and estimate, then take the signer's next nonce under its lock, sign and store the bytes in one commit. */
  private async signPending(account: LocalAccount, row: AgentIntentRow): Promise<void> {
    const call = { account: account.address, to: row.to, data: row.data, value: row.value };
    let gas: bigint;
    try {
      await this.publicClient.call(call);
      gas = await this.publicClient.estimateGas(call);
    } catch (error) {
      const e = classifyError(error);
      if (e instanceof RevertError) {
        await this.update(row.id, { status: "failed", error: `simulation reverted: ${e.reason}`, revert_reason: e.reason }, "pending");
        this.log.warn({ intent: row.key, reason: e.reason }, "agent intent failed permanently (not sent)");
        return;
      }
      if (e.code === "insufficient-funds") throw new WalletUnderfundedError(account.address, e);
      throw e;
    }
    const gasLimit = gas + (gas * this.options.gasMarginBps) / 10_000n;
    const fees = await this.publicClient.estimateFeesPerGas();
    const pendingNonce = await this.publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
    const balance = await this.publicClient.getBalance({ address: account.address });
    if (balance < row.value + gasLimit * fees.maxFeePerGas!) throw new WalletUnderfundedError(account.address);

    const client = await this.pool.connect();
    let signed: { hash: Hex; nonce: number } | undefined;
    try {
      await client.query("BEGIN");
      await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [`agent-nonce:${account.address}`]);
      const { rows } = await client.query<{ next: number | null }>(
        "SELECT MAX(nonce) + 1 AS next FROM engine.agent_tx_intents WHERE signer = $1 AND status = ANY($2)",
        [account.address, IN_FLIGHT],
      );
      const nonce = Math.max(pendingNonce, Number(rows[0]?.next ?? 0));
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
      const res = await client.query(
        `UPDATE engine.agent_tx_intents SET status = 'signed', nonce = $2, raw_tx = $3, tx_hash = $4, tx_hashes = tx_hashes || $5::jsonb,
           gas_limit = $6, max_fee_per_gas = $7, max_priority_fee_per_gas = $8, attempts = attempts + 1, error = NULL, updated_at = now()
         WHERE id = $1 AND status = 'pending'`,
        [row.id, nonce, raw, hash, JSON.stringify([hash]), gasLimit.toString(), fees.maxFeePerGas!.toString(), fees.maxPriorityFeePerGas!.toString()],
      );
      await client.query("COMMIT");
      if (res.rowCount) signed = { hash, nonce };
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

  /** Back to pending without a nonce: only when no version of this intent can be mined. */
  private async releaseNonce(row: AgentIntentRow, why: string): Promise<void> {
    await this.pool.query(
      `UPDATE engine.agent_tx_intents SET status = 'pending', nonce = NULL, raw_tx = NULL, tx_hash = NULL, error = $2, updated_at = now()
       WHERE id = $1 AND status = ANY($3)`,
      [row.id, why, IN_FLIGHT],
    );
    this.log.warn({ intent: row.key, nonce: row.nonce, why }, "nonce released; the intent will be signed again");
  }

  private async sendRaw(raw: Hex): Promise<void> {
    await this.publicClient.request({ method: "eth_sendRawTransaction", params: [raw] });
  }

  private async broadcast(row: AgentIntentRow): Promise<void> {
    try {
      await this.sendRaw(row.rawTx!);
    } catch (error) {
      const e = classifyError(error);
      if (e.code === "nonce-too-low") {
        await this.update(row.id, { status: "broadcast", broadcast_at: new Date() }, "signed");
        return;
      }
      if (e.code === "insufficient-funds") {
        await this.releaseNonce(row, "the wallet cannot pay for the transaction");
        throw new WalletUnderfundedError(row.signer, e);
      }
      if (e.code !== "already-known") {
        if (e.retryable) throw e;
        if (row.txHashes.length > 1) {
          await this.update(row.id, { status: "broadcast", error: describeError(e) }, "signed");
          return;
        }
        await this.releaseNonce(row, `broadcast refused: ${e.message}`);
        throw new EngineError(`broadcast refused: ${e.message}`, { code: "unknown", retryable: false, cause: e });
      }
    }
    await this.update(row.id, { status: "broadcast", broadcast_at: new Date() }, "signed");
    this.faults.hit("after-broadcast");
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

  private async awaitReceipt(account: LocalAccount, row: AgentIntentRow, deadline: number): Promise<TxOutcome | undefined> {
    let current = row;
    let consumedChecks = 0;
    for (;;) {
      const receipt = await this.findReceipt(current.txHashes);
      if (receipt) return this.settle(current, receipt);
      const latestNonce = await this.publicClient.getTransactionCount({ address: current.signer, blockTag: "latest" });
      if (current.nonce !== null && latestNonce > current.nonce) {
        if (++consumedChecks >= 3) {
          await this.releaseNonce(current, "nonce consumed by a transaction of no version of this intent");
          return undefined;
        }
      } else {
        consumedChecks = 0;
        const sinceBroadcast = Date.now() - (current.broadcastAt?.getTime() ?? 0);
        if (!(await this.isKnown(current.txHashes))) {
          await this.sendRaw(current.rawTx!).catch((error) => {
            const e = classifyError(error);
            if (!["already-known", "nonce-too-low", "replacement-underpriced"].includes(e.code)) throw e;
          });
        } else if (sinceBroadcast > this.options.stuckAfterMs && current.replacements < this.options.maxReplacements) {
          current = await this.replace(account, current);
          continue;
        }
      }
      if (Date.now() > deadline) throw new EngineError(`no receipt yet for ${current.key} (${current.txHash})`, { code: "timeout", retryable: true });
      await sleep(this.options.pollMs);
      current = await this.load(current.id);
      if (TERMINAL.includes(current.status)) return this.outcome(current);
      if (current.status !== "broadcast") return undefined;
    }
  }

  /** Same nonce, fees raised by `feeBumpBps` (at least the current estimate), stored before it is sent. */
  private async replace(account: LocalAccount, row: AgentIntentRow): Promise<AgentIntentRow> {
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
    const { rows } = await this.pool.query(
      `UPDATE engine.agent_tx_intents SET raw_tx = $2, tx_hash = $3, tx_hashes = tx_hashes || $4::jsonb, max_fee_per_gas = $5,
         max_priority_fee_per_gas = $6, replacements = replacements + 1, broadcast_at = now(), updated_at = now()
       WHERE id = $1 AND status = 'broadcast' RETURNING *`,
      [row.id, raw, hash, JSON.stringify([hash]), maxFeePerGas.toString(), maxPriorityFeePerGas.toString()],
    );
    if (!rows[0]) return this.load(row.id);
    this.log.warn({ intent: row.key, nonce: row.nonce, hash }, "stuck agent transaction replaced with higher fees");
    await this.sendRaw(raw).catch((error) => {
      const e = classifyError(error);
      if (!["already-known", "nonce-too-low", "replacement-underpriced"].includes(e.code)) throw e;
    });
    return toRow(rows[0]);
  }

  private async settle(row: AgentIntentRow, receipt: TransactionReceipt): Promise<TxOutcome> {
    const common = { tx_hash: receipt.transactionHash, block_number: Number(receipt.blockNumber), gas_used: receipt.gasUsed, mined_at: new Date() };
    if (receipt.status === "success") {
      const updated = await this.update(row.id, { status: "mined", ...common, error: null });
      this.log.info({ intent: row.key, hash: receipt.transactionHash }, "agent transaction mined");
      return { status: "mined", intent: updated, receipt };
    }
    const reason = await this.revertReason(row, receipt);
    const updated = await this.update(row.id, { status: "reverted", ...common, error: `reverted onchain: ${reason}`, revert_reason: reason });
    this.log.error({ intent: row.key, hash: receipt.transactionHash, reason }, "agent transaction reverted");
    return { status: "reverted", intent: updated, receipt, reason };
  }

  private async revertReason(row: AgentIntentRow, receipt: TransactionReceipt): Promise<string> {
    try {
      await this.publicClient.call({
        account: row.signer,
        to: row.to,
        data: row.data,
        value: row.value,
        gas: row.gasLimit ?? undefined,
        blockNumber: receipt.blockNumber > 0n ? receipt.blockNumber - 1n : receipt.blockNumber,
      });
      return "reverted (not reproducible by a call)";
    } catch (error) {
      const data = revertDataOf(error);
      return data ? decodeRevert(data) : ((classifyError(error) as RevertError).reason ?? "reverted");
    }
  }

  private async outcome(row: AgentIntentRow): Promise<TxOutcome> {
    if (row.status === "failed") return { status: "failed", intent: row, reason: row.revertReason ?? row.error ?? "failed" };
    const receipt = await this.publicClient.getTransactionReceipt({ hash: row.txHash! });
    if (row.status === "mined") return { status: "mined", intent: row, receipt };
    return { status: "reverted", intent: row, receipt, reason: row.revertReason ?? "reverted" };
  }
}
