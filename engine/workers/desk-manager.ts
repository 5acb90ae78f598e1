/**
 * desk-manager (`manageTokenDesks`): for each active enrolled token, in order — skip if
 * halted; peek its perp USDC; no desk → `decideDeskEntry` (side from the token's strategy:
 * momentum follows the price window, hold only goes long; leverage capped by volatility and
 * the mandate) and open; desk → grow it (a new trade, or a margin top-up). Below the notional
 * minimum it waits and the perp USDC stays allocated.
 */
import { logDecision } from "../../core/agent-log.js";
import { type EngineContext, finalBlock } from "../../core/context.js";
import { decideDeskEntry, decideDeskIncrease } from "../decisions/desk-entry.js";
import { openDeskTrade, topUpDeskTrade } from "../desks/actions.js";
import { syncDeskTrades } from "../desks/sync.js";
import { desksOff, requirePerpsVenue } from "../perps/venue.js";
import { loadDesks, tradesByToken } from "../desks/trades.js";
import type { PairLimits } from "../decisions/desk-entry.js";
import type { PriceWindow } from "../decisions/window.js";
import { getAddress } from "viem";
import { Legs } from "../../core/ledger/legs.js";
import { spendableBalancesByToken } from "../../core/ledger/reads.js";
import { mandateForToken } from "../../core/token-mandate.js";
import { defaultMandate } from "../../core/mandate.js";
import { priceWindowFor } from "../desks/prices.js";
import { listEnrolledTokens } from "../../core/registry-cache.js";
import type { Worker } from "./types.js";

const WORKER = "desk-manager";

export async function manageTokenDesks(ctx: EngineContext) {
  const actions: { token: string; action: string; reason: string }[] = [];
  const off = await desksOff(ctx);
  if (off) return { actions, off };
  const venue = requirePerpsVenue(ctx);
  await syncDeskTrades(ctx, WORKER);
  const final = await finalBlock(ctx);
  // One query each for the desks, the perp USDC and the live trades of every token; the pair's
  // limits and the feed's window once per pair (docs/design.md §6): a cycle's reads grow with
  // the funded desks, not with the enrolled tokens.
  const desks = new Map((await loadDesks(ctx.db)).map((d) => [getAddress(d.token), d]));
  const perp = await spendableBalancesByToken(ctx.db, Legs.perp, final);
  const liveTrades = await tradesByToken(ctx.db);
  const limits = new Map<number, PairLimits>();
  const windows = new Map<number, PriceWindow>();
  for (const token of await listEnrolledTokens(ctx.db, { activeOnly: true })) {
    const desk = desks.get(getAddress(token.token));
    if (desk?.halted || token.halted) {
      actions.push({ token: token.token, action: "skip", reason: `halted: ${desk?.haltReason ?? "halted in the registry"}` });
      continue;
    }
    // Only final perp USDC: a reorg within CONFIRMATIONS cannot take back what a desk holds.
    const perpUsdc = perp.get(token.token) ?? perp.get(getAddress(token.token)) ?? 0n;
    if (perpUsdc <= 0n) continue;
    const { strategy, agentId: _agentId, ...mandate } = await mandateForToken(ctx.db, token.token, defaultMandate(ctx.config.creatorBuybackMinUsdc));
    const live = liveTrades.get(getAddress(token.token)) ?? [];
    const pairIndex = live.length && desk ? desk.pairIndex : mandate.deskPairIndex;
    if (!limits.has(pairIndex)) limits.set(pairIndex, await venue.readPairLimits(ctx, pairIndex));
    if (!windows.has(pairIndex)) windows.set(pairIndex, await priceWindowFor(ctx.db, venue.pairFeed(pairIndex) ?? ""));
    const pair = limits.get(pairIndex)!;
    const window = windows.get(pairIndex)!;
    const deskBasisUsdc = live.reduce((s, t) => s + t.basisUsdc, 0n);
    const common = { perpUsdc, window, pair, minNotionalUsdc: ctx.config.perpsMinNotionalUsdc, mandate, deskBasisUsdc, strategy };
    if (!live.length) {
      const d = decideDeskEntry(common);
      actions.push({ token: token.token, action: d.action, reason: d.reason });
      if (d.action === "open") await openDeskTrade(ctx, { token: token.token, pairIndex, decision: d, worker: WORKER, finalBlock: final });
      else await logDecision(ctx, { worker: WORKER, token: token.token, decision: "wait", reason: d.reason, data: { perpUsdc } });
      continue;
    }
    const open = live.filter((t) => t.status === "open" && t.collateral !== null && t.pendingTopup === null);
    const d = decideDeskIncrease({
      ...common,
      side: desk!.side,
      trades: open.map((t) => ({ id: t.id, collateral: t.collateral!, leverage: t.leverage })),
      freeSlots: await venue.freeTradeSlots(ctx, pairIndex),
    });
    actions.push({ token: token.token, action: d.action, reason: d.reason });
    if (d.action === "open") await openDeskTrade(ctx, { token: token.token, pairIndex, decision: d, worker: WORKER, finalBlock: final });
    else if (d.action === "top-up")
      await topUpDeskTrade(ctx, { trade: open.find((t) => t.id === d.tradeId)!, amount: d.amount, reason: d.reason, worker: WORKER, finalBlock: final });
    else await logDecision(ctx, { worker: WORKER, token: token.token, decision: "wait", reason: d.reason, data: { perpUsdc } });
  }
  return { actions };
}

export const deskManager: Worker = { name: WORKER, minSeconds: 300, maxSeconds: 480, run: manageTokenDesks };
