/**
 * WETH in the operator wallet. Fees of WETH-paired tokens arrive in WETH (the locker can
 * only convert into a pool's own currencies); the fee-claimer converts them to USDC through
 * the v3 WETH/USDC pool and splits the USDC per token. WETH the ledger does not explain is
 * the legacy WETH accumulator: recognised at startup, drained by the buyback engine.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import type { Address } from "viem";
import { logDecision } from "../../core/agent-log.js";
import { balanceOf } from "../../core/chain/erc20.js";
import { planV3Swap } from "../../core/chain/swap/plan.js";
import { sendSwap } from "../../core/chain/swap/send.js";
import { type EngineContext, finalBlock } from "../../core/context.js";
import { tables } from "../../core/db/client.js";
import { divideConversion } from "../../common/conversion.js";
import { allocateFees } from "./allocate.js";
import { recordEntries } from "../../core/ledger/journal.js";
import { Legs } from "../../core/ledger/legs.js";
import { legBalance, spendableBalancesByToken } from "../../core/ledger/reads.js";
import { consumeLeg, refundSpend } from "../../core/ledger/spend.js";
import { tokenInfo } from "../../core/registry-cache.js";
import { WETH_UNIT, showUnits } from "../../common/units.js";

/** WETH fees below this wait for more (0.0001 WETH). */
export const WETH_CONVERT_MIN = 100_000_000_000_000n;
/** Unexplained WETH below this is dust, not a legacy balance. */
export const LEGACY_WETH_MIN = 1_000_000_000_000n;

const spendKey = (id: number, token: string) => `spend:weth-conversion:${id}:${token}`;

/** Converts the WETH fees awaiting conversion into USDC and allocates the USDC per token. */
export async function convertWethFees(ctx: EngineContext, worker = "fee-claimer"): Promise<{ converted: string; usdcOut: string } | undefined> {
  const unfinished = await ctx.db.select().from(tables.wethConversions).where(eq(tables.wethConversions.status, "swapping"));
  let result: { converted: string; usdcOut: string } | undefined;
  for (const c of unfinished) result = await finishConversion(ctx, c.id, worker);

  const final = await finalBlock(ctx);
  const balances = await spendableBalancesByToken(ctx.db, Legs.wethClaimed, final);
  const total = [...balances.values()].reduce((a, b) => a + b, 0n);
  if (total < WETH_CONVERT_MIN) return result;
  const id = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(tables.wethConversions)
      .values({ wethIn: total.toString(), shares: Object.fromEntries([...balances].map(([t, a]) => [t, a.toString()])), status: "swapping" })
      .returning({ id: tables.wethConversions.id });
    for (const [token, amount] of balances) {
      await consumeLeg(tx, {
        leg: Legs.wethClaimed,
        token,
        amount,
        key: spendKey(row!.id, token),
        kind: "weth-conversion",
        currency: "WETH",
        finalBlock: final,
        data: { conversionId: row!.id },
      });
    }
    return row!.id;
  });
  return finishConversion(ctx, id, worker);
}

