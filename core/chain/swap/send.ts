/**
 * Sending a swap: planned only when its intent is new (a resumed swap keeps its signed terms),
 * sent through the pipeline, its revert explained, its output read from the receipt.
 */
import type { Address } from "viem";
import type { EngineContext } from "../../context.js";
import { ensureRouterAllowance, receivedInReceipt } from "../erc20.js";
import { GAS_RETRY_SUFFIX, type TxOutcome, raisedGasLimit } from "../pipeline/index.js";
import { isOutOfGas } from "../revert-cause.js";
import { type SwapPlan, planSwapToToken } from "./plan.js";
import { explainSwapBound, swapRevertReason } from "./revert.js";

export type SwapResult = { outcome: TxOutcome; amountOut: bigint; plan?: SwapPlan };

/** The intent kind of every swap the service signs. */
export const SWAP_KIND = "swap";

type SwapRequest = { key: string; worker: string; tokenOut: Address; currencyIn: Address; plan: () => Promise<SwapPlan> };

/**
 * Sends a planned swap as the intent `key` (planning only when the intent is new, so a resumed
 * swap keeps its signed terms) and reports the output the operator received.
 *
 * A swap that runs out of gas (the pool moved between the estimate and the block, and the swap
 * crossed more ticks) is sent once more as `<key>:gas-retry`, planned afresh (a new quote, so
 * its bounds fit the pool as it is now) with at least twice the limit, within the pipeline's
 * ceiling; its outcome is the caller's. A restart finds either intent by its key.
 */
export async function sendSwap(ctx: EngineContext, p: SwapRequest): Promise<SwapResult> {
  const first = await sendSwapOnce(ctx, p);
  const row = first.outcome.intent;
  if (first.outcome.status !== "reverted" || !isOutOfGas(first.outcome.intent.revertReason) || row.gasLimit === null) return first;
  const raised = raisedGasLimit(ctx.pipeline.options, row.gasLimit);
  if (raised === undefined) return first;
  ctx.log.warn(
    { key: p.key, gasLimit: String(row.gasLimit), retryLimit: String(raised) },
    `${p.key}: ${row.revertReason}; planning it again with at least ${raised} gas`,
  );
  return sendSwapOnce(ctx, { ...p, key: `${p.key}${GAS_RETRY_SUFFIX}` }, raised);
}

async function sendSwapOnce(ctx: EngineContext, p: SwapRequest, minGasLimit?: bigint): Promise<SwapResult> {
  const existing = await ctx.pipeline.get(p.key);
  let plan: SwapPlan | undefined;
  if (!existing) {
    await ensureRouterAllowance(ctx, p.currencyIn, p.worker);
    plan = await p.plan();
    ctx.log.info(
      {
        key: p.key,
        route: plan.route,
        amountIn: String(plan.amountIn),
        expectedOut: String(plan.expectedOut),
        minOut: String(plan.minOut),
        impactBps: plan.impactBps,
        deadline: Number(plan.deadline),
      },
      "swap planned",
    );
  }
  let outcome = await ctx.pipeline.send({
    key: p.key,
    kind: SWAP_KIND,
    worker: p.worker,
    to: existing?.to ?? plan!.to,
    data: existing?.data ?? plan!.data,
    ...(minGasLimit === undefined ? {} : { minGasLimit }),
  });
  if (outcome.status === "reverted")
    outcome = { ...outcome, reason: await swapRevertReason(ctx.publicClient, outcome.intent, outcome.receipt, outcome.reason) };
  else if (outcome.status === "failed") outcome = { ...outcome, reason: explainSwapBound(outcome.reason) };
  const amountOut = outcome.status === "mined" ? receivedInReceipt(outcome.receipt, p.tokenOut, ctx.operator) : 0n;
  return { outcome, amountOut, plan };
}

/**
 * `swapUsdcForToken`: buys `token` with `amountIn` USDC (or WETH for the legacy accumulator)
 * along the pool's route, as the intent `key`.
 */
export function swapUsdcForToken(
  ctx: EngineContext,
  p: { key: string; worker: string; token: Address; amountIn: bigint; currencyIn?: Address },
): Promise<SwapResult> {
  const currencyIn = p.currencyIn ?? ctx.contract("usdc");
  return sendSwap(ctx, {
    key: p.key,
    worker: p.worker,
    tokenOut: p.token,
    currencyIn,
    plan: () => planSwapToToken(ctx, { token: p.token, currencyIn, amountIn: p.amountIn }),
  });
}
