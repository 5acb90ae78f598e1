/**
 * The protocol's totals as served: each figure declared once, in the view of its REST group
 * (`GET /stats`, MCP `stats`), with GraphQL's flat name for it on `Stats` or `DeskSummary`
 * (docs/glossary.md, "Public figures"). Both surfaces read a figure from the same row
 * (`statsRows`); an amount is `<name>` (exact decimal, whole units) with `<name>Raw` beside it.
 */
import { z } from "zod";
import { ETH_DECIMALS, TOKEN_DECIMALS } from "../../common/money.js";
import { PERPS_VENUE_IDS } from "../../common/perps-venues.js";
import { LARGEST_OPEN_DESKS } from "../read/desks.js";
import { protocolFinalityJson } from "../read/finality.js";
import { isoTime } from "../read/format.js";
import type { Stats } from "../read/stats.js";
import { deskJson, deskSchema } from "./desk.js";
import { feeCurrencyJson, feeCurrencySchema, spendJson, spendSchema } from "./fees.js";
import { protocolFinalityResponse } from "./finality.js";
import { legsJson, legsSchema } from "./legs.js";
import { type ViewFields, amountField, defineView, usdcField, viewJson, viewSchema } from "./view.js";
import { json } from "../../common/edge.js";

const count = (description: string, graphqlName: string) => ({ kind: "int", description, graphqlName }) as const;
const group = <F extends ViewFields>(name: string, description: string, fields: F) => defineView({ name, description, fields });

/** Each group of `GET /stats`, in its order. GraphQL's `Stats` serves every field but `deskSummary`'s, which `DeskSummary` serves. */
export const statsViews = {
  tokens: group("statsTokens", "Tokens launched and enrolled", {
    launched: count("Tokens of ours launched through Clanker: the protocol token, launches that pay the operator, enrolled tokens", "tokensLaunched"),
    enrolled: count("Tokens enrolled in the registry", "tokensEnrolled"),
    active: count("Enrolled tokens active in the registry", "tokensActive"),
  }),
  fees: group("statsFees", "The operator's LP fees", {
    toOperatorUsdc: usdcField(
      "Every LP fee of the operator's reward slots for enrolled tokens (WETH at its conversion's realised rate) = the sum of the protocol, asset, perp and operator legs, plus USDC a claim brought beyond the collections",
      "feesToOperatorUsdc",
    ),
    claimedUsdc: usdcField("Claimed from the fee locker", "feesClaimedUsdc"),
    protocolTokenFeesUsdc: usdcField("The protocol token's own pool fees"),
  }),
  protocolBuybacks: group("statsProtocolBuybacks", "The protocol token's buybacks", {
    count: count("Protocol buybacks", "protocolBuybacks"),
    usdcIn: usdcField("Spent on protocol buybacks", "protocolBuybackUsdc"),
    tokensBought: amountField(TOKEN_DECIMALS, "Protocol tokens bought", "protocolTokensBought"),
    tokensBurned: amountField(TOKEN_DECIMALS, "Protocol tokens burned", "protocolTokensBurned"),
  }),
  creatorBuybacks: group("statsCreatorBuybacks", "Creators' buybacks of their own tokens", {
    count: count("Creator buybacks", "creatorBuybacks"),
    usdcIn: usdcField("Spent on creator buybacks", "creatorBuybackUsdc"),
  }),
  asset: group("statsAsset", "The secondary asset's purchases", {
    assetPurchasesUsdc: usdcField("Spent on the secondary asset"),
  }),
  pending: group("statsPending", "The engine's accumulators: allocated, not spent yet", {
    protocolBuybackUsdc: usdcField("Protocol-leg USDC waiting for the protocol buyback", "pendingProtocolBuybackUsdc"),
    assetUsdc: usdcField("Asset-leg USDC waiting for the asset engine", "pendingAssetUsdc"),
    perpUsdc: usdcField("Perp-leg USDC waiting for the desk manager", "pendingPerpUsdc"),
    creatorBuybackUsdc: usdcField("The creator buyback queue", "pendingCreatorBuybackUsdc"),
    legacyWeth: amountField(ETH_DECIMALS, "The legacy WETH accumulator (WETH)"),
  }),
  desks: group("statsDesks", "Every desk ever opened", {
    opened: count("Desks ever opened", "desksOpened"),
    open: count("Desks open now", "desksOpen"),
    realisedPnlUsdc: usdcField("Realised PnL of all desks", "deskRealisedPnlUsdc"),
  }),
  deskSummary: group("deskSummary", "The open desks in a fixed size: aggregates over them", {
    venue: { kind: "enum", values: PERPS_VENUE_IDS, description: `The perps venue the desks trade on (PERPS_VENUE: ${PERPS_VENUE_IDS.join(", ")})` },
    protocol: { kind: "text", description: "The exchange and version of that venue, e.g. Avantis v1, Gains Network gTrade v10" },
    halted: { kind: "int", description: "Open desks halted by the engine or the registry" },
    openCollateralUsdc: usdcField("Collateral of the open desks"),
    openNotionalUsdc: usdcField("Collateral × leverage of the open desks"),
    openUnrealisedPnlUsdc: usdcField("Unrealised PnL of the open desks with an oracle mark, at that mark"),
    unpriced: { kind: "int", description: "Open desks without an oracle mark (not in openUnrealisedPnlUsdc)" },
  }),
};

