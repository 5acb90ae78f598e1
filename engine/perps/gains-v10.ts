/**
 * The `gains-v10` perps venue: Gains Network gTrade v10 (common/abis/gains.ts), one diamond for
 * trading, views and events, USDC collateral (index 1). Units at the diamond: leverage 1e3, prices
 * 1e10, collateral in USDC's 6 decimals; the engine speaks leverage at 1e10, so leverage is scaled by
 * 1e7 both ways (down to gTrade's 0.001x steps, never up).
 *
 * Every order is two-step, as gTrade's oracle answers it in a later transaction: the order's
 * receipt carries the order id, the trader (always the operator) plus the pending-order index,
 * which the engine keeps as the index alone. Pair indices are gTrade's: BTC/USD 0, ETH/USD 1.
 * Minimums: gTrade refuses an open whose collateral is below 5 × the pair's minimum fee; the pair
 * limits express that as a minimum leveraged position at the pair's maximum leverage, so a desk
 * meeting it meets gTrade's rule at any leverage it may choose, beside `PERPS_MIN_NOTIONAL_USDC`.
 *
 * An open trade's `timestamp` here is the block its open was filled in (`getTradeInfo.createdBlock`):
 * gTrade keeps no open time, and the block identifies the trade as Avantis' timestamp did.
 */
import { type Address, type Hex, type TransactionReceipt, encodeFunctionData, getAddress, parseEventLogs, zeroAddress } from "viem";
import { aggregatorV3Abi } from "../../common/abis/engine.js";
import {
  GAINS_COLLATERAL_PRICE_PRECISION,
  GAINS_LEVERAGE_PRECISION,
  GAINS_MIN_COLLATERAL_FEE_MULTIPLE,
  GAINS_PAIR_FEEDS,
  GAINS_USDC_COLLATERAL_INDEX,
  GainsCancelReason,
  GainsOrderType,
  type GainsTrade,
  GainsTradeType,
  gainsEventsAbi,
  gainsLiquidationPriceInput,
  gainsMarketOpenTrade,
  gainsTradingAbi,
  gainsViewsAbi,
} from "../../common/abis/gains.js";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { ServiceError } from "../../common/errors.js";
import { type Side, gainsCloseCharges, gainsCloseValue, gainsPositionFee, percentProfit, toPerpsPrice } from "../../common/perps-math.js";
import { PERPS_VENUES } from "../../common/perps-venues.js";
import type { EngineContext } from "../../core/context.js";
import { getLogsChunked } from "../chain/logs.js";
import type { PairLimits } from "../decisions/desk-entry.js";
import type { MarkInput, OnchainTrade, PerpsVenue, TimedOutOrder, TradeMark, VenueCall, VenueEvent } from "./types.js";
import { venueLogsInChainOrder } from "./logs.js";

/** Slippage accepted on market orders, percent at 1e3: 1%. */
export const GAINS_SLIPPAGE_P = 1_000;
/** Engine leverage (1e10) per gTrade leverage unit (1e3). */
const LEVERAGE_SCALE = PERPS_PRECISION / GAINS_LEVERAGE_PRECISION;
/**
 * gTrade v10 caps no number of trades per pair; the engine bounds how many it holds on one pair from
 * the single operator wallet (open trades and pending opens count).
 */
export const GAINS_MAX_TRADES_PER_PAIR = 50;

/** A perps call the venue cannot build (a bound gTrade would refuse, or no diamond configured). */
export class GainsVenueError extends ServiceError {
  override name = "GainsVenueError";
}

/** gTrade leverage (1e3) of an engine leverage (1e10), rounded down; refuses one outside uint24. */
export function toGainsLeverage(leverage: bigint): number {
  const l = leverage / LEVERAGE_SCALE;
  if (l <= 0n || l >= 1n << 24n) throw new GainsVenueError(`leverage ${leverage} (1e10) is outside gTrade's range`, { code: "UNPROCESSABLE" });
  return Number(l);
}

