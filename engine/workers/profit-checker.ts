/**
 * profit-checker: marks each open desk trade to its pair's feed; above the mandate's
 * take-profit threshold it closes the trade. A `momentum` agent's desk also takes a profit
 * early when the price window turns against it; a `hold` desk never does (`decideTakeProfit`
 * says exactly when). When the keeper executes the close, the realised profit is queued as a
 * creator buyback of the token (see `syncDeskTrades`).
 */
import { closeDeskTrade } from "../desks/actions.js";
import { desksOff, requirePerpsVenue } from "../perps/venue.js";
import type { EngineContext } from "../../core/context.js";
import { decideTakeProfit } from "../decisions/profit.js";
import { syncDeskTrades } from "../desks/sync.js";
import { recordTradeMarks, tradesWithStatus } from "../desks/trades.js";
import { mandateForToken } from "../../core/token-mandate.js";
import { defaultMandate } from "../../core/mandate.js";
import type { PriceWindow } from "../decisions/window.js";
import { priceWindowFor } from "../desks/prices.js";
import type { Worker } from "./types.js";

/** Profits smaller than this are not worth a close (USDC base units). */
export const MIN_TAKE_PROFIT_USDC = 1_000_000n;
const WORKER = "profit-checker";

export async function checkDeskProfits(ctx: EngineContext) {
  const off = await desksOff(ctx);
  if (off) return { sync: undefined, closes: [], off };
  const venue = requirePerpsVenue(ctx);
  const sync = await syncDeskTrades(ctx, WORKER);
  const prices = new Map<number, bigint>();
  const windows = new Map<number, PriceWindow>();
  const closes: { tradeId: number; profit: string }[] = [];
  for (const trade of await tradesWithStatus(ctx.db, ["open"])) {
    if (trade.openPrice === null || trade.collateral === null || trade.tradeIndex === null || trade.pendingTopup !== null) continue;
    if (!prices.has(trade.pairIndex)) prices.set(trade.pairIndex, await venue.readPairPrice(ctx, trade.pairIndex));
    const { strategy, agentId: _agentId, ...mandate } = await mandateForToken(ctx.db, trade.token, defaultMandate(ctx.config.creatorBuybackMinUsdc));
    if (strategy === "momentum" && !windows.has(trade.pairIndex))
      windows.set(trade.pairIndex, await priceWindowFor(ctx.db, venue.pairFeed(trade.pairIndex) ?? ""));
    const price = prices.get(trade.pairIndex)!;
    const { openPrice, collateral, side, leverage } = trade;
    // What a close pays now by the venue's maths (gTrade: its closing fee and the fees already realized).
    const [mark] = await venue.markTrades(ctx, [{ pairIndex: trade.pairIndex, index: trade.tradeIndex!, side, leverage, collateral, openPrice }], price);
    if (mark) await recordTradeMarks(ctx.db, [{ id: trade.id, mark }], price);
    const d = decideTakeProfit({
      trade: { side, leverage, collateral, basisUsdc: trade.basisUsdc, openPrice, value: mark?.value },
      price,
      mandate,
      minProfitUsdc: MIN_TAKE_PROFIT_USDC,
      strategy,
      window: windows.get(trade.pairIndex),
    });
    if (d.action !== "close") continue;
    await closeDeskTrade(ctx, { trade, amount: trade.collateral, reason: `take profit: ${d.reason}`, worker: WORKER });
    closes.push({ tradeId: trade.id, profit: d.profit.toString() });
  }
  return { sync, closes };
}

export const profitChecker: Worker = { name: WORKER, minSeconds: 12, maxSeconds: 18, run: checkDeskProfits };
