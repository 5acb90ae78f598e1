/** Avantis v1 ABIs (reference/protocols.md §4), the subset the indexer and engine use. */
import { parseAbi } from "viem";

const TRADE =
  "struct Trade { address trader; uint256 pairIndex; uint256 index; uint256 initialPosToken; uint256 positionSizeUSDC; uint256 openPrice; bool buy; uint256 leverage; uint256 tp; uint256 sl; uint256 timestamp; }";

export const perpsTradingAbi = parseAbi([
  TRADE,
  "function openTrade(Trade t, uint8 _type, uint256 _slippageP) payable returns (uint256 orderId)",
  "function closeTradeMarket(uint256 _pairIndex, uint256 _index, uint256 _amount) payable returns (uint256 orderId)",
  "function updateMargin(uint256 _pairIndex, uint256 _index, uint8 _type, uint256 _amount, bytes[] priceUpdateData) payable returns (uint256 orderId)",
  "event MarketOrderInitiated(address indexed trader, uint256 pairIndex, bool open, uint256 orderId, uint256 timestamp, bool isBuy, bool isPnl, uint256 initialPosToken, uint256 leverage)",
  "event MarginUpdated(address indexed trader, uint256 pairIndex, uint256 index, uint8 _type, Trade newTrade, uint256 marginFees, uint256 lossProtectionTier, uint256 timestamp)",
  "event MarketOpenCanceled(uint256 orderId, address indexed trader, uint256 pairIndex)",
]);

/** Events of TradingCallbacks (on the devnet the trading contract emits them). */
export const perpsCallbacksAbi = parseAbi([
  TRADE,
  "event MarketExecuted(uint256 orderId, Trade t, bool open, uint256 price, uint256 positionSizeUSDC, int256 percentProfit, uint256 usdcSentToTrader, bool isPnl)",
  "event LimitExecuted(uint256 orderId, uint256 limitIndex, Trade t, uint8 orderType, uint256 price, uint256 positionSizeUSDC, int256 percentProfit, uint256 usdcSentToTrader, bool isPnl)",
]);

export const perpsStorageAbi = parseAbi([
  TRADE,
  "function openTrades(address trader, uint256 pairIndex, uint256 index) view returns (Trade)",
  "function openTradesCount(address trader, uint256 pairIndex) view returns (uint256)",
  "function maxTradesPerPair() view returns (uint256)",
  "function pairsCount() view returns (uint256)",
  "function pairMinLevPosUSDC(uint256 pairIndex) view returns (uint256)",
  "function pairMinLeverage(uint256 pairIndex, bool isPnl) view returns (uint256)",
  "function pairMaxLeverage(uint256 pairIndex, bool isPnl) view returns (uint256)",
  "function pendingMarketOpenCount(address trader, uint256 pairIndex) view returns (uint256)",
  "function callbacks() view returns (address)",
]);

/** 1e10: Avantis precision of prices, leverage and percentages. */
export const PERPS_PRECISION = 10_000_000_000n;
export const LimitOrder = { TP: 0, SL: 1, LIQ: 2, OPEN: 3 } as const;
export const OrderType = { MARKET: 0, MARKET_ZERO_FEE: 3 } as const;

/**
 * Price feed of each pair (Avantis lists ETH/USD as pair 0 and BTC/USD as pair 1; the devnet
 * adds the secondary asset as pair 2). The desks mark their trades with these feeds.
 */
export const PAIR_FEEDS: Record<number, string> = { 0: "ETH_USD", 1: "BTC_USD", 2: "ASSET_USD" };
