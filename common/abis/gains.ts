/**
 * Gains Network gTrade v10 (the `GNSMultiCollatDiamond`), the subset the `gains-v10` venue, the
 * devnet's twin of the diamond and the index use: trader calls, views and events, with gTrade's
 * canonical signatures, `indexed` flags and tuple layouts (`MarketExecuted` carries 30 data words,
 * `LimitExecuted` 32). test/contracts/gains-abi-conformance.test.ts holds every selector and topic0
 * here to the ABI gTrade publishes.
 *
 * Units: leverage 1e3 (5x = 5000), prices 1e10, collateral in the collateral's decimals (USDC 6),
 * fee percentages 1e10 percent, slippage 1e3 percent (1000 = 1%), `collateralPriceUsd` 1e8,
 * pair USD amounts (`pairMinFeeUsd`, `pairMinPositionSizeUsd`) 1e18.
 */
import { type Address, parseAbi } from "viem";

const STRUCTS = [
  "struct Id { address user; uint32 index; }",
  "struct Trade { address user; uint32 index; uint16 pairIndex; uint24 leverage; bool long; bool isOpen; uint8 collateralIndex; uint8 tradeType; uint120 collateralAmount; uint64 openPrice; uint64 tp; uint64 sl; bool isCounterTrade; uint160 positionSizeToken; uint24 __placeholder; }",
  "struct TradeInfo { uint32 createdBlock; uint32 tpLastUpdatedBlock; uint32 slLastUpdatedBlock; uint16 maxSlippageP; uint48 lastOiUpdateTs; uint48 collateralPriceUsd; uint8 contractsVersion; uint32 lastPosIncreaseBlock; uint8 __placeholder; }",
  "struct TradeFeesData { uint128 realizedTradingFeesCollateral; int128 realizedPnlCollateral; uint128 manuallyRealizedNegativePnlCollateral; uint128 alreadyTransferredNegativePnlCollateral; uint128 virtualAvailableCollateralInDiamond; uint128 __placeholder; int128 initialAccFundingFeeP; uint128 initialAccBorrowingFeeP; }",
  "struct TradeHoldingFees { int256 fundingFeeCollateral; uint256 borrowingFeeCollateral; uint256 borrowingFeeCollateral_old; int256 totalFeeCollateral; }",
  "struct GroupLiquidationParams { uint40 maxLiqSpreadP; uint40 startLiqThresholdP; uint40 endLiqThresholdP; uint24 startLeverage; uint24 endLeverage; }",
  "struct LiqPriceInput { uint8 collateralIndex; address trader; uint16 pairIndex; uint32 index; uint64 openPrice; bool long; uint256 collateral; uint256 leverage; int256 additionalFeeCollateral; GroupLiquidationParams liquidationParams; uint64 currentPairPrice; bool isCounterTrade; uint256 partialCloseMultiplier; bool beforeOpened; }",
  "struct PendingOrder { Trade trade; address user; uint32 index; bool isOpen; uint8 orderType; uint32 createdBlock; uint16 maxSlippageP; }",
  "struct Counter { uint32 currentIndex; uint32 openCount; uint192 __placeholder; }",
  "struct Feed { address feed1; address feed2; uint8 feedCalculation; uint256 maxDeviationP; }",
  "struct Pair { string from; string to; Feed feed; uint256 spreadP; uint256 groupIndex; uint256 feeIndex; }",
  "struct Collateral { address collateral; bool isActive; uint88 __placeholder; uint128 precision; uint128 precisionDelta; }",
  "struct TradePriceImpact { uint256 positionSizeToken; int256 fixedSpreadP; int256 cumulVolPriceImpactP; int256 skewPriceImpactP; int256 totalPriceImpactP; uint64 priceAfterImpact; }",
  "struct IncreasePositionSizeValues { uint256 positionSizeCollateralDelta; uint256 existingPositionSizeCollateral; uint256 newPositionSizeCollateral; uint256 newCollateralAmount; uint256 newLeverage; TradePriceImpact priceImpact; int256 existingPnlCollateral; uint256 oldPosSizePlusPnlCollateral; uint256 newOpenPrice; uint256 openingFeesCollateral; uint256 existingLiqPrice; uint256 newLiqPrice; bool isCounterTradeValidated; uint256 exceedingPositionSizeCollateral; uint256 counterTradeCollateralToReturn; uint256 newEffectiveLeverage; }",
  "struct DecreasePositionSizeValues { bool isLeverageUpdate; uint256 positionSizeCollateralDelta; uint256 existingPositionSizeCollateral; uint256 existingLiqPrice; uint256 newLiqPrice; TradePriceImpact priceImpact; int256 existingPnlPercent; int256 partialRawPnlCollateral; int256 partialNetPnlCollateral; int256 pnlToRealizeCollateral; uint256 closingFeeCollateral; uint256 totalAvailableCollateralInDiamond; int256 availableCollateralInDiamond; int256 collateralSentToTrader; uint120 newCollateralAmount; uint24 newLeverage; }",
  "struct UpdateLeverageValues { uint256 newLeverage; uint256 newCollateralAmount; uint256 existingLiqPrice; uint256 newLiqPrice; uint256 govFeeCollateral; uint256 newEffectiveLeverage; uint256 totalTradeAvailableCollateralInDiamond; uint256 availableCollateralInDiamond; }",
] as const;

