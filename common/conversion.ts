/**
 * How one WETH fee conversion swap's USDC is divided among the tokens whose WETH it sold: one
 * rule, used by the engine when it books the conversion in its ledger (engine/fees/weth.ts)
 * and by the indexer when it keeps per-token legs (indexer/fees.ts), so the indexed legs equal
 * the ledger's allocations to the base unit.
 *
 * The engine sells the whole WETH awaiting conversion of every token in one swap; each token
 * gets `proRata(usdcOut, wethOfToken)`: rounded down, the remainder to the last token with a
 * positive share in byte order of the checksummed addresses — an order both sides can
 * compute, whatever order they read the shares in.
 */
import { getAddress } from "viem";

export type Share = { token: string; amount: bigint };

/**
 * Divides `total` pro rata to `weights` (≥ 0), rounding down; the last entry with a positive
 * weight receives the remainder, so the shares sum to `total`.
 */
export function proRata(total: bigint, weights: Share[]): Share[] {
  const sum = weights.reduce((a, w) => a + w.amount, 0n);
  if (!weights.length) return [];
  if (sum === 0n) return weights.map((w, i) => ({ token: w.token, amount: i === weights.length - 1 ? total : 0n }));
  let given = 0n;
  let last = -1;
  const shares = weights.map((w, i) => {
    const amount = (total * w.amount) / sum;
    given += amount;
    if (w.amount > 0n) last = i;
    return { token: w.token, amount };
  });
  shares[last]!.amount += total - given;
  return shares;
}

/** The order of a conversion's shares: byte order of the checksummed addresses. */
export function conversionOrder<T extends { token: string }>(entries: T[]): T[] {
  const key = (t: string) => getAddress(t);
  return [...entries].sort((a, b) => (key(a.token) < key(b.token) ? -1 : key(a.token) > key(b.token) ? 1 : 0));
}

export type ConversionShare = { token: string; sold: bigint; usdc: bigint };

/**
 * A conversion of `amountIn` for `usdcOut`, divided among the tokens' WETH awaiting
 * conversion (`awaiting`). When the swap sold at least everything awaiting (the engine's
 * conversion: exactly that), each token's whole amount is sold and the USDC is divided pro
 * rata to it; when it sold less, each token sells its pro-rata part of `amountIn`.
 */
export function divideConversion(amountIn: bigint, usdcOut: bigint, awaiting: Share[]): ConversionShare[] {
  const ordered = conversionOrder(awaiting.filter((a) => a.amount > 0n));
  if (!ordered.length) return [];
  const total = ordered.reduce((a, w) => a + w.amount, 0n);
  const sold = amountIn >= total ? ordered : proRata(amountIn, ordered);
  const usdc = proRata(usdcOut, sold);
  return sold.map((s, i) => ({ token: s.token, sold: s.amount, usdc: usdc[i]!.amount }));
}
