/**
 * What every step of the pipeline shares: its tuning, the clients and database it works
 * with, and the retry of one step on retryable errors.
 */
import { type Chain, type LocalAccount, type PublicClient, type TransactionReceipt, TransactionReceiptNotFoundError } from "viem";
import { sleep } from "../../../common/async.js";
import type { Logger } from "../../../common/logger.js";
import type { Db } from "../../db/client.js";
import { classifyError } from "../../errors.js";
import type { Faults } from "../../faults.js";
import { type Fence, FencedError } from "../../leadership.js";

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
  // A swap through our pools also runs the pool hook, whose work moves with the fees pending
  // when it is mined (a 30-minute soak saw one buyback swap run out at 25%).
  gasMarginBpsByKind: { "collect-rewards": 10_000n, "claim-fees": 5_000n, swap: 5_000n },
  gasCeiling: 8_000_000n,
  // A stake (the asset leg's ERC-4626 deposit) costs more when its slots are new: a rollback that takes back an
  // earlier stake re-mines the signed deposit where it needs more than its estimate. Repeating one is harmless: it
  // stakes what the operator holds of the asset, which is there only to be staked.
  gasRetryKinds: ["collect-rewards", "claim-fees", "stake"],
  maxWaitMs: 120_000,
  backoffBaseMs: 250,
  backoffMaxMs: 10_000,
};

/** The state one `TxPipeline` hands to each of its steps. */
export type PipelineContext = {
  readonly db: Db;
  readonly publicClient: PublicClient;
  readonly chain: Chain;
  /** The operator wallet, when this process signs as the operator. */
  readonly operatorAccount: LocalAccount | undefined;
  /** The engine leader's fence (see `PipelineDeps.fence`). */
  readonly fence: Fence | undefined;
  readonly log: Logger;
  readonly faults: Faults;
  readonly options: PipelineOptions;
  /** Receipts already fetched, by transaction hash. */
  readonly receipts: Map<string, TransactionReceipt>;
  /** When a reorged intent of another wallet was last reported as not re-sent, by key. */
  readonly resendWarnedAt: Map<string, number>;
};

/** Retries a step on retryable errors with jittered exponential backoff, up to `maxWaitMs`. */
export async function withRetry<T>(p: PipelineContext, what: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + p.options.maxWaitMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof FencedError) throw error;
      const e = classifyError(error);
      if (!e.retryable || Date.now() > deadline) throw error instanceof TransactionReceiptNotFoundError ? error : e;
      await sleep(backoff(attempt, p.options));
      p.log.debug({ what, err: e.message }, "retrying");
    }
  }
}

/** Exponential backoff with full jitter. */
export function backoff(attempt: number, o: Pick<PipelineOptions, "backoffBaseMs" | "backoffMaxMs">): number {
  const cap = Math.min(o.backoffMaxMs, o.backoffBaseMs * 2 ** Math.min(attempt - 1, 16));
  return Math.round(cap / 2 + Math.random() * (cap / 2));
}
