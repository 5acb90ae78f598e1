/**
 * Desk risk rules (pure): drawdown against what the desk paid in, and the distance of the
 * price to each trade's liquidation price. Past a limit the desk is halted and reduced;
 * it is unhalted once every trade is comfortably back inside the limits.
 */
import type { Mandate } from "../../core/mandate.js";
import { type Side, closeValue, liquidationPrice, notionalOf, percentProfit } from "../../common/perps-math.js";

export type RiskTrade = {
  id: number;
  side: Side;
  leverage: bigint;
  collateral: bigint;
  basisUsdc: bigint;
  openPrice: bigint;
  /** The venue's own mark of the trade at the price (its fees included), where it has one; else Avantis v1's maths. */
  mark?: { value: bigint; liquidationPrice: bigint };
};

export type TradeRisk = { id: number; value: bigint; drawdownBps: number; liquidationPrice: bigint; liquidationDistanceBps: number };

export type RiskDecision = {
  action: "halt" | "unhalt" | "hold";
  reason: string;
  /** Trades to reduce now: collateral amount to close (the whole collateral closes the trade). */
  reduce: { id: number; amount: bigint }[];
  trades: TradeRisk[];
};

/** Measures one trade at `price`. */
export function measureTrade(t: RiskTrade, price: bigint): TradeRisk {
  const value = t.mark?.value ?? closeValue(t.collateral, percentProfit(t.openPrice, price, t.side, t.leverage));
  const drawdownBps = t.basisUsdc > 0n && value < t.basisUsdc ? Number(((t.basisUsdc - value) * 10_000n) / t.basisUsdc) : 0;
  const liq = t.mark?.liquidationPrice ?? liquidationPrice(t.openPrice, t.side, t.leverage);
  const gap = t.side === "long" ? price - liq : liq - price;
  const liquidationDistanceBps = price > 0n ? Number((gap * 10_000n) / price) : 0;
  return { id: t.id, value, drawdownBps, liquidationPrice: liq, liquidationDistanceBps };
}

/**
 * `decideDeskRisk`: halts (with a reason) when any trade's drawdown reaches
 * `mandate.maxDrawdownBps` or its price is within `mandate.liquidationBufferBps` of
 * liquidation, and reduces each breaching trade by half (fully when half would leave less
 * than `minNotionalUsdc`). Unhalts when every trade is within half the drawdown limit and
 * twice the liquidation buffer, or the desk holds no trade.
 */
export function decideDeskRisk(input: { halted: boolean; trades: RiskTrade[]; price: bigint; mandate: Mandate; minNotionalUsdc: bigint }): RiskDecision {
  const { mandate } = input;
  const measured = input.trades.map((t) => measureTrade(t, input.price));
  const reasons: string[] = [];
  const reduce: { id: number; amount: bigint }[] = [];
  input.trades.forEach((t, i) => {
    const m = measured[i]!;
    const breaches: string[] = [];
    if (m.drawdownBps >= mandate.maxDrawdownBps) breaches.push(`drawdown ${m.drawdownBps} bps ≥ ${mandate.maxDrawdownBps} bps`);
    if (m.liquidationDistanceBps <= mandate.liquidationBufferBps) {
      breaches.push(`price ${m.liquidationDistanceBps} bps from liquidation ≤ ${mandate.liquidationBufferBps} bps`);
    }
    if (!breaches.length) return;
    reasons.push(`trade ${t.id}: ${breaches.join(", ")}`);
    const half = t.collateral / 2n;
    const keepsMinimum = notionalOf(t.collateral - half, t.leverage) >= input.minNotionalUsdc && half > 0n;
    reduce.push({ id: t.id, amount: keepsMinimum ? half : t.collateral });
  });
  if (reasons.length) {
    return { action: input.halted ? "hold" : "halt", reason: reasons.join("; "), reduce, trades: measured };
  }
  if (input.halted) {
    const calm = measured.every((m) => m.drawdownBps < mandate.maxDrawdownBps / 2 && m.liquidationDistanceBps > mandate.liquidationBufferBps * 2);
    if (!measured.length) return { action: "unhalt", reason: "no open exposure", reduce, trades: measured };
    if (calm) return { action: "unhalt", reason: "every trade back within half the drawdown limit and twice the liquidation buffer", reduce, trades: measured };
    return { action: "hold", reason: "recovering: not yet within the unhalt limits", reduce, trades: measured };
  }
  return { action: "hold", reason: "within limits", reduce, trades: measured };
}
