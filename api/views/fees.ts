/**
 * Fees and buyback spending per currency as REST JSON: each amount an exact decimal in whole
 * units of its currency (named by address, symbol and decimals), beside its USDC.
 */
import { formatDecimal } from "../../common/money.js";
import type { CurrencyInfo, FeeCurrencyView, BuybackSpendView } from "../read/fees.js";
import { usdcAmount } from "../read/format.js";

const currencyJson = (c: CurrencyInfo) => ({ currency: c.address, symbol: c.symbol, decimals: c.decimals });

export const feeCurrencyJson = (f: FeeCurrencyView) => {
  const amount = (v: bigint) => formatDecimal(v, f.currency.decimals);
  return {
    ...currencyJson(f.currency),
    toOperator: amount(f.toOperator),
    claimed: amount(f.claimed),
    unclaimed: amount(f.unclaimed),
    awaitingConversion: amount(f.awaitingConversion),
    converted: amount(f.converted),
    usdc: usdcAmount(f.usdc),
    usdcPerUnit: f.usdcPerUnit === null ? null : usdcAmount(f.usdcPerUnit),
    toCreator: amount(f.toCreator),
  };
};

export const spendJson = (s: BuybackSpendView) => ({
  ...currencyJson(s.currency),
  buybacks: s.buybacks,
  amount: formatDecimal(s.amountIn, s.currency.decimals),
  usdc: usdcAmount(s.usdc),
});
