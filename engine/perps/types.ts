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
    | { kind: "close-executed"; orderId: bigint; trade: OnchainTrade; usdcSent: bigint }
    | { kind: "open-canceled"; orderId: bigint }
    | { kind: "limit-executed"; trade: OnchainTrade; liquidation: boolean; usdcSent: bigint }
  );

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
  /** The trade after a mined margin update, from its receipt. */
  marginUpdateOf(receipt: TransactionReceipt): OnchainTrade | undefined;
  readPairLimits(ctx: EngineContext, pairIndex: number): Promise<PairLimits>;
  /** How many more trades the operator may hold on a pair (open and pending opens count). */
  freeTradeSlots(ctx: EngineContext, pairIndex: number): Promise<number>;
  /** Every open trade of the operator on the exchange. */
  readOperatorTrades(ctx: EngineContext): Promise<OnchainTrade[]>;
  /** The pair's mark price at 1e10. */
  readPairPrice(ctx: EngineContext, pairIndex: number): Promise<bigint>;
  /** The operator's executions and cancellations in a block range, decoded, in chain order. */
  readEvents(ctx: EngineContext, range: { fromBlock: bigint; toBlock: bigint }): Promise<VenueEvent[]>;
}
