/**
 * What a perps venue adapter implements (`PerpsVenue`) and the shapes it speaks in: the calls
 * it builds, the trades it reads, the events it decodes. venue.ts picks the adapter.
 */
import type { Address, Hex, TransactionReceipt } from "viem";
import type { Side } from "../../common/perps-math.js";
import type { PerpsVenueId, PerpsVenueSupport } from "../../common/perps-venues.js";
import type { EngineContext } from "../../core/context.js";
import type { PairLimits } from "../decisions/desk-entry.js";

/** One call to the exchange, ready for the intent pipeline. */
export type VenueCall = { to: Address; data: Hex; value: bigint };

/** An open trade on the exchange, in the engine's terms (prices and leverage at 1e10). */
export type OnchainTrade = {
  trader: Address;
  pairIndex: number;
  index: number;
  collateral: bigint;
  openPrice: bigint;
  side: Side;
  leverage: bigint;
  timestamp: bigint;
};

/** A trade's slot on the exchange. */
export type TradeSlot = { pairIndex: number; index: number };

/** Where a log sits, and its raw arguments (kept with the applied event). */
export type VenueLog = { name: string; blockNumber: bigint; blockHash: Hex; logIndex: number; transactionHash: Hex; args: Record<string, unknown> };

/** An exchange event of the operator, decoded. */
export type VenueEvent = VenueLog &
  (
    | { kind: "open-executed"; orderId: bigint; trade: OnchainTrade }
    | {
        kind: "close-executed";
        orderId: bigint;
        trade?: OnchainTrade;
        usdcSent: bigint;
        /** A partial close's collateral left on the trade, where the venue reports it (a loss may take more than the closed part). */
        remainingCollateral?: bigint;
      }
    /** `returned`: the USDC the exchange sent back, where the venue reports it (gTrade keeps a fee on a refused open). */
    | { kind: "open-canceled"; orderId: bigint; reason: string; returned?: bigint }
    /** A close (or reduce) the exchange refused or its trader cancelled after the timeout: the trade stays open as it was. */
    | { kind: "close-canceled"; orderId: bigint; reason: string }
    /**
     * A two-step margin top-up answered (gains-v10's leverage update): executed, with the trade's new collateral and
     * leverage, or refused / timed out (`canceled`), its margin back to the trader.
     */
    | {
        kind: "margin-executed";
        orderId: bigint;
        pairIndex: number;
        index: number;
        canceled: false;
        /** The margin the exchange pulled (it may round below the top-up), the trade's collateral and leverage after it. */
        added: bigint;
        collateral: bigint;
        leverage: bigint;
      }
    | { kind: "margin-executed"; orderId: bigint; pairIndex: number; index: number; canceled: true; reason: string }
    | { kind: "limit-executed"; trade: OnchainTrade; liquidation: boolean; usdcSent: bigint }
  );

/** An order of the operator still waiting for the exchange's fill, past the venue's timeout. */
export type TimedOutOrder = { orderId: bigint; kind: "open" | "close" | "margin" | "increase"; pairIndex: number; index: number; createdBlock: bigint };

/**
 * What a trade is worth closed now, and where it is liquidated, by the venue's own maths (USDC base units, prices 1e10).
 * `charges` is what the close deducts from the collateral and its PnL besides that PnL (gTrade: the closing fee, the
 * trading fees already realized and the pending holding fees, less PnL already realized; none on Avantis v1), so the
 * value at another price is max(collateral + PnL there − charges, 0) until the charges move.
 */
export type TradeMark = { value: bigint; liquidationPrice: bigint; charges: bigint };

/** An open desk trade as the venue marks it. */
export type MarkInput = TradeSlot & { side: Side; leverage: bigint; collateral: bigint; openPrice: bigint };

export interface PerpsVenue {
  readonly id: PerpsVenueId;
  /** The protocol, version and chains this adapter speaks to. */
  readonly support: PerpsVenueSupport;
  /** The contract the operator approves its USDC collateral to. */
  collateralSpender(ctx: EngineContext): Address;
  /** A market order opening a trade of `collateral` USDC. */
  open(ctx: EngineContext, p: { pairIndex: number; collateral: bigint; side: Side; leverage: bigint }): Promise<VenueCall>;
  /**
   * A call growing an open trade's size, or undefined where the venue has none (Avantis v1:
   * a desk grows by another trade or a margin top-up).
   */
  increase(ctx: EngineContext, p: TradeSlot & { collateral: bigint; leverage: bigint }): Promise<VenueCall> | undefined;
  /** Adds `amount` USDC of margin to an open trade (a venue may read the trade or a price to build it). */
  updateMargin(ctx: EngineContext, p: TradeSlot & { amount: bigint }): Promise<VenueCall>;
  /** A market order closing `amount` of a trade's collateral (all of it closes the trade); a venue may read the trade or a price to build it. */
  close(ctx: EngineContext, p: TradeSlot & { amount: bigint }): Promise<VenueCall>;
  /** The order id of a mined open or close, from its receipt. */
  orderIdOf(receipt: TransactionReceipt): bigint | undefined;
  /**
   * The trade after a mined margin update, from its receipt; undefined where the update is two-step (gains-v10:
   * its fill comes later as a `margin-executed` event, and the top-up stays pending until then).
   */
  marginUpdateOf(receipt: TransactionReceipt): OnchainTrade | undefined;
  /** Whether a margin update is an order filled later (a `margin-executed` event) rather than applied in its own transaction. */
  readonly twoStepMargin: boolean;
  readPairLimits(ctx: EngineContext, pairIndex: number): Promise<PairLimits>;
  /** How many more trades the operator may hold on a pair (open and pending opens count). */
  freeTradeSlots(ctx: EngineContext, pairIndex: number): Promise<number>;
  /** Every open trade of the operator on the exchange. */
  readOperatorTrades(ctx: EngineContext): Promise<OnchainTrade[]>;
  /** The pair's mark price at 1e10. */
  readPairPrice(ctx: EngineContext, pairIndex: number): Promise<bigint>;
  /** The operator's executions and cancellations in a block range, decoded, in chain order. */
  readEvents(ctx: EngineContext, range: { fromBlock: bigint; toBlock: bigint }): Promise<VenueEvent[]>;
  /** The price feed (config.priceFeeds name) the venue marks a pair with: the pair's price window is sampled from it. */
  pairFeed(pairIndex: number): string | undefined;
  /**
   * The operator's orders still pending past the venue's timeout, which their trader may cancel now (gains-v10:
   * `getPendingOrders` older than `getMarketOrdersTimeoutBlocks()`). Avantis v1: none; it has no cancel after a
   * timeout the engine sends (its own keeper cancels), so it answers an empty list.
   */
  timedOutOrders(ctx: EngineContext): Promise<TimedOutOrder[]>;
  /**
   * The call cancelling a timed-out order (gains-v10: `cancelOrderAfterTimeout(pendingIndex)`, whose collateral comes
   * back as `CollateralReturnedAfterTimeout`). Avantis v1: undefined, not supported.
   */
  cancelAfterTimeout(ctx: EngineContext, orderId: bigint): VenueCall | undefined;
  /**
   * What each open trade is worth closed at `price` and its liquidation price, by the venue's maths: Avantis v1
   * from its PnL and 90% threshold (common/perps-math.ts); gains-v10 with gTrade's fees (closing fee on at least the
   * pair's minimum size, realized trading fees and PnL) and the diamond's `getTradeLiquidationPrice`.
   */
  markTrades(ctx: EngineContext, trades: MarkInput[], price: bigint): Promise<TradeMark[]>;
}
