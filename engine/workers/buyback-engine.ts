/**
 * buyback-engine (`runBuybackCycle`): when the protocol leg holds at least the protocol
 * buyback minimum (0.5 USDC), swaps all of it to the protocol token along its pool's route
 * (`swapUsdcForToken`) and burns the whole balance (`burnTokens`). Below the minimum it waits:
 * the USDC stays pending in the ledger. The legacy WETH accumulator is drained as a fallback,
 * through the same route from WETH.
 */
import { logDecision } from "../../core/agent-log.js";
import { executeBuyback, unfinishedBuybacks, type BuybackSummary } from "../chain/buyback.js";
import { type EngineContext, finalBlock } from "../../core/context.js";
import { LEGACY_WETH_MIN } from "../fees/weth.js";
import { legacyWethBalance, pendingBuybackUsdc } from "../../core/ledger/accumulators.js";
import { startBuyback } from "../../core/ledger/buybacks.js";
import { Legs } from "../../core/ledger/legs.js";
import type { Worker } from "./types.js";
import { USDC_UNIT, showUnits } from "../../common/units.js";

const WORKER = "buyback-engine";

export async function runBuybackCycle(ctx: EngineContext) {
  const token = ctx.config.protocolToken;
  if (!token) {
    await logDecision(ctx, { worker: WORKER, decision: "skip", reason: "PROTOCOL_TOKEN_ADDRESS is not configured" });
    return { skipped: "no protocol token" };
  }
  const done: BuybackSummary[] = [];
  for (const id of await unfinishedBuybacks(ctx, "protocol")) done.push(await executeBuyback(ctx, id, WORKER));

  const final = await finalBlock(ctx);
  const pending = await pendingBuybackUsdc(ctx.db, final);
  if (pending >= ctx.config.protocolBuybackMinUsdc && pending > 0n) {
    const id = await startBuyback(ctx.db, { kind: "protocol", token, leg: Legs.protocol, currency: "USDC", amount: pending, finalBlock: final });
    done.push(await executeBuyback(ctx, id, WORKER));
  } else if (pending > 0n) {
    await logDecision(ctx, {
      worker: WORKER,
      token,
      decision: "wait",
      reason: `pending ${showUnits(pending, USDC_UNIT)} below the protocol buyback minimum ${showUnits(ctx.config.protocolBuybackMinUsdc, USDC_UNIT)}`,
    });
  }
  const legacy = await legacyWethBalance(ctx.db, final);
  if (legacy >= LEGACY_WETH_MIN) {
    const id = await startBuyback(ctx.db, { kind: "protocol", token, leg: Legs.legacyWeth, currency: "WETH", amount: legacy, finalBlock: final });
    done.push(await executeBuyback(ctx, id, WORKER));
  }
  return { buybacks: done, pendingUsdc: (await pendingBuybackUsdc(ctx.db, Infinity)).toString() };
}

export const buybackEngine: Worker = { name: WORKER, minSeconds: 900, maxSeconds: 1800, run: runBuybackCycle };