/** Engine leverage (1e10) of a gTrade leverage (1e3). */
export function fromGainsLeverage(leverage: number | bigint): bigint {
  return BigInt(leverage) * LEVERAGE_SCALE;
}

/** A gTrade trade in the engine's terms; `openedAt` is the block its open was filled in. */
export function fromGainsTrade(t: GainsTrade, openedAt: bigint): OnchainTrade {
  return {
    trader: getAddress(t.user),
    pairIndex: Number(t.pairIndex),
    index: Number(t.index),
    collateral: t.collateralAmount,
    openPrice: t.openPrice,
    side: t.long ? "long" : "short",
    leverage: fromGainsLeverage(t.leverage),
    timestamp: openedAt,
  };
}

/**
 * The least USDC (6 decimals) gTrade opens a trade with: `5 × pairMinFeeUsd` (USD 1e18) at the
 * collateral's USD price (1e8), rounded up.
 */
export function gainsMinCollateral(pairMinFeeUsd: bigint, collateralPriceUsd: bigint = GAINS_COLLATERAL_PRICE_PRECISION): bigint {
  if (collateralPriceUsd <= 0n) throw new GainsVenueError("the collateral's USD price is not positive", { code: "UPSTREAM_FAILED" });
  const numerator = GAINS_MIN_COLLATERAL_FEE_MULTIPLE * pairMinFeeUsd * GAINS_COLLATERAL_PRICE_PRECISION;
  const denominator = collateralPriceUsd * 10n ** 12n;
  return (numerator + denominator - 1n) / denominator;
}

/**
 * The pair limits in the engine's terms: leverage bounds at 1e10, and as minimum leveraged position
 * the minimum collateral at the pair's maximum leverage (rounded up), which any desk at or below that
 * leverage then reaches only with at least the minimum collateral.
 */
export function gainsPairLimits(p: { minLeverage: bigint; maxLeverage: bigint; minCollateral: bigint }): PairLimits {
  const minLevPosUsdc = (p.minCollateral * p.maxLeverage + GAINS_LEVERAGE_PRECISION - 1n) / GAINS_LEVERAGE_PRECISION;
  return { minLevPosUsdc, minLeverage: fromGainsLeverage(p.minLeverage), maxLeverage: fromGainsLeverage(p.maxLeverage), leverageStep: LEVERAGE_SCALE };
}

/** `openTrade` of a market order: the contract sets the user and index itself; no TP, SL or referrer. */
export function encodeGainsOpen(p: { trader: Address; pairIndex: number; collateral: bigint; price: bigint; side: Side; leverage: bigint }): Hex {
  return encodeFunctionData({
    abi: gainsTradingAbi,
    functionName: "openTrade",
    args: [
      gainsMarketOpenTrade({
        trader: p.trader,
        pairIndex: p.pairIndex,
        leverage: toGainsLeverage(p.leverage),
        long: p.side === "long",
        collateral: p.collateral,
        price: p.price,
      }),
      GAINS_SLIPPAGE_P,
      zeroAddress,
    ],
  });
}

/** A full close (`closeTradeMarket`) when `amount` reaches the collateral, else `decreasePositionSize` of `amount`. */
export function encodeGainsClose(p: { index: number; amount: bigint; collateral: bigint; price: bigint }): Hex {
  if (p.amount >= p.collateral) return encodeFunctionData({ abi: gainsTradingAbi, functionName: "closeTradeMarket", args: [p.index, p.price] });
  return encodeFunctionData({ abi: gainsTradingAbi, functionName: "decreasePositionSize", args: [p.index, p.amount, 0, p.price] });
}

/** `increasePositionSize`: `collateral` more USDC at `leverage` (1e10). */
export function encodeGainsIncrease(p: { index: number; collateral: bigint; leverage: bigint; price: bigint }): Hex {
  return encodeFunctionData({
    abi: gainsTradingAbi,
    functionName: "increasePositionSize",
    args: [p.index, p.collateral, toGainsLeverage(p.leverage), p.price, GAINS_SLIPPAGE_P],
  });
}