/** The trader's writes (all nonpayable: gTrade takes no execution fee in ETH). */
export const gainsTradingAbi = parseAbi([
  ...STRUCTS,
  "function openTrade(Trade _trade, uint16 _maxSlippageP, address _referrer)",
  "function closeTradeMarket(uint32 _index, uint64 _expectedPrice)",
  "function increasePositionSize(uint32 _index, uint120 _collateralDelta, uint24 _leverageDelta, uint64 _expectedPrice, uint16 _maxSlippageP)",
  "function decreasePositionSize(uint32 _index, uint120 _collateralDelta, uint24 _leverageDelta, uint64 _expectedPrice)",
  "function updateLeverage(uint32 _index, uint24 _newLeverage)",
  "function cancelOrderAfterTimeout(uint32 _orderIndex)",
  /** Keepers: `_packed` = orderType (8 bits) | trader << 8 | index << 168. */
  "function triggerOrder(uint256 _packed)",
]);

/** The diamond's views the venue reads (and the preflight checks). */
export const gainsViewsAbi = parseAbi([
  ...STRUCTS,
  "function getTrade(address _trader, uint32 _index) view returns (Trade)",
  "function getTrades(address _trader) view returns (Trade[])",
  "function getTradeInfo(address _trader, uint32 _index) view returns (TradeInfo)",
  "function getTradeFeesData(address _trader, uint32 _index) view returns (TradeFeesData)",
  "function getTradeLiquidationParams(address _trader, uint32 _index) view returns (GroupLiquidationParams)",
  "function getTradeLiquidationPrice(LiqPriceInput _input) view returns (uint256)",
  "function getTradePendingHoldingFeesCollateral(address _trader, uint32 _index, uint64 _currentPairPrice) view returns (TradeHoldingFees tradeHoldingFees)",
  "function getPendingOrders(address _user) view returns (PendingOrder[])",
  "function getCounters(address _trader, uint8 _type) view returns (Counter)",
  "function pairs(uint256 _index) view returns (Pair)",
  "function pairMinLeverage(uint256 _pairIndex) view returns (uint256)",
  "function pairMaxLeverage(uint256 _pairIndex) view returns (uint256)",
  "function pairMinFeeUsd(uint256 _pairIndex) view returns (uint256)",
  "function pairMinPositionSizeUsd(uint256 _pairIndex) view returns (uint256)",
  "function pairTotalPositionSizeFeeP(uint256 _pairIndex) view returns (uint256)",
  "function getPairMaxOiCollateral(uint8 _collateralIndex, uint16 _pairIndex) view returns (uint256)",
  "function getCollateralIndex(address _collateral) view returns (uint8)",
  "function getCollateral(uint8 _index) view returns (Collateral)",
  "function getCollateralPriceUsd(uint8 _collateralIndex) view returns (uint256)",
  "function getMarketOrdersTimeoutBlocks() view returns (uint16)",
  "function getTradingActivated() view returns (uint8)",
  "function facetAddress(bytes4 _functionSelector) view returns (address facetAddress_)",
]);

