/**
 * asset-engine: batch purchases of the secondary asset. When the asset leg holds at least
 * `ASSET_MIN_BATCH_USDC`, swaps it to the asset through its v3 USDC pool and stakes the
 * operator's whole asset balance in the ERC-4626 vault. Swap and stake are two intents of one
 * purchase row: a crash between them resumes with the stake. Never buys the protocol token.
 */
import { eq, inArray } from "drizzle-orm";
import { encodeFunctionData, getAddress, parseEventLogs } from "viem";
import { erc4626Abi } from "../../common/abis/engine.js";
import { logDecision } from "../../core/agent-log.js";
import { balanceOf, ensureAllowance } from "../../core/chain/erc20.js";
import { planV3Swap } from "../../core/chain/swap/plan.js";
import { sendSwap } from "../../core/chain/swap/send.js";
import { type EngineContext, finalBlock } from "../../core/context.js";
import { tables } from "../../core/db/client.js";
import { pendingAssetUsdc } from "../../core/ledger/accumulators.js";
import { Legs } from "../../core/ledger/legs.js";
import { consumeLeg, refundSpend } from "../../core/ledger/spend.js";
import type { Worker } from "./types.js";
import { USDC_UNIT, formatUnits, showUnits } from "../../common/units.js";

/** Smallest batch: the asset leg accumulates below it. */
export const ASSET_MIN_BATCH_USDC = 1_000_000n;
const WORKER = "asset-engine";

async function executePurchase(ctx: EngineContext, id: number) {
  const asset = ctx.contract("secondaryAsset");
  const vault = ctx.contract("assetVault");
  let [p] = await ctx.db.select().from(tables.assetPurchases).where(eq(tables.assetPurchases.id, id));
  if (p!.status === "swapping") {
    const usdc = ctx.contract("usdc");
    const swap = await sendSwap(ctx, {
      key: `asset-purchase:${id}:swap`,
      worker: WORKER,
      tokenOut: asset,
      currencyIn: usdc,
      plan: () => planV3Swap(ctx, { pool: ctx.contract("secondaryAssetPool"), tokenIn: usdc, amountIn: BigInt(p!.usdcIn) }),
    });
    if (swap.outcome.status !== "mined") {
      const reason = swap.outcome.reason;
      await ctx.db.transaction(async (tx) => {
        await refundSpend(tx, `spend:asset-purchase:${id}`, reason);
        await tx
          .update(tables.assetPurchases)
          .set({ status: "failed", error: reason, swapIntentId: swap.outcome.intent.id })
          .where(eq(tables.assetPurchases.id, id));
      });
      await logDecision(ctx, { worker: WORKER, decision: "asset-purchase-failed", reason, data: { purchaseId: id } });
      return { id, status: "failed" };
    }
    await ctx.db
      .update(tables.assetPurchases)
      .set({ status: "staking", assetBought: swap.amountOut.toString(), swapIntentId: swap.outcome.intent.id })
      .where(eq(tables.assetPurchases.id, id));
    ctx.faults.hit("between-swap-and-burn");
    [p] = await ctx.db.select().from(tables.assetPurchases).where(eq(tables.assetPurchases.id, id));
  }
  if (p!.status === "staking") {
    const key = `asset-purchase:${id}:stake`;
    let request = await ctx.pipeline.get(key);
    if (!request) {
      const amount = await balanceOf(ctx, asset, ctx.operator);
      if (amount === 0n) {
        await ctx.db.update(tables.assetPurchases).set({ status: "done", assetStaked: "0", completedAt: new Date() }).where(eq(tables.assetPurchases.id, id));
        return { id, status: "done" };
      }
      await ensureAllowance(ctx, asset, vault, WORKER);
      await ctx.pipeline.send({
        key,
        kind: "stake",
        worker: WORKER,
        to: vault,
        data: encodeFunctionData({ abi: erc4626Abi, functionName: "deposit", args: [amount, ctx.operator] }),
      });
      request = await ctx.pipeline.get(key);
    }
    const outcome = await ctx.pipeline.send({ key, kind: "stake", worker: WORKER, to: request!.to, data: request!.data });
    if (outcome.status !== "mined") {
      await ctx.db
        .update(tables.assetPurchases)
        .set({ error: `stake: ${outcome.reason}` })
        .where(eq(tables.assetPurchases.id, id));
      throw new Error(`stake of purchase ${id} failed: ${outcome.reason}`);
    }
    const [deposit] = parseEventLogs({ abi: erc4626Abi, eventName: "Deposit", logs: outcome.receipt.logs }).filter(
      (l) => getAddress(l.address) === getAddress(vault),
    );
    await ctx.db
      .update(tables.assetPurchases)
      .set({
        status: "done",
        assetStaked: (deposit?.args.assets ?? 0n).toString(),
        shares: (deposit?.args.shares ?? 0n).toString(),
        stakeIntentId: outcome.intent.id,
        completedAt: new Date(),
      })
      .where(eq(tables.assetPurchases.id, id));
    await logDecision(ctx, {
      worker: WORKER,
      decision: "asset-purchased",
      reason: `bought ${formatUnits(BigInt(p!.assetBought ?? 0), 18)} of the secondary asset for ${showUnits(BigInt(p!.usdcIn), USDC_UNIT)} and staked ${formatUnits(deposit?.args.assets ?? 0n, 18)} for ${formatUnits(deposit?.args.shares ?? 0n, 18)} vault shares`,
      data: {
        purchaseId: id,
        tx: outcome.receipt.transactionHash,
        usdcIn: p!.usdcIn,
        assetBought: p!.assetBought,
        staked: deposit?.args.assets ?? 0n,
        shares: deposit?.args.shares ?? 0n,
      },
    });
  }
  return { id, status: "done" };
}

export async function runAssetCycle(ctx: EngineContext) {
  const results: unknown[] = [];
  const unfinished = await ctx.db
    .select({ id: tables.assetPurchases.id })
    .from(tables.assetPurchases)
    .where(inArray(tables.assetPurchases.status, ["swapping", "staking"]));
  for (const u of unfinished) results.push(await executePurchase(ctx, u.id));
  const final = await finalBlock(ctx);
  const pending = await pendingAssetUsdc(ctx.db, final);
  if (pending < ASSET_MIN_BATCH_USDC) {
    if (pending > 0n)
      await logDecision(ctx, {
        worker: WORKER,
        decision: "wait",
        reason: `asset leg ${showUnits(pending, USDC_UNIT)} below the batch minimum ${showUnits(ASSET_MIN_BATCH_USDC, USDC_UNIT)}`,
      });
    return { purchases: results, pendingUsdc: pending.toString() };
  }
  const id = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.insert(tables.assetPurchases).values({ usdcIn: pending.toString(), status: "swapping" }).returning({ id: tables.assetPurchases.id });
    await consumeLeg(tx, {
      leg: Legs.asset,
      token: null,
      amount: pending,
      key: `spend:asset-purchase:${row!.id}`,
      kind: "asset-spend",
      currency: "USDC",
      finalBlock: final,
      data: { purchaseId: row!.id },
    });
    return row!.id;
  });
  results.push(await executePurchase(ctx, id));
  return { purchases: results, pendingUsdc: (await pendingAssetUsdc(ctx.db, Infinity)).toString() };
}

export const assetEngine: Worker = { name: WORKER, minSeconds: 900, maxSeconds: 1800, run: runAssetCycle };