/**
 * Adding margin: gTrade has no margin call; lowering the leverage at the same position size pulls
 * `collateral × (old / new − 1)`. The new leverage is rounded up, so at most `amount` is pulled.
 */
export function gainsMarginLeverage(p: { collateral: bigint; leverage: number; amount: bigint }): number {
  const total = p.collateral + p.amount;
  if (p.collateral <= 0n || total <= 0n) throw new GainsVenueError("no collateral to add margin to", { code: "UNPROCESSABLE" });
  return Number((p.collateral * BigInt(p.leverage) + total - 1n) / total);
}

/** The pending-order index of a mined order (open, close, resize or leverage update), from its receipt. */
export function gainsOrderIdOf(receipt: TransactionReceipt): bigint | undefined {
  const initiated = parseEventLogs({
    abi: gainsEventsAbi,
    eventName: ["MarketOrderInitiated", "PositionSizeUpdateInitiated", "LeverageUpdateInitiated"],
    logs: receipt.logs,
  });
  const first = initiated[0];
  return first ? BigInt(first.args.orderId.index) : undefined;
}

/** The diamond of the configured chain. */
function diamond(ctx: Pick<EngineContext, "config">): Address {
  const address = ctx.config.gainsDiamond;
  if (!address) throw new GainsVenueError("no gTrade diamond is configured for this chain (deployments' gainsDiamond)", { code: "NOT_CONFIGURED" });
  return address;
}

function read<T>(ctx: EngineContext, functionName: string, args: readonly unknown[] = [], blockNumber?: bigint): Promise<T> {
  return ctx.publicClient.readContract({ address: diamond(ctx), abi: gainsViewsAbi, functionName, args, blockNumber } as never) as Promise<T>;
}

async function readTrade(ctx: EngineContext, index: number): Promise<GainsTrade> {
  const t = await read<GainsTrade>(ctx, "getTrade", [ctx.operator, index]);
  if (!t.isOpen) throw new GainsVenueError(`the operator has no open gTrade trade ${index}`, { code: "CONFLICT" });
  return t;
}

async function readPairLimits(ctx: EngineContext, pairIndex: number): Promise<PairLimits> {
  const [minLeverage, maxLeverage, minFeeUsd, collateralPriceUsd] = await Promise.all([
    read<bigint>(ctx, "pairMinLeverage", [BigInt(pairIndex)]),
    read<bigint>(ctx, "pairMaxLeverage", [BigInt(pairIndex)]),
    read<bigint>(ctx, "pairMinFeeUsd", [BigInt(pairIndex)]),
    read<bigint>(ctx, "getCollateralPriceUsd", [GAINS_USDC_COLLATERAL_INDEX]),
  ]);
  return gainsPairLimits({ minLeverage, maxLeverage, minCollateral: gainsMinCollateral(minFeeUsd, collateralPriceUsd) });
}

async function freeTradeSlots(ctx: EngineContext, pairIndex: number): Promise<number> {
  const [trades, pending] = await Promise.all([
    read<GainsTrade[]>(ctx, "getTrades", [ctx.operator]),
    read<PendingOrder[]>(ctx, "getPendingOrders", [ctx.operator]),
  ]);
  const open = trades.filter((t) => t.isOpen && t.tradeType === GainsTradeType.TRADE && t.pairIndex === pairIndex).length;
  const opening = pending.filter((o) => o.orderType === GainsOrderType.MARKET_OPEN && o.trade.pairIndex === pairIndex).length;
  return Math.max(0, GAINS_MAX_TRADES_PER_PAIR - open - opening);
}

/** The block a trade's open was filled in. */
async function openedAt(ctx: EngineContext, index: number, blockNumber?: bigint): Promise<bigint> {
  const info = await read<{ createdBlock: number }>(ctx, "getTradeInfo", [ctx.operator, index], blockNumber);
  return BigInt(info.createdBlock);
}

