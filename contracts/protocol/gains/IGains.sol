// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IGains
/// @notice The types, events and errors of the Gains Network gTrade v10 diamond (`GNSMultiCollatDiamond`) that the
///         devnet twin answers with: the layouts of common/abis/gains.ts, which test/contracts/gains-abi-conformance
///         holds to the ABI gTrade publishes. Units: leverage 1e3, prices 1e10, collateral in USDC's 6 decimals,
///         `…FeeP` and `percentProfit` percent at 1e10, `maxSlippageP` percent at 1e3, `collateralPriceUsd` 1e8.
interface IGains {
    struct Id {
        address user;
        uint32 index;
    }

    struct Trade {
        address user;
        uint32 index;
        uint16 pairIndex;
        uint24 leverage;
        bool long;
        bool isOpen;
        uint8 collateralIndex;
        uint8 tradeType;
        uint120 collateralAmount;
        uint64 openPrice;
        uint64 tp;
        uint64 sl;
        bool isCounterTrade;
        uint160 positionSizeToken;
        uint24 __placeholder;
    }

    struct TradeInfo {
        uint32 createdBlock;
        uint32 tpLastUpdatedBlock;
        uint32 slLastUpdatedBlock;
        uint16 maxSlippageP;
        uint48 lastOiUpdateTs;
        uint48 collateralPriceUsd;
        uint8 contractsVersion;
        uint32 lastPosIncreaseBlock;
        uint8 __placeholder;
    }

    struct TradeFeesData {
        uint128 realizedTradingFeesCollateral;
        int128 realizedPnlCollateral;
        uint128 manuallyRealizedNegativePnlCollateral;
        uint128 alreadyTransferredNegativePnlCollateral;
        uint128 virtualAvailableCollateralInDiamond;
        uint128 __placeholder;
        int128 initialAccFundingFeeP;
        uint128 initialAccBorrowingFeeP;
    }

    /// @notice A trade's holding fees not yet realized (v10): funding (either sign) and borrowing, in collateral.
    struct TradeHoldingFees {
        int256 fundingFeeCollateral;
        uint256 borrowingFeeCollateral;
        uint256 borrowingFeeCollateral_old;
        int256 totalFeeCollateral;
    }

    struct GroupLiquidationParams {
        uint40 maxLiqSpreadP;
        uint40 startLiqThresholdP;
        uint40 endLiqThresholdP;
        uint24 startLeverage;
        uint24 endLeverage;
    }

    struct LiqPriceInput {
        uint8 collateralIndex;
        address trader;
        uint16 pairIndex;
        uint32 index;
        uint64 openPrice;
        bool long;
        uint256 collateral;
        uint256 leverage;
        int256 additionalFeeCollateral;
        GroupLiquidationParams liquidationParams;
        uint64 currentPairPrice;
        bool isCounterTrade;
        uint256 partialCloseMultiplier;
        bool beforeOpened;
    }

    struct PendingOrder {
        Trade trade;
        address user;
        uint32 index;
        bool isOpen;
        uint8 orderType;
        uint32 createdBlock;
        uint16 maxSlippageP;
    }

    struct Counter {
        uint32 currentIndex;
        uint32 openCount;
        uint192 __placeholder;
    }

    struct Feed {
        address feed1;
        address feed2;
        uint8 feedCalculation;
        uint256 maxDeviationP;
    }

    struct Pair {
        string from;
        string to;
        Feed feed;
        uint256 spreadP;
        uint256 groupIndex;
        uint256 feeIndex;
    }

    struct Collateral {
        address collateral;
        bool isActive;
        uint88 __placeholder;
        uint128 precision;
        uint128 precisionDelta;
    }

    struct TradePriceImpact {
        uint256 positionSizeToken;
        int256 fixedSpreadP;
        int256 cumulVolPriceImpactP;
        int256 skewPriceImpactP;
        int256 totalPriceImpactP;
        uint64 priceAfterImpact;
    }

    struct IncreasePositionSizeValues {
        uint256 positionSizeCollateralDelta;
        uint256 existingPositionSizeCollateral;
        uint256 newPositionSizeCollateral;
        uint256 newCollateralAmount;
        uint256 newLeverage;
        TradePriceImpact priceImpact;
        int256 existingPnlCollateral;
        uint256 oldPosSizePlusPnlCollateral;
        uint256 newOpenPrice;
        uint256 openingFeesCollateral;
        uint256 existingLiqPrice;
        uint256 newLiqPrice;
        bool isCounterTradeValidated;
        uint256 exceedingPositionSizeCollateral;
        uint256 counterTradeCollateralToReturn;
        uint256 newEffectiveLeverage;
    }

