/**
 * A buyback, resumable from its row: swap (USDC or legacy WETH → token), then burn the
 * operator's whole balance of the token. The swap and the burn are two intents linked to one
 * buyback id, so a crash between them resumes with the burn. A swap that cannot land refunds
 * the spend to its leg.
 */
import { and, asc, count, eq, inArray, like, notLike } from "drizzle-orm";
import type { Address } from "viem";
import { logDecision } from "../../core/agent-log.js";
import { burnTokens } from "./burn.js";
import { swapUsdcForToken } from "../../core/chain/swap/send.js";
import type { EngineContext } from "../../core/context.js";
import { tables } from "../../core/db/client.js";
import { refundSpend } from "../../core/ledger/spend.js";
import { showAmountOf, showUnits } from "../../common/units.js";
import { tokenSymbol } from "../../core/log-lines.js";

export type BuybackIntentRow = typeof tables.buybacks.$inferSelect;
export type BuybackSummary = { id: number; token: Address; status: string; amountIn: string; tokensBought: string | null; tokensBurned: string | null };

export async function executeBuyback(ctx: EngineContext, id: number, worker: string): Promise<BuybackSummary> {
  let [b] = await ctx.db.select().from(tables.buybacks).where(eq(tables.buybacks.id, id));
  if (!b) throw new Error(`buyback ${id} not found`);
  const token = b.token as Address;
  if (b.status === "swapping") {
    const currencyIn = b.currencyIn === "WETH" ? ctx.contract("weth") : ctx.contract("usdc");
    const swap = await swapUsdcForToken(ctx, { key: `buyback:${id}:swap`, worker, token, amountIn: BigInt(b.amountIn), currencyIn });
    if (swap.outcome.status !== "mined") {
      const reason = swap.outcome.reason;
      await ctx.db.transaction(async (tx) => {
        await refundSpend(tx, `spend:buyback:${id}`, reason);
        await tx.update(tables.buybacks).set({ status: "failed", error: reason, swapIntentId: swap.outcome.intent.id }).where(eq(tables.buybacks.id, id));
      });
      await logDecision(ctx, {
        worker,
        token,
        decision: "buyback-failed",
        reason: `swap did not land: ${reason}; ${b.amountIn} back to its leg`,
        data: { buybackId: id },
      });
      return summary((await ctx.db.select().from(tables.buybacks).where(eq(tables.buybacks.id, id)))[0]!);
    }
    await ctx.db
      .update(tables.buybacks)
      .set({
        status: "burning",
        tokensBought: swap.amountOut.toString(),
        swapIntentId: swap.outcome.intent.id,
        swapTxHash: swap.outcome.receipt.transactionHash,
      })
      .where(eq(tables.buybacks.id, id));
    ctx.faults.hit("between-swap-and-burn");
    [b] = await ctx.db.select().from(tables.buybacks).where(eq(tables.buybacks.id, id));
  }
  if (b!.status === "burning") {
    const failedBurns = await failedBurnCount(ctx, id, "burn");
    const key = failedBurns ? `buyback:${id}:burn:${failedBurns}` : `buyback:${id}:burn`;
    const burn = await burnTokens(ctx, { key, worker, token });
    if (burn.outcome && burn.outcome.status !== "mined") {
      await ctx.db
        .update(tables.buybacks)
        .set({ error: `burn: ${burn.outcome.reason}` })
        .where(eq(tables.buybacks.id, id));
      throw new Error(`burn of buyback ${id} failed: ${burn.outcome.reason}`);
    }
    let burned = burn.burned;
    let last = burn.outcome;
    const bought = BigInt(b!.tokensBought ?? "0");
    if (burned < bought) {
      // The burn's signed bytes carry the amount the swap bought when they were signed. A reorg
      // that took both away re-mines the swap (its stored bytes) for a different amount while
      // the burn's bytes still burn the old one: the rest of this buyback's tokens are burned
      // by one more transfer of the wallet's balance, so each buyback burns what it bought.
      const restFailures = await failedBurnCount(ctx, id, "rest");
      const rest = await burnTokens(ctx, { key: `buyback:${id}:burn:rest${restFailures || ""}`, worker, token });
      if (rest.outcome && rest.outcome.status !== "mined") {
        await ctx.db
          .update(tables.buybacks)
          .set({ error: `burn: ${rest.outcome.reason}` })
          .where(eq(tables.buybacks.id, id));
        throw new Error(`burn of the rest of buyback ${id} failed: ${rest.outcome.reason}`);
      }
      burned += rest.burned;
      last = rest.outcome ?? last;
    }
    await ctx.db
      .update(tables.buybacks)
      .set({
        status: "done",
        tokensBurned: burned.toString(),
        burnIntentId: last?.intent.id ?? null,
        burnTxHash: last?.receipt.transactionHash ?? null,
        blockNumber: last ? Number(last.receipt.blockNumber) : null,
        completedAt: new Date(),
        error: null,
      })
      .where(eq(tables.buybacks.id, id));
    const symbol = { symbol: await tokenSymbol(ctx.publicClient, token), decimals: 18 };
    await logDecision(ctx, {
      worker,
      token,
      decision: b!.kind === "protocol" ? "protocol-buyback" : "creator-buyback",
      reason: `bought ${showUnits(BigInt(b!.tokensBought ?? 0), symbol)} for ${showAmountOf(BigInt(b!.amountIn), b!.currencyIn)} and burned ${showUnits(burned, symbol)} to 0x…dEaD`,
      data: { buybackId: id, burnTx: last?.receipt.transactionHash, currencyIn: b!.currencyIn, amountIn: b!.amountIn, bought: b!.tokensBought, burned },
    });
  }
  return summary((await ctx.db.select().from(tables.buybacks).where(eq(tables.buybacks.id, id)))[0]!);
}

/**
 * Failed or reverted burns of a buyback: its burns of what it bought (`burn`, `burn:N`), or
 * those of the rest after a reorg (`burn:rest…`). The next attempt is keyed by the count.
 */
async function failedBurnCount(ctx: EngineContext, id: number, which: "burn" | "rest"): Promise<number> {
  const { txIntents } = tables;
  const rest = `buyback:${id}:burn:rest%`;
  const keys = which === "rest" ? like(txIntents.key, rest) : and(like(txIntents.key, `buyback:${id}:burn%`), notLike(txIntents.key, rest));
  const [row] = await ctx.db
    .select({ n: count() })
    .from(txIntents)
    .where(and(keys, inArray(txIntents.status, ["failed", "reverted"])));
  return row!.n;
}

function summary(b: BuybackIntentRow): BuybackSummary {
  return { id: b.id, token: b.token as Address, status: b.status, amountIn: b.amountIn, tokensBought: b.tokensBought, tokensBurned: b.tokensBurned };
}

/** Ids of a kind's buybacks still in progress (swapping or burning), oldest first. */
export async function unfinishedBuybacks(ctx: EngineContext, kind: "protocol" | "creator"): Promise<number[]> {
  const { buybacks } = tables;
  const rows = await ctx.db
    .select({ id: buybacks.id })
    .from(buybacks)
    .where(and(eq(buybacks.kind, kind), inArray(buybacks.status, ["swapping", "burning"])))
    .orderBy(asc(buybacks.id));
  return rows.map((r) => r.id);
}