/** `getTrades(operator)`: its open market trades (resting limit orders left out). */
async function readOperatorTrades(ctx: EngineContext): Promise<OnchainTrade[]> {
  const trades = (await read<GainsTrade[]>(ctx, "getTrades", [ctx.operator])).filter((t) => t.isOpen && t.tradeType === GainsTradeType.TRADE);
  return Promise.all(trades.map(async (t) => fromGainsTrade(t, await openedAt(ctx, t.index))));
}

/** The pair's mark price at 1e10: the configured feed of its gTrade index, else the pair's own Chainlink feed. */
async function readPairPrice(ctx: EngineContext, pairIndex: number): Promise<bigint> {
  let feed = ctx.config.priceFeeds[GAINS_PAIR_FEEDS[pairIndex] ?? ""];
  if (!feed) {
    const pair = await read<{ feed: { feed1: Address } }>(ctx, "pairs", [BigInt(pairIndex)]);
    if (pair.feed.feed1 === zeroAddress) throw new GainsVenueError(`no price feed for gTrade pair ${pairIndex}`, { code: "NOT_CONFIGURED" });
    feed = pair.feed.feed1;
  }
  const [decimals, round] = await Promise.all([
    ctx.publicClient.readContract({ address: feed, abi: aggregatorV3Abi, functionName: "decimals" }),
    ctx.publicClient.readContract({ address: feed, abi: aggregatorV3Abi, functionName: "latestRoundData" }),
  ]);
  return toPerpsPrice(round[1], decimals);
}

/** `CancelReason` in words. */
function cancelReasonName(reason: number): string {
  const name = Object.entries(GainsCancelReason).find(([, v]) => v === reason)?.[0];
  return name ? `${name} (${reason})` : String(reason);
}

type PendingOrder = { trade: GainsTrade; index: number; orderType: number; createdBlock: number };

/** The operator's pending order `index` as it stood at `blockNumber` (before a cancel after the timeout removed it). */
async function pendingOrderAt(ctx: EngineContext, index: number, blockNumber: bigint): Promise<PendingOrder | undefined> {
  const orders = await read<PendingOrder[]>(ctx, "getPendingOrders", [ctx.operator], blockNumber);
  return orders.find((o) => Number(o.index) === index);
}

/**
 * The operator's `MarketExecuted` (opens and closes), `MarketOpenCanceled` (an open refused, its collateral back
 * less gTrade's fee), `MarketCloseCanceled` and refused `PositionSizeDecreaseExecuted` (a close or reduce refused:
 * the trade stays), executed `PositionSizeDecreaseExecuted` (a reduce), `LeverageUpdateExecuted` (a margin
 * top-up filled or refused), the cancels after the timeout (`CollateralReturnedAfterTimeout` for an order holding
 * collateral, all of it back; `ChainlinkCallbackTimeout` alone for a close), and `LimitExecuted` (order type 6: a
 * liquidation) in a range, decoded, in chain order. Order ids are pending-order indices. A cancel after the
 * timeout names only the order: what it cancelled is read from the diamond's pending orders just before it.
 */
