/**
 * Momentum and volatility of a price window (floats are fine here: these are statistics
 * that steer decisions, never money).
 */

/** Samples needed before a window steers a desk. */
export const MIN_WINDOW_SAMPLES = 5;

export type PriceWindow = { samples: number; momentum: number; volatility: number; last: number };

/**
 * `momentum` = relative change first → last; `volatility` = standard deviation of the
 * log returns between consecutive samples (per sample). Prices oldest first.
 */
export function priceWindow(prices: number[]): PriceWindow {
  const samples = prices.length;
  if (samples === 0) return { samples, momentum: 0, volatility: 0, last: 0 };
  const first = prices[0]!;
  const last = prices[samples - 1]!;
  const momentum = first > 0 ? (last - first) / first : 0;
  const returns: number[] = [];
  for (let i = 1; i < samples; i++) {
    const a = prices[i - 1]!;
    const b = prices[i]!;
    if (a > 0 && b > 0) returns.push(Math.log(b / a));
  }
  let volatility = 0;
  if (returns.length > 1) {
    const mean = returns.reduce((s, r) => s + r, 0) / returns.length;
    volatility = Math.sqrt(returns.reduce((s, r) => s + (r - mean) ** 2, 0) / (returns.length - 1));
  }
  return { samples, momentum, volatility, last };
}
