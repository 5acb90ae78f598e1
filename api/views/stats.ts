/** The protocol's totals as served (GET /stats, MCP `stats`): each amount an exact decimal string in whole units, with its base units beside it (`<name>Raw`). */
import { ETH_DECIMALS, TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import { protocolFinalityJson } from "../read/finality.js";
import { isoTime } from "../read/format.js";
import { legsJson } from "./legs.js";
import type { Stats } from "../read/stats.js";
import { deskJson } from "./desk.js";
import { feeCurrencyJson, spendJson } from "./fees.js";
import { amountsJson } from "./view.js";

/** The `/stats` answer: exact decimal strings in whole units. */
export function statsJson(s: Stats) {
  const t = s.totals;
  const zero = 0n;
  return {
    tokens: { launched: t?.tokensLaunched ?? 0, enrolled: s.enrolled, active: s.active },
    fees: {
      ...amountsJson({
        toOperatorUsdc: [t?.feesToOperatorUsdc ?? zero, USDC_DECIMALS],
        claimedUsdc: [t?.feesClaimedUsdc ?? zero, USDC_DECIMALS],
        protocolTokenFeesUsdc: [t?.protocolTokenFeesUsdc ?? zero, USDC_DECIMALS],
      }),
      legs: legsJson((leg) => t?.[leg] ?? zero),
      byCurrency: s.feeCurrencies.map(feeCurrencyJson),
    },
    buybacks: {
      protocol: {
        count: t?.protocolBuybacks ?? 0,
        ...amountsJson({
          usdcIn: [t?.protocolBuybackUsdc ?? zero, USDC_DECIMALS],
          tokensBought: [t?.protocolTokensBought ?? zero, TOKEN_DECIMALS],
          tokensBurned: [t?.protocolTokensBurned ?? zero, TOKEN_DECIMALS],
        }),
        spent: s.buybackSpend["protocol-buyback"].map(spendJson),
      },
      creator: {
        count: t?.creatorBuybacks ?? 0,
        ...amountsJson({ usdcIn: [t?.creatorBuybackUsdc ?? zero, USDC_DECIMALS] }),
        spent: s.buybackSpend["creator-buyback"].map(spendJson),
      },
    },
    ...amountsJson({ assetPurchasesUsdc: [t?.assetPurchaseUsdc ?? zero, USDC_DECIMALS] }),
    pending: amountsJson({
      protocolBuybackUsdc: [s.pending.protocolBuybackUsdc, USDC_DECIMALS],
      assetUsdc: [s.pending.assetUsdc, USDC_DECIMALS],
      perpUsdc: [s.pending.perpUsdc, USDC_DECIMALS],
      creatorBuybackUsdc: [s.pending.creatorBuybackUsdc, USDC_DECIMALS],
      legacyWeth: [s.pending.legacyWeth, ETH_DECIMALS],
    }),
    desks: {
      opened: t?.desksOpened ?? 0,
      open: t?.desksOpen ?? 0,
      venue: s.desks.venue.id,
      protocol: s.desks.venue.protocol,
      halted: s.desks.halted,
      ...amountsJson({
        realisedPnlUsdc: [t?.deskRealisedPnl ?? zero, USDC_DECIMALS],
        openCollateralUsdc: [s.desks.openCollateral, USDC_DECIMALS],
        openNotionalUsdc: [s.desks.openNotional, USDC_DECIMALS],
        openUnrealisedPnlUsdc: [s.desks.openUnrealisedPnl, USDC_DECIMALS],
      }),
      unpriced: s.desks.unpriced,
      largest: s.desks.largest.map(deskJson),
    },
    finality: protocolFinalityJson(s.finality, t),
    updatedAt: t ? isoTime(t.updatedAt) : null,
  };
}