async function readEvents(ctx: EngineContext, range: { fromBlock: bigint; toBlock: bigint }): Promise<VenueEvent[]> {
  const address = diamond(ctx);
  const event = (name: string) => gainsEventsAbi.find((e) => e.type === "event" && e.name === name) as never;
  const operator = getAddress(ctx.operator);
  const [executed, canceled, closeCanceled, returned, callbackTimeouts, limits, decreases, leverage] = await Promise.all([
    getLogsChunked(ctx.publicClient, { address, event: event("MarketExecuted"), args: { user: operator }, ...range }),
    getLogsChunked(ctx.publicClient, { address, event: event("MarketOpenCanceled"), args: { trader: operator }, ...range }),
    getLogsChunked(ctx.publicClient, { address, event: event("MarketCloseCanceled"), args: { trader: operator }, ...range }),
    getLogsChunked(ctx.publicClient, { address, event: event("CollateralReturnedAfterTimeout"), args: { trader: operator }, ...range }),
    getLogsChunked(ctx.publicClient, { address, event: event("ChainlinkCallbackTimeout"), ...range }),
    getLogsChunked(ctx.publicClient, { address, event: event("LimitExecuted"), args: { user: operator }, ...range }),
    getLogsChunked(ctx.publicClient, { address, event: event("PositionSizeDecreaseExecuted"), args: { trader: operator }, ...range }),
    getLogsChunked(ctx.publicClient, { address, event: event("LeverageUpdateExecuted"), args: { trader: operator }, ...range }),
  ]);
  // A timeout that returned collateral is read from its CollateralReturnedAfterTimeout; the bare callback timeout
  // (a close, which holds none) from ChainlinkCallbackTimeout; other traders' timeouts are left out.
  type TimeoutLog = { transactionHash: Hex; args: { pendingOrderId: { user: Address; index: number } } };
  const idOf = (l: TimeoutLog) => l.args.pendingOrderId;
  const withCollateral = new Set((returned as unknown as TimeoutLog[]).map((l) => `${l.transactionHash}:${idOf(l).index}`));
  const closeTimeouts = (callbackTimeouts as unknown as TimeoutLog[]).filter(
    (l) => getAddress(idOf(l).user) === operator && !withCollateral.has(`${l.transactionHash}:${idOf(l).index}`),
  );
  const out: VenueEvent[] = [];
  for (const at of venueLogsInChainOrder(executed, canceled, closeCanceled, returned, closeTimeouts, limits, decreases, leverage)) {
    if (at.name === "MarketOpenCanceled") {
      const orderId = BigInt((at.args.orderId as { index: number }).index);
      const reason = `open order canceled by gTrade: ${cancelReasonName(Number(at.args.cancelReason))}`;
      out.push({ ...at, kind: "open-canceled", orderId, reason, returned: at.args.collateralReturned as bigint });
      continue;
    }
    if (at.name === "MarketCloseCanceled") {
      const orderId = BigInt((at.args.orderId as { index: number }).index);
      out.push({ ...at, kind: "close-canceled", orderId, reason: `close order canceled by gTrade: ${cancelReasonName(Number(at.args.cancelReason))}` });
      continue;
    }
    if (at.name === "CollateralReturnedAfterTimeout" || at.name === "ChainlinkCallbackTimeout") {
      const index = Number((at.args.pendingOrderId as { index: number }).index);
      const orderId = BigInt(index);
      const reason = "order cancelled after gTrade's timeout (getMarketOrdersTimeoutBlocks) unfilled";
      const order = await pendingOrderAt(ctx, index, at.blockNumber - 1n);
      const type = order ? Number(order.orderType) : at.name === "ChainlinkCallbackTimeout" ? GainsOrderType.MARKET_CLOSE : GainsOrderType.MARKET_OPEN;
      const returned = at.name === "CollateralReturnedAfterTimeout" ? (at.args.collateralAmount as bigint) : undefined;
      if (type === GainsOrderType.MARKET_OPEN) out.push({ ...at, kind: "open-canceled", orderId, reason, returned });
      else if (type === GainsOrderType.UPDATE_LEVERAGE) {
        out.push({
          ...at,
          kind: "margin-executed",
          orderId,
          pairIndex: Number(order!.trade.pairIndex),
          index: Number(order!.trade.index),
          canceled: true,
          reason,
        });
      } else if (type === GainsOrderType.MARKET_CLOSE || type === GainsOrderType.MARKET_PARTIAL_CLOSE)
        out.push({ ...at, kind: "close-canceled", orderId, reason });
      // An increase timed out: the engine sends none (its collateral came back to the wallet unbooked).
      continue;
    }
    if (at.name === "PositionSizeDecreaseExecuted") {
      const orderId = BigInt((at.args.orderId as { index: number }).index);
      const cancelReason = Number(at.args.cancelReason);
      if (cancelReason !== GainsCancelReason.NONE) {
        out.push({ ...at, kind: "close-canceled", orderId, reason: `reduce order canceled by gTrade: ${cancelReasonName(cancelReason)}` });
        continue;
      }
      const values = at.args.values as { collateralSentToTrader: bigint; newCollateralAmount: bigint };
      const sent = values.collateralSentToTrader > 0n ? values.collateralSentToTrader : 0n;
      out.push({ ...at, kind: "close-executed", orderId, usdcSent: sent, remainingCollateral: values.newCollateralAmount });
      continue;
    }
    if (at.name === "LeverageUpdateExecuted") {
      const orderId = BigInt((at.args.orderId as { index: number }).index);
      const slot = { pairIndex: Number(at.args.pairIndex), index: Number(at.args.index) };
      const cancelReason = Number(at.args.cancelReason);
      if (cancelReason !== GainsCancelReason.NONE) {
        const reason = `margin update canceled by gTrade: ${cancelReasonName(cancelReason)}`;
        out.push({ ...at, kind: "margin-executed", orderId, ...slot, canceled: true, reason });
        continue;
      }
      const values = at.args.values as { newCollateralAmount: bigint; newLeverage: bigint };
      out.push({
        ...at,
        kind: "margin-executed",
        orderId,
        ...slot,
        canceled: false,
        added: at.args.collateralDelta as bigint,
        collateral: values.newCollateralAmount,
        leverage: fromGainsLeverage(values.newLeverage),
      });
      continue;
    }
    const t = at.args.t as GainsTrade;
    if (at.name === "MarketExecuted") {
      const orderId = BigInt((at.args.orderId as { index: number }).index);
      if (at.args.open) {
        out.push({ ...at, kind: "open-executed", orderId, trade: fromGainsTrade(t, at.blockNumber) });
      } else {
        const trade = fromGainsTrade(t, await openedAt(ctx, t.index, at.blockNumber));
        out.push({ ...at, kind: "close-executed", orderId, trade, usdcSent: at.args.amountSentToTrader as bigint });
      }
    } else {
      out.push({
        ...at,
        kind: "limit-executed",
        trade: fromGainsTrade(t, await openedAt(ctx, t.index, at.blockNumber)),
        liquidation: Number(at.args.orderType) === GainsOrderType.LIQ_CLOSE,
        usdcSent: at.args.amountSentToTrader as bigint,
      });
    }
  }
  return out;
}

