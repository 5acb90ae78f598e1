/**
 * `FeeCurrency` and `CurrencySpend` (their views: api/views/fees.ts): fees and buyback spending in one currency —
 * the amount in that currency (decimal string and raw integer) with the currency's address, symbol and decimals,
 * beside its USDC at the realised rate. `FeeLegs` (api/views/legs.ts): the operator's fees split into legs.
 */
import { USDC_DECIMALS } from "../../common/money.js";
import { type FeeCurrencyRow, type SpendRow, feeCurrencyView, spendView } from "../views/fees.js";
import { LEGS, type LegTotal, type LegsRow, legsView } from "../views/legs.js";
import { type Types, builder } from "./builder.js";
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

export const FeeLegsRef = builder.objectRef<LegsRow>("FeeLegs").implement({
  description: `${legsView.description}: one type for \`Stats.legs\` and \`TokenTotals.legs\`, REST's \`legs\` names.`,
  fields: (t) => viewFields(t, legsView, {}),
});

/**
 * The legs as flat fields of `Stats` and `TokenTotals` under their first names (`protocolLegUsdc`, …): the same
 * figures as `legs`, kept for existing clients and deprecated.
 */
export function legacyLegFields<Row>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, Row>, get: (row: Row, leg: LegTotal) => bigint) {
  return Object.assign(
    {},
    ...Object.entries(LEGS).map(([name, total]) =>
      moneyFields(t, total, USDC_DECIMALS, (r) => get(r, total), legsView.fields[name as keyof typeof LEGS].description, `Use legs.${name}`),
    ),
  ) as Record<string, ReturnType<typeof moneyFields>[string]>;
}
