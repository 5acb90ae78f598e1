/**
 * `FeeCurrency`, `CurrencySpend` (their views: api/views/fees.ts) and `FeeLegs`: fees and buyback spending in
 * one currency — the amount in that currency (decimal string and raw integer) with the currency's address,
 * symbol and decimals, beside its USDC at the realised rate.
 */
import { USDC_DECIMALS } from "../../common/money.js";
import { type FeeCurrencyRow, type SpendRow, feeCurrencyView, spendView } from "../views/fees.js";
import { builder } from "./builder.js";
import { moneyFields } from "./money.js";
import { viewFields } from "./view-fields.js";

export const FeeCurrencyRef = builder.objectRef<FeeCurrencyRow>("FeeCurrency").implement({
  description: feeCurrencyView.description,
  fields: (t) => viewFields(t, feeCurrencyView, {}),
});

export const CurrencySpendRef = builder.objectRef<SpendRow>("CurrencySpend").implement({
  description: spendView.description,
  fields: (t) => viewFields(t, spendView, {}),
});

/** The ledger's legs of the operator's fees: what `FeeLegs` reads, from a token's totals or the protocol's. */
export type LegTotals = Record<"protocolLegUsdc" | "assetLegUsdc" | "perpLegUsdc" | "creatorLegUsdc" | "operatorLegUsdc", bigint>;

export const FeeLegsRef = builder.objectRef<LegTotals>("FeeLegs").implement({
  description: "The operator's fees split into legs, as the ledger allocates them: one type for `Stats.legs` and `TokenTotals.legs`, REST's `legs` names.",
  fields: (t) => ({
    ...moneyFields(t, "protocolUsdc", USDC_DECIMALS, (r) => r.protocolLegUsdc, "Protocol-token leg"),
    ...moneyFields(t, "assetUsdc", USDC_DECIMALS, (r) => r.assetLegUsdc, "Secondary-asset leg"),
    ...moneyFields(t, "perpUsdc", USDC_DECIMALS, (r) => r.perpLegUsdc, "Perp leg"),
    ...moneyFields(t, "creatorUsdc", USDC_DECIMALS, (r) => r.creatorLegUsdc, "Creator leg, paid in USDC (a creator paid in WETH: feesByCurrency)"),
    ...moneyFields(
      t,
      "operatorUsdc",
      USDC_DECIMALS,
      (r) => r.operatorLegUsdc,
      "Operator leg: fees the service does not split (the protocol token's, a token's before its enrolment or while not enrolled)",
    ),
  }),
});
