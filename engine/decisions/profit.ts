/**
 * Take-profit rule (pure): a trade whose close value exceeds what it paid in by the
 * mandate's threshold (and by at least `minProfitUsdc`) is closed; the profit becomes a
 * creator buyback of the token.
 */
import type { Mandate } from "./mandate.js";
import { type Side, closeValue, percentProfit } from "./perps-math.js";

export type ProfitDecision = { action: "close"; profit: bigint; value: bigint; reason: string } | { action: "hold"; profit: bigint; value: bigint; reason: string };

export function decideTakeProfit(input: {
  trade: { side: Side; leverage: bigint; collateral: bigint; basisUsdc: bigint; openPrice: bigint };
  price: bigint;
  mandate: Mandate;
  minProfitUsdc: bigint;
}): ProfitDecision {
  const t = input.trade;
  const value = closeValue(t.collateral, percentProfit(t.openPrice, input.price, t.side, t.leverage));
  const profit = value - t.basisUsdc;
  const threshold = (t.basisUsdc * BigInt(input.mandate.takeProfitBps)) / 10_000n;
  if (profit > 0n && profit >= threshold && profit >= input.minProfitUsdc) {
    return { action: "close", profit, value, reason: `unrealised profit ${profit} ≥ ${threshold} (${input.mandate.takeProfitBps} bps of ${t.basisUsdc})` };
  }
  return { action: "hold", profit, value, reason: profit > 0n ? `profit ${profit} below the threshold ${threshold}` : "no profit" };
}
