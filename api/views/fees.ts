/**
 * Fees and buyback spending in one currency: the amount in that currency (named by address,
 * symbol and decimals) beside its USDC at the realised rate. One definition each for REST
 * (`fees.byCurrency`, `buybacks.*.spent` of /stats; a token's `totals.feesByCurrency` and
 * `totals.buybackSpent`; the buyback totals) and GraphQL (`FeeCurrency`, `CurrencySpend`).
 * Rows are computed (api/read/fees.ts), so the views read no table and have no export.
 */
import { USDC_DECIMALS } from "../../common/money.js";
import type { BuybackSpendView, CurrencyInfo, FeeCurrencyView } from "../read/fees.js";
import { type ViewJson, defineView, viewJson, viewSchema } from "./view.js";

/** The currency's facts as a row holds them: its address, symbol and decimals. */
const currencyRow = (c: CurrencyInfo) => ({ currency: c.address, symbol: c.symbol, decimals: c.decimals });
/** The row's own currency, for its amounts' decimals. */
const currencies = (c: CurrencyInfo) => new Map([[c.address.toLowerCase(), c]]);

const currencyFields = {
  currency: { kind: "address", description: "The currency's address" },
  symbol: { kind: "text", description: "The currency's symbol" },
  decimals: { kind: "int", description: "Decimals of the currency's amounts" },
} as const;

/** An amount in the row's currency. */
const inCurrency = (description: string) => ({ kind: "amount", currency: "currency", description }) as const;

export const feeCurrencyView = defineView({
  name: "feeCurrency",
  description:
    "LP fees in one currency: what the locker collected for the operator and the creator, in that currency, and the USDC the operator's fees became — USDC as claimed, WETH at the realised rate of the operator's conversion swaps.",
  fields: {
    ...currencyFields,
    toOperator: inCurrency("LP fees the locker collected for the operator's reward slots (in this currency)"),
    claimed: inCurrency("Of those, claimed by the operator from the fee locker (in this currency)"),
    unclaimed: inCurrency("Collected and not claimed yet (in this currency): in no leg until the operator's next claim"),
    awaitingConversion: inCurrency("Claimed and not yet converted to USDC (WETH; in this currency)"),
    converted: inCurrency("Sold for USDC by the operator's conversion swaps (in this currency; 0 for USDC itself)"),
    usdc: {
      kind: "amount",
      decimals: USDC_DECIMALS,
      description: "What the operator's fees became: USDC as claimed, WETH at the realised rate of its conversion swaps (USDC)",
    },
    usdcPerUnit: {
      kind: "amount",
      decimals: USDC_DECIMALS,
      nullable: true,
      description: "USDC per whole unit the conversion swaps realised (usdc / converted, rounded down; null for USDC and before a conversion)",
    },
    toCreator: inCurrency("LP fees the locker collected for the creator's reward slot (in this currency; paid as is, never converted)"),
  },
});

export const spendView = defineView({
  name: "currencySpend",
  description: "Buybacks paid in one currency: how many, how much in that currency, and its USDC.",
  fields: {
    ...currencyFields,
    buybacks: { kind: "int", description: "Buybacks paid in this currency" },
    amount: inCurrency("Paid in (in this currency)"),
    usdc: { kind: "amount", decimals: USDC_DECIMALS, description: "Its USDC: paid in, or what the WETH was sold for in the same transaction" },
  },
});

export type FeeCurrencyRow = ReturnType<typeof feeCurrencyRow>;
export type SpendRow = ReturnType<typeof spendRow>;
export const feeCurrencyRow = (f: FeeCurrencyView) => ({ ...f, ...currencyRow(f.currency) });
export const spendRow = (s: BuybackSpendView) => ({ ...currencyRow(s.currency), buybacks: s.buybacks, amount: s.amountIn, usdc: s.usdc });

export const feeCurrencySchema = viewSchema(feeCurrencyView).describe("Fees in one currency");
export const spendSchema = viewSchema(spendView).describe("Buybacks paid in one currency");
export type FeeCurrencyJson = ViewJson<typeof feeCurrencyView.fields>;
export type SpendJson = ViewJson<typeof spendView.fields>;

export const feeCurrencyJson = (f: FeeCurrencyView): FeeCurrencyJson => viewJson(feeCurrencyView, feeCurrencyRow(f), currencies(f.currency));
export const spendJson = (s: BuybackSpendView): SpendJson => viewJson(spendView, spendRow(s), currencies(s.currency));
