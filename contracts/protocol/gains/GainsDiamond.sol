// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

import {IGains} from "./IGains.sol";

interface IGainsPriceFeed {
    function decimals() external view returns (uint8);
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
}

/// @title GainsDiamond
/// @notice Devnet twin of the Gains Network gTrade v10 diamond (Base `0x6cD5aC19a07518A8092eEFfDA4f1174C72704eeb`):
///         one contract answering the diamond's selectors for the calls, views and events the `gains-v10` venue uses,
///         with gTrade's exact signatures, `indexed` flags and tuple layouts (common/abis/gains.ts). USDC is collateral
///         index 1, as on Base.
///
///         Orders are two-step as in production. The trader's transaction (`openTrade`, `closeTradeMarket`,
///         `increasePositionSize`, `decreasePositionSize`, `updateLeverage`) checks its input, pulls any collateral,
///         stores a pending order and emits `MarketOrderInitiated` / `PositionSizeUpdateInitiated` /
///         `LeverageUpdateInitiated`; its order id is `(trader, pending-order index)`, the pending-order counter
///         (`getCounters(trader, 1)`) running apart from the trade counter (type 0). gTrade's oracle network then
///         answers; here the devnet keeper (anyone) calls `executePendingOrder(trader, index)`, which prices the order
///         at the pair's devnet feed and emits `MarketExecuted`, `MarketOpenCanceled`, `MarketCloseCanceled`,
///         `PositionSizeIncreaseExecuted`, `PositionSizeDecreaseExecuted` or `LeverageUpdateExecuted`. An order left
///         unanswered for `getMarketOrdersTimeoutBlocks()` blocks is cancelled by its trader with
///         `cancelOrderAfterTimeout(pendingIndex)` (`ChainlinkCallbackTimeout`, and for orders holding collateral
///         `CollateralReturnedAfterTimeout` with all of it). Keepers liquidate through `triggerOrder(packed)` with
///         order type 6, `packed = orderType | trader << 8 | index << 168` (`LimitExecuted`).
///
///         Maths (the gTrade SDK's trade/fees/trading, trade/pnl and trade/liquidation):
///         - a trade's fee, on opening and on closing, is `totalPositionSizeFeeP` of `max(positionSize, the pair's
///           minimum position size)`; v10 realizes the opening fee into `TradeFeesData.realizedTradingFeesCollateral`
///           and leaves `collateralAmount` whole;
///         - opening needs `collateral >= 5 × pairMinFeeUsd` (else `InsufficientCollateral`) and a leverage within the
///           pair's bounds (else `WrongLeverage`);
///         - `percentProfit = ±(price − openPrice) / openPrice × 100 × leverage` in 1e10 percent, floored at −100%;
///         - a close sends `collateral + collateral × percentProfit − closingFee − realizedTradingFees +
///           realizedPnl − pending holding fees`, never below zero;
///         - holding fees are borrowing v2's: a pair's accumulator grows by `borrowingRatePerSecondP × seconds ×
///           pairPrice` (1e10 × 1e10 = 1e20 precision, brought up to date at every fill at the fill's price), and a
///           trade owes `positionSize × (accumulator − its initialAccBorrowingFeeP) / openPrice / 1e10 / 100`
///           (`getTradePendingHoldingFeesCollateral`); an increase, decrease or leverage update realizes them into
///           `realizedTradingFeesCollateral`. The rate is 0 unless `devnetSetBorrowingRate` sets one;
///         - the liquidation price is where the loss reaches 90% of the collateral, fees included:
///           `openPrice ∓ openPrice × (collateral × 90% − fees) / collateral / leverage`, fees being the closing fee
///           plus realized trading fees and pending holding fees minus realized PnL; a liquidation sends nothing;
///         - a market open filled outside `expectedPrice ± expectedPrice × maxSlippageP / 1e5` is cancelled with
///           `CancelReason.SLIPPAGE` (3) and returns its collateral minus the pair's minimum fee (gTrade's gov fee
///           for the oracle's cost).
///
/// @dev Simplifications: market orders only (no limit/stop opens, TP or SL triggers), no spread, price impact,
///      funding fees (skew-based: `fundingFeeCollateral` is 0) or counter trades (their fields are zero), a
///      constant borrowing rate per pair (no utilisation curve), no holding-fee events, no referral or fee tiers, the
///      default 90% liquidation threshold (`getTradeLiquidationParams` answers zeros), `partialCloseMultiplier` read
///      as 1; a close, increase or decrease when the trade's liquidation price is reached is cancelled with
///      `LIQ_REACHED` and no fee; cancelled increases charge the pair's minimum fee to the trade's collateral as gTrade
///      does; a leverage update charges no fee. Decreases realize the closed share of the trade's realized trading
///      fees, so a trade closed in parts pays what it would pay closed whole.
contract GainsDiamond is IGains, Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    uint256 internal constant P10 = 1e10;
    uint256 internal constant LEV = 1e3;
    uint256 internal constant HUNDRED_PERCENT = 100 * P10;
    uint256 internal constant COLLATERAL_PRICE_USD = 1e8;
    /// @notice gTrade's `MIN_LEVERAGE`-style floor is per pair here; the liquidation threshold is the default 90%.
    uint256 public constant LIQ_THRESHOLD_P = 90;
    /// @notice Closing slippage when the trade stored none (1%, 1e3 precision).
    uint16 internal constant DEFAULT_CLOSING_SLIPPAGE_P = 1000;

    uint8 public constant USDC_INDEX = 1;
    uint8 internal constant MARKET_OPEN = 0;
    uint8 internal constant MARKET_CLOSE = 1;
    uint8 internal constant LIQ_CLOSE = 6;
    uint8 internal constant UPDATE_LEVERAGE = 7;
    uint8 internal constant MARKET_PARTIAL_OPEN = 8;
    uint8 internal constant MARKET_PARTIAL_CLOSE = 9;

    uint8 internal constant NONE = 0;
    uint8 internal constant SLIPPAGE = 3;
    uint8 internal constant MAX_LEVERAGE = 8;
    uint8 internal constant NO_TRADE = 9;
    uint8 internal constant LIQ_REACHED = 12;

    uint8 internal constant COUNTER_TRADE = 0;
    uint8 internal constant COUNTER_PENDING = 1;

    /// @notice A liquidation was triggered above (long) or below (short) the trade's liquidation price.
    error NotLiquidatable();

    struct PairConfig {
        string from;
        string to;
        address feed;
        uint24 minLeverage;
        uint24 maxLeverage;
        uint256 totalPositionSizeFeeP;
        uint256 minPositionSizeUsd;
    }

    IERC20 public immutable usdc;
    /// @dev The index the diamond lists USDC under (1, as on Base; a devnet-only setter moves it).
    uint8 internal _usdcIndex = USDC_INDEX;
    uint8 internal _tradingActivated;
    uint16 internal _timeoutBlocks;

    PairConfig[] internal _pairs;
    mapping(address => mapping(uint32 => Trade)) internal _trades;
    mapping(address => mapping(uint32 => TradeInfo)) internal _tradeInfos;
    mapping(address => mapping(uint32 => TradeFeesData)) internal _feesData;
    mapping(address => mapping(uint8 => Counter)) internal _counters;
    mapping(address => mapping(uint32 => PendingOrder)) internal _pending;
    /// @dev trader => trade index => pending-order index + 1 of the order in flight on that trade (0: none).
    mapping(address => mapping(uint32 => uint32)) internal _tradePending;
    /// @dev Selectors the loupe reports a facet for (the preflight's `facetAddress` check).
    mapping(bytes4 => bool) internal _facet;

    /// @dev Borrowing v2 per pair: the rate (1e10 percent per second), the accumulator (1e20) and when it was last brought up to date.
    struct Borrowing {
        uint256 ratePerSecondP;
        uint256 accFeeP;
        uint256 lastUpdateTs;
    }

    mapping(uint256 => Borrowing) internal _borrowing;

    constructor(address owner_, address usdc_, uint16 timeoutBlocks_) Ownable(owner_) {
        usdc = IERC20(usdc_);
        _timeoutBlocks = timeoutBlocks_;
        bytes4[28] memory selectors = [
            this.openTrade.selector,
            this.closeTradeMarket.selector,
            this.increasePositionSize.selector,
            this.decreasePositionSize.selector,
            this.updateLeverage.selector,
            this.cancelOrderAfterTimeout.selector,
            this.triggerOrder.selector,
            this.getTrade.selector,
            this.getTrades.selector,
            this.getTradeInfo.selector,
            this.getTradeFeesData.selector,
            this.getTradeLiquidationParams.selector,
            this.getTradeLiquidationPrice.selector,
            this.getTradePendingHoldingFeesCollateral.selector,
            this.getPendingOrders.selector,
            this.getCounters.selector,
            this.pairs.selector,
            this.pairMinLeverage.selector,
            this.pairMaxLeverage.selector,
            this.pairMinFeeUsd.selector,
            this.pairMinPositionSizeUsd.selector,
            this.pairTotalPositionSizeFeeP.selector,
            this.getPairMaxOiCollateral.selector,
            this.getCollateralIndex.selector,
            this.getCollateral.selector,
            this.getCollateralPriceUsd.selector,
            this.getMarketOrdersTimeoutBlocks.selector,
            this.getTradingActivated.selector
        ];
        for (uint256 i = 0; i < selectors.length; i++) {
            _facet[selectors[i]] = true;
        }
        _facet[this.facetAddress.selector] = true;
    }

    // ---------------------------------------------------------------- owner (devnet configuration)

    /// @notice Lists a pair priced by `feed` (a Chainlink-style feed); fees at 1e10 percent, min size in USD 1e18.
    function addPair(
        string calldata from,
        string calldata to,
        address feed,
        uint24 minLeverage,
        uint24 maxLeverage,
        uint256 totalPositionSizeFeeP,
        uint256 minPositionSizeUsd
    ) external onlyOwner {
        _pairs.push(PairConfig(from, to, feed, minLeverage, maxLeverage, totalPositionSizeFeeP, minPositionSizeUsd));
    }

    // Devnet-only setters (the twin's own, not gTrade's): they let a test break each preflight check.

    /// @notice Devnet only: ACTIVATED (0), CLOSE_ONLY (1) or PAUSED (2).
    function devnetSetTradingActivated(uint8 activated) external onlyOwner {
        require(activated <= 2, "BAD_STATE");
        _tradingActivated = activated;
        emit TradingActivatedUpdated(activated);
    }

    function setMarketOrdersTimeoutBlocks(uint16 blocks) external onlyOwner {
        _timeoutBlocks = blocks;
    }

    /// @notice Devnet only: whether the loupe reports a facet for `selector` (a removed facet makes it answer zero).
    function devnetSetFacet(bytes4 selector, bool present) external onlyOwner {
        _facet[selector] = present;
    }

    /// @notice Devnet only: lists USDC under `index` (`getCollateralIndex`, `getCollateral`); an open naming
    ///         any other collateral index is refused with `CollateralNotActive`.
    function devnetSetCollateralIndex(uint8 index) external onlyOwner {
        require(index != 0, "BAD_INDEX");
        _usdcIndex = index;
    }

    /// @notice Devnet only: the pair's borrowing rate from now on (1e10 percent per second; 0 charges nothing).
    function devnetSetBorrowingRate(uint16 pairIndex, uint256 ratePerSecondP) external onlyOwner {
        require(pairIndex < _pairs.length, "NO_PAIR");
        _accrue(pairIndex, _feedPrice(pairIndex));
        _borrowing[pairIndex].ratePerSecondP = ratePerSecondP;
    }

    // ---------------------------------------------------------------- trader calls

    /// @notice Requests a market open of `_trade.collateralAmount` USDC; `_trade.openPrice` is the expected price.
    function openTrade(Trade memory _trade, uint16 _maxSlippageP, address) external nonReentrant {
        if (_tradingActivated != 0) revert Paused();
        if (_trade.pairIndex >= _pairs.length) revert PairNotListed();
        if (_trade.collateralIndex != _usdcIndex) revert CollateralNotActive();
        if (_trade.tradeType != 0) revert WrongTradeType();
        PairConfig storage pair = _pairs[_trade.pairIndex];
        if (_trade.leverage < pair.minLeverage || _trade.leverage > pair.maxLeverage) revert WrongLeverage();
        if (_trade.collateralAmount < 5 * _minFeeCollateral(_trade.pairIndex)) revert InsufficientCollateral();
        if (_maxSlippageP == 0 || _trade.openPrice == 0) revert WrongParams();
        if (_trade.tp != 0 && (_trade.long ? _trade.tp <= _trade.openPrice : _trade.tp >= _trade.openPrice)) {
            revert WrongTp();
        }
        if (_trade.sl != 0 && (_trade.long ? _trade.sl >= _trade.openPrice : _trade.sl <= _trade.openPrice)) {
            revert WrongSl();
        }
        _trade.user = msg.sender;
        _trade.index = 0;
        _trade.isOpen = true;
        _trade.isCounterTrade = false;
        _trade.positionSizeToken = 0;
        _trade.__placeholder = 0;
        usdc.safeTransferFrom(msg.sender, address(this), _trade.collateralAmount);
        Id memory id = _storePending(_trade, MARKET_OPEN, _maxSlippageP);
        emit MarketOrderInitiated(id, msg.sender, _trade.pairIndex, true);
    }

    /// @notice Requests a market close of the whole trade `_index`.
    function closeTradeMarket(uint32 _index, uint64 _expectedPrice) external nonReentrant {
        if (_tradingActivated == 2) revert Paused();
        Trade memory t = _openTrade(msg.sender, _index);
        if (_expectedPrice == 0) revert ZeroValue();
        uint32 inFlight = _tradePending[msg.sender][_index];
        if (inFlight != 0) {
            uint8 kind = _pending[msg.sender][inFlight - 1].orderType;
            if (kind == MARKET_CLOSE) revert AlreadyBeingMarketClosed();
            revert ConflictingPendingOrder(kind);
        }
        t.openPrice = _expectedPrice;
        Id memory id = _storePending(t, MARKET_CLOSE, 0);
        _tradePending[msg.sender][_index] = id.index + 1;
        emit MarketOrderInitiated(id, msg.sender, t.pairIndex, false);
    }

    /// @notice Requests adding `_collateralDelta` USDC at `_leverageDelta` to trade `_index` (or, with no collateral,
    ///         raising its leverage by `_leverageDelta`).
    function increasePositionSize(
        uint32 _index,
        uint120 _collateralDelta,
        uint24 _leverageDelta,
        uint64 _expectedPrice,
        uint16 _maxSlippageP
    ) external nonReentrant {
        if (_tradingActivated != 0) revert Paused();
        Trade memory t = _openTrade(msg.sender, _index);
        _noPending(msg.sender, _index);
        if (_leverageDelta == 0 || _expectedPrice == 0 || _maxSlippageP == 0) {
            revert InvalidIncreasePositionSizeInput();
        }
        PairConfig storage pair = _pairs[t.pairIndex];
        uint256 lev = _collateralDelta == 0 ? uint256(t.leverage) + _leverageDelta : _leverageDelta;
        if (lev < pair.minLeverage || lev > pair.maxLeverage) revert WrongLeverage();
        if (_collateralDelta > 0) usdc.safeTransferFrom(msg.sender, address(this), _collateralDelta);
        t.collateralAmount = _collateralDelta;
        t.leverage = _leverageDelta;
        t.openPrice = _expectedPrice;
        Id memory id = _storePending(t, MARKET_PARTIAL_OPEN, _maxSlippageP);
        _tradePending[msg.sender][_index] = id.index + 1;
        emit PositionSizeUpdateInitiated(id, msg.sender, t.pairIndex, _index, true, _collateralDelta, _leverageDelta);
    }

    /// @notice Requests closing `_collateralDelta` of trade `_index`'s collateral at its leverage, or (with no
    ///         collateral) lowering its leverage by `_leverageDelta`. Exactly one of the two is non-zero.
    function decreasePositionSize(uint32 _index, uint120 _collateralDelta, uint24 _leverageDelta, uint64 _expectedPrice)
        external
        nonReentrant
    {
        if (_tradingActivated == 2) revert Paused();
        Trade memory t = _openTrade(msg.sender, _index);
        _noPending(msg.sender, _index);
        if ((_collateralDelta == 0) == (_leverageDelta == 0)) revert InvalidDecreasePositionSizeInput();
        if (_leverageDelta > 0 && t.leverage - _leverageDelta < _pairs[t.pairIndex].minLeverage) {
            revert WrongLeverage();
        }
        if (_collateralDelta >= t.collateralAmount) revert InsufficientCollateral();
        uint256 delta = _leverageDelta > 0
            ? uint256(t.collateralAmount) * _leverageDelta / LEV
            : uint256(_collateralDelta) * t.leverage / LEV;
        if (t.collateralAmount - _collateralDelta <= _fee(t.pairIndex, delta)) revert InsufficientCollateral();
        if (_expectedPrice == 0) revert ZeroValue();
        t.collateralAmount = _collateralDelta;
        t.leverage = _leverageDelta;
        t.openPrice = _expectedPrice;
        Id memory id = _storePending(t, MARKET_PARTIAL_CLOSE, 0);
        _tradePending[msg.sender][_index] = id.index + 1;
        emit PositionSizeUpdateInitiated(id, msg.sender, t.pairIndex, _index, false, _collateralDelta, _leverageDelta);
    }

    /// @notice Requests a new leverage for trade `_index` at the same position size: lowering it pulls
    ///         `collateral × (old / new − 1)` USDC now; raising it returns `collateral × (1 − old / new)` at the fill.
    function updateLeverage(uint32 _index, uint24 _newLeverage) external nonReentrant {
        if (_tradingActivated != 0) revert Paused();
        Trade memory t = _openTrade(msg.sender, _index);
        _noPending(msg.sender, _index);
        PairConfig storage pair = _pairs[t.pairIndex];
        if (_newLeverage == t.leverage || _newLeverage < pair.minLeverage || _newLeverage > pair.maxLeverage) {
            revert WrongLeverage();
        }
        bool isIncrease = _newLeverage > t.leverage;
        uint256 newCollateral = uint256(t.collateralAmount) * t.leverage / _newLeverage;
        uint256 delta = isIncrease ? t.collateralAmount - newCollateral : newCollateral - t.collateralAmount;
        if (!isIncrease) usdc.safeTransferFrom(msg.sender, address(this), delta);
        t.collateralAmount = uint120(delta);
        t.leverage = _newLeverage;
        Id memory id = _storePending(t, UPDATE_LEVERAGE, 0);
        _tradePending[msg.sender][_index] = id.index + 1;
        emit LeverageUpdateInitiated(id, msg.sender, t.pairIndex, _index, isIncrease, _newLeverage);
    }

    /// @notice Cancels the caller's pending order `_orderIndex` once it has waited `getMarketOrdersTimeoutBlocks()`
    ///         blocks unanswered, returning any collateral it holds in full.
    function cancelOrderAfterTimeout(uint32 _orderIndex) external nonReentrant {
        PendingOrder memory order = _pending[msg.sender][_orderIndex];
        if (!order.isOpen) revert NoOrder();
        if (block.number < uint256(order.createdBlock) + _timeoutBlocks) revert WaitTimeout();
        _closePending(msg.sender, _orderIndex, order);
        Id memory id = Id(msg.sender, _orderIndex);
        emit ChainlinkCallbackTimeout(id, order.trade.pairIndex);
        uint256 held = _heldCollateral(order);
        if (held > 0) {
            usdc.safeTransfer(msg.sender, held);
            emit CollateralReturnedAfterTimeout(id, USDC_INDEX, msg.sender, held);
        }
    }

    // ---------------------------------------------------------------- keepers (the devnet's oracle)

    /// @notice Answers pending order `(trader, index)` at the pair's feed price, as gTrade's oracle callback does.
    function executePendingOrder(address trader, uint32 index) external nonReentrant {
        PendingOrder memory order = _pending[trader][index];
        if (!order.isOpen) revert NoOrder();
        _closePending(trader, index, order);
        uint256 price = _feedPrice(order.trade.pairIndex);
        _accrue(order.trade.pairIndex, price);
        Id memory id = Id(trader, index);
        if (order.orderType == MARKET_OPEN) _fillOpen(id, order, price);
        else if (order.orderType == MARKET_CLOSE) _fillClose(id, order, price);
        else if (order.orderType == MARKET_PARTIAL_OPEN) _fillIncrease(id, order, price);
        else if (order.orderType == MARKET_PARTIAL_CLOSE) _fillDecrease(id, order, price);
        else _fillLeverage(id, order, price);
    }

    /// @notice Liquidates a trade past its liquidation price at the feed price (order type 6 only on the devnet).
    ///         `_packed = orderType | trader << 8 | index << 168`.
    function triggerOrder(uint256 _packed) external nonReentrant {
        uint8 orderType = uint8(_packed);
        address trader = address(uint160(_packed >> 8));
        uint32 index = uint32(_packed >> 168);
        if (orderType != LIQ_CLOSE) revert WrongOrderType();
        Trade memory t = _openTrade(trader, index);
        uint256 price = _feedPrice(t.pairIndex);
        _accrue(t.pairIndex, price);
        uint256 liqPrice = _tradeLiqPrice(t);
        if (t.long ? price > liqPrice : price < liqPrice) revert NotLiquidatable();
        _closeTrade(trader, index);
        _emitLiquidation(t, price, liqPrice);
    }

    /// @dev `MarketExecuted(orderId, user, index, t, open, oraclePrice, marketPrice, liqPrice, priceImpact,
    ///      percentProfit, amountSentToTrader, collateralPriceUsd)`: 30 data words, encoded as `_emitLiquidation` does.
    function _emitMarketExecuted(
        Id memory id,
        Trade memory t,
        bool open,
        uint256 price,
        uint256 liqPrice,
        int256 pp,
        uint256 sent
    ) internal {
        bytes memory data = bytes.concat(
            abi.encode(id, t, open, price, price, liqPrice),
            abi.encode(_impact(t, price), pp, sent, COLLATERAL_PRICE_USD)
        );
        bytes32 topic0 = MarketExecuted.selector;
        bytes32 user = bytes32(uint256(uint160(t.user)));
        bytes32 index = bytes32(uint256(t.index));
        assembly {
            log3(add(data, 32), mload(data), topic0, user, index)
        }
    }

    /// @dev `LimitExecuted(orderId, user, index, limitIndex, t, triggerCaller, 6, oraclePrice, marketPrice, liqPrice,
    ///      priceImpact, percentProfit, 0, collateralPriceUsd, false)`: 32 data words, every member static, so the
    ///      data is the concatenation of two encodings (one `emit` of all fifteen values is too deep for the stack).
    function _emitLiquidation(Trade memory t, uint256 price, uint256 liqPrice) internal {
        Id memory id = Id(msg.sender, _counters[msg.sender][COUNTER_PENDING].currentIndex++);
        bytes memory data = bytes.concat(
            abi.encode(id, t, msg.sender, LIQ_CLOSE, price, price, liqPrice),
            abi.encode(
                _impact(t, price),
                _percentProfit(t.openPrice, price, t.long, t.leverage),
                uint256(0),
                COLLATERAL_PRICE_USD,
                false
            )
        );
        bytes32 topic0 = LimitExecuted.selector;
        bytes32 user = bytes32(uint256(uint160(t.user)));
        bytes32 index = bytes32(uint256(t.index));
        assembly {
            log4(add(data, 32), mload(data), topic0, user, index, index)
        }
    }

    // ---------------------------------------------------------------- views

    function getTrade(address _trader, uint32 _index) external view returns (Trade memory) {
        return _trades[_trader][_index];
    }

    /// @notice The trader's open trades, by index.
    function getTrades(address _trader) external view returns (Trade[] memory trades) {
        Counter memory c = _counters[_trader][COUNTER_TRADE];
        trades = new Trade[](c.openCount);
        uint256 n;
        for (uint32 i = 0; i < c.currentIndex && n < c.openCount; i++) {
            if (_trades[_trader][i].isOpen) trades[n++] = _trades[_trader][i];
        }
    }

    function getTradeInfo(address _trader, uint32 _index) external view returns (TradeInfo memory) {
        return _tradeInfos[_trader][_index];
    }

    function getTradeFeesData(address _trader, uint32 _index) external view returns (TradeFeesData memory) {
        return _feesData[_trader][_index];
    }

    /// @notice Zeros: the default 90% threshold applies, with no liquidation spread.
    function getTradeLiquidationParams(address, uint32) external pure returns (GroupLiquidationParams memory p) {
        return p;
    }

    /// @notice The liquidation price of the given position (1e10), fees included as the SDK's `getLiquidationPrice`.
    function getTradeLiquidationPrice(LiqPriceInput memory _input) external view returns (uint256) {
        int256 fees = int256(_fee(_input.pairIndex, _input.collateral * _input.leverage / LEV))
            + _input.additionalFeeCollateral;
        if (!_input.beforeOpened) {
            TradeFeesData memory d = _feesData[_input.trader][_input.index];
            fees += int256(uint256(d.realizedTradingFeesCollateral)) - d.realizedPnlCollateral;
            Trade memory t = _trades[_input.trader][_input.index];
            if (t.isOpen) fees += int256(_pendingBorrowing(t, _pendingAcc(t.pairIndex, _input.currentPairPrice)));
        }
        return _liqPrice(_input.openPrice, _input.long, _input.collateral, _input.leverage, fees);
    }

    /// @notice The trade's holding fees since they were last realized, were the pair's price `_currentPairPrice`
    ///         (1e10): borrowing only (funding is 0 here); zeros for a trade that is not open.
    function getTradePendingHoldingFeesCollateral(address _trader, uint32 _index, uint64 _currentPairPrice)
        external
        view
        returns (TradeHoldingFees memory fees)
    {
        Trade memory t = _trades[_trader][_index];
        if (!t.isOpen) return fees;
        fees.borrowingFeeCollateral = _pendingBorrowing(t, _pendingAcc(t.pairIndex, _currentPairPrice));
        fees.totalFeeCollateral = int256(fees.borrowingFeeCollateral);
    }

    /// @notice The trader's pending orders, by index.
    function getPendingOrders(address _user) external view returns (PendingOrder[] memory orders) {
        Counter memory c = _counters[_user][COUNTER_PENDING];
        orders = new PendingOrder[](c.openCount);
        uint256 n;
        for (uint32 i = 0; i < c.currentIndex && n < c.openCount; i++) {
            if (_pending[_user][i].isOpen) orders[n++] = _pending[_user][i];
        }
    }

    function getCounters(address _trader, uint8 _type) external view returns (Counter memory) {
        return _counters[_trader][_type];
    }

    function pairs(uint256 _index) external view returns (Pair memory) {
        PairConfig storage p = _pairs[_index];
        return Pair(p.from, p.to, Feed(p.feed, address(0), 0, 0), 0, 0, _index);
    }

    function pairsCount() external view returns (uint256) {
        return _pairs.length;
    }

    function pairMinLeverage(uint256 _pairIndex) external view returns (uint256) {
        return _pairs[_pairIndex].minLeverage;
    }

    function pairMaxLeverage(uint256 _pairIndex) external view returns (uint256) {
        return _pairs[_pairIndex].maxLeverage;
    }

    /// @notice USD 1e18: `pairMinPositionSizeUsd × pairTotalPositionSizeFeeP / 1e10 / 100`.
    function pairMinFeeUsd(uint256 _pairIndex) public view returns (uint256) {
        PairConfig storage p = _pairs[_pairIndex];
        return p.minPositionSizeUsd * p.totalPositionSizeFeeP / P10 / 100;
    }

    function pairMinPositionSizeUsd(uint256 _pairIndex) external view returns (uint256) {
        return _pairs[_pairIndex].minPositionSizeUsd;
    }

    function pairTotalPositionSizeFeeP(uint256 _pairIndex) external view returns (uint256) {
        return _pairs[_pairIndex].totalPositionSizeFeeP;
    }

    /// @notice No open-interest cap on the devnet beyond the USDC it holds.
    function getPairMaxOiCollateral(uint8, uint16) external pure returns (uint256) {
        return type(uint120).max;
    }

    function getCollateralIndex(address _collateral) external view returns (uint8) {
        return _collateral == address(usdc) ? _usdcIndex : 0;
    }

    function getCollateral(uint8 _index) external view returns (Collateral memory c) {
        if (_index == _usdcIndex) c = Collateral(address(usdc), true, 0, 1e6, 1e12);
    }

    /// @notice USDC at one dollar (1e8).
    function getCollateralPriceUsd(uint8) external pure returns (uint256) {
        return COLLATERAL_PRICE_USD;
    }

    function getMarketOrdersTimeoutBlocks() external view returns (uint16) {
        return _timeoutBlocks;
    }

    function getTradingActivated() external view returns (uint8) {
        return _tradingActivated;
    }

    /// @notice EIP-2535 loupe: this contract for every selector it serves (unless removed), zero otherwise.
    function facetAddress(bytes4 _functionSelector) external view returns (address) {
        return _facet[_functionSelector] ? address(this) : address(0);
    }

    // ---------------------------------------------------------------- fills

    function _fillOpen(Id memory id, PendingOrder memory order, uint256 price) internal {
        Trade memory t = order.trade;
        if (!_withinSlippage(t.long, true, price, t.openPrice, order.maxSlippageP)) {
            uint256 fee = _minFeeCollateral(t.pairIndex);
            if (fee > t.collateralAmount) fee = t.collateralAmount;
            uint256 returned = t.collateralAmount - fee;
            usdc.safeTransfer(t.user, returned);
            emit MarketOpenCanceled(id, t.user, t.pairIndex, SLIPPAGE, returned);
            return;
        }
        Counter storage c = _counters[t.user][COUNTER_TRADE];
        t.index = c.currentIndex++;
        c.openCount++;
        t.openPrice = uint64(price);
        uint256 size = uint256(t.collateralAmount) * t.leverage / LEV;
        t.positionSizeToken = uint160(size * 1e22 / price);
        _trades[t.user][t.index] = t;
        _tradeInfos[t.user][t.index] = TradeInfo(
            uint32(block.number),
            uint32(block.number),
            uint32(block.number),
            order.maxSlippageP,
            uint48(block.timestamp),
            uint48(COLLATERAL_PRICE_USD),
            2,
            uint32(block.number),
            0
        );
        _feesData[t.user][t.index].realizedTradingFeesCollateral = uint128(_fee(t.pairIndex, size));
        _feesData[t.user][t.index].initialAccBorrowingFeeP = uint128(_borrowing[t.pairIndex].accFeeP);
        _emitMarketExecuted(id, t, true, price, _tradeLiqPrice(t), 0, 0);
    }

    function _fillClose(Id memory id, PendingOrder memory order, uint256 price) internal {
        Trade memory t = _trades[order.trade.user][order.trade.index];
        uint8 reason = _closeCheck(t, order, price);
        if (reason != NONE) {
            emit MarketCloseCanceled(id, order.trade.user, order.trade.pairIndex, order.trade.index, reason);
            return;
        }
        int256 pp = _percentProfit(t.openPrice, price, t.long, t.leverage);
        uint256 liqPrice = _tradeLiqPrice(t);
        uint256 sent = _closeValue(
            t, pp, _fee(t.pairIndex, uint256(t.collateralAmount) * t.leverage / LEV) + _holding(t)
        );
        _closeTrade(t.user, t.index);
        if (sent > 0) usdc.safeTransfer(t.user, sent);
        _emitMarketExecuted(id, t, false, price, liqPrice, pp, sent);
    }

    /// @dev Why a close, decrease or leverage update of `t` cannot fill at `price` (NONE when it can).
    function _closeCheck(Trade memory t, PendingOrder memory order, uint256 price) internal view returns (uint8) {
        if (!t.isOpen) return NO_TRADE;
        uint256 liqPrice = _tradeLiqPrice(t);
        if (t.long ? price <= liqPrice : price >= liqPrice) return LIQ_REACHED;
        uint16 slip = _tradeInfos[t.user][t.index].maxSlippageP;
        if (!_withinSlippage(t.long, false, price, order.trade.openPrice, slip == 0 ? DEFAULT_CLOSING_SLIPPAGE_P : slip))
        {
            return SLIPPAGE;
        }
        return NONE;
    }

    function _fillIncrease(Id memory id, PendingOrder memory order, uint256 price) internal {
        Trade memory t = _trades[order.trade.user][order.trade.index];
        Trade memory partial_ = order.trade;
        IncreasePositionSizeValues memory v;
        uint8 reason = NONE;
        if (!t.isOpen) {
            reason = NO_TRADE;
        } else {
            v.existingLiqPrice = _tradeLiqPrice(t);
            if (!_withinSlippage(t.long, true, price, partial_.openPrice, order.maxSlippageP)) reason = SLIPPAGE;
            else if (t.long ? price <= v.existingLiqPrice : price >= v.existingLiqPrice) reason = LIQ_REACHED;
        }
        if (reason == NONE) {
            bool leverageOnly = partial_.collateralAmount == 0;
            v.positionSizeCollateralDelta =
                uint256(leverageOnly ? t.collateralAmount : partial_.collateralAmount) * partial_.leverage / LEV;
            v.existingPositionSizeCollateral = uint256(t.collateralAmount) * t.leverage / LEV;
            v.newPositionSizeCollateral = v.existingPositionSizeCollateral + v.positionSizeCollateralDelta;
            v.newCollateralAmount = uint256(t.collateralAmount) + partial_.collateralAmount;
            v.newLeverage = leverageOnly
                ? uint256(t.leverage) + partial_.leverage
                : v.newPositionSizeCollateral * LEV / v.newCollateralAmount;
            if (v.newLeverage > _pairs[t.pairIndex].maxLeverage) reason = MAX_LEVERAGE;
        }
        if (reason != NONE) {
            if (reason != NO_TRADE) {
                // gTrade charges the oracle's cost (the pair's minimum fee) to the trade's collateral.
                uint256 fee = _minFeeCollateral(t.pairIndex);
                if (fee < t.collateralAmount) _trades[t.user][t.index].collateralAmount = t.collateralAmount - uint120(fee);
            }
            if (partial_.collateralAmount > 0) usdc.safeTransfer(partial_.user, partial_.collateralAmount);
            emit PositionSizeIncreaseExecuted(
                id, reason, USDC_INDEX, partial_.user, partial_.pairIndex, partial_.index, partial_.long, price,
                COLLATERAL_PRICE_USD, partial_.collateralAmount, partial_.leverage, v
            );
            return;
        }
        _realizeHolding(t);
        _applyIncrease(t, v, price);
        emit PositionSizeIncreaseExecuted(
            id, NONE, USDC_INDEX, t.user, t.pairIndex, t.index, t.long, price, COLLATERAL_PRICE_USD,
            partial_.collateralAmount, partial_.leverage, v
        );
    }

    /// @dev The new open price weights the old position (with its PnL) and the added one, as gTrade does; the
    ///      opening fee of the added size is realized into the trade's fees data (v10: collateral stays whole).
    function _applyIncrease(Trade memory t, IncreasePositionSizeValues memory v, uint256 price) internal {
        v.existingPnlCollateral = _percentProfit(t.openPrice, price, t.long, t.leverage)
            * int256(uint256(t.collateralAmount)) / int256(HUNDRED_PERCENT);
        int256 plusPnl = t.long
            ? int256(v.existingPositionSizeCollateral) + v.existingPnlCollateral
            : int256(v.existingPositionSizeCollateral) - v.existingPnlCollateral;
        v.oldPosSizePlusPnlCollateral = plusPnl > 0 ? uint256(plusPnl) : 0;
        v.newOpenPrice = (v.oldPosSizePlusPnlCollateral * t.openPrice + v.positionSizeCollateralDelta * price)
            / (v.oldPosSizePlusPnlCollateral + v.positionSizeCollateralDelta);
        v.openingFeesCollateral = _fee(t.pairIndex, v.positionSizeCollateralDelta);
        v.priceImpact.priceAfterImpact = uint64(price);
        v.priceImpact.positionSizeToken = v.positionSizeCollateralDelta * 1e22 / price;
        v.newEffectiveLeverage = v.newLeverage;

        Trade storage s = _trades[t.user][t.index];
        s.collateralAmount = uint120(v.newCollateralAmount);
        s.leverage = uint24(v.newLeverage);
        s.openPrice = uint64(v.newOpenPrice);
        s.positionSizeToken += uint160(v.priceImpact.positionSizeToken);
        _feesData[t.user][t.index].realizedTradingFeesCollateral += uint128(v.openingFeesCollateral);
        _tradeInfos[t.user][t.index].lastPosIncreaseBlock = uint32(block.number);
        v.newLiqPrice = _tradeLiqPrice(s);
    }

    function _fillDecrease(Id memory id, PendingOrder memory order, uint256 price) internal {
        Trade memory t = _trades[order.trade.user][order.trade.index];
        Trade memory partial_ = order.trade;
        DecreasePositionSizeValues memory v;
        uint8 reason = _closeCheck(t, order, price);
        if (reason == NONE) {
            v.existingLiqPrice = _tradeLiqPrice(t);
            _realizeHolding(t);
            _applyDecrease(t, partial_, v, price);
        }
        emit PositionSizeDecreaseExecuted(
            id, reason, USDC_INDEX, partial_.user, partial_.pairIndex, partial_.index, partial_.long, price,
            COLLATERAL_PRICE_USD, partial_.collateralAmount, partial_.leverage, v
        );
    }

    /// @dev Closes `positionSizeCollateralDelta` of the position: its share of the PnL, its closing fee and its share
    ///      of the realized trading fees are settled; the rest of the collateral (less any shortfall) stays.
    function _applyDecrease(Trade memory t, Trade memory partial_, DecreasePositionSizeValues memory v, uint256 price)
        internal
    {
        v.isLeverageUpdate = partial_.leverage > 0;
        v.positionSizeCollateralDelta = v.isLeverageUpdate
            ? uint256(t.collateralAmount) * partial_.leverage / LEV
            : uint256(partial_.collateralAmount) * t.leverage / LEV;
        v.existingPositionSizeCollateral = uint256(t.collateralAmount) * t.leverage / LEV;
        v.existingPnlPercent = _percentProfit(t.openPrice, price, t.long, t.leverage);
        v.partialRawPnlCollateral = v.existingPnlPercent * int256(uint256(t.collateralAmount))
            / int256(HUNDRED_PERCENT) * int256(v.positionSizeCollateralDelta) / int256(v.existingPositionSizeCollateral);
        v.closingFeeCollateral = _fee(t.pairIndex, v.positionSizeCollateralDelta);
        TradeFeesData storage d = _feesData[t.user][t.index];
        uint256 feesShare =
            uint256(d.realizedTradingFeesCollateral) * v.positionSizeCollateralDelta / v.existingPositionSizeCollateral;
        d.realizedTradingFeesCollateral -= uint128(feesShare);
        v.partialNetPnlCollateral = v.partialRawPnlCollateral - int256(v.closingFeeCollateral) - int256(feesShare);
        v.pnlToRealizeCollateral = v.partialNetPnlCollateral;
        v.totalAvailableCollateralInDiamond = t.collateralAmount;
        v.availableCollateralInDiamond = int256(uint256(partial_.collateralAmount)) - int256(v.closingFeeCollateral);
        v.collateralSentToTrader = int256(uint256(partial_.collateralAmount)) + v.partialNetPnlCollateral;
        uint256 newCollateral = t.collateralAmount - partial_.collateralAmount;
        if (v.collateralSentToTrader < 0) {
            uint256 shortfall = uint256(-v.collateralSentToTrader);
            newCollateral = shortfall >= newCollateral ? 0 : newCollateral - shortfall;
            v.collateralSentToTrader = 0;
        }
        v.newCollateralAmount = uint120(newCollateral);
        v.newLeverage = t.leverage - partial_.leverage;
        v.priceImpact.priceAfterImpact = uint64(price);
        v.priceImpact.positionSizeToken = uint256(t.positionSizeToken) * v.positionSizeCollateralDelta
            / v.existingPositionSizeCollateral;

        Trade storage s = _trades[t.user][t.index];
        s.collateralAmount = v.newCollateralAmount;
        s.leverage = v.newLeverage;
        s.positionSizeToken -= uint160(v.priceImpact.positionSizeToken);
        v.newLiqPrice = _tradeLiqPrice(s);
        if (v.collateralSentToTrader > 0) usdc.safeTransfer(t.user, uint256(v.collateralSentToTrader));
    }

    function _fillLeverage(Id memory id, PendingOrder memory order, uint256 price) internal {
        Trade memory t = _trades[order.trade.user][order.trade.index];
        Trade memory partial_ = order.trade;
        // The trade keeps its leverage while the order is pending (a liquidation only closes it).
        bool isIncrease = partial_.leverage > t.leverage;
        UpdateLeverageValues memory v;
        uint8 reason = t.isOpen ? NONE : NO_TRADE;
        if (reason == NONE) {
            v.existingLiqPrice = _tradeLiqPrice(t);
            v.newLeverage = partial_.leverage;
            v.newCollateralAmount = isIncrease
                ? t.collateralAmount - partial_.collateralAmount
                : t.collateralAmount + partial_.collateralAmount;
            Trade memory updated = t;
            updated.collateralAmount = uint120(v.newCollateralAmount);
            updated.leverage = partial_.leverage;
            v.newLiqPrice = _tradeLiqPrice(updated);
            if (
                t.long
                    ? (price <= v.existingLiqPrice || price <= v.newLiqPrice)
                    : (price >= v.existingLiqPrice || price >= v.newLiqPrice)
            ) reason = LIQ_REACHED;
        }
        if (reason != NONE) {
            // Nothing moves; margin pulled for a leverage decrease goes back.
            if (!isIncrease) usdc.safeTransfer(partial_.user, partial_.collateralAmount);
            emit LeverageUpdateExecuted(
                id, isIncrease, reason, USDC_INDEX, partial_.user, partial_.pairIndex, partial_.index, price,
                partial_.collateralAmount, v
            );
            return;
        }
        _realizeHolding(t);
        v.newEffectiveLeverage = v.newLeverage;
        v.totalTradeAvailableCollateralInDiamond = v.newCollateralAmount;
        v.availableCollateralInDiamond = v.newCollateralAmount;
        Trade storage s = _trades[t.user][t.index];
        s.collateralAmount = uint120(v.newCollateralAmount);
        s.leverage = partial_.leverage;
        if (isIncrease) usdc.safeTransfer(t.user, partial_.collateralAmount);
        emit LeverageUpdateExecuted(
            id, isIncrease, NONE, USDC_INDEX, t.user, t.pairIndex, t.index, price, partial_.collateralAmount, v
        );
    }

    // ---------------------------------------------------------------- internals

    function _openTrade(address trader, uint32 index) internal view returns (Trade memory t) {
        t = _trades[trader][index];
        if (!t.isOpen) revert NoTrade();
    }

    function _noPending(address trader, uint32 index) internal view {
        uint32 inFlight = _tradePending[trader][index];
        if (inFlight != 0) revert ConflictingPendingOrder(_pending[trader][inFlight - 1].orderType);
    }

    function _storePending(Trade memory t, uint8 orderType, uint16 maxSlippageP) internal returns (Id memory id) {
        Counter storage c = _counters[msg.sender][COUNTER_PENDING];
        id = Id(msg.sender, c.currentIndex++);
        c.openCount++;
        _pending[msg.sender][id.index] =
            PendingOrder(t, msg.sender, id.index, true, orderType, uint32(block.number), maxSlippageP);
    }

    function _closePending(address trader, uint32 index, PendingOrder memory order) internal {
        delete _pending[trader][index];
        _counters[trader][COUNTER_PENDING].openCount--;
        if (order.orderType != MARKET_OPEN && _tradePending[trader][order.trade.index] == index + 1) {
            delete _tradePending[trader][order.trade.index];
        }
    }

    /// @dev USDC a pending order holds for its trader: an open's collateral, an increase's added collateral, the
    ///      margin a leverage decrease pulled.
    function _heldCollateral(PendingOrder memory order) internal view returns (uint256) {
        if (order.orderType == MARKET_OPEN || order.orderType == MARKET_PARTIAL_OPEN) return order.trade.collateralAmount;
        if (order.orderType == UPDATE_LEVERAGE) {
            // A leverage decrease pulled its margin at the request (a closed trade keeps its leverage field).
            if (order.trade.leverage < _trades[order.user][order.trade.index].leverage) return order.trade.collateralAmount;
        }
        return 0;
    }

    /// @dev Brings the pair's borrowing accumulator up to now at `price`.
    function _accrue(uint256 pairIndex, uint256 price) internal {
        Borrowing storage b = _borrowing[pairIndex];
        b.accFeeP = _pendingAcc(pairIndex, price);
        b.lastUpdateTs = block.timestamp;
    }

    /// @dev The pair's accumulator were it brought up to now at `price` (1e20).
    function _pendingAcc(uint256 pairIndex, uint256 price) internal view returns (uint256) {
        Borrowing storage b = _borrowing[pairIndex];
        if (b.lastUpdateTs == 0 || b.ratePerSecondP == 0) return b.accFeeP;
        return b.accFeeP + b.ratePerSecondP * (block.timestamp - b.lastUpdateTs) * price;
    }

    /// @dev Borrowing fees of `t` at accumulator `acc`: `positionSize × (acc − initial) / openPrice / 1e10 / 100`.
    function _pendingBorrowing(Trade memory t, uint256 acc) internal view returns (uint256) {
        uint256 initial = _feesData[t.user][t.index].initialAccBorrowingFeeP;
        if (acc <= initial || t.openPrice == 0) return 0;
        return uint256(t.collateralAmount) * t.leverage / LEV * (acc - initial) / t.openPrice / P10 / 100;
    }

    /// @dev `t`'s holding fees at the pair's accumulator as last brought up to date (every fill does so first).
    function _holding(Trade memory t) internal view returns (uint256) {
        return _pendingBorrowing(t, _borrowing[t.pairIndex].accFeeP);
    }

    /// @dev Moves `t`'s holding fees into its realized trading fees and starts it again from the pair's accumulator.
    function _realizeHolding(Trade memory t) internal {
        TradeFeesData storage d = _feesData[t.user][t.index];
        d.realizedTradingFeesCollateral += uint128(_holding(t));
        d.initialAccBorrowingFeeP = uint128(_borrowing[t.pairIndex].accFeeP);
    }

    function _closeTrade(address trader, uint32 index) internal {
        _trades[trader][index].isOpen = false;
        _counters[trader][COUNTER_TRADE].openCount--;
    }

    function _feedPrice(uint256 pairIndex) internal view returns (uint256) {
        IGainsPriceFeed feed = IGainsPriceFeed(_pairs[pairIndex].feed);
        (, int256 answer,,,) = feed.latestRoundData();
        require(answer > 0, "NO_PRICE");
        uint8 decimals = feed.decimals();
        return decimals <= 10 ? uint256(answer) * 10 ** (10 - decimals) : uint256(answer) / 10 ** (decimals - 10);
    }

    /// @dev `max(size, the pair's minimum position size) × totalPositionSizeFeeP`, in USDC (collateral at $1).
    function _fee(uint256 pairIndex, uint256 positionSizeCollateral) internal view returns (uint256) {
        PairConfig storage p = _pairs[pairIndex];
        uint256 minSize = p.minPositionSizeUsd / 1e12;
        uint256 basis = positionSizeCollateral > minSize ? positionSizeCollateral : minSize;
        return basis * p.totalPositionSizeFeeP / P10 / 100;
    }

    /// @dev `pairMinFeeUsd` in USDC base units.
    function _minFeeCollateral(uint256 pairIndex) internal view returns (uint256) {
        return pairMinFeeUsd(pairIndex) / 1e12;
    }

    /// @dev ±(price − openPrice) / openPrice × 100 × leverage, in 1e10 percent, floored at −100%.
    function _percentProfit(uint256 openPrice, uint256 price, bool long, uint256 leverage)
        internal
        pure
        returns (int256 p)
    {
        if (openPrice == 0) return 0;
        int256 diff = long ? int256(price) - int256(openPrice) : int256(openPrice) - int256(price);
        p = diff * int256(HUNDRED_PERCENT) * int256(leverage) / int256(LEV) / int256(openPrice);
        if (p < -int256(HUNDRED_PERCENT)) p = -int256(HUNDRED_PERCENT);
    }

    /// @dev What a full close pays: collateral + PnL − closing fee − realized trading fees + realized PnL, at least 0.
    function _closeValue(Trade memory t, int256 pp, uint256 closingFee) internal view returns (uint256) {
        TradeFeesData storage d = _feesData[t.user][t.index];
        int256 collateral = int256(uint256(t.collateralAmount));
        int256 value = collateral + collateral * pp / int256(HUNDRED_PERCENT) - int256(closingFee)
            - int256(uint256(d.realizedTradingFeesCollateral)) + d.realizedPnlCollateral;
        return value > 0 ? uint256(value) : 0;
    }

    function _tradeLiqPrice(Trade memory t) internal view returns (uint256) {
        TradeFeesData storage d = _feesData[t.user][t.index];
        int256 fees = int256(_fee(t.pairIndex, uint256(t.collateralAmount) * t.leverage / LEV))
            + int256(uint256(d.realizedTradingFeesCollateral)) - d.realizedPnlCollateral + int256(_holding(t));
        return _liqPrice(t.openPrice, t.long, t.collateralAmount, t.leverage, fees);
    }

    /// @dev `openPrice ∓ openPrice × (collateral × 90% − fees) / collateral / leverage`, never below zero.
    function _liqPrice(uint256 openPrice, bool long, uint256 collateral, uint256 leverage, int256 fees)
        internal
        pure
        returns (uint256)
    {
        if (collateral == 0 || leverage == 0) return 0;
        int256 distance = int256(openPrice) * (int256(collateral * LIQ_THRESHOLD_P / 100) - fees) * int256(LEV)
            / int256(collateral) / int256(leverage);
        int256 liq = long ? int256(openPrice) - distance : int256(openPrice) + distance;
        return liq > 0 ? uint256(liq) : 0;
    }

    /// @dev Opening (`isOpen`) pays at most `expected + slip` long and at least `expected − slip` short; closing the
    ///      reverse. `slip = expected × maxSlippageP / 100 / 1e3`.
    function _withinSlippage(bool long, bool isOpen, uint256 price, uint256 expected, uint256 maxSlippageP)
        internal
        pure
        returns (bool)
    {
        uint256 slip = expected * maxSlippageP / 100 / LEV;
        bool buying = long == isOpen;
        return buying ? price <= expected + slip : price + slip >= expected;
    }

    function _impact(Trade memory t, uint256 price) internal pure returns (TradePriceImpact memory i) {
        i.positionSizeToken = t.positionSizeToken;
        i.priceAfterImpact = uint64(price);
    }
}