/** The diamond's events: the trader's order, the oracle's fill or cancel, a keeper's trigger, a timeout. */
export const gainsEventsAbi = parseAbi([
  ...STRUCTS,
  "event MarketOrderInitiated(Id orderId, address indexed trader, uint16 indexed pairIndex, bool open)",
  "event MarketExecuted(Id orderId, address indexed user, uint32 indexed index, Trade t, bool open, uint256 oraclePrice, uint256 marketPrice, uint256 liqPrice, TradePriceImpact priceImpact, int256 percentProfit, uint256 amountSentToTrader, uint256 collateralPriceUsd)",
  "event MarketOpenCanceled(Id orderId, address indexed trader, uint256 indexed pairIndex, uint8 cancelReason, uint256 collateralReturned)",
  "event MarketCloseCanceled(Id orderId, address indexed trader, uint256 indexed pairIndex, uint256 indexed index, uint8 cancelReason)",
  "event LimitExecuted(Id orderId, address indexed user, uint32 indexed index, uint32 indexed limitIndex, Trade t, address triggerCaller, uint8 orderType, uint256 oraclePrice, uint256 marketPrice, uint256 liqPrice, TradePriceImpact priceImpact, int256 percentProfit, uint256 amountSentToTrader, uint256 collateralPriceUsd, bool exactExecution)",
  "event PositionSizeUpdateInitiated(Id orderId, address indexed trader, uint256 indexed pairIndex, uint256 indexed index, bool isIncrease, uint256 collateralDelta, uint256 leverageDelta)",
  "event PositionSizeIncreaseExecuted(Id orderId, uint8 cancelReason, uint8 indexed collateralIndex, address indexed trader, uint256 pairIndex, uint256 indexed index, bool long, uint256 oraclePrice, uint256 collateralPriceUsd, uint256 collateralDelta, uint256 leverageDelta, IncreasePositionSizeValues values)",
  "event PositionSizeDecreaseExecuted(Id orderId, uint8 cancelReason, uint8 indexed collateralIndex, address indexed trader, uint256 pairIndex, uint256 indexed index, bool long, uint256 oraclePrice, uint256 collateralPriceUsd, uint256 collateralDelta, uint256 leverageDelta, DecreasePositionSizeValues values)",
  "event LeverageUpdateInitiated(Id orderId, address indexed trader, uint256 indexed pairIndex, uint256 indexed index, bool isIncrease, uint256 newLeverage)",
  "event LeverageUpdateExecuted(Id orderId, bool isIncrease, uint8 cancelReason, uint8 indexed collateralIndex, address indexed trader, uint256 pairIndex, uint256 indexed index, uint256 oraclePrice, uint256 collateralDelta, UpdateLeverageValues values)",
  "event ChainlinkCallbackTimeout(Id pendingOrderId, uint256 indexed pairIndex)",
  "event CollateralReturnedAfterTimeout(Id pendingOrderId, uint8 indexed collateralIndex, address indexed trader, uint256 collateralAmount)",
  "event TradingActivatedUpdated(uint8 activated)",
]);

/** The diamond's errors a trader call can revert with, so a refused call is decoded by name. */
export const gainsErrorsAbi = parseAbi([
  "error Paused()",
  "error PairNotListed()",
  "error CollateralNotActive()",
  "error WrongTradeType()",
  "error WrongLeverage()",
  "error InsufficientCollateral()",
  "error PriceImpactTooHigh()",
  "error WrongParams()",
  "error WrongTp()",
  "error WrongSl()",
  "error ZeroValue()",
  "error NoTrade()",
  "error NoOrder()",
  "error WaitTimeout()",
  "error AlreadyBeingMarketClosed()",
  "error ConflictingPendingOrder(uint8)",
  "error InvalidIncreasePositionSizeInput()",
  "error InvalidDecreasePositionSizeInput()",
  "error NewPositionSizeSmaller()",
  "error WrongOrderType()",
]);

export const gainsAbi = [...gainsTradingAbi, ...gainsViewsAbi, ...gainsEventsAbi, ...gainsErrorsAbi] as const;

/** Base's diamond (trading, views and events all live on it) and its USDC collateral index. */
export const GAINS_BASE_DIAMOND = "0x6cD5aC19a07518A8092eEFfDA4f1174C72704eeb" as const;
export const GAINS_USDC_COLLATERAL_INDEX = 1;

/** gTrade's precisions. */
export const GAINS_LEVERAGE_PRECISION = 1_000n;
export const GAINS_PRICE_PRECISION = 10_000_000_000n;
/** `…FeeP` and `percentProfit` are percent at 1e10 (100% = 100e10). */
export const GAINS_PERCENT_PRECISION = 10_000_000_000n;
/** `maxSlippageP` is percent at 1e3 (1000 = 1%). */
export const GAINS_SLIPPAGE_PRECISION = 1_000n;
export const GAINS_COLLATERAL_PRICE_PRECISION = 100_000_000n;
/** Opening collateral must reach this many times the pair's minimum fee (else `InsufficientCollateral`). */
export const GAINS_MIN_COLLATERAL_FEE_MULTIPLE = 5n;

/** gTrade's pair indices: BTC/USD is 0 and ETH/USD 1 (the reverse of Avantis), with the feed that marks each. */
export const GAINS_PAIR_FEEDS: Record<number, string> = { 0: "BTC_USD", 1: "ETH_USD" };

/** `PendingOrderType`. */
export const GainsOrderType = {
  MARKET_OPEN: 0,
  MARKET_CLOSE: 1,
  LIMIT_OPEN: 2,
  STOP_OPEN: 3,
  TP_CLOSE: 4,
  SL_CLOSE: 5,
  LIQ_CLOSE: 6,
  UPDATE_LEVERAGE: 7,
  MARKET_PARTIAL_OPEN: 8,
  MARKET_PARTIAL_CLOSE: 9,
} as const;

