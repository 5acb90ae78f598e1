/**
 * How the API's operator transactions reach the chain. In service the engine's exactly-once
 * pipeline sends them (an intent row first, the nonce under the shared database lock, so the
 * API and the engine never race for the operator's nonces); `previous` finds the outcome of a
 * key already sent, so a retried request (same Idempotency-Key) never sends twice.
 */
import type pg from "pg";
import type { Address, Hex, TransactionReceipt } from "viem";
import type { Config } from "../../common/config.js";
import type { Logger } from "../../common/logger.js";
import { createChainClients } from "../../engine/chain/client.js";
import { type TxOutcome, TxPipeline } from "../../engine/chain/pipeline.js";
import { migrate } from "../../engine/db/migrations.js";
import { badGateway } from "../http/errors.js";

/** One operator transaction: `key` names what caused it (the idempotency key of its intent). */
export type OperatorTx = { key: string; kind: string; to: Address; data: Hex };

export interface OperatorSender {
  readonly operator: Address;
  /** The receipt of an earlier transaction with this key, if one was mined. */
  previous(key: string): Promise<TransactionReceipt | undefined>;
  /** Sends and waits for the receipt; a revert or refusal is a 502 with the reason. */
  send(tx: OperatorTx): Promise<TransactionReceipt>;
}

function receiptOf(outcome: TxOutcome, what: string): TransactionReceipt {
  if (outcome.status === "mined") return outcome.receipt;
  if (outcome.status === "reverted") return outcome.receipt;
  throw badGateway(`${what} reverted: ${outcome.reason.replace(/^simulation reverted: /, "")}`);
}

/** The engine's transaction pipeline over `pool` (its migrations applied on first use). */
export function pipelineSender(config: Config, pool: pg.Pool, log: Logger): OperatorSender {
  const clients = createChainClients(config);
  const pipeline = new TxPipeline({ pool, clients, log });
  let ready: Promise<unknown> | undefined;
  const migrated = () => {
    ready ??= migrate(pool).catch((error) => {
      ready = undefined;
      throw error;
    });
    return ready;
  };
  return {
    operator: clients.account.address,
    async previous(key) {
      await migrated();
      const outcome = await pipeline.result(key);
      return outcome && outcome.status !== "failed" ? outcome.receipt : undefined;
    },
    async send(tx) {
      await migrated();
      return receiptOf(await pipeline.send({ ...tx, worker: "api" }), tx.kind);
    },
  };
}
