/** `stats` and `health`: the protocol's totals, pending accumulators and open desks; service health. */
import { USDC_DECIMALS } from "../../common/money.js";
import { readHealth } from "../read/health.js";
import { healthResponse, workerResponse } from "../views/health.js";
import { type Stats, readStats } from "../read/stats.js";
import { builder } from "./builder.js";
import { CurrencySpendRef, FeeCurrencyRef, FeeLegsRef, legacyLegFields } from "./fees.js";
import { legsRow, legsSchema } from "../views/legs.js";
import { feeCurrencyRow, spendRow } from "../views/fees.js";
import { moneyFields } from "./money.js";
import { DeskRef } from "./refs.js";
import { type DeskSummary, LARGEST_OPEN_DESKS } from "../read/desks.js";
import { protocolFinalityJson } from "../read/finality.js";
import { protocolFigures, protocolFinalityResponse } from "../views/finality.js";
import { reportFields, zodEnum, zodObject } from "./zod-objects.js";
import { deskSummaryRow, statsRows, statsViews } from "../views/stats.js";
import { viewFields } from "./view-fields.js";

type Totals = NonNullable<Stats["totals"]>;

/** One read of the figures per `Stats` object, shared by its fields. */
const rowsOf = (() => {
  const rows = new WeakMap<Stats, ReturnType<typeof statsRows>>();
  return (s: Stats) => rows.get(s) ?? rows.set(s, statsRows(s)).get(s)!;
})();
const V = statsViews;

const DeskSummaryType = builder.objectRef<DeskSummary>("DeskSummary").implement({
  description:
    "The open desks in a fixed size (its size does not grow with their number): aggregates over the open desks and the largest few. `desks` pages every desk.",
  fields: (t) => ({
    ...viewFields(t, V.deskSummary, {}, deskSummaryRow),
    largest: t.field({ type: [DeskRef], description: `The ${LARGEST_OPEN_DESKS} largest open desks by notional, largest first`, resolve: (d) => d.largest }),
  }),
});
const total = (s: Stats, key: keyof Totals) => (s.totals?.[key] as bigint | undefined) ?? 0n;

zodObject("FinalityLegs", legsSchema);
zodObject("ProtocolFigures", protocolFigures, "The protocol's totals, or their final or pending part");
const ProtocolFinality = zodObject("ProtocolFinality", protocolFinalityResponse, "The protocol's totals as a final part and a pending part");

/** Every figure of GET /stats under its flat name (api/views/stats.ts), and the names kept for older clients. */
const StatsType = builder.objectRef<Stats>("Stats").implement({
  description: "Protocol totals (incremental aggregates), the engine's pending accumulators and a fixed-size summary of the open desks.",
  fields: (t) => ({
    ...viewFields(t, V.tokens, {}, (s) => rowsOf(s).tokens),
    ...viewFields(t, V.fees, {}, (s) => rowsOf(s).fees),
    ...legacyLegFields(t, total),
    legs: t.field({
      type: FeeLegsRef,
      description: "The legs under REST's names (`fees.legs`): the same figures as the *LegUsdc fields, the same type as `TokenTotals.legs`",
      resolve: (s) => legsRow((leg) => total(s, leg)),
    }),
    feesByCurrency: t.field({
      type: [FeeCurrencyRef],
      description: "Every token's fees per currency (USDC first): the amount in its currency and its USDC at the realised rate",
      resolve: (s) => s.feeCurrencies.map(feeCurrencyRow),
    }),
    ...viewFields(t, V.protocolBuybacks, {}, (s) => rowsOf(s).protocolBuybacks),
    protocolBuybackSpent: t.field({
      type: [CurrencySpendRef],
      description: "Protocol buybacks per currency paid in",
      resolve: (s) => s.buybackSpend["protocol-buyback"].map(spendRow),
    }),
    ...viewFields(t, V.creatorBuybacks, {}, (s) => rowsOf(s).creatorBuybacks),
    creatorBuybackSpent: t.field({
      type: [CurrencySpendRef],
      description: "Creator buybacks per currency paid in",
      resolve: (s) => s.buybackSpend["creator-buyback"].map(spendRow),
    }),
    ...viewFields(t, V.asset, {}, (s) => rowsOf(s).asset),
    ...moneyFields(
      t,
      "assetPurchaseUsdc",
      USDC_DECIMALS,
      (s) => rowsOf(s).asset.assetPurchasesUsdc,
      V.asset.fields.assetPurchasesUsdc.description,
      "Use assetPurchasesUsdc (the name in GET /api/v1/stats)",
    ),
    ...viewFields(t, V.desks, {}, (s) => rowsOf(s).desks),
    ...viewFields(t, V.pending, {}, (s) => rowsOf(s).pending),
    ...moneyFields(
      t,
      "pendingBuybackUsdc",
      USDC_DECIMALS,
      (s) => s.pending.protocolBuybackUsdc,
      V.pending.fields.protocolBuybackUsdc.description,
      "Renamed pendingProtocolBuybackUsdc (REST: pending.protocolBuybackUsdc)",
    ),
    openDesks: t.field({
      type: [DeskRef],
      deprecationReason: "Bounded: only the largest open desks (as deskSummary.largest). Page every desk with desks(status: [OPEN]).",
      description: `The ${LARGEST_OPEN_DESKS} largest open desks by notional (no longer every open desk)`,
      resolve: (s) => s.desks.largest,
    }),
    deskSummary: t.field({ type: DeskSummaryType, description: "The open desks in a fixed size: aggregates and the largest few", resolve: (s) => s.desks }),
    ...reportFields(t, "finality", ProtocolFinality, {
      description: "The totals as a final part and a pending part by CONFIRMATIONS, as `finality` of GET /api/v1/stats",
      resolve: (s) => protocolFinalityJson(s.finality, s.totals),
    }),
    updatedAt: t.field({ type: "DateTime", nullable: true, resolve: (s) => s.totals?.updatedAt ?? null }),
  }),
});

builder.queryField("stats", (t) => t.field({ type: StatsType, complexity: 20, resolve: (_root, _args, ctx) => readStats(ctx.deps) }));

// The service's health: the object REST's /health serves, its status a GraphQL enum. A worker,
// the indexer's progress and the leading engine are named types of their own.
zodEnum("HealthStatus", healthResponse.shape.status);
zodObject("Worker", workerResponse);
zodObject("IndexerStatus", healthResponse.shape.indexer);
zodObject("EngineLeader", healthResponse.shape.leader.unwrap(), "The engine that leads: its lease holder, epoch (fencing token) and since when");
const HealthType = zodObject("Health", healthResponse, "The service's health, as GET /health answers it");

builder.queryField("health", (t) => t.field({ type: HealthType, resolve: (_root, _args, ctx) => readHealth(ctx.deps) }));
