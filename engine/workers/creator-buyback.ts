/**
 * creator-buyback (`runCreatorBuybackCycle`): drains the creator buyback queue (desk profits
 * per token) above each token's minimum (`CREATOR_BUYBACK_MIN_USDC` or its mandate's), one
 * swap and one burn per creator token, along the token pool's route.
 */
import { consumeCreatorBuybacksAbove } from "../../core/ledger/accumulators.js";
import { executeBuyback, unfinishedBuybacks, type BuybackSummary } from "../chain/buyback.js";
import { type EngineContext, finalBlock } from "../../core/context.js";
import { mandateFor } from "../../core/token-mandate.js";
import type { Worker } from "./types.js";

const WORKER = "creator-buyback";

export async function runCreatorBuybackCycle(ctx: EngineContext) {
  const done: BuybackSummary[] = [];
  for (const id of await unfinishedBuybacks(ctx, "creator")) done.push(await executeBuyback(ctx, id, WORKER));
  const queued = await consumeCreatorBuybacksAbove(
    ctx.db,
    async (token) => (await mandateFor(ctx.db, ctx.config, token)).buybackMinUsdc,
    await finalBlock(ctx),
  );
  for (const q of queued) done.push(await executeBuyback(ctx, q.buybackId, WORKER));
  return { buybacks: done };
}

export const creatorBuyback: Worker = { name: WORKER, minSeconds: 600, maxSeconds: 1200, run: runCreatorBuybackCycle };
