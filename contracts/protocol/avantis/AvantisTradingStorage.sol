// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

import {IAggregatorV3Like} from "../interfaces/IUniswapPeriphery.sol";
import {IAvantis} from "./IAvantis.sol";

/// @title AvantisTradingStorage
/// @notice Devnet mirror of Avantis v1 TradingStorage (Base `0x8a311D7048c35985aa31C131B9A13e03a5f7422d`) with the
///         pair parameters of PairStorage folded in. It holds every USDC of the exchange: traders' collateral
///         (traders approve USDC to this contract, as in production), the opening fees, and a reserve the owner
///         funds by plain transfer, out of which profits are paid. The read surface the service uses keeps the
///         production selectors and tuple layouts: `openTrades` (0xa3a80ffe), `openTradesCount` (0x1c8636b4),
///         `openTradesInfo`, `firstEmptyTradeIndex`, `maxTradesPerPair`, `pendingMarketOpenCount/CloseCount`,
///         `pendingOrderIds(Count)`, `reqIDpendingMarketOrder`, `pairsCount`, `pairMinLevPosUSDC`,
///         `pairMinLeverage/pairMaxLeverage(pairIndex, isPnl)`, `callbacks`.
/// @dev Simplifications: no limit orders (`openLimitOrdersCount` is always 0), no vault, referrals, rollover,
///      funding, spreads or price impact; one leverage range per pair for both fee types; prices come from
///      Chainlink-style feeds (`latestRoundData`, any decimals, converted to 1e10) instead of Pyth. Mutations are
///      restricted to the Trading contract and their signatures are this devnet's own plumbing.
contract AvantisTradingStorage is IAvantis, Ownable {
    using SafeERC20 for IERC20;

    uint256 internal constant PRECISION = 1e10;

    struct Pair {
        address feed;
        uint8 feedDecimals;
        uint256 minLevPosUSDC;
        uint256 minLeverage;
        uint256 maxLeverage;
    }

    IERC20 public immutable usdc;
    /// @notice The Trading contract: the only caller of the mutating functions, and the emitter of the callback
    ///         events (production TradingCallbacks), hence also `callbacks()`.
    address public trading;
    uint256 public maxTradesPerPair = 5;
    uint256 public maxPendingMarketOrders = 5;
    /// @notice Opening fee in 1e10 percent of the leveraged notional (8e8 = 0.08%).
    uint256 public openFeeP = 8e8;
    /// @notice Opening fees collected so far (part of this contract's USDC balance).
    uint256 public feesUSDC;

    Pair[] internal _pairs;

    mapping(address => mapping(uint256 => mapping(uint256 => Trade))) internal _openTrades;
    mapping(address => mapping(uint256 => mapping(uint256 => TradeInfo))) internal _openTradesInfo;
    /// @notice Whether a trade was opened as a zero-fee (PnL-fee) market order.
    mapping(address => mapping(uint256 => mapping(uint256 => bool))) public openPosType;
    mapping(address => mapping(uint256 => uint256)) public openTradesCount;
    mapping(address => mapping(uint256 => uint256)) public pendingMarketOpenCount;
    mapping(address => mapping(uint256 => uint256)) public pendingMarketCloseCount;
    mapping(address => uint256[]) public pendingOrderIds;
    /// @notice Leveraged open interest per pair and side (0 = long, 1 = short), USDC 1e6.
    mapping(uint256 => mapping(uint256 => uint256)) public openInterestUSDC;

    mapping(uint256 => PendingMarketOrder) internal _pendingMarketOrders;
    mapping(uint256 => uint8) internal _pendingOrderKind; // 0 none, 1 open, 2 open (zero fee), 3 close

    event TradingSet(address trading);
    event PairSet(
        uint256 indexed pairIndex, address feed, uint256 minLevPosUSDC, uint256 minLeverage, uint256 maxLeverage
    );
    event NumberUpdated(string name, uint256 value);

    error NotTrading();
    error PairNotListed();
    error InvalidPair();
    error InvalidPrice();

    constructor(address owner_, address usdc_) Ownable(owner_) {
        usdc = IERC20(usdc_);
    }

    modifier onlyTrading() {
        if (msg.sender != trading) revert NotTrading();
        _;
    }

    // ---------------------------------------------------------------- owner configuration

    function setTrading(address trading_) external onlyOwner {
        trading = trading_;
        emit TradingSet(trading_);
    }

    /// @notice List a pair priced by `feed`; returns its pair index. Leverages in 1e10 (2x = 2e10).
    function addPair(address feed, uint256 minLevPosUSDC, uint256 minLeverage, uint256 maxLeverage)
        external
        onlyOwner
        returns (uint256 pairIndex)
    {
        pairIndex = _pairs.length;
        _pairs.push();
        _setPair(pairIndex, feed, minLevPosUSDC, minLeverage, maxLeverage);
    }

    function updatePair(uint256 pairIndex, address feed, uint256 minLevPosUSDC, uint256 minLeverage, uint256 maxLeverage)
        external
        onlyOwner
    {
        if (pairIndex >= _pairs.length) revert PairNotListed();
        _setPair(pairIndex, feed, minLevPosUSDC, minLeverage, maxLeverage);
    }

    function _setPair(uint256 pairIndex, address feed, uint256 minLevPosUSDC, uint256 minLeverage, uint256 maxLeverage)
        internal
    {
        if (feed == address(0) || minLeverage == 0 || minLeverage > maxLeverage) revert InvalidPair();
        _pairs[pairIndex] = Pair({
            feed: feed,
            feedDecimals: IAggregatorV3Like(feed).decimals(),
            minLevPosUSDC: minLevPosUSDC,
            minLeverage: minLeverage,
            maxLeverage: maxLeverage
        });
        emit PairSet(pairIndex, feed, minLevPosUSDC, minLeverage, maxLeverage);
    }

    function setMaxTradesPerPair(uint256 value) external onlyOwner {
        maxTradesPerPair = value;
        emit NumberUpdated("maxTradesPerPair", value);
    }

    function setMaxPendingMarketOrders(uint256 value) external onlyOwner {
        maxPendingMarketOrders = value;
        emit NumberUpdated("maxPendingMarketOrders", value);
    }

    function setOpenFeeP(uint256 value) external onlyOwner {
        openFeeP = value;
        emit NumberUpdated("openFeeP", value);
    }

    /// @notice Send collected opening fees out of the exchange.
    function withdrawFees(address to, uint256 amount) external onlyOwner {
        feesUSDC -= amount;
        usdc.safeTransfer(to, amount);
    }

    // ---------------------------------------------------------------- pair views (PairStorage surface)

    function pairsCount() external view returns (uint256) {
        return _pairs.length;
    }

    function pairMinLevPosUSDC(uint256 pairIndex) external view returns (uint256) {
        return _pair(pairIndex).minLevPosUSDC;
    }

    function pairMinLeverage(uint256 pairIndex, bool) external view returns (uint256) {
        return _pair(pairIndex).minLeverage;
    }

    function pairMaxLeverage(uint256 pairIndex, bool) external view returns (uint256) {
        return _pair(pairIndex).maxLeverage;
    }

    /// @notice The feed a pair is priced by (devnet addition).
    function pairPriceFeed(uint256 pairIndex) external view returns (address) {
        return _pair(pairIndex).feed;
    }

    /// @notice The pair's current price in 1e10 precision, read from its feed (devnet addition).
    function currentPrice(uint256 pairIndex) external view returns (uint256) {
        Pair storage pair = _pair(pairIndex);
        (, int256 answer,,,) = IAggregatorV3Like(pair.feed).latestRoundData();
        if (answer <= 0) revert InvalidPrice();
        uint8 decimals = pair.feedDecimals;
        return decimals <= 10 ? uint256(answer) * 10 ** (10 - decimals) : uint256(answer) / 10 ** (decimals - 10);
    }

    function _pair(uint256 pairIndex) internal view returns (Pair storage) {
        if (pairIndex >= _pairs.length) revert PairNotListed();
        return _pairs[pairIndex];
    }

    // ---------------------------------------------------------------- trade views (TradingStorage surface)

    /// @notice The trade in slot (trader, pairIndex, index); an empty slot has `leverage == 0`.
    function openTrades(address _trader, uint256 _pairIndex, uint256 _index) external view returns (Trade memory) {
        return _openTrades[_trader][_pairIndex][_index];
    }

    function openTradesInfo(address _trader, uint256 _pairIndex, uint256 _index)
        external
        view
        returns (TradeInfo memory)
    {
        return _openTradesInfo[_trader][_pairIndex][_index];
    }

    /// @notice First free slot in `0..maxTradesPerPair-1` (`maxTradesPerPair` when none is free).
    function firstEmptyTradeIndex(address trader, uint256 pairIndex) public view returns (uint256 index) {
        uint256 max = maxTradesPerPair;
        for (index = 0; index < max; index++) {
            if (_openTrades[trader][pairIndex][index].leverage == 0) return index;
        }
    }

    function openLimitOrdersCount(address, uint256) external pure returns (uint256) {
        return 0;
    }

    function pendingOrderIdsCount(address _trader) external view returns (uint256) {
        return pendingOrderIds[_trader].length;
    }

    function getPendingOrderIds(address _trader) external view returns (uint256[] memory) {
        return pendingOrderIds[_trader];
    }

    function reqIDpendingMarketOrder(uint256 orderId) external view returns (PendingMarketOrder memory) {
        return _pendingMarketOrders[orderId];
    }

    /// @notice Whether `orderId` is pending, and if so whether it opens (and with zero fee) or closes (devnet).
    function pendingOrderKind(uint256 orderId) external view returns (bool pending, bool open, bool isPnl) {
        uint8 kind = _pendingOrderKind[orderId];
        return (kind != 0, kind == 1 || kind == 2, kind == 2);
    }

    /// @notice Production TradingStorage names the contract emitting the callback events; here it is Trading.
    function callbacks() external view returns (address) {
        return trading;
    }

    // ---------------------------------------------------------------- mutations (Trading only)

    /// @notice Move USDC: out of this contract when `from` is itself, otherwise pull from `from` (its allowance).
    function transferUSDC(address from, address to, uint256 amount) external onlyTrading {
        if (amount == 0) return;
        if (from == address(this)) usdc.safeTransfer(to, amount);
        else usdc.safeTransferFrom(from, to, amount);
    }

    function chargeFee(address trader, uint256 pairIndex, bool buy, uint256 fee) external onlyTrading {
        feesUSDC += fee;
        emit FeesCharged(trader, pairIndex, buy, fee);
    }

    function storeTrade(Trade memory t, TradeInfo memory info, bool isPnl, uint256 price) external onlyTrading {
        _openTrades[t.trader][t.pairIndex][t.index] = t;
        _openTradesInfo[t.trader][t.pairIndex][t.index] = info;
        openPosType[t.trader][t.pairIndex][t.index] = isPnl;
        openTradesCount[t.trader][t.pairIndex] += 1;
        openInterestUSDC[t.pairIndex][t.buy ? 0 : 1] += info.openInterestUSDC;
        emit OIUpdated(true, t.buy, t.pairIndex, info.openInterestUSDC, price);
    }

    /// @notice Replace a stored trade (collateral and leverage changes); open interest follows the new notional.
    function updateTrade(Trade memory t, uint256 price) external onlyTrading {
        TradeInfo storage info = _openTradesInfo[t.trader][t.pairIndex][t.index];
        uint256 oldOi = info.openInterestUSDC;
        uint256 newOi = t.initialPosToken * t.leverage / PRECISION;
        uint256 side = t.buy ? 0 : 1;
        openInterestUSDC[t.pairIndex][side] = openInterestUSDC[t.pairIndex][side] - oldOi + newOi;
        info.openInterestUSDC = newOi;
        info.beingMarketClosed = false;
        _openTrades[t.trader][t.pairIndex][t.index] = t;
        if (newOi >= oldOi) emit OIUpdated(true, t.buy, t.pairIndex, newOi - oldOi, price);
        else emit OIUpdated(false, t.buy, t.pairIndex, oldOi - newOi, price);
    }

    function unregisterTrade(address trader, uint256 pairIndex, uint256 index, uint256 price) external onlyTrading {
        Trade storage t = _openTrades[trader][pairIndex][index];
        bool buy = t.buy;
        uint256 oi = _openTradesInfo[trader][pairIndex][index].openInterestUSDC;
        openInterestUSDC[pairIndex][buy ? 0 : 1] -= oi;
        openTradesCount[trader][pairIndex] -= 1;
        delete _openTrades[trader][pairIndex][index];
        delete _openTradesInfo[trader][pairIndex][index];
        delete openPosType[trader][pairIndex][index];
        emit OIUpdated(false, buy, pairIndex, oi, price);
    }

    function setBeingMarketClosed(address trader, uint256 pairIndex, uint256 index, bool value) external onlyTrading {
        _openTradesInfo[trader][pairIndex][index].beingMarketClosed = value;
    }

    function storePendingMarketOrder(PendingMarketOrder memory order, uint256 id, bool open, bool isPnl)
        external
        onlyTrading
    {
        address trader = order.trade.trader;
        uint256 pairIndex = order.trade.pairIndex;
        _pendingMarketOrders[id] = order;
        _pendingOrderKind[id] = open ? (isPnl ? 2 : 1) : 3;
        pendingOrderIds[trader].push(id);
        if (open) pendingMarketOpenCount[trader][pairIndex] += 1;
        else pendingMarketCloseCount[trader][pairIndex] += 1;
    }

    function unregisterPendingMarketOrder(uint256 id, bool open) external onlyTrading {
        PendingMarketOrder storage order = _pendingMarketOrders[id];
        address trader = order.trade.trader;
        uint256 pairIndex = order.trade.pairIndex;
        uint256[] storage ids = pendingOrderIds[trader];
        for (uint256 i = 0; i < ids.length; i++) {
            if (ids[i] == id) {
                ids[i] = ids[ids.length - 1];
                ids.pop();
                break;
            }
        }
        if (open) pendingMarketOpenCount[trader][pairIndex] -= 1;
        else pendingMarketCloseCount[trader][pairIndex] -= 1;
        delete _pendingMarketOrders[id];
        delete _pendingOrderKind[id];
    }
}
