/**
 * GET /stats: totals, pending accumulators, a fixed-size summary of the open desks. The body is formatted and
 * serialised once per read and shared by the requests that read shares, and not even that
 * while reads return what the previous one did (see coalesce.ts).
 */
import type { ApiDeps } from "../deps.js";
import { coalescerFor, lastShaped } from "../read/coalesce.js";
import { type Stats, readStats } from "../read/stats.js";
import { isoTime, legsJson, tokenAmount, usdcAmount } from "../read/format.js";
import { defineRoute } from "./route.js";
import { statsResponse } from "./schemas.js";
import { deskJson } from "./desk-json.js";
import { protocolFinalityJson } from "../read/finality.js";
import { feeCurrencyJson, spendJson } from "./fee-json.js";
import { ETH_DECIMALS, formatDecimal } from "../../common/money.js";

/** The `/stats` answer: exact decimal strings in whole units. */
export function statsJson(s: Stats) {
  const t = s.totals;
  const zero = 0n;
  return {
    tokens: { launched: t?.tokensLaunched ?? 0, enrolled: s.enrolled, active: s.active },
    fees: {
      toOperatorUsdc: usdcAmount(t?.feesToOperatorUsdc ?? zero),
      claimedUsdc: usdcAmount(t?.feesClaimedUsdc ?? zero),
      protocolTokenFeesUsdc: usdcAmount(t?.protocolTokenFeesUsdc ?? zero),
      legs: legsJson((leg) => t?.[leg] ?? zero),
      byCurrency: s.feeCurrencies.map(feeCurrencyJson),
    },
    buybacks: {
      protocol: {
        count: t?.protocolBuybacks ?? 0,
        usdcIn: usdcAmount(t?.protocolBuybackUsdc ?? zero),
        tokensBought: tokenAmount(t?.protocolTokensBought ?? zero),
        tokensBurned: tokenAmount(t?.protocolTokensBurned ?? zero),
        spent: s.buybackSpend["protocol-buyback"].map(spendJson),
      },
      creator: { count: t?.creatorBuybacks ?? 0, usdcIn: usdcAmount(t?.creatorBuybackUsdc ?? zero), spent: s.buybackSpend["creator-buyback"].map(spendJson) },
    },
    assetPurchasesUsdc: usdcAmount(t?.assetPurchaseUsdc ?? zero),
    pending: {
      protocolBuybackUsdc: usdcAmount(s.pending.protocolBuybackUsdc),
      assetUsdc: usdcAmount(s.pending.assetUsdc),
      perpUsdc: usdcAmount(s.pending.perpUsdc),
      creatorBuybackUsdc: usdcAmount(s.pending.creatorBuybackUsdc),
      legacyWeth: formatDecimal(s.pending.legacyWeth, ETH_DECIMALS),
    },
    desks: {
      opened: t?.desksOpened ?? 0,
      open: t?.desksOpen ?? 0,
      realisedPnlUsdc: usdcAmount(t?.deskRealisedPnl ?? zero),
      venue: s.desks.venue.id,
      protocol: s.desks.venue.protocol,
      halted: s.desks.halted,
      openCollateralUsdc: usdcAmount(s.desks.openCollateral),
      openNotionalUsdc: usdcAmount(s.desks.openNotional),
      openUnrealisedPnlUsdc: usdcAmount(s.desks.openUnrealisedPnl),
      unpriced: s.desks.unpriced,
      largest: s.desks.largest.map(deskJson),
    },
    finality: protocolFinalityJson(s.finality, t),
    updatedAt: t ? isoTime(t.updatedAt) : null,
  };
}

/** The body of a read, formatted again only when the read differs from the previous one. */
const statsBody = lastShaped((s: Stats) => JSON.stringify(statsJson(s)));
const bodies = coalescerFor(async (deps: ApiDeps, _key: "stats") => statsBody(await readStats(deps)));

export const statsRoute = defineRoute({
  method: "get",
  path: "/stats",
  tag: "service",
  summary: "Fee, buyback and burn totals, pending accumulators, a summary of the open desks",
  description:
    "Totals come from the indexer's incremental aggregates; the answer time does not grow with history. Fees are shown per currency (the amount in its own currency) and in USDC: USDC as claimed, WETH at the realised rate of the operator's conversion swap. The per-leg totals are the ledger's allocations, fact by fact. Desks are summarised in a fixed size (aggregates of the open desks and the largest few): GET /desks lists every desk, paged.",
  responses: { 200: { description: "Stats", schema: statsResponse } },
  handler: async (c, _input, deps) => c.body(await bodies(deps).get("stats"), 200, { "content-type": "application/json" }),
});
