/**
 * `FeeCurrency`, `CurrencySpend` and `FeeLegs`: fees and buyback spending in one currency — the amount in
 * that currency (decimal string and raw integer) with the currency's address, symbol and
 * decimals, beside its USDC at the realised rate.
 */
import { USDC_DECIMALS, formatDecimal } from "../../common/money.js";
import type { CurrencyInfo, FeeCurrencyView, BuybackSpendView } from "../read/fees.js";
import { type Types, builder } from "./builder.js";
import { moneyFields, optionalMoneyFields } from "./money.js";

type FieldBuilder<Row> = PothosSchemaTypes.ObjectFieldBuilder<Types, Row>;

/** `<name>` (decimal string in whole units of the row's currency) and `<name>Raw` (base units). */
function amountFields<Row extends { currency: CurrencyInfo }, Name extends string>(
  t: FieldBuilder<Row>,
  name: Name,
  get: (row: Row) => bigint,
  description: string,
) {
  return {
    [name]: t.string({
      description: `${description} (exact decimal, whole units of the currency)`,
      resolve: (row) => formatDecimal(get(row), row.currency.decimals),
    }),
    [`${name}Raw`]: t.field({ type: "BigInt", description: `${description} (base units of the currency)`, resolve: (row) => get(row) }),
  } as Record<Name | `${Name}Raw`, ReturnType<FieldBuilder<Row>["string"]>>;
}

function currencyFields<Row extends { currency: CurrencyInfo }>(t: FieldBuilder<Row>) {
  return {
    currency: t.string({ description: "The currency's address (checksummed)", resolve: (r) => r.currency.address }),
    symbol: t.string({ resolve: (r) => r.currency.symbol }),
    decimals: t.int({ description: "Decimals of the currency's amounts", resolve: (r) => r.currency.decimals }),
  };
}

export const FeeCurrencyRef = builder.objectRef<FeeCurrencyView>("FeeCurrency").implement({
  description:
    "LP fees in one currency: what the locker collected for the operator and the creator, in that currency, and the USDC the operator's fees became — USDC as claimed, WETH at the realised rate of the operator's conversion swaps.",
  fields: (t) => ({
    ...currencyFields(t),
    ...amountFields(t, "toOperator", (r) => r.toOperator, "Collected for the operator's reward slots"),
    ...amountFields(t, "claimed", (r) => r.claimed, "Of those, claimed by the operator from the fee locker"),
    ...amountFields(t, "unclaimed", (r) => r.unclaimed, "Collected and not claimed yet: in no leg until the operator's next claim"),
    ...amountFields(t, "awaitingConversion", (r) => r.awaitingConversion, "Claimed WETH not converted to USDC yet"),
    ...amountFields(t, "converted", (r) => r.converted, "Sold for USDC by the operator's conversion swaps (0 for USDC itself)"),
    ...moneyFields(t, "usdc", USDC_DECIMALS, (r) => r.usdc, "The USDC the operator's fees became: as claimed (USDC), or what the conversion swaps paid (WETH)"),
    ...optionalMoneyFields(
      t,
      "usdcPerUnit",
      USDC_DECIMALS,
      (r) => r.usdcPerUnit,
      "USDC per whole unit the conversion swaps realised (usdc / converted, rounded down; null for USDC and before a conversion)",
    ),
    ...amountFields(t, "toCreator", (r) => r.toCreator, "Collected for the creator's reward slot (paid to the creator as is, never converted)"),
  }),
});

export const CurrencySpendRef = builder.objectRef<BuybackSpendView>("CurrencySpend").implement({
  description: "Buybacks paid in one currency: how many, how much in that currency, and its USDC.",
  fields: (t) => ({
    ...currencyFields(t),
    buybacks: t.int({ resolve: (r) => r.buybacks }),
    ...amountFields(t, "amount", (r) => r.amountIn, "Paid in"),
    ...moneyFields(t, "usdc", USDC_DECIMALS, (r) => r.usdc, "Its USDC: paid in, or what the WETH was sold for in the same transaction"),
  }),
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
