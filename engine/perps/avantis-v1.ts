/**
 * The `avantis-v1` perps venue (Avantis v1 ABI, reference/protocols.md §4): calldata of the
 * operator's orders, pair limits, the operator's open trades, and the events that settle
 * them. It declares the devnet only (common/perps-venues.ts): Base runs Avantis v2, whose
 * calls and event topics differ, so this calldata must never reach it.
 */
import { type Address, type Hex, type TransactionReceipt, encodeFunctionData, getAddress, parseEventLogs } from "viem";
import { aggregatorV3Abi } from "../../common/abis/engine.js";
import { LimitOrder, PAIR_FEEDS, PERPS_PRECISION, OrderType, perpsCallbacksAbi, perpsStorageAbi, perpsTradingAbi } from "../../common/abis/perps.js";
import { PERPS_VENUES } from "../../common/perps-venues.js";
import type { EngineContext } from "../../core/context.js";
import type { PairLimits } from "../decisions/desk-entry.js";
import { type Side, closeValue, liquidationPrice, percentProfit, toPerpsPrice } from "../../common/perps-math.js";
import { getLogsChunked } from "../chain/logs.js";
import type { OnchainTrade, PerpsVenue, VenueEvent } from "./types.js";
import { venueLogsInChainOrder } from "./logs.js";

/** Slippage accepted on a market open (1e10 percent): 1%. */
export const OPEN_SLIPPAGE_P = 1n * PERPS_PRECISION;
/** Execution fee sent with each order (the devnet keeper charges none). */
export function executionFee(isDevnet: boolean): bigint {
  return isDevnet ? 0n : 350_000_000_000_000n;
}

type RawTrade = {
  trader: Address;
  pairIndex: bigint;
  index: bigint;
  initialPosToken: bigint;
  positionSizeUSDC: bigint;
  openPrice: bigint;
  buy: boolean;
  leverage: bigint;
  tp: bigint;
  sl: bigint;
  timestamp: bigint;
};

function fromRawTrade(t: RawTrade): OnchainTrade {
  return {
    trader: getAddress(t.trader),
    pairIndex: Number(t.pairIndex),
    index: Number(t.index),
    collateral: t.initialPosToken,
    openPrice: t.openPrice,
    side: t.buy ? "long" : "short",
    leverage: t.leverage,
    timestamp: t.timestamp,
  };
}

function encodeOpenTrade(p: { trader: Address; pairIndex: number; collateral: bigint; price: bigint; side: Side; leverage: bigint }): Hex {
  return encodeFunctionData({
    abi: perpsTradingAbi,
    functionName: "openTrade",
    args: [
      {
        trader: p.trader,
        pairIndex: BigInt(p.pairIndex),
        index: 0n,
        initialPosToken: 0n,
        positionSizeUSDC: p.collateral,
        openPrice: p.price,
        buy: p.side === "long",
        leverage: p.leverage,
        tp: 0n,
        sl: 0n,
        timestamp: 0n,
      },
      OrderType.MARKET,
      OPEN_SLIPPAGE_P,
    ],
  });
}

function encodeCloseTrade(p: { pairIndex: number; index: number; amount: bigint }): Hex {
  return encodeFunctionData({ abi: perpsTradingAbi, functionName: "closeTradeMarket", args: [BigInt(p.pairIndex), BigInt(p.index), p.amount] });
}

function encodeTopUp(p: { pairIndex: number; index: number; amount: bigint }): Hex {
  return encodeFunctionData({ abi: perpsTradingAbi, functionName: "updateMargin", args: [BigInt(p.pairIndex), BigInt(p.index), 0, p.amount, []] });
}

/** The order id the exchange gave the operator's order, from its receipt. */
function orderIdOf(receipt: TransactionReceipt): bigint | undefined {
  const [initiated] = parseEventLogs({ abi: perpsTradingAbi, eventName: "MarketOrderInitiated", logs: receipt.logs });
  return initiated?.args.orderId;
}

