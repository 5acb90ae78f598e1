/**
 * Take-profit rule (pure). Every desk takes profit once a trade's close value exceeds what it
 * paid in by the mandate's take-profit threshold (and by at least `minProfitUsdc`); the
 * profit becomes a creator buyback of the token.
 *
 * "Taking profit early" means closing a trade in profit before that threshold. Only the
 * `momentum` strategy does it, on its own signal: when the price window (at least
 * MIN_WINDOW_SAMPLES samples) has turned against the trade — negative momentum under a
 * long, positive under a short — a trade in profit by at least `minProfitUsdc` is closed.
 * A `hold` desk never takes profit early: it closes only at the threshold (or by the drawdown
 * halt of desk-risk). Tokens without an agent keep the threshold rule alone.
 */
import type { DeskStrategy } from "./desk-entry.js";
import type { Mandate } from "../../core/mandate.js";
import { type Side, closeValue, percentProfit } from "../../common/perps-math.js";
import { MIN_WINDOW_SAMPLES, type PriceWindow } from "./window.js";
import { USDC_UNIT, showUnits } from "../../common/units.js";

const usdc = (v: bigint) => showUnits(v, USDC_UNIT);

export type ProfitDecision =
  | { action: "close"; profit: bigint; value: bigint; reason: string }
  | { action: "hold"; profit: bigint; value: bigint; reason: string };

export function decideTakeProfit(input: {
  /** `value`: what closing the trade pays now by the venue's own maths (fees included), where it has one. */
  trade: { side: Side; leverage: bigint; collateral: bigint; basisUsdc: bigint; openPrice: bigint; value?: bigint };
  price: bigint;
  mandate: Mandate;
  minProfitUsdc: bigint;
  /** The token's strategy: null for a token without an agent (threshold only). */
  strategy?: DeskStrategy;
  /** The pair's price window, for the momentum strategy's early exit. */
  window?: PriceWindow;
}): ProfitDecision {
  const t = input.trade;
  const value = t.value ?? closeValue(t.collateral, percentProfit(t.openPrice, input.price, t.side, t.leverage));
  const profit = value - t.basisUsdc;
  const threshold = (t.basisUsdc * BigInt(input.mandate.takeProfitBps)) / 10_000n;
  if (profit > 0n && profit >= threshold && profit >= input.minProfitUsdc) {
    return {
      action: "close",
      profit,
      value,
      reason: `unrealised profit ${usdc(profit)} ≥ ${usdc(threshold)} (${input.mandate.takeProfitBps} bps of ${usdc(t.basisUsdc)})`,
    };
  }
  const w = input.window;
  if (input.strategy === "momentum" && w && w.samples >= MIN_WINDOW_SAMPLES && profit > 0n && profit >= input.minProfitUsdc) {
    const against = t.side === "long" ? w.momentum < 0 : w.momentum > 0;
    if (against) {
      return {
        action: "close",
        profit,
        value,
        reason: `momentum mandate: momentum ${(w.momentum * 100).toFixed(3)}% turned against the ${t.side}; taking profit ${usdc(profit)} early (threshold ${usdc(threshold)})`,
      };
    }
  }
  const below =
    input.strategy === "hold"
      ? `hold mandate: profit ${usdc(profit)} below the take-profit threshold ${usdc(threshold)}; held`
      : `profit ${usdc(profit)} below the threshold ${usdc(threshold)}`;
  return { action: "hold", profit, value, reason: profit > 0n ? below : "no profit" };
}