/** Every figure of the views above, read once from the protocol's totals (no totals yet: zero). */
export function statsRows(s: Stats) {
  const t = s.totals;
  return {
    tokens: { launched: t?.tokensLaunched ?? 0, enrolled: s.enrolled, active: s.active },
    fees: {
      toOperatorUsdc: t?.feesToOperatorUsdc ?? 0n,
      claimedUsdc: t?.feesClaimedUsdc ?? 0n,
      protocolTokenFeesUsdc: t?.protocolTokenFeesUsdc ?? 0n,
    },
    protocolBuybacks: {
      count: t?.protocolBuybacks ?? 0,
      usdcIn: t?.protocolBuybackUsdc ?? 0n,
      tokensBought: t?.protocolTokensBought ?? 0n,
      tokensBurned: t?.protocolTokensBurned ?? 0n,
    },
    creatorBuybacks: { count: t?.creatorBuybacks ?? 0, usdcIn: t?.creatorBuybackUsdc ?? 0n },
    asset: { assetPurchasesUsdc: t?.assetPurchaseUsdc ?? 0n },
    pending: s.pending,
    desks: { opened: t?.desksOpened ?? 0, open: t?.desksOpen ?? 0, realisedPnlUsdc: t?.deskRealisedPnl ?? 0n },
    deskSummary: deskSummaryRow(s.desks),
  } satisfies { [G in keyof typeof statsViews]: Record<keyof (typeof statsViews)[G]["fields"], unknown> };
}

/** The open desks' aggregates under their public names. */
export const deskSummaryRow = (d: Stats["desks"]) => ({
  venue: d.venue.id,
  protocol: d.venue.protocol,
  halted: d.halted,
  openCollateralUsdc: d.openCollateral,
  openNotionalUsdc: d.openNotional,
  openUnrealisedPnlUsdc: d.openUnrealisedPnl,
  unpriced: d.unpriced,
});

const V = statsViews;
const spent = z.array(spendSchema).describe("Spent per currency paid in");

/** The `/stats` answer (REST and MCP). */
export const statsSchema = z
  .object({
    tokens: viewSchema(V.tokens),
    fees: viewSchema(V.fees).extend({ legs: legsSchema, byCurrency: z.array(feeCurrencySchema).describe("Every token's fees per currency (USDC first)") }),
    buybacks: z.object({ protocol: viewSchema(V.protocolBuybacks).extend({ spent }), creator: viewSchema(V.creatorBuybacks).extend({ spent }) }).strict(),
    ...viewSchema(V.asset).shape,
    pending: viewSchema(V.pending),
    desks: viewSchema(V.desks)
      .extend(viewSchema(V.deskSummary).shape)
      .extend({
        largest: z
          .array(deskSchema)
          .max(LARGEST_OPEN_DESKS)
          .describe(`The ${LARGEST_OPEN_DESKS} largest open desks by notional, largest first; GET /desks lists every desk, paged`),
      })
      .describe("A fixed-size summary of the desks: its size does not grow with their number"),
    finality: protocolFinalityResponse.describe("The totals above as a final part and a pending part, by CONFIRMATIONS"),
    updatedAt: json.iso.nullable(),
  })
  .strict();

/** The `/stats` answer: exact decimal strings in whole units. */
export function statsJson(s: Stats): z.infer<typeof statsSchema> {
  const r = statsRows(s);
  const t = s.totals;
  return {
    tokens: viewJson(V.tokens, r.tokens),
    fees: { ...viewJson(V.fees, r.fees), legs: legsJson((leg) => t?.[leg] ?? 0n), byCurrency: s.feeCurrencies.map(feeCurrencyJson) },
    buybacks: {
      protocol: { ...viewJson(V.protocolBuybacks, r.protocolBuybacks), spent: s.buybackSpend["protocol-buyback"].map(spendJson) },
      creator: { ...viewJson(V.creatorBuybacks, r.creatorBuybacks), spent: s.buybackSpend["creator-buyback"].map(spendJson) },
    },
    ...viewJson(V.asset, r.asset),
    pending: viewJson(V.pending, r.pending),
    desks: { ...viewJson(V.desks, r.desks), ...viewJson(V.deskSummary, r.deskSummary), largest: s.desks.largest.map(deskJson) },
    finality: protocolFinalityJson(s.finality, t),
    updatedAt: t ? isoTime(t.updatedAt) : null,
  };
}