/** The trade after a margin update, from its receipt. */
function marginUpdateOf(receipt: TransactionReceipt): OnchainTrade | undefined {
  const [updated] = parseEventLogs({ abi: perpsTradingAbi, eventName: "MarginUpdated", logs: receipt.logs });
  return updated ? fromRawTrade(updated.args.newTrade as RawTrade) : undefined;
}

async function readPairLimits(ctx: EngineContext, pairIndex: number): Promise<PairLimits> {
  const storage = ctx.contract("perpsStorage");
  const read = (functionName: "pairMinLevPosUSDC" | "pairMinLeverage" | "pairMaxLeverage", args: readonly unknown[]) =>
    ctx.publicClient.readContract({ address: storage, abi: perpsStorageAbi, functionName, args } as never) as Promise<bigint>;
  const [minLevPosUsdc, minLeverage, maxLeverage] = await Promise.all([
    read("pairMinLevPosUSDC", [BigInt(pairIndex)]),
    read("pairMinLeverage", [BigInt(pairIndex), false]),
    read("pairMaxLeverage", [BigInt(pairIndex), false]),
  ]);
  return { minLevPosUsdc, minLeverage, maxLeverage };
}

/** How many more trades the operator may hold on a pair (open + pending opens count). */
async function freeTradeSlots(ctx: EngineContext, pairIndex: number): Promise<number> {
  const storage = ctx.contract("perpsStorage");
  const [max, open, pending] = await Promise.all([
    ctx.publicClient.readContract({ address: storage, abi: perpsStorageAbi, functionName: "maxTradesPerPair" }),
    ctx.publicClient.readContract({ address: storage, abi: perpsStorageAbi, functionName: "openTradesCount", args: [ctx.operator, BigInt(pairIndex)] }),
    ctx.publicClient.readContract({ address: storage, abi: perpsStorageAbi, functionName: "pendingMarketOpenCount", args: [ctx.operator, BigInt(pairIndex)] }),
  ]);
  return Math.max(0, Number(max - open - pending));
}

/** Every open trade of the operator on the exchange (slots may have holes, so scan each pair until its count is found). */
async function readOperatorTrades(ctx: EngineContext): Promise<OnchainTrade[]> {
  const storage = ctx.contract("perpsStorage");
  const [pairs, max] = await Promise.all([
    ctx.publicClient.readContract({ address: storage, abi: perpsStorageAbi, functionName: "pairsCount" }),
    ctx.publicClient.readContract({ address: storage, abi: perpsStorageAbi, functionName: "maxTradesPerPair" }),
  ]);
  const trades: OnchainTrade[] = [];
  for (let pair = 0n; pair < pairs; pair++) {
    const count = await ctx.publicClient.readContract({ address: storage, abi: perpsStorageAbi, functionName: "openTradesCount", args: [ctx.operator, pair] });
    let found = 0n;
    for (let index = 0n; index < max && found < count; index++) {
      const t = (await ctx.publicClient.readContract({
        address: storage,
        abi: perpsStorageAbi,
        functionName: "openTrades",
        args: [ctx.operator, pair, index],
      })) as RawTrade;
      if (t.leverage === 0n) continue;
      found++;
      trades.push(fromRawTrade(t));
    }
  }
  return trades;
}

/** The pair's mark price at 1e10, from its feed. */
async function readPairPrice(ctx: EngineContext, pairIndex: number): Promise<bigint> {
  const feed = ctx.config.priceFeeds[PAIR_FEEDS[pairIndex] ?? ""];
  if (!feed) throw new Error(`no price feed configured for perps pair ${pairIndex}`);
  const [decimals, round] = await Promise.all([
    ctx.publicClient.readContract({ address: feed, abi: aggregatorV3Abi, functionName: "decimals" }),
    ctx.publicClient.readContract({ address: feed, abi: aggregatorV3Abi, functionName: "latestRoundData" }),
  ]);
  return toPerpsPrice(round[1], decimals);
}

/**
 * The operator's `MarketExecuted` (opens and closes), `LimitExecuted` (take-profit, stop-loss,
 * liquidation) and `MarketOpenCanceled` logs in a range, decoded, in chain order. Other
 * traders' executions are left out.
 */