const ORDER_KINDS: Record<number, TimedOutOrder["kind"]> = {
  [GainsOrderType.MARKET_OPEN]: "open",
  [GainsOrderType.MARKET_CLOSE]: "close",
  [GainsOrderType.MARKET_PARTIAL_CLOSE]: "close",
  [GainsOrderType.UPDATE_LEVERAGE]: "margin",
  [GainsOrderType.MARKET_PARTIAL_OPEN]: "increase",
};

/** The operator's market orders unanswered for `getMarketOrdersTimeoutBlocks()` blocks: `cancelOrderAfterTimeout` accepts them now. */
async function timedOutOrders(ctx: EngineContext): Promise<TimedOutOrder[]> {
  const [orders, timeoutBlocks, head] = await Promise.all([
    read<PendingOrder[]>(ctx, "getPendingOrders", [ctx.operator]),
    read<number>(ctx, "getMarketOrdersTimeoutBlocks"),
    ctx.publicClient.getBlockNumber({ cacheTime: 0 }),
  ]);
  const out: TimedOutOrder[] = [];
  for (const o of orders) {
    const kind = ORDER_KINDS[Number(o.orderType)];
    // The diamond accepts the cancel in a block at or past createdBlock + timeout; the head itself must be there, so
    // the send's simulation (against the latest block) passes too.
    if (!kind || head < BigInt(o.createdBlock) + BigInt(timeoutBlocks)) continue;
    out.push({ orderId: BigInt(o.index), kind, pairIndex: Number(o.trade.pairIndex), index: Number(o.trade.index), createdBlock: BigInt(o.createdBlock) });
  }
  return out;
}