/** `CancelReason`. */
export const GainsCancelReason = {
  NONE: 0,
  PAUSED: 1,
  MARKET_CLOSED: 2,
  SLIPPAGE: 3,
  TP_REACHED: 4,
  SL_REACHED: 5,
  EXPOSURE_LIMITS: 6,
  PRICE_IMPACT: 7,
  MAX_LEVERAGE: 8,
  NO_TRADE: 9,
  WRONG_TRADE: 10,
  NOT_HIT: 11,
  LIQ_REACHED: 12,
} as const;

/** `TradingActivated`. */
export const GainsTradingActivated = { ACTIVATED: 0, CLOSE_ONLY: 1, PAUSED: 2 } as const;
/** `CounterType` of `getCounters`. */
export const GainsCounterType = { TRADE: 0, PENDING_ORDER: 1 } as const;
/** `TradeType`. */
export const GainsTradeType = { TRADE: 0, LIMIT: 1, STOP: 2 } as const;

/** gTrade's `Trade` tuple as viem decodes it. */
export type GainsTrade = {
  user: Address;
  index: number;
  pairIndex: number;
  leverage: number;
  long: boolean;
  isOpen: boolean;
  collateralIndex: number;
  tradeType: number;
  collateralAmount: bigint;
  openPrice: bigint;
  tp: bigint;
  sl: bigint;
  isCounterTrade: boolean;
  positionSizeToken: bigint;
  __placeholder: number;
};

/**
 * The `Trade` tuple `openTrade` takes for a market order in USDC: the contract sets `user`'s
 * index itself; no take-profit, stop-loss or counter-trade. Leverage in gTrade's 1e3 units,
 * the price in its 1e10.
 */
export function gainsMarketOpenTrade(p: {
  trader: Address;
  pairIndex: number;
  leverage: number;
  long: boolean;
  collateral: bigint;
  price: bigint;
}): GainsTrade {
  return {
    user: p.trader,
    index: 0,
    pairIndex: p.pairIndex,
    leverage: p.leverage,
    long: p.long,
    isOpen: true,
    collateralIndex: GAINS_USDC_COLLATERAL_INDEX,
    tradeType: GainsTradeType.TRADE,
    collateralAmount: p.collateral,
    openPrice: p.price,
    tp: 0n,
    sl: 0n,
    isCounterTrade: false,
    positionSizeToken: 0n,
    __placeholder: 0,
  };
}

/** gTrade's default liquidation parameters (`getTradeLiquidationParams` of a trade in no group): the 90% threshold, no spread. */
export const GAINS_DEFAULT_LIQUIDATION_PARAMS = { maxLiqSpreadP: 0, startLiqThresholdP: 0, endLiqThresholdP: 0, startLeverage: 0, endLeverage: 0 };

/**
 * The `LiqPriceInput` of `getTradeLiquidationPrice` for an open USDC trade of `trader` at the pair price
 * `price` (1e10): its liquidation parameters as `getTradeLiquidationParams` gives them (default: none),
 * no additional fee, not a counter trade, a `partialCloseMultiplier` of 1 (its scale is not documented;
 * gTrade's SDK passes a plain 1), and the trade's fees as the diamond holds them (`beforeOpened: false`).
 * Leverage in gTrade's 1e3 units.
 */
export function gainsLiquidationPriceInput(p: {
  trader: Address;
  pairIndex: number;
  index: number;
  openPrice: bigint;
  long: boolean;
  collateral: bigint;
  leverage: bigint;
  price: bigint;
  liquidationParams?: Record<string, unknown>;
}) {
  return {
    collateralIndex: GAINS_USDC_COLLATERAL_INDEX,
    trader: p.trader,
    pairIndex: p.pairIndex,
    index: p.index,
    openPrice: p.openPrice,
    long: p.long,
    collateral: p.collateral,
    leverage: p.leverage,
    additionalFeeCollateral: 0n,
    liquidationParams: p.liquidationParams ?? GAINS_DEFAULT_LIQUIDATION_PARAMS,
    currentPairPrice: p.price,
    isCounterTrade: false,
    partialCloseMultiplier: 1n,
    beforeOpened: false,
  };
}

/** `gainsLiquidationPriceInput` of an open trade as the diamond returns it (`getTrade`, `getTrades`), at the pair price `price`. */
export function gainsTradeLiquidationPriceInput(t: GainsTrade, price: bigint, liquidationParams?: Record<string, unknown>) {
  return gainsLiquidationPriceInput({
    trader: t.user,
    pairIndex: t.pairIndex,
    index: t.index,
    openPrice: t.openPrice,
    long: t.long,
    collateral: t.collateralAmount,
    leverage: BigInt(t.leverage),
    price,
    liquidationParams,
  });
}
