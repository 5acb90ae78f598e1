/**
 * Swap output estimates from a pool's price and in-range liquidity (exact integer maths of a
 * constant-liquidity range, fee taken from the input), and the slippage bound derived from them.
 * The estimate is exact while the swap stays inside the current range (the devnet's and the
 * launcher's pools are one wide position); a swap crossing into thinner liquidity gets less
 * than the estimate, so its bound errs on the side of refusing, never of filling worse.
 */
import { Q96 } from "./uniswap.js";

/** Pips: Uniswap fee units (1_000_000 = 100%). */
export const FEE_PIPS = 1_000_000n;

/**
 * Output of an exact-input swap that stays inside the current range:
 * zeroForOne: √P' = L·√P / (L + x·√P/Q96), out = L·(√P − √P')/Q96;
 * oneForZero: √P' = √P + x·Q96/L, out = L·Q96·(√P' − √P)/(√P·√P').
 */
export function estimateSwapOut(p: { amountIn: bigint; sqrtPriceX96: bigint; liquidity: bigint; zeroForOne: boolean; feePips: number }): bigint {
  if (p.amountIn <= 0n || p.liquidity === 0n || p.sqrtPriceX96 === 0n) return 0n;
  const x = (p.amountIn * (FEE_PIPS - BigInt(p.feePips))) / FEE_PIPS;
  const L = p.liquidity;
  const s = p.sqrtPriceX96;
  if (p.zeroForOne) {
    const next = (L * s * Q96) / (L * Q96 + x * s);
    return (L * (s - next)) / Q96;
  }
  const next = s + (x * Q96) / L;
  return (L * Q96 * (next - s)) / (s * next);
}

/** `amountOutMinimum`: the estimate less `slippageBps` (an integer from 0 to 10,000), rounded down. */
export function minimumOut(estimate: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000) throw new RangeError(`slippage must be an integer number of bps from 0 to 10000 (got ${slippageBps})`);
  return (estimate * (10_000n - BigInt(slippageBps))) / 10_000n;
}

/** Price impact of a swap in bps: how far the execution price is from the spot quote (fee excluded). */
export function priceImpactBps(spotOut: bigint, estimatedOut: bigint): number {
  if (spotOut === 0n) return 0;
  return spotOut > estimatedOut ? Number(((spotOut - estimatedOut) * 10_000n) / spotOut) : 0;
}