async function readEvents(ctx: EngineContext, range: { fromBlock: bigint; toBlock: bigint }): Promise<VenueEvent[]> {
  const addresses = [...new Set([ctx.contract("perpsCallbacks"), ctx.contract("perpsTrading"), ctx.contract("perpsStorage")])];
  const event = (name: string) => [...perpsCallbacksAbi, ...perpsTradingAbi].find((e) => e.type === "event" && e.name === name) as never;
  const [executed, limits, canceled] = await Promise.all([
    getLogsChunked(ctx.publicClient, { address: addresses, event: event("MarketExecuted"), ...range }),
    getLogsChunked(ctx.publicClient, { address: addresses, event: event("LimitExecuted"), ...range }),
    getLogsChunked(ctx.publicClient, { address: addresses, event: event("MarketOpenCanceled"), args: { trader: ctx.operator }, ...range }),
  ]);
  const operator = getAddress(ctx.operator);
  const out: VenueEvent[] = [];
  for (const at of venueLogsInChainOrder(executed, limits, canceled)) {
    if (at.name === "MarketOpenCanceled") {
      out.push({
        ...at,
        kind: "open-canceled",
        orderId: BigInt(at.args.orderId as bigint),
        reason: "open order canceled (price moved past the slippage bound)",
      });
      continue;
    }
    const trade = fromRawTrade(at.args.t as RawTrade);
    if (trade.trader !== operator) continue;
    if (at.name === "MarketExecuted") {
      const orderId = BigInt(at.args.orderId as bigint);
      out.push(
        at.args.open
          ? { ...at, kind: "open-executed", orderId, trade }
          : { ...at, kind: "close-executed", orderId, trade, usdcSent: at.args.usdcSentToTrader as bigint },
      );
    } else {
      out.push({
        ...at,
        kind: "limit-executed",
        trade,
        liquidation: Number(at.args.orderType) === LimitOrder.LIQ,
        usdcSent: at.args.usdcSentToTrader as bigint,
      });
    }
  }
  return out;
}

export const avantisV1: PerpsVenue = {
  id: "avantis-v1",
  support: PERPS_VENUES["avantis-v1"],
  collateralSpender: (ctx) => ctx.contract("perpsStorage"),
  async open(ctx, p) {
    const price = await readPairPrice(ctx, p.pairIndex);
    const data = encodeOpenTrade({ trader: ctx.operator, pairIndex: p.pairIndex, collateral: p.collateral, price, side: p.side, leverage: p.leverage });
    return { to: ctx.contract("perpsTrading"), data, value: executionFee(ctx.config.isDevnet) };
  },
  increase: () => undefined,
  updateMargin: async (ctx, p) => ({ to: ctx.contract("perpsTrading"), data: encodeTopUp(p), value: executionFee(ctx.config.isDevnet) }),
  close: async (ctx, p) => ({ to: ctx.contract("perpsTrading"), data: encodeCloseTrade(p), value: executionFee(ctx.config.isDevnet) }),
  orderIdOf,
  marginUpdateOf,
  twoStepMargin: false,
  readPairLimits,
  freeTradeSlots,
  readOperatorTrades,
  readPairPrice,
  readEvents,
  pairFeed: (pairIndex) => PAIR_FEEDS[pairIndex],
  /** Avantis v1's own keeper cancels orders it never executes: the engine sends no cancel after a timeout. */
  timedOutOrders: async () => [],
  /** Not supported by Avantis v1 (no trader cancel after a timeout). */
  cancelAfterTimeout: () => undefined,
  /** Avantis v1's PnL, floored at −100%, and its 90% liquidation threshold (no fee charged on close). */
  markTrades: async (_ctx, trades, price) =>
    trades.map((t) => ({
      value: closeValue(t.collateral, percentProfit(t.openPrice, price, t.side, t.leverage)),
      liquidationPrice: liquidationPrice(t.openPrice, t.side, t.leverage),
      charges: 0n,
    })),
};