async function finishConversion(ctx: EngineContext, id: number, worker: string): Promise<{ converted: string; usdcOut: string }> {
  const [c] = await ctx.db.select().from(tables.wethConversions).where(eq(tables.wethConversions.id, id));
  const weth = ctx.contract("weth");
  const usdc = ctx.contract("usdc");
  const wethIn = BigInt(c!.wethIn);
  const swap = await sendSwap(ctx, {
    key: `weth-conversion:${id}:swap`,
    worker,
    tokenOut: usdc,
    currencyIn: weth,
    plan: () => planV3Swap(ctx, { pool: ctx.contract("v3WethUsdcPool"), tokenIn: weth, amountIn: wethIn }),
  });
  const shares = Object.fromEntries(Object.entries(c!.shares).map(([t, a]) => [t, BigInt(a)])) as Record<string, bigint>;
  if (swap.outcome.status !== "mined") {
    const reason = swap.outcome.reason;
    await ctx.db.transaction(async (tx) => {
      for (const token of Object.keys(shares)) await refundSpend(tx, spendKey(id, token), reason);
      await tx.update(tables.wethConversions).set({ status: "failed", swapIntentId: swap.outcome.intent.id }).where(eq(tables.wethConversions.id, id));
    });
    await logDecision(ctx, { worker, decision: "weth-conversion-failed", reason, data: { conversionId: id } });
    return { converted: "0", usdcOut: "0" };
  }
  const usdcShares = divideConversion(
    wethIn,
    swap.amountOut,
    Object.entries(shares).map(([token, amount]) => ({ token, amount })),
  );
  await ctx.db.transaction(async (tx) => {
    for (const { token, usdc: usdcAmount } of usdcShares) {
      const info = await tokenInfo(ctx, token as Address);
      await allocateFees(tx, {
        key: `weth-converted:${id}:${token}:${swap.outcome.intent.blockHash}`,
        kind: "weth-converted",
        token: info.token,
        usdc: usdcAmount,
        split: info.enrolled ? { assetBps: info.assetBps, perpBps: info.perpBps } : null,
        txHash: swap.outcome.intent.txHash,
        blockNumber: swap.outcome.intent.blockNumber,
        blockHash: swap.outcome.intent.blockHash,
        data: { conversionId: id, wethIn: shares[token]!.toString() },
      });
    }
    await tx
      .update(tables.wethConversions)
      .set({ status: "done", usdcOut: swap.amountOut.toString(), swapIntentId: swap.outcome.intent.id, completedAt: new Date() })
      .where(eq(tables.wethConversions.id, id));
  });
  return { converted: wethIn.toString(), usdcOut: swap.amountOut.toString() };
}

/**
 * Recognises the legacy WETH accumulator at startup: the operator's WETH at `block` beyond
 * what the ledger accounts for (WETH fees awaiting conversion, the legacy leg itself, and
 * WETH reserved by swaps not yet mined). Call after attributing WETH claims up to `block`.
 */
export async function recognizeLegacyWeth(ctx: EngineContext, block: bigint): Promise<bigint> {
  const weth = ctx.contract("weth");
  const onchain = await balanceOf(ctx, weth, ctx.operator, block);
  // WETH the ledger already explains: fees awaiting conversion, the legacy leg, and the wallet's opening balance.
  const opening = await ctx.db.execute<{ s: string | null }>(
    sql`SELECT balance::text AS s FROM engine.ledger_balances WHERE leg = 'operator' AND token = '' AND currency = 'WETH'`,
  );
  let tracked = (await legBalance(ctx.db, Legs.wethClaimed)) + (await legBalance(ctx.db, Legs.legacyWeth)) + BigInt(opening.rows[0]?.s ?? "0");
  const reserved = async (rows: { amount: string; intentKey: string }[]) => {
    for (const r of rows) {
      const intent = await ctx.pipeline.get(r.intentKey);
      if (intent?.status !== "mined" || (intent.blockNumber ?? 0) > Number(block)) tracked += BigInt(r.amount);
    }
  };
  const conversions = await ctx.db.select().from(tables.wethConversions).where(eq(tables.wethConversions.status, "swapping"));
  await reserved(conversions.map((c) => ({ amount: c.wethIn, intentKey: `weth-conversion:${c.id}:swap` })));
  const buybacks = await ctx.db
    .select()
    .from(tables.buybacks)
    .where(and(eq(tables.buybacks.currencyIn, "WETH"), inArray(tables.buybacks.status, ["swapping"])));
  await reserved(buybacks.map((b) => ({ amount: b.amountIn, intentKey: `buyback:${b.id}:swap` })));
  const surplus = onchain - tracked;
  if (surplus < LEGACY_WETH_MIN) return 0n;
  const { hash: blockHash } = await ctx.publicClient.getBlock({ blockNumber: block });
  const added = await recordEntries(ctx.db, [
    // Read at a block: its hash makes the finding reorg-checked, and a rollback lets it be found again.
    {
      key: `legacy-weth:${blockHash}`,
      kind: "legacy-weth-found",
      leg: Legs.legacyWeth,
      currency: "WETH",
      amount: surplus,
      blockNumber: Number(block),
      blockHash,
      data: { onchain: onchain.toString(), tracked: tracked.toString() },
    },
  ]);
  if (added) {
    ctx.log.info({ amount: String(surplus), block: Number(block) }, "legacy WETH recognised; the buyback engine drains it");
    await logDecision(ctx, {
      worker: "reconcile",
      decision: "legacy-weth",
      reason: `${showUnits(surplus, WETH_UNIT)} in the operator wallet beyond the ledger: queued for protocol buybacks`,
    });
  }
  return surplus;
}
