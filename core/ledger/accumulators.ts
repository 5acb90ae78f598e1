/**
 * The spec's internal accumulators, under the spec's names, as the workers read and drain
 * them. Each is a leg of the ledger (legs.ts), so it survives a restart and a reorg; a worker
 * sees only final money: inflows from blocks above `finalBlock` (the head less
 * `CONFIRMATIONS`, `finalBlock(ctx)`) are pending, not spendable yet. `finalBlock` Infinity
 * counts every recorded block as final (a report of everything recorded).
 *
 * - `pendingBuybackUsdc`: USDC for the protocol-token buyback (leg `protocol`).
 * - `peekPerpUsdc(token)` / `consumePerpUsdc`: the perp USDC allocated to a token (leg `perp`).
 * - `consumeCreatorBuybacksAbove(min)`: drains the creator buyback queue (leg `creator-buyback`).
 * - `legacyWethBalance`: the legacy WETH accumulator, drained as a fallback (leg `legacy-weth`).
 * - `pendingAssetUsdc`: USDC for the secondary-asset purchase (leg `asset`).
 */
import type { Address } from "viem";
import type { Db, Queryable, Tx } from "../db/client.js";
import { startBuyback } from "./buybacks.js";
import { Legs } from "./legs.js";
import { spendableBalance, spendableBalancesByToken } from "./reads.js";
import { consumeLeg } from "./spend.js";

/** USDC waiting for the protocol-token buyback, final part only (negative while a reorg deficit is repaid). */
export function pendingBuybackUsdc(q: Queryable, finalBlock: number): Promise<bigint> {
  return spendableBalance(q, Legs.protocol, undefined, finalBlock);
}

/** USDC waiting for the secondary-asset purchase, final part only. */
export function pendingAssetUsdc(q: Queryable, finalBlock: number): Promise<bigint> {
  return spendableBalance(q, Legs.asset, undefined, finalBlock);
}

/** The legacy WETH accumulator, final part only. */
export function legacyWethBalance(q: Queryable, finalBlock: number): Promise<bigint> {
  return spendableBalance(q, Legs.legacyWeth, undefined, finalBlock);
}

/** The perp USDC allocated to a token and not yet in a trade, final part only. */
export function peekPerpUsdc(q: Queryable, token: Address, finalBlock: number): Promise<bigint> {
  return spendableBalance(q, Legs.perp, token, finalBlock);
}

/** Takes a token's final perp USDC into a desk trade (inside the caller's transaction, with the trade row). */
export function consumePerpUsdc(tx: Tx, token: Address, amount: bigint, key: string, finalBlock: number, data?: Record<string, unknown>): Promise<void> {
  return consumeLeg(tx, { leg: Legs.perp, token, amount, key, kind: "desk-spend", currency: "USDC", finalBlock, data });
}

export type CreatorBuyback = { buybackId: number; token: Address; amount: bigint };

/**
 * Drains the creator buyback queue. Every token whose final queued USDC reaches its minimum
 * (`minFor(token)`, by default the configured minimum) gets a buyback row and a matching spend
 * (`startBuyback`), in one transaction each. Tokens below stay queued.
 */
export async function consumeCreatorBuybacksAbove(
  db: Db,
  minimum: bigint | ((token: Address) => bigint | Promise<bigint>),
  finalBlock: number,
): Promise<CreatorBuyback[]> {
  const queued = await spendableBalancesByToken(db, Legs.creatorBuyback, finalBlock);
  const out: CreatorBuyback[] = [];
  for (const [token, amount] of queued) {
    const min = typeof minimum === "function" ? await minimum(token) : minimum;
    if (amount < min || amount <= 0n) continue;
    const buybackId = await startBuyback(db, { kind: "creator", token, leg: Legs.creatorBuyback, currency: "USDC", amount, finalBlock });
    out.push({ buybackId, token, amount });
  }
  return out;
}
