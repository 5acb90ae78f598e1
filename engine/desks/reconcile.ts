/**
 * `reconcileTokenDesks` (at startup): after applying every perps event, compares the desks'
 * trades with the operator's open trades on the exchange and re-binds each desk trade to its
 * (pairIndex, index) and current collateral. Trades the exchange holds that no desk knows are
 * orphans: reported, never adopted. Desk trades the exchange no longer holds are reported.
 */
import { logDecision } from "../../core/agent-log.js";
import type { EngineContext } from "../../core/context.js";
import { desksOff, requirePerpsVenue } from "../perps/venue.js";
import { syncDeskTrades } from "./sync.js";
import { tradesWithStatus, updateTrade } from "./trades.js";

export type ReconcileReport = { onchain: number; bound: number; orphans: { pairIndex: number; index: number }[]; missing: number[]; pending: number };
/** Desks off on this chain: the exchange is neither read nor called. */
export type SkippedReport = { skipped: string };

export async function reconcileTokenDesks(ctx: EngineContext, worker = "reconcile"): Promise<ReconcileReport | SkippedReport> {
  const off = await desksOff(ctx);
  if (off) {
    ctx.log.warn({ venue: ctx.config.perpsVenue, chainId: ctx.config.chainId }, off);
    return { skipped: off };
  }
  const venue = requirePerpsVenue(ctx);
  await syncDeskTrades(ctx, worker);
  const onchain = await venue.readOperatorTrades(ctx);
  const live = await tradesWithStatus(ctx.db, ["open", "closing"]);
  const report: ReconcileReport = {
    onchain: onchain.length,
    bound: 0,
    orphans: [],
    missing: [],
    pending: (await tradesWithStatus(ctx.db, ["opening"])).length,
  };
  const claimed = new Set<string>();
  for (const trade of live) {
    const match = onchain.find(
      (t) =>
        t.pairIndex === trade.pairIndex &&
        t.openPrice === trade.openPrice &&
        BigInt(trade.openedTimestamp ?? -1) === t.timestamp &&
        (trade.tradeIndex === null || t.index === trade.tradeIndex),
    );
    if (!match) {
      report.missing.push(trade.id);
      await logDecision(ctx, {
        worker,
        token: trade.token,
        decision: "desk-missing",
        reason: `trade ${trade.id} is not open on the exchange and no event explains it`,
        data: { tradeId: trade.id },
      });
      continue;
    }
    claimed.add(`${match.pairIndex}:${match.index}`);
    report.bound++;
    if (match.index !== trade.tradeIndex || match.collateral !== trade.collateral || match.leverage !== trade.leverage) {
      await updateTrade(ctx.db, trade.id, { tradeIndex: match.index, collateral: match.collateral.toString(), leverage: match.leverage.toString() });
    }
  }
  for (const t of onchain) {
    if (claimed.has(`${t.pairIndex}:${t.index}`)) continue;
    report.orphans.push({ pairIndex: t.pairIndex, index: t.index });
    ctx.log.warn({ pairIndex: t.pairIndex, index: t.index, collateral: String(t.collateral) }, "orphan trade on the exchange: reported, not adopted");
    await logDecision(ctx, {
      worker,
      decision: "orphan-trade",
      reason: `open trade (pair ${t.pairIndex}, slot ${t.index}) of the operator belongs to no desk; reported, not adopted`,
      data: { ...t },
    });
  }
  ctx.log.info(report, "desks reconciled with the exchange");
  return report;
}
