/**
 * desk-risk: drawdown and liquidation proximity per desk. Past a limit the desk is halted
 * (and its breaching trades reduced); once back within limits it is unhalted. Every halt and
 * unhalt is recorded with its reason and mirrored onchain (`registry.setHalted`).
 */
import { eq } from "drizzle-orm";
import { type Address, encodeFunctionData, getAddress } from "viem";
import { registryAbi } from "../../common/abis/registry.js";
import { logDecision } from "../../core/agent-log.js";
import type { EngineContext } from "../../core/context.js";
import { tables } from "../../core/db/client.js";
import { requiredNotional } from "../decisions/desk-entry.js";
import { decideDeskRisk } from "../decisions/risk.js";
import { closeDeskTrade } from "../desks/actions.js";
import { syncDeskTrades } from "../desks/sync.js";
import { desksOff, requirePerpsVenue } from "../perps/venue.js";
import { loadDesks, recordTradeMarks, tradesByToken } from "../desks/trades.js";
import type { PairLimits } from "../decisions/desk-entry.js";
import { mandateFor } from "../../core/token-mandate.js";
import { tokenInfo } from "../../core/registry-cache.js";
import type { Worker } from "./types.js";
import { toJsonValue } from "../../common/json.js";

const WORKER = "desk-risk";

/** Records a halt or unhalt with its reason, then mirrors it in the registry. */
export async function setDeskHalted(ctx: EngineContext, token: Address, halted: boolean, reason: string, data?: Record<string, unknown>): Promise<void> {
  const haltId = await ctx.db.transaction(async (tx) => {
    await tx
      .update(tables.desks)
      .set({ halted, haltReason: halted ? reason : null, updatedAt: new Date() })
      .where(eq(tables.desks.token, token));
    const [row] = await tx
      .insert(tables.deskHalts)
      .values({ token, halted, reason, data: data ? toJsonValue(data) : null })
      .returning({ id: tables.deskHalts.id });
    return row!.id;
  });
  await logDecision(ctx, { worker: WORKER, token, decision: halted ? "desk-halted" : "desk-unhalted", reason, data });
  const info = await tokenInfo(ctx, token);
  if (!info.enrolled) return;
  const outcome = await ctx.pipeline.send({
    key: `desk-halt:${haltId}`,
    kind: "registry-halt",
    worker: WORKER,
    to: ctx.contract("registry"),
    data: encodeFunctionData({ abi: registryAbi, functionName: "setHalted", args: [token, halted] }),
  });
  await ctx.db.update(tables.deskHalts).set({ intentId: outcome.intent.id }).where(eq(tables.deskHalts.id, haltId));
  if (outcome.status === "mined") await ctx.db.update(tables.tokens).set({ halted }).where(eq(tables.tokens.token, token));
}

export async function runDeskRiskCycle(ctx: EngineContext) {
  const decisions: { token: string; action: string; reason: string }[] = [];
  const off = await desksOff(ctx);
  if (off) return { decisions, off };
  const venue = requirePerpsVenue(ctx);
  await syncDeskTrades(ctx, WORKER);
  const prices = new Map<number, bigint>();
  const limits = new Map<number, PairLimits>();
  // The open trades of every desk in one query; each pair's price and limits read once (docs/design.md §6).
  const open = await tradesByToken(ctx.db, ["open"]);
  for (const desk of await loadDesks(ctx.db)) {
    const trades = (open.get(getAddress(desk.token)) ?? []).filter((t) => t.collateral !== null && t.openPrice !== null && t.tradeIndex !== null);
    if (!trades.length && !desk.halted) continue;
    if (!prices.has(desk.pairIndex)) prices.set(desk.pairIndex, await venue.readPairPrice(ctx, desk.pairIndex));
    const mandate = await mandateFor(ctx.db, ctx.config, desk.token);
    if (!limits.has(desk.pairIndex)) limits.set(desk.pairIndex, await venue.readPairLimits(ctx, desk.pairIndex));
    const pair = limits.get(desk.pairIndex)!;
    const price = prices.get(desk.pairIndex)!;
    // Marked by the venue's maths: gTrade's fees and its diamond's liquidation price, Avantis v1's PnL and threshold.
    const marks = await venue.markTrades(
      ctx,
      trades.map((t) => ({
        pairIndex: t.pairIndex,
        index: t.tradeIndex!,
        side: t.side,
        leverage: t.leverage,
        collateral: t.collateral!,
        openPrice: t.openPrice!,
      })),
      price,
    );
    await recordTradeMarks(
      ctx.db,
      trades.map((t, i) => ({ id: t.id, mark: marks[i]! })),
      price,
    );
    const d = decideDeskRisk({
      halted: desk.halted,
      trades: trades.map((t, i) => ({
        id: t.id,
        side: t.side,
        leverage: t.leverage,
        collateral: t.collateral!,
        basisUsdc: t.basisUsdc,
        openPrice: t.openPrice!,
        mark: marks[i],
      })),
      price,
      mandate,
      minNotionalUsdc: requiredNotional(ctx.config.perpsMinNotionalUsdc, pair),
    });
    decisions.push({ token: desk.token, action: d.action, reason: d.reason });
    if (d.action === "halt") await setDeskHalted(ctx, desk.token, true, d.reason, { trades: d.trades });
    if (d.action === "unhalt") await setDeskHalted(ctx, desk.token, false, d.reason, { trades: d.trades });
    for (const r of d.reduce) {
      const trade = trades.find((t) => t.id === r.id);
      if (trade) await closeDeskTrade(ctx, { trade, amount: r.amount, reason: `risk: ${d.reason}`, worker: WORKER });
    }
  }
  return { decisions };
}

export const deskRisk: Worker = { name: WORKER, minSeconds: 300, maxSeconds: 600, run: runDeskRiskCycle };
