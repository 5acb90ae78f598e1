/**
 * The slippage bound and price impact of a quoted swap. Quotes themselves come from running
 * the swap on the latest block (core/chain/swap/quote.ts), exact through every tick it crosses.
 */

/** Pips: Uniswap fee units (1_000_000 = 100%). */
export const FEE_PIPS = 1_000_000n;

/** `amountOutMinimum`: the quote less `slippageBps` (an integer from 0 to 10,000), rounded down. */
export function minimumOut(estimate: bigint, slippageBps: number): bigint {
  if (!Number.isInteger(slippageBps) || slippageBps < 0 || slippageBps > 10_000)
    throw new RangeError(`slippage must be an integer number of bps from 0 to 10000 (got ${slippageBps})`);
  return (estimate * (10_000n - BigInt(slippageBps))) / 10_000n;
}

/** Price impact of a swap in bps: how far the execution price is from the spot quote (fee excluded). */
export function priceImpactBps(spotOut: bigint, estimatedOut: bigint): number {
  if (spotOut === 0n) return 0;
  return spotOut > estimatedOut ? Number(((spotOut - estimatedOut) * 10_000n) / spotOut) : 0;
}
