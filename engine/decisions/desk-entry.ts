/**
 * Desk entry and growth decisions (pure). The side follows the token's strategy (the
 * agent's charter; tokens without an agent trade momentum): `momentum` opens in the
 * direction of the price window's momentum (long when it is positive or flat, short when it
 * is negative); `hold` only ever goes long, whatever the momentum, and never opens a short.
 * Leverage is capped by the mandate and by volatility, and a trade opens only when its
 * notional reaches both the service minimum and the exchange's own pair minimum.
 */
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import type { Mandate } from "../../core/mandate.js";
import { type Side, notionalOf } from "../../common/perps-math.js";
import { MIN_WINDOW_SAMPLES, type PriceWindow } from "./window.js";
import { USDC_UNIT, formatUnits, showUnits } from "../../common/units.js";

const usdc = (v: bigint) => showUnits(v, USDC_UNIT);
/** Leverage (1e10 precision) as "4x". */
const times = (v: bigint) => `${formatUnits(v, 10, { exact: true })}x`;

/** A desk strategy (`Strategy` of the agent charter); null for a token without an agent: momentum. */
export type DeskStrategy = "momentum" | "hold" | null;

/** A stress move of this many standard deviations over the horizon must stay within the drawdown limit. */
export const VOLATILITY_SIGMAS = 3;
/** Horizon, in price samples, over which the stress move is measured. */
export const VOLATILITY_HORIZON_SAMPLES = 100;

export type PairLimits = {
  minLevPosUsdc: bigint;
  minLeverage: bigint;
  maxLeverage: bigint;
  /** The venue's leverage precision (1e10 units): gTrade's is 0.001× (1e7); none finer than 1 unless given. */
  leverageStep?: bigint;
};

export type DeskEntryInput = {
  perpUsdc: bigint;
  window: PriceWindow | undefined;
  pair: PairLimits;
  minNotionalUsdc: bigint;
  mandate: Mandate;
  /** USDC already paid into the desk's open trades (for `mandate.maxDeskUsdc`). */
  deskBasisUsdc?: bigint;
  /** The token's strategy (default: momentum). */
  strategy?: DeskStrategy;
};

/** The side a new desk takes under `strategy`, and why. */
export function entrySide(strategy: DeskStrategy | undefined, momentum: number): { side: Side; why: string } {
  const m = `momentum ${(momentum * 100).toFixed(3)}%`;
  if (strategy === "hold") return { side: "long", why: `hold mandate: long whatever the momentum (${m})` };
  return momentum >= 0 ? { side: "long", why: `momentum mandate: long on ${m}` } : { side: "short", why: `momentum mandate: short on ${m}` };
}

export type DeskOpen = { action: "open"; side: Side; leverage: bigint; collateral: bigint; notional: bigint; reason: string };
export type DeskTopUp = { action: "top-up"; tradeId: number; amount: bigint; newLeverage: bigint; reason: string };
export type DeskWait = { action: "wait"; reason: string };

/** The notional a new trade must reach: max(service minimum, pair minimum). */
export function requiredNotional(minNotionalUsdc: bigint, pair: PairLimits): bigint {
  return minNotionalUsdc > pair.minLevPosUsdc ? minNotionalUsdc : pair.minLevPosUsdc;
}

/**
 * Highest leverage allowed: the mandate's, the pair's, and the volatility cap
 * `maxDrawdown / (σ · √horizon · sigmas)`. Returns 0 when no leverage within the pair's
 * bounds satisfies every cap.
 */
export function leverageCap(window: PriceWindow, pair: PairLimits, mandate: Mandate): bigint {
  let cap = mandate.maxLeverage < pair.maxLeverage ? mandate.maxLeverage : pair.maxLeverage;
  const stress = window.volatility * Math.sqrt(VOLATILITY_HORIZON_SAMPLES) * VOLATILITY_SIGMAS;
  if (stress > 0) {
    const volCap = (mandate.maxDrawdownBps / 10_000 / stress) * Number(PERPS_PRECISION);
    const volCapInt = BigInt(Math.floor(Math.min(volCap, Number(cap))));
    if (volCapInt < cap) cap = volCapInt;
  }
  return cap >= pair.minLeverage ? cap : 0n;
}

function collateralFor(input: DeskEntryInput): bigint {
  let collateral = input.perpUsdc;
  if (input.mandate.maxDeskUsdc !== null) {
    const room = input.mandate.maxDeskUsdc - (input.deskBasisUsdc ?? 0n);
    if (room < collateral) collateral = room > 0n ? room : 0n;
  }
  return collateral;
}

