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
import { tables } from "../../core/db/client.js";
import { LEGACY_WETH_MIN } from "../fees/weth.js";
import { Legs, consumeLeg, pendingBuybackUsdc, spendableBalance } from "../../core/ledger/ledger.js";
import type { Worker } from "./types.js";

const WORKER = "buyback-engine";

async function startBuyback(ctx: EngineContext, leg: typeof Legs.protocol | typeof Legs.legacyWeth, amount: bigint, final: number): Promise<number> {
  const token = ctx.config.protocolToken!;
  const currency = leg === Legs.protocol ? "USDC" : "WETH";
  return ctx.db.transaction(async (tx) => {
    const [row] = await tx.insert(tables.buybacks).values({ kind: "protocol", token, currencyIn: currency, amountIn: amount.toString(), status: "swapping" }).returning({ id: tables.buybacks.id });
    await consumeLeg(tx, { leg, token: null, amount, key: `spend:buyback:${row!.id}`, kind: "buyback-spend", currency, finalBlock: final, data: { buybackId: row!.id } });
    return row!.id;
  });
}

export async function runBuybackCycle(ctx: EngineContext) {
  const token = ctx.config.protocolToken;
  if (!token) {
    await logDecision(ctx, { worker: WORKER, decision: "skip", reason: "PROTOCOL_TOKEN_ADDRESS is not configured" });
    return { skipped: "no protocol token" };
  }
  const done: BuybackSummary[] = [];
  for (const id of await unfinishedBuybacks(ctx, "protocol")) done.push(await executeBuyback(ctx, id, WORKER));

  const final = await finalBlock(ctx);
  const pending = await spendableBalance(ctx.db, Legs.protocol, undefined, final);
  if (pending >= ctx.config.protocolBuybackMinUsdc && pending > 0n) {
    done.push(await executeBuyback(ctx, await startBuyback(ctx, Legs.protocol, pending, final), WORKER));
  } else if (pending > 0n) {
    await logDecision(ctx, { worker: WORKER, token, decision: "wait", reason: `pending ${pending} below the protocol buyback minimum ${ctx.config.protocolBuybackMinUsdc}` });
  }
  const legacy = await spendableBalance(ctx.db, Legs.legacyWeth, undefined, final);
  if (legacy >= LEGACY_WETH_MIN) done.push(await executeBuyback(ctx, await startBuyback(ctx, Legs.legacyWeth, legacy, final), WORKER));
  return { buybacks: done, pendingUsdc: (await pendingBuybackUsdc(ctx.db)).toString() };
}

export const buybackEngine: Worker = { name: WORKER, minSeconds: 900, maxSeconds: 1800, run: runBuybackCycle };
