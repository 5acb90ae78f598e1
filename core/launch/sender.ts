/**
 * How the API's operator transactions reach the chain: the engine's exactly-once pipeline (an
 * intent row first, the nonce under the shared database lock, so the API, the agent flow and
 * the engine never race for the operator's nonces). `previous` finds the outcome of a key
 * already sent, so a retried request (same Idempotency-Key) never sends twice.
 */
import type { Address, Hex, TransactionReceipt } from "viem";
import type { TxOutcome, TxPipeline } from "../chain/pipeline/index.js";
import { Refusal } from "../errors.js";

/** One operator transaction: `key` names what caused it (the idempotency key of its intent). */
export type OperatorTx = { key: string; kind: string; to: Address; data: Hex };

export interface OperatorSender {
  operator(): Promise<Address>;
  /** The receipt of an earlier transaction with this key, if one was mined. */
  previous(key: string): Promise<TransactionReceipt | undefined>;
  /** Sends and waits for the receipt; a transaction refused before sending is a 502 with the reason. */
  send(tx: OperatorTx): Promise<TransactionReceipt>;
}

/** What the sender needs: the engine tables migrated, and the process's one operator pipeline. */
export type PipelineSource = { ready: () => Promise<void>; operatorPipeline: () => Promise<TxPipeline> };

function receiptOf(outcome: TxOutcome, what: string): TransactionReceipt {
  if (outcome.status === "mined" || outcome.status === "reverted") return outcome.receipt;
  if (outcome.status === "dropped") throw new Refusal("chain", `${what} was not mined: ${outcome.reason}`);
  throw new Refusal("chain", `${what} reverted: ${outcome.reason.replace(/^(simulation|gas estimation) reverted: /, "")}`);
}

export function pipelineSender(source: PipelineSource): OperatorSender {
  const pipeline = async () => {
    await source.ready();
    return source.operatorPipeline();
  };
  return {
    operator: async () => (await source.operatorPipeline()).operator,
    async previous(key) {
      const outcome = await (await pipeline()).result(key);
      return outcome && (outcome.status === "mined" || outcome.status === "reverted") ? outcome.receipt : undefined;
    },
    async send(tx) {
      return receiptOf(await (await pipeline()).send({ ...tx, worker: "api" }), tx.kind);
    },
  };
}