    struct DecreasePositionSizeValues {
        bool isLeverageUpdate;
        uint256 positionSizeCollateralDelta;
        uint256 existingPositionSizeCollateral;
        uint256 existingLiqPrice;
        uint256 newLiqPrice;
        TradePriceImpact priceImpact;
        int256 existingPnlPercent;
        int256 partialRawPnlCollateral;
        int256 partialNetPnlCollateral;
        int256 pnlToRealizeCollateral;
        uint256 closingFeeCollateral;
        uint256 totalAvailableCollateralInDiamond;
        int256 availableCollateralInDiamond;
        int256 collateralSentToTrader;
        uint120 newCollateralAmount;
        uint24 newLeverage;
    }

    struct UpdateLeverageValues {
        uint256 newLeverage;
        uint256 newCollateralAmount;
        uint256 existingLiqPrice;
        uint256 newLiqPrice;
        uint256 govFeeCollateral;
        uint256 newEffectiveLeverage;
        uint256 totalTradeAvailableCollateralInDiamond;
        uint256 availableCollateralInDiamond;
    }

    event MarketOrderInitiated(Id orderId, address indexed trader, uint16 indexed pairIndex, bool open);
    event MarketExecuted(
        Id orderId,
        address indexed user,
        uint32 indexed index,
        Trade t,
        bool open,
        uint256 oraclePrice,
        uint256 marketPrice,
        uint256 liqPrice,
        TradePriceImpact priceImpact,
        int256 percentProfit,
        uint256 amountSentToTrader,
        uint256 collateralPriceUsd
    );
    event MarketOpenCanceled(
        Id orderId, address indexed trader, uint256 indexed pairIndex, uint8 cancelReason, uint256 collateralReturned
    );
    event MarketCloseCanceled(
        Id orderId, address indexed trader, uint256 indexed pairIndex, uint256 indexed index, uint8 cancelReason
    );
    event LimitExecuted(
        Id orderId,
        address indexed user,
        uint32 indexed index,
        uint32 indexed limitIndex,
        Trade t,
        address triggerCaller,
        uint8 orderType,
        uint256 oraclePrice,
        uint256 marketPrice,
        uint256 liqPrice,
        TradePriceImpact priceImpact,
        int256 percentProfit,
        uint256 amountSentToTrader,
        uint256 collateralPriceUsd,
        bool exactExecution
    );
    event PositionSizeUpdateInitiated(
        Id orderId,
        address indexed trader,
        uint256 indexed pairIndex,
        uint256 indexed index,
        bool isIncrease,
        uint256 collateralDelta,
        uint256 leverageDelta
    );
    event PositionSizeIncreaseExecuted(
        Id orderId,
        uint8 cancelReason,
        uint8 indexed collateralIndex,
        address indexed trader,
        uint256 pairIndex,
        uint256 indexed index,
        bool long,
        uint256 oraclePrice,
        uint256 collateralPriceUsd,
        uint256 collateralDelta,
        uint256 leverageDelta,
        IncreasePositionSizeValues values
    );
    event PositionSizeDecreaseExecuted(
        Id orderId,
        uint8 cancelReason,
        uint8 indexed collateralIndex,
        address indexed trader,
        uint256 pairIndex,
        uint256 indexed index,
        bool long,
        uint256 oraclePrice,
        uint256 collateralPriceUsd,
        uint256 collateralDelta,
        uint256 leverageDelta,
        DecreasePositionSizeValues values
    );
    event LeverageUpdateInitiated(
        Id orderId,
        address indexed trader,
        uint256 indexed pairIndex,
        uint256 indexed index,
        bool isIncrease,
        uint256 newLeverage
    );
    event LeverageUpdateExecuted(
        Id orderId,
        bool isIncrease,
        uint8 cancelReason,
        uint8 indexed collateralIndex,
        address indexed trader,
        uint256 pairIndex,
        uint256 indexed index,
        uint256 oraclePrice,
        uint256 collateralDelta,
        UpdateLeverageValues values
    );
    event ChainlinkCallbackTimeout(Id pendingOrderId, uint256 indexed pairIndex);
    event CollateralReturnedAfterTimeout(
        Id pendingOrderId, uint8 indexed collateralIndex, address indexed trader, uint256 collateralAmount
    );
    event TradingActivatedUpdated(uint8 activated);

    error Paused();
    error PairNotListed();
    error CollateralNotActive();
    error WrongTradeType();
    error WrongLeverage();
    error InsufficientCollateral();
    error WrongParams();
    error WrongTp();
    error WrongSl();
    error ZeroValue();
    error NoTrade();
    error NoOrder();
    error NotYourOrder();
    error WaitTimeout();
    error AlreadyBeingMarketClosed();
    error ConflictingPendingOrder(uint8);
    error InvalidIncreasePositionSizeInput();
    error InvalidDecreasePositionSizeInput();
    error WrongOrderType();
    error NotAuthorized();
}
