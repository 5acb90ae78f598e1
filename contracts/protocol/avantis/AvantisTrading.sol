// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

import {AvantisTradingStorage} from "./AvantisTradingStorage.sol";
import {IAvantis} from "./IAvantis.sol";

/// @title AvantisTrading
/// @notice Devnet mirror of the Avantis v1 perpetuals entry point (Trading, Base
///         `0x44914408af82bC9983bbb330e3578E1105e11d4e`) that also plays TradingCallbacks: it emits
///         `MarketExecuted` / `LimitExecuted` / `MarketOpenCanceled` itself, so on the devnet the callbacks address
///         (`AvantisTradingStorage.callbacks()`) is this contract. Selectors and events are the v1 ABI:
///         `openTrade` 0x19cde9a1, `closeTradeMarket` 0x2c3cbce4, `updateMargin` 0xcd90b8a4,
///         `executeMarketOrders(uint256[],bytes[])`, `executeLimitOrder(uint8,address,uint256,uint256,bytes[])`.
///
///         Market orders are two-step as in production: `openTrade` / `closeTradeMarket` store a pending order and
///         emit `MarketOrderInitiated`; a keeper (anyone, on the devnet) calls `executeMarketOrders`, which prices
///         the order from the pair's feed and emits `MarketExecuted` (or `MarketOpenCanceled` when the price moved
///         past the slippage bound). TP, SL and liquidation are executed by anyone through `executeLimitOrder`.
///
///         Economics: opening fee `openFeeP` (0.08%) of the notional, taken from the collateral (none for the
///         zero-fee type 3); `percentProfit = ±(price - openPrice) / openPrice * leverage` in 1e10 percent (shorts
///         negated), floored at -100%; a close pays `collateral * (100% + percentProfit)`; liquidation when the loss
///         reaches `LIQ_THRESHOLD_P` (90%) of the collateral, paying nothing. TP/SL execute at the trigger price.
///
/// @dev Simplifications: market types 0 (MARKET) and 3 (MARKET_ZERO_FEE) only, no limit orders, no PnL fee on
///      zero-fee trades, no spreads, price impact, rollover, funding, loss protection, referral, delegation or
///      pausing; `priceUpdateData` and `msg.value` (the execution fee) are accepted and ignored / kept.
///      Event conventions (production does not document them; chosen here and relied on by the indexer):
///      - open: `MarketExecuted(orderId, t, true, price, notional, 0, 0, isPnl)` with `t` as registered
///        (`initialPosToken` = net collateral, `positionSizeUSDC` = 0, `index` = slot, `openPrice` = fill price)
///        and `notional = initialPosToken * leverage / 1e10`.
///      - close: `MarketExecuted(orderId, t, false, price, closedCollateral * leverage / 1e10, percentProfit,
///        usdcSentToTrader, isPnl)` with `t` the trade as it was before the close; a partial close leaves the trade
///        in its slot with `initialPosToken` reduced by the closed collateral.
///      - TP/SL/LIQ: `LimitExecuted(orderId, index, t, orderType, price, notional, percentProfit, usdcSentToTrader,
///        isPnl)`, `t` as before the close, `orderId` a fresh id, `limitIndex` the trade's slot.
contract AvantisTrading is IAvantis, Ownable, ReentrancyGuard {
    uint256 internal constant PRECISION = 1e10;
    uint256 internal constant HUNDRED_PERCENT = 100 * PRECISION;

    /// @notice Loss, in percent of collateral, at which a trade may be liquidated.
    uint256 public constant LIQ_THRESHOLD_P = 90;
    /// @notice After a margin withdrawal the loss must stay below this percent of the remaining collateral.
    uint256 public constant WITHDRAW_THRESHOLD_P = 80;

    uint8 internal constant MARKET = 0;
    uint8 internal constant MARKET_ZERO_FEE = 3;
    uint8 internal constant TP = 0;
    uint8 internal constant SL = 1;
    uint8 internal constant LIQ = 2;

    AvantisTradingStorage public immutable storageT;
    /// @notice Last order id handed out (market orders, margin updates and limit executions share the sequence).
    uint256 public currentOrderId;

    constructor(address owner_, address storage_) Ownable(owner_) {
        storageT = AvantisTradingStorage(storage_);
    }

    // ---------------------------------------------------------------- trader entry points

    /// @notice Request a market open. Collateral is `t.positionSizeUSDC` (USDC 1e6, approved to the storage
    ///         contract); `t.openPrice` is the expected price, checked against `_slippageP` at execution.
    function openTrade(Trade calldata t, uint8 _type, uint256 _slippageP)
        external
        payable
        nonReentrant
        returns (uint256 orderId)
    {
        require(_type == MARKET || _type == MARKET_ZERO_FEE, "ORDER_TYPE_NOT_SUPPORTED");
        bool isPnl = _type == MARKET_ZERO_FEE;
        Trade memory pending = t;
        pending.trader = msg.sender;
        pending.index = 0;
        pending.initialPosToken = 0;
        pending.timestamp = block.timestamp;
        _validateOpen(pending, isPnl);

        storageT.transferUSDC(msg.sender, address(storageT), pending.positionSizeUSDC);
        orderId = ++currentOrderId;
        storageT.storePendingMarketOrder(
            PendingMarketOrder({trade: pending, block: block.number, wantedPrice: t.openPrice, slippageP: _slippageP}),
            orderId,
            true,
            isPnl
        );
        emit MarketOrderInitiated(
            msg.sender, t.pairIndex, true, orderId, block.timestamp, t.buy, isPnl, t.positionSizeUSDC, t.leverage
        );
    }

    function _validateOpen(Trade memory t, bool isPnl) internal view {
        AvantisTradingStorage s = storageT;
        require(t.pairIndex < s.pairsCount(), "PAIR_NOT_LISTED");
        require(t.positionSizeUSDC > 0, "ZERO_COLLATERAL");
        require(
            t.leverage >= s.pairMinLeverage(t.pairIndex, isPnl) && t.leverage <= s.pairMaxLeverage(t.pairIndex, isPnl),
            "LEVERAGE_INCORRECT"
        );
        require(t.positionSizeUSDC * t.leverage / PRECISION >= s.pairMinLevPosUSDC(t.pairIndex), "BELOW_MIN_POS");
        require(
            s.openTradesCount(t.trader, t.pairIndex) + s.pendingMarketOpenCount(t.trader, t.pairIndex)
                < s.maxTradesPerPair(),
            "MAX_TRADES_PER_PAIR"
        );
        require(s.pendingOrderIdsCount(t.trader) < s.maxPendingMarketOrders(), "MAX_PENDING_ORDERS");
        require(t.tp == 0 || (t.buy ? t.tp > t.openPrice : t.tp < t.openPrice), "WRONG_TP");
        require(t.sl == 0 || (t.buy ? t.sl < t.openPrice : t.sl > t.openPrice), "WRONG_SL");
    }

    /// @notice Request a market close of `_amount` collateral (USDC 1e6) of trade (msg.sender, pair, index);
    ///         `_amount` >= the collateral closes the whole trade. A partial close must leave a position of at
    ///         least the pair's minimum notional.
    function closeTradeMarket(uint256 _pairIndex, uint256 _index, uint256 _amount)
        external
        payable
        nonReentrant
        returns (uint256 orderId)
    {
        AvantisTradingStorage s = storageT;
        address trader = msg.sender;
        Trade memory t = s.openTrades(trader, _pairIndex, _index);
        require(t.leverage > 0, "NO_TRADE");
        require(!s.openTradesInfo(trader, _pairIndex, _index).beingMarketClosed, "ALREADY_BEING_CLOSED");
        require(_amount > 0, "ZERO_AMOUNT");
        require(s.pendingOrderIdsCount(trader) < s.maxPendingMarketOrders(), "MAX_PENDING_ORDERS");
        uint256 amount = _amount >= t.initialPosToken ? t.initialPosToken : _amount;
        if (amount < t.initialPosToken) {
            require(
                (t.initialPosToken - amount) * t.leverage / PRECISION >= s.pairMinLevPosUSDC(_pairIndex),
                "BELOW_MIN_POS"
            );
        }

        bool isPnl = s.openPosType(trader, _pairIndex, _index);
        s.setBeingMarketClosed(trader, _pairIndex, _index, true);
        t.positionSizeUSDC = amount; // a pending close carries the collateral to close here
        orderId = ++currentOrderId;
        s.storePendingMarketOrder(
            PendingMarketOrder({trade: t, block: block.number, wantedPrice: 0, slippageP: 0}), orderId, false, isPnl
        );
        emit MarketOrderInitiated(trader, _pairIndex, false, orderId, block.timestamp, t.buy, isPnl, amount, t.leverage);
    }

    /// @notice Add (`_type` 0) or withdraw (`_type` 1) collateral, applied immediately. The position size is kept,
    ///         so leverage moves: `newLeverage = collateral * leverage / newCollateral`, which must stay within the
    ///         pair's bounds; a withdrawal must also leave the loss below `WITHDRAW_THRESHOLD_P` of the new collateral.
    function updateMargin(uint256 _pairIndex, uint256 _index, uint8 _type, uint256 _amount, bytes[] calldata)
        external
        payable
        nonReentrant
        returns (uint256 orderId)
    {
        require(_type <= 1, "INVALID_UPDATE_TYPE");
        require(_amount > 0, "ZERO_AMOUNT");
        AvantisTradingStorage s = storageT;
        address trader = msg.sender;
        Trade memory t = s.openTrades(trader, _pairIndex, _index);
        require(t.leverage > 0, "NO_TRADE");
        require(!s.openTradesInfo(trader, _pairIndex, _index).beingMarketClosed, "ALREADY_BEING_CLOSED");
        bool isPnl = s.openPosType(trader, _pairIndex, _index);
        uint256 size = t.initialPosToken * t.leverage;
        uint256 price = s.currentPrice(_pairIndex);

        if (_type == 0) {
            t.initialPosToken += _amount;
            t.leverage = size / t.initialPosToken;
            require(t.leverage >= s.pairMinLeverage(_pairIndex, isPnl), "LEVERAGE_INCORRECT");
            s.transferUSDC(trader, address(s), _amount);
        } else {
            require(_amount < t.initialPosToken, "WITHDRAW_TOO_LARGE");
            t.initialPosToken -= _amount;
            t.leverage = size / t.initialPosToken;
            require(t.leverage <= s.pairMaxLeverage(_pairIndex, isPnl), "LEVERAGE_INCORRECT");
            require(
                _percentProfit(t.openPrice, price, t.buy, t.leverage) > -int256(WITHDRAW_THRESHOLD_P * PRECISION),
                "WITHDRAW_THRESHOLD"
            );
            s.transferUSDC(address(s), trader, _amount);
        }
        s.updateTrade(t, price);
        orderId = ++currentOrderId;
        emit MarginUpdated(trader, _pairIndex, _index, _type, t, 0, 0, block.timestamp);
    }

    // ---------------------------------------------------------------- keeper entry points

    /// @notice Execute pending market orders at the feeds' prices (production signature; price data ignored).
    ///         Ids that are no longer pending are skipped.
    function executeMarketOrders(uint256[] calldata orderId, bytes[] calldata) external payable nonReentrant {
        for (uint256 i = 0; i < orderId.length; i++) {
            _executeMarketOrder(orderId[i]);
        }
    }

    /// @notice Same as the production signature without price data.
    function executeMarketOrders(uint256[] calldata orderIds) external nonReentrant {
        for (uint256 i = 0; i < orderIds.length; i++) {
            _executeMarketOrder(orderIds[i]);
        }
    }

    /// @notice Close a trade by take-profit (0), stop-loss (1) or liquidation (2) when its condition holds at the
    ///         feed price (production signature; price data ignored). Anyone may call.
    function executeLimitOrder(uint8 _orderType, address _trader, uint256 _pairIndex, uint256 _index, bytes[] calldata)
        external
        payable
        nonReentrant
    {
        _executeLimitOrder(_orderType, _trader, _pairIndex, _index);
    }

    /// @notice Same as the production signature without price data.
    function executeLimitOrder(uint8 _orderType, address _trader, uint256 _pairIndex, uint256 _index)
        external
        nonReentrant
    {
        _executeLimitOrder(_orderType, _trader, _pairIndex, _index);
    }

    // ---------------------------------------------------------------- views (devnet additions)

    /// @notice Price at which the trade becomes liquidatable (0 for an empty slot), 1e10.
    function liquidationPrice(address trader, uint256 pairIndex, uint256 index) external view returns (uint256) {
        Trade memory t = storageT.openTrades(trader, pairIndex, index);
        if (t.leverage == 0) return 0;
        uint256 move = t.openPrice * LIQ_THRESHOLD_P * PRECISION / (100 * t.leverage);
        if (t.buy) return move >= t.openPrice ? 0 : t.openPrice - move;
        return t.openPrice + move;
    }

    /// @notice Mark-to-feed value of a trade: percent profit (1e10 percent), PnL in USDC (1e6, signed), the USDC a
    ///         full market close would pay now, and the feed price (1e10).
    function unrealizedPnl(address trader, uint256 pairIndex, uint256 index)
        external
        view
        returns (int256 percentProfit, int256 pnlUSDC, uint256 closeValueUSDC, uint256 price)
    {
        Trade memory t = storageT.openTrades(trader, pairIndex, index);
        if (t.leverage == 0) return (0, 0, 0, 0);
        price = storageT.currentPrice(pairIndex);
        percentProfit = _percentProfit(t.openPrice, price, t.buy, t.leverage);
        closeValueUSDC = _closeValue(t.initialPosToken, percentProfit);
        pnlUSDC = int256(closeValueUSDC) - int256(t.initialPosToken);
    }

    // ---------------------------------------------------------------- owner

    /// @notice Send the collected execution fees (ETH sent with orders) to `to`.
    function withdrawExecutionFees(address payable to) external onlyOwner {
        (bool ok,) = to.call{value: address(this).balance}("");
        require(ok, "ETH_TRANSFER_FAILED");
    }

    // ---------------------------------------------------------------- internals

    function _executeMarketOrder(uint256 id) internal {
        (bool pending, bool open, bool isPnl) = storageT.pendingOrderKind(id);
        if (!pending) return;
        PendingMarketOrder memory order = storageT.reqIDpendingMarketOrder(id);
        storageT.unregisterPendingMarketOrder(id, open);
        if (open) _executeOpen(id, order, isPnl);
        else _executeClose(id, order.trade, isPnl);
    }

    function _executeOpen(uint256 id, PendingMarketOrder memory order, bool isPnl) internal {
        AvantisTradingStorage s = storageT;
        Trade memory t = order.trade;
        uint256 price = s.currentPrice(t.pairIndex);
        if (
            !_withinSlippage(price, order.wantedPrice, order.slippageP, t.buy)
                || s.openTradesCount(t.trader, t.pairIndex) >= s.maxTradesPerPair()
        ) {
            s.transferUSDC(address(s), t.trader, t.positionSizeUSDC);
            emit MarketOpenCanceled(id, t.trader, t.pairIndex);
            return;
        }

        uint256 collateral = t.positionSizeUSDC;
        uint256 fee = isPnl ? 0 : collateral * t.leverage / PRECISION * s.openFeeP() / HUNDRED_PERCENT;
        if (fee > 0) s.chargeFee(t.trader, t.pairIndex, t.buy, fee);
        t.initialPosToken = collateral - fee;
        t.positionSizeUSDC = 0;
        t.index = s.firstEmptyTradeIndex(t.trader, t.pairIndex);
        t.openPrice = price;
        t.timestamp = block.timestamp;
        uint256 notional = t.initialPosToken * t.leverage / PRECISION;
        s.storeTrade(
            t,
            TradeInfo({
                openInterestUSDC: notional,
                tpLastUpdated: block.number,
                slLastUpdated: block.number,
                beingMarketClosed: false,
                lossProtection: 0
            }),
            isPnl,
            price
        );
        emit MarketExecuted(id, t, true, price, notional, 0, 0, isPnl);
    }

    function _executeClose(uint256 id, Trade memory request, bool isPnl) internal {
        AvantisTradingStorage s = storageT;
        Trade memory t = s.openTrades(request.trader, request.pairIndex, request.index);
        // The trade was liquidated / stopped out (and maybe the slot reused) since the request: nothing to close.
        if (t.leverage == 0 || t.timestamp != request.timestamp || t.openPrice != request.openPrice) return;

        uint256 price = s.currentPrice(t.pairIndex);
        uint256 amount = request.positionSizeUSDC >= t.initialPosToken ? t.initialPosToken : request.positionSizeUSDC;
        int256 percentProfit = _percentProfit(t.openPrice, price, t.buy, t.leverage);
        uint256 sent = _closeValue(amount, percentProfit);

        if (amount == t.initialPosToken) {
            s.unregisterTrade(t.trader, t.pairIndex, t.index, price);
        } else {
            t.initialPosToken -= amount;
            s.updateTrade(t, price);
            t.initialPosToken += amount; // the event reports the trade as it was before the close
        }
        s.transferUSDC(address(s), t.trader, sent);
        emit MarketExecuted(id, t, false, price, amount * t.leverage / PRECISION, percentProfit, sent, isPnl);
    }

    function _executeLimitOrder(uint8 orderType, address trader, uint256 pairIndex, uint256 index) internal {
        require(orderType <= LIQ, "ORDER_TYPE_NOT_SUPPORTED");
        AvantisTradingStorage s = storageT;
        Trade memory t = s.openTrades(trader, pairIndex, index);
        require(t.leverage > 0, "NO_TRADE");
        uint256 price = s.currentPrice(pairIndex);

        if (orderType == TP) {
            require(t.tp > 0 && (t.buy ? price >= t.tp : price <= t.tp), "TP_NOT_HIT");
            price = t.tp;
        } else if (orderType == SL) {
            require(t.sl > 0 && (t.buy ? price <= t.sl : price >= t.sl), "SL_NOT_HIT");
            price = t.sl;
        }
        int256 percentProfit = _percentProfit(t.openPrice, price, t.buy, t.leverage);
        uint256 sent;
        if (orderType == LIQ) {
            require(percentProfit <= -int256(LIQ_THRESHOLD_P * PRECISION), "NOT_LIQUIDATABLE");
        } else {
            require(!s.openTradesInfo(trader, pairIndex, index).beingMarketClosed, "ALREADY_BEING_CLOSED");
            sent = _closeValue(t.initialPosToken, percentProfit);
        }

        bool isPnl = s.openPosType(trader, pairIndex, index);
        s.unregisterTrade(trader, pairIndex, index, price);
        s.transferUSDC(address(s), trader, sent);
        _emitLimitExecuted(index, t, orderType, price, percentProfit, sent, isPnl);
    }

    function _emitLimitExecuted(
        uint256 index,
        Trade memory t,
        uint8 orderType,
        uint256 price,
        int256 percentProfit,
        uint256 sent,
        bool isPnl
    ) internal {
        uint256 orderId = ++currentOrderId;
        emit LimitExecuted(
            orderId,
            index,
            t,
            orderType,
            price,
            t.initialPosToken * t.leverage / PRECISION,
            percentProfit,
            sent,
            isPnl
        );
    }

    /// @dev (price - openPrice) / openPrice * leverage, in 1e10 percent (100% = 100e10), negated for shorts,
    ///      floored at -100%.
    function _percentProfit(uint256 openPrice, uint256 price, bool buy, uint256 leverage)
        internal
        pure
        returns (int256 p)
    {
        if (openPrice == 0) return 0;
        int256 diff = buy ? int256(price) - int256(openPrice) : int256(openPrice) - int256(price);
        p = diff * 100 * int256(leverage) / int256(openPrice);
        if (p < -int256(HUNDRED_PERCENT)) p = -int256(HUNDRED_PERCENT);
    }

    /// @dev collateral * (100% + percentProfit), never negative.
    function _closeValue(uint256 collateral, int256 percentProfit) internal pure returns (uint256) {
        return collateral * uint256(int256(HUNDRED_PERCENT) + percentProfit) / HUNDRED_PERCENT;
    }

    function _withinSlippage(uint256 price, uint256 wantedPrice, uint256 slippageP, bool buy)
        internal
        pure
        returns (bool)
    {
        if (wantedPrice == 0) return true;
        if (buy) return price <= wantedPrice * (HUNDRED_PERCENT + slippageP) / HUNDRED_PERCENT;
        if (slippageP >= HUNDRED_PERCENT) return true;
        return price >= wantedPrice * (HUNDRED_PERCENT - slippageP) / HUNDRED_PERCENT;
    }
}
