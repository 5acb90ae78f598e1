/**
 * Driving an intent: one step per state (pending → sign, signed → broadcast, broadcast →
 * await the receipt) until it is terminal, retrying retryable errors with backoff up to
 * `maxWaitMs`. A signer's queue runs these one at a time, in nonce order.
 */
import type { LocalAccount } from "viem";
import { sleep } from "../../../common/async.js";
import { EngineError, classifyError, describeError } from "../../errors.js";
import { FencedError } from "../../leadership.js";
import { broadcast } from "./broadcast.js";
import { awaitReceipt, outcome } from "./confirm.js";
import { type PipelineContext, backoff } from "./context.js";
import { ChainBehindError, signPending } from "./sign.js";
import { TERMINAL, type TxOutcome, inFlightIntentIds, loadIntent, updateIntent } from "./store.js";

/** Drives every intent of a signer holding a nonce (signed or broadcast), in nonce order, but `except`. */
export async function driveInFlight(p: PipelineContext, account: LocalAccount, except: number | undefined): Promise<void> {
  for (const id of await inFlightIntentIds(p, account.address)) {
    if (id !== except) await driveOne(p, account, id);
  }
}

/** Runs one intent through its states to a terminal one (or throws retryable after `maxWaitMs`). */
export async function driveOne(p: PipelineContext, account: LocalAccount, id: number): Promise<TxOutcome> {
  const deadline = Date.now() + p.options.maxWaitMs;
  let failures = 0;
  for (;;) {
    const row = await loadIntent(p, id);
    if (TERMINAL.includes(row.status)) {
      const done = await outcome(p, row);
      if (done) return done;
      continue;
    }
    try {
      if (row.status === "pending") await signPending(p, account, row);
      else if (row.status === "signed") await broadcast(p, row);
      else if (row.status === "broadcast") {
        const done = await awaitReceipt(p, account, row, deadline);
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
        await updateIntent(p, id, { error: describeError(e) });
        throw new EngineError(`intent ${row.key} waiting: ${e.message}`, { code: e.code, retryable: true, cause: e });
      }
      const delay = backoff(failures, p.options);
      p.log.warn({ intent: row.key, status: row.status, err: e.message, retryInMs: delay }, "transaction step failed; retrying");
      await sleep(delay);
    }
  }
}
