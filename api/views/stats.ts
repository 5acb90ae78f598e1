/** The protocol's totals as served (GET /stats, MCP `stats`): exact decimal strings in whole units. */
import { ETH_DECIMALS, formatDecimal } from "../../common/money.js";
import { protocolFinalityJson } from "../read/finality.js";
import { isoTime, tokenAmount, usdcAmount } from "../read/format.js";
import { legsJson } from "./legs.js";
import type { Stats } from "../read/stats.js";
import { deskJson } from "./desk.js";
import { feeCurrencyJson, spendJson } from "./fees.js";

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