/**
 * Each trade marked at `price` with gTrade v10's maths: the value a full close would send (PnL, less the closing fee
 * on at least the pair's minimum position size and the trading fees already realized, plus realized PnL;
 * `getTradeFeesData`), and the diamond's own `getTradeLiquidationPrice` for the trade's liquidation parameters at
 * that price (holding fees included, as the diamond counts them at that price). The holding fees (borrowing and
 * funding) pending on the trade are the diamond's own `getTradePendingHoldingFeesCollateral` at that price.
 */
async function markTrades(ctx: EngineContext, trades: MarkInput[], price: bigint): Promise<TradeMark[]> {
  if (!trades.length) return [];
  const pairs = [...new Set(trades.map((t) => t.pairIndex))];
  const collateralPriceUsd = await read<bigint>(ctx, "getCollateralPriceUsd", [GAINS_USDC_COLLATERAL_INDEX]);
  const fees = new Map<number, { feeP: bigint; minSize: bigint }>();
  for (const pair of pairs) {
    const [feeP, minSizeUsd] = await Promise.all([
      read<bigint>(ctx, "pairTotalPositionSizeFeeP", [BigInt(pair)]),
      read<bigint>(ctx, "pairMinPositionSizeUsd", [BigInt(pair)]),
    ]);
    // USD 1e18 to USDC (6 decimals) at the collateral's USD price (1e8).
    fees.set(pair, { feeP, minSize: (minSizeUsd * GAINS_COLLATERAL_PRICE_PRECISION) / collateralPriceUsd / 10n ** 12n });
  }
  return Promise.all(
    trades.map(async (t) => {
      const [data, liqParams, holding] = await Promise.all([
        read<{ realizedTradingFeesCollateral: bigint; realizedPnlCollateral: bigint }>(ctx, "getTradeFeesData", [ctx.operator, t.index]),
        read<Record<string, unknown>>(ctx, "getTradeLiquidationParams", [ctx.operator, t.index]),
        read<{ totalFeeCollateral: bigint }>(ctx, "getTradePendingHoldingFeesCollateral", [ctx.operator, t.index, price]),
      ]);
      const leverage = toGainsLeverage(t.leverage);
      const fee = fees.get(t.pairIndex)!;
      const closingFee = gainsPositionFee((t.collateral * BigInt(leverage)) / GAINS_LEVERAGE_PRECISION, fee.feeP, fee.minSize);
      const charges = gainsCloseCharges({
        closingFee,
        realizedTradingFees: data.realizedTradingFeesCollateral,
        realizedPnl: data.realizedPnlCollateral,
        holdingFees: holding.totalFeeCollateral,
      });
      const value = gainsCloseValue({ collateral: t.collateral, pct: percentProfit(t.openPrice, price, t.side, fromGainsLeverage(leverage)), charges });
      const liquidationPrice = await read<bigint>(ctx, "getTradeLiquidationPrice", [
        gainsLiquidationPriceInput({
          trader: ctx.operator,
          pairIndex: t.pairIndex,
          index: t.index,
          openPrice: t.openPrice,
          long: t.side === "long",
          collateral: t.collateral,
          leverage: BigInt(leverage),
          price,
          liquidationParams: liqParams,
        }),
      ]);
      return { value, liquidationPrice, charges };
    }),
  );
}

/** A call to the diamond (gTrade takes no ETH with any order). */
const call = (ctx: EngineContext, data: Hex): VenueCall => ({ to: diamond(ctx), data, value: 0n });

