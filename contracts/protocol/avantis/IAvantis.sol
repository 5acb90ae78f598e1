// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IAvantis
/// @notice Structs and events of Avantis v1 on Base (Avantis-Labs/avantis_trader_sdk vendored v1 ABIs: Trading,
///         TradingStorage, TradingCallbacks), laid out exactly so selectors and topics match production.
/// @dev Units: USDC amounts 1e6; prices, tp, sl, leverage and percentages 1e10 (10x = 10e10, 1% = 1e10).
interface IAvantis {
    struct Trade {
        address trader;
        uint256 pairIndex;
        uint256 index;
        uint256 initialPosToken;
        uint256 positionSizeUSDC;
        uint256 openPrice;
        bool buy;
        uint256 leverage;
        uint256 tp;
        uint256 sl;
        uint256 timestamp;
    }

    struct TradeInfo {
        uint256 openInterestUSDC;
        uint256 tpLastUpdated;
        uint256 slLastUpdated;
        bool beingMarketClosed;
        uint256 lossProtection;
    }

    struct PendingMarketOrder {
        Trade trade;
        uint256 block;
        uint256 wantedPrice;
        uint256 slippageP;
    }

    // Trading
    event MarketOrderInitiated(
        address indexed trader,
        uint256 pairIndex,
        bool open,
        uint256 orderId,
        uint256 timestamp,
        bool isBuy,
        bool isPnl,
        uint256 initialPosToken,
        uint256 leverage
    );
    event MarginUpdated(
        address indexed trader,
        uint256 pairIndex,
        uint256 index,
        uint8 _type,
        Trade newTrade,
        uint256 marginFees,
        uint256 lossProtectionTier,
        uint256 timestamp
    );

    // TradingCallbacks
    event MarketExecuted(
        uint256 orderId,
        Trade t,
        bool open,
        uint256 price,
        uint256 positionSizeUSDC,
        int256 percentProfit,
        uint256 usdcSentToTrader,
        bool isPnl
    );
    event LimitExecuted(
        uint256 orderId,
        uint256 limitIndex,
        Trade t,
        uint8 orderType,
        uint256 price,
        uint256 positionSizeUSDC,
        int256 percentProfit,
        uint256 usdcSentToTrader,
        bool isPnl
    );
    event MarketOpenCanceled(uint256 orderId, address indexed trader, uint256 pairIndex);

    // TradingStorage
    event OIUpdated(bool _open, bool _long, uint256 _pairIndex, uint256 _leveragedPos, uint256 _price);
    event FeesCharged(address _trader, uint256 _pairIndex, bool _buy, uint256 fee);
}