/**
 * `decideDeskEntry`: whether and how to open a token's first desk trade from its pending
 * perp USDC. Below the notional minimum the answer is "wait": the USDC stays allocated.
 */
export function decideDeskEntry(input: DeskEntryInput): DeskOpen | DeskWait {
  if (input.perpUsdc <= 0n) return { action: "wait", reason: "no perp USDC allocated" };
  const w = input.window;
  if (!w || w.samples < MIN_WINDOW_SAMPLES) {
    return { action: "wait", reason: `price window warming up (${w?.samples ?? 0}/${MIN_WINDOW_SAMPLES} samples)` };
  }
  const leverage = leverageCap(w, input.pair, input.mandate);
  if (leverage === 0n) return { action: "wait", reason: "volatility too high for the pair's minimum leverage" };
  const collateral = collateralFor(input);
  if (collateral <= 0n) return { action: "wait", reason: "desk at its mandate cap" };
  const notional = notionalOf(collateral, leverage);
  const required = requiredNotional(input.minNotionalUsdc, input.pair);
  if (notional < required) {
    return {
      action: "wait",
      reason: `notional ${usdc(notional)} below the minimum ${usdc(required)} (collateral ${usdc(collateral)} at ${times(leverage)} leverage)`,
    };
  }
  const { side, why } = entrySide(input.strategy, w.momentum);
  return {
    action: "open",
    side,
    leverage,
    collateral,
    notional,
    reason: `${side}: ${why}, volatility ${(w.volatility * 100).toFixed(3)}%/sample, leverage ${times(leverage)}`,
  };
}

export type OpenTradeView = { id: number; collateral: bigint; leverage: bigint };

/**
 * Growth of an existing desk from new perp USDC: a new trade in the desk's direction when
 * it reaches the notional minimum and the exchange has a free slot; otherwise a margin
 * top-up of the most leveraged trade, as far as the pair's minimum leverage allows.
 */
export function decideDeskIncrease(input: DeskEntryInput & { side: Side; trades: OpenTradeView[]; freeSlots: number }): DeskOpen | DeskTopUp | DeskWait {
  if (input.perpUsdc <= 0n) return { action: "wait", reason: "no perp USDC allocated" };
  // A hold desk never adds to a short (one it did not open: adopted, or from another strategy).
  if (input.strategy === "hold" && input.side === "short") return { action: "wait", reason: "hold mandate: never adds to a short desk" };
  const collateral = collateralFor(input);
  if (collateral <= 0n) return { action: "wait", reason: "desk at its mandate cap" };
  const required = requiredNotional(input.minNotionalUsdc, input.pair);
  if (input.freeSlots > 0 && input.window && input.window.samples >= MIN_WINDOW_SAMPLES) {
    const leverage = leverageCap(input.window, input.pair, input.mandate);
    const notional = notionalOf(collateral, leverage);
    if (leverage > 0n && notional >= required) {
      return {
        action: "open",
        side: input.side,
        leverage,
        collateral,
        notional,
        reason: `increase ${input.side} desk by ${usdc(notional)} notional (${input.strategy ?? "momentum"} mandate)`,
      };
    }
  }
  const target = [...input.trades].sort((a, b) => (a.leverage > b.leverage ? -1 : a.leverage < b.leverage ? 1 : 0))[0];
  if (!target) return { action: "wait", reason: `notional below the minimum ${usdc(required)} and no trade to top up` };
  // size = collateral × leverage stays fixed; the new leverage must stay ≥ the pair minimum.
  const size = target.collateral * target.leverage;
  const maxTopUp = input.pair.minLeverage > 0n ? size / input.pair.minLeverage - target.collateral : collateral;
  const amount = collateral < maxTopUp ? collateral : maxTopUp;
  if (amount <= 0n) return { action: "wait", reason: "trades at the pair's minimum leverage; waiting for a new trade's minimum" };
  // The venue takes the new leverage in its steps, rounded up (gTrade's updateLeverage): a top-up too small to lower it
  // by one step is refused there (WrongLeverage), so it waits for more USDC instead.
  const total = target.collateral + amount;
  const step = input.pair.leverageStep;
  const newLeverage = step === undefined ? size / total : ((size + step * total - 1n) / (step * total)) * step;
  if (newLeverage >= target.leverage)
    return { action: "wait", reason: `a top-up of ${usdc(amount)} would not lower trade ${target.id}'s leverage by the venue's step; waiting for more` };
  return { action: "top-up", tradeId: target.id, amount, newLeverage, reason: `add ${usdc(amount)} margin to trade ${target.id}` };
}