export const gainsV10: PerpsVenue = {
  id: "gains-v10",
  support: PERPS_VENUES["gains-v10"],
  collateralSpender: (ctx) => diamond(ctx),
  async open(ctx, p) {
    const [price, minFeeUsd, collateralPriceUsd] = await Promise.all([
      readPairPrice(ctx, p.pairIndex),
      read<bigint>(ctx, "pairMinFeeUsd", [BigInt(p.pairIndex)]),
      read<bigint>(ctx, "getCollateralPriceUsd", [GAINS_USDC_COLLATERAL_INDEX]),
    ]);
    const min = gainsMinCollateral(minFeeUsd, collateralPriceUsd);
    if (p.collateral < min) {
      throw new GainsVenueError(`collateral ${p.collateral} is below gTrade's minimum of ${min} (5 × the pair's minimum fee)`, { code: "UNPROCESSABLE" });
    }
    return call(ctx, encodeGainsOpen({ trader: ctx.operator, pairIndex: p.pairIndex, collateral: p.collateral, price, side: p.side, leverage: p.leverage }));
  },
  async increase(ctx, p) {
    return call(ctx, encodeGainsIncrease({ index: p.index, collateral: p.collateral, leverage: p.leverage, price: await readPairPrice(ctx, p.pairIndex) }));
  },
  async updateMargin(ctx, p) {
    const t = await readTrade(ctx, p.index);
    const newLeverage = gainsMarginLeverage({ collateral: t.collateralAmount, leverage: t.leverage, amount: p.amount });
    if (newLeverage >= t.leverage) {
      throw new GainsVenueError(`a margin of ${p.amount} does not lower trade ${p.index}'s leverage of ${t.leverage} (1e3) by gTrade's step`, {
        code: "UNPROCESSABLE",
      });
    }
    return call(ctx, encodeFunctionData({ abi: gainsTradingAbi, functionName: "updateLeverage", args: [p.index, newLeverage] }));
  },
  async close(ctx, p) {
    // A trade no longer open (liquidated) still gets its close, which gTrade refuses (NoTrade): the event sync settles it.
    const [t, price] = await Promise.all([read<GainsTrade>(ctx, "getTrade", [ctx.operator, p.index]), readPairPrice(ctx, p.pairIndex)]);
    return call(ctx, encodeGainsClose({ index: p.index, amount: p.amount, collateral: t.isOpen ? t.collateralAmount : 0n, price }));
  },
  orderIdOf: gainsOrderIdOf,
  /** A leverage update is two-step: the receipt carries only its order, not the trade after it. */
  marginUpdateOf: () => undefined,
  twoStepMargin: true,
  readPairLimits,
  freeTradeSlots,
  readOperatorTrades,
  readPairPrice,
  readEvents,
  pairFeed: (pairIndex) => GAINS_PAIR_FEEDS[pairIndex],
  timedOutOrders,
  cancelAfterTimeout: (ctx, orderId) => gainsCancelAfterTimeout(ctx, Number(orderId)),
  markTrades,
};

/** The operator's pending orders on the diamond (pending-order index, type, block), and the blocks after which each may be cancelled. */
export async function gainsPendingOrders(
  ctx: EngineContext,
): Promise<{ timeoutBlocks: number; orders: { index: number; orderType: number; createdBlock: number }[] }> {
  const [orders, timeoutBlocks] = await Promise.all([
    read<{ index: number; orderType: number; createdBlock: number }[]>(ctx, "getPendingOrders", [ctx.operator]),
    read<number>(ctx, "getMarketOrdersTimeoutBlocks"),
  ]);
  return { timeoutBlocks, orders: orders.map((o) => ({ index: o.index, orderType: o.orderType, createdBlock: o.createdBlock })) };
}

/** `cancelOrderAfterTimeout(pendingIndex)`: reclaims an order the oracle never answered. */
export function gainsCancelAfterTimeout(ctx: EngineContext, pendingIndex: number): VenueCall {
  return call(ctx, encodeFunctionData({ abi: gainsTradingAbi, functionName: "cancelOrderAfterTimeout", args: [pendingIndex] }));
}
