/**
 * Avantis v1 position maths in integers (prices, leverage and percentages at 1e10):
 * the same formulas the exchange applies, so the engine's view of a desk matches a close.
 */
import { PERPS_PRECISION } from "./abis/perps.js";

export const HUNDRED_PERCENT = 100n * PERPS_PRECISION;
/** Loss, in percent of collateral, at which a trade may be liquidated (Avantis `LIQ_THRESHOLD_P`). */
export const LIQ_THRESHOLD_P = 90n;

export type Side = "long" | "short";

/** `(price - openPrice) / openPrice * leverage` in 1e10 percent, negated for shorts, floored at -100%. */
export function percentProfit(openPrice: bigint, price: bigint, side: Side, leverage: bigint): bigint {
  if (openPrice === 0n) return 0n;
  const diff = side === "long" ? price - openPrice : openPrice - price;
  const p = (diff * 100n * leverage) / openPrice;
  return p < -HUNDRED_PERCENT ? -HUNDRED_PERCENT : p;
}

/** What closing `collateral` pays at `percentProfit`: `collateral * (100% + p)`, never negative. */
export function closeValue(collateral: bigint, pct: bigint): bigint {
  const v = (collateral * (HUNDRED_PERCENT + pct)) / HUNDRED_PERCENT;
  return v < 0n ? 0n : v;
}

/** The price at which the loss reaches `LIQ_THRESHOLD_P` of the collateral. */
export function liquidationPrice(openPrice: bigint, side: Side, leverage: bigint): bigint {
  if (leverage === 0n) return 0n;
  const move = (openPrice * LIQ_THRESHOLD_P * PERPS_PRECISION) / (100n * leverage);
  if (side === "long") return move >= openPrice ? 0n : openPrice - move;
  return openPrice + move;
}

/** Leveraged notional of a collateral (USDC base units). */
export function notionalOf(collateral: bigint, leverage: bigint): bigint {
  return (collateral * leverage) / PERPS_PRECISION;
}

/** Converts a Chainlink-style answer with `decimals` to the exchange's 1e10 price. */
export function toPerpsPrice(answer: bigint, decimals: number): bigint {
  return decimals <= 10 ? answer * 10n ** BigInt(10 - decimals) : answer / 10n ** BigInt(decimals - 10);
}

/**
 * gTrade v10's fee on opening or closing a position of `positionSizeUsdc` (USDC base units):
 * `totalPositionSizeFeeP` (1e10 percent) of the larger of the size and the pair's minimum position size
 * (the gTrade SDK's `getTotalTradeFeesCollateral`).
 */
export function gainsPositionFee(positionSizeUsdc: bigint, totalPositionSizeFeeP: bigint, minPositionSizeUsdc: bigint): bigint {
  const basis = positionSizeUsdc > minPositionSizeUsdc ? positionSizeUsdc : minPositionSizeUsdc;
  return (basis * totalPositionSizeFeeP) / PERPS_PRECISION / 100n;
}

/**
 * What a gTrade v10 close deducts from the collateral and its PnL besides that PnL: the closing fee, the trading
 * fees already realized (v10 keeps the opening fee out of `collateralAmount` and in
 * `TradeFeesData.realizedTradingFeesCollateral`) and the holding fees pending on the trade (borrowing, and funding
 * of either sign), less PnL already realized. Negative when realized PnL outweighs them.
 */
export function gainsCloseCharges(p: { closingFee: bigint; realizedTradingFees: bigint; realizedPnl: bigint; holdingFees?: bigint }): bigint {
  return p.closingFee + p.realizedTradingFees - p.realizedPnl + (p.holdingFees ?? 0n);
}

/**
 * What closing a whole gTrade v10 trade pays at `pct` (1e10 percent, as `percentProfit`): the collateral plus
 * its PnL, less the close's charges (`gainsCloseCharges`); never negative (the gTrade SDK's trade/pnl,
 * `amountSentToTrader`).
 */
export function gainsCloseValue(p: { collateral: bigint; pct: bigint; charges: bigint }): bigint {
  const v = p.collateral + (p.collateral * p.pct) / HUNDRED_PERCENT - p.charges;
  return v < 0n ? 0n : v;
}

/** gTrade's default liquidation threshold: 90% of the collateral lost (1e10 percent), where no group parameters apply. */
export const GAINS_LIQ_THRESHOLD_P = 90n * PERPS_PRECISION;

/**
 * gTrade v10's liquidation price (the gTrade SDK's trade/liquidation `getLiquidationPrice`, before any closing
 * spread): the price at which the trade's loss reaches `liqThresholdP` of its collateral (1e10 percent; 90% by
 * default) less its fees,
 *   distance = openPrice × (collateral × liqThresholdP − fees) / collateral / leverage,
 *   fees = closingFee + holdingFees − (realizedPnl − realizedTradingFees),
 * below the open price for a long, above it for a short, never below zero. Leverage at 1e10, amounts in USDC base
 * units; the distance is rounded toward zero (the liquidation price toward the open price).
 */
export function gainsLiquidationPrice(p: {
  openPrice: bigint;
  side: Side;
  leverage: bigint;
  collateral: bigint;
  closingFee?: bigint;
  holdingFees?: bigint;
  realizedPnl?: bigint;
  realizedTradingFees?: bigint;
  liqThresholdP?: bigint;
}): bigint {
  if (p.leverage <= 0n || p.collateral <= 0n) return 0n;
  const fees = (p.closingFee ?? 0n) + (p.holdingFees ?? 0n) - ((p.realizedPnl ?? 0n) - (p.realizedTradingFees ?? 0n));
  const lossAtLiq = p.collateral * (p.liqThresholdP ?? GAINS_LIQ_THRESHOLD_P) - fees * HUNDRED_PERCENT;
  const distance = (p.openPrice * lossAtLiq * PERPS_PRECISION) / (p.collateral * HUNDRED_PERCENT * p.leverage);
  const price = p.side === "long" ? p.openPrice - distance : p.openPrice + distance;
  return price < 0n ? 0n : price;
}
