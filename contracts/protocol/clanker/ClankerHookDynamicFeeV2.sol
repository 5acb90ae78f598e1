// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {StateLibrary} from "@uniswap/v4-core/src/libraries/StateLibrary.sol";
import {PoolId} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

import {ClankerHookV2} from "./ClankerHookV2.sol";

/// @title ClankerHookDynamicFeeV2
/// @notice Devnet counterpart of Clanker's dynamic-fee V2 hook (Base `0xd60D6B218116cFd801E28F78d011a203D2b068Cc`,
///         clanker-sdk `fees: { type: "dynamic" }`): everything a V2 hook does (ClankerHookV2: protocol fee, fee
///         collection, MEV module) with an LP fee that rises with the pool's volatility.
///
///         `feeData` is clanker-sdk's `abi.encode(uint24 baseFee, uint24 maxLpFee, uint256 referenceTickFilterPeriod,
///         uint256 resetPeriod, int24 resetTickFilter, uint256 feeControlNumerator, uint24 decayFilterBps)` (fees in
///         pips; `PoolDynamicConfigVars`). It is refused when `baseFee` is below `MIN_BASE_FEE` (`BaseFeeTooLow()`),
///         `maxLpFee` above `MAX_LP_FEE` (`MaxLpFeeTooHigh()`), `baseFee` above `maxLpFee`
///         (`BaseFeeGreaterThanMaxLpFee()`) or `decayFilterBps` above 10_000 (`InvalidDecayFilterBps()`).
///
///         The fee curve, the same in both directions:
///             fee = min(baseFee + feeControlNumerator * volatilityAccumulator² / 10_000_000_000, maxLpFee)
///         with the volatility accumulator in ticks, updated before every swap at the pool's current tick:
///         - once `referenceTickFilterPeriod` seconds have passed since the reference tick was set, the reference
///           moves to the current tick and the volatility carried over becomes the last accumulator times
///           `decayFilterBps / 10_000`;
///         - once `resetPeriod` seconds have passed since the last reset check, the carried-over volatility is zeroed
///           when the tick has moved less than `resetTickFilter` ticks since that check (a calm pool); the check's
///           tick and time move to now either way;
///         - accumulator = carried-over volatility + |current tick - reference tick|.
///
///         Simplified against production (stated as such, on purpose):
///         - production also estimates the swap's own price impact (the tick the swap would end at) and adds it to the
///           accumulator before charging; here a swap pays for the movement of the swaps before it only, so the first
///           swap after a calm period pays `baseFee` whatever its size;
///         - the reference tick, reset tick and their times start at the first swap (not at the launch), and the
///           hook emits no event of its own about the fee (the PoolManager's `Swap.fee` reports it).
contract ClankerHookDynamicFeeV2 is ClankerHookV2 {
    using StateLibrary for IPoolManager;

    /// @notice `feeControlNumerator`'s denominator.
    uint256 public constant FEE_CONTROL_DENOMINATOR = 10_000_000_000;
    /// @notice Least base fee (0.25%, clanker-sdk's lower bound of 25 bps).
    uint24 public constant MIN_BASE_FEE = 2_500;
    uint256 public constant BPS = 10_000;

    struct PoolDynamicConfigVars {
        uint24 baseFee;
        uint24 maxLpFee;
        uint256 referenceTickFilterPeriod;
        uint256 resetPeriod;
        int24 resetTickFilter;
        uint256 feeControlNumerator;
        uint24 decayFilterBps;
    }

    struct PoolDynamicFeeVars {
        int24 referenceTick;
        int24 resetTick;
        uint64 referenceTickTimestamp;
        uint64 resetTickTimestamp;
        /// @dev Volatility carried over from before the reference tick (ticks).
        uint256 volatilityReference;
        /// @dev The accumulator of the last swap (ticks).
        uint256 volatilityAccumulator;
    }

    mapping(PoolId => PoolDynamicConfigVars) internal _config;
    mapping(PoolId => PoolDynamicFeeVars) internal _vars;

    error BaseFeeTooLow();
    error MaxLpFeeTooHigh();
    error BaseFeeGreaterThanMaxLpFee();
    error InvalidDecayFilterBps();

    constructor(address poolManager_, address factory_) ClankerHookV2(poolManager_, factory_) {}

    /// @notice The pool's fee curve, as launched.
    function poolConfigVars(PoolId poolId) external view returns (PoolDynamicConfigVars memory) {
        return _config[poolId];
    }

    /// @notice The pool's volatility state after its last swap.
    function poolFeeVars(PoolId poolId) external view returns (PoolDynamicFeeVars memory) {
        return _vars[poolId];
    }

    /// @notice The fee of an accumulator value, by the pool's curve.
    function feeAt(PoolId poolId, uint256 volatilityAccumulator) public view returns (uint24) {
        PoolDynamicConfigVars storage c = _config[poolId];
        uint256 fee = uint256(c.baseFee)
            + c.feeControlNumerator * volatilityAccumulator * volatilityAccumulator / FEE_CONTROL_DENOMINATOR;
        return fee > c.maxLpFee ? c.maxLpFee : uint24(fee);
    }

    function _setFeeData(PoolId poolId, bytes memory feeData) internal override {
        PoolDynamicConfigVars memory c = abi.decode(feeData, (PoolDynamicConfigVars));
        if (c.baseFee < MIN_BASE_FEE) revert BaseFeeTooLow();
        if (c.maxLpFee > MAX_LP_FEE) revert MaxLpFeeTooHigh();
        if (c.baseFee > c.maxLpFee) revert BaseFeeGreaterThanMaxLpFee();
        if (c.decayFilterBps > BPS) revert InvalidDecayFilterBps();
        _config[poolId] = c;
    }

    /// @dev The static hook's `PoolInitialized(poolId, clankerFee, pairedFee)`, with the curve's floor and ceiling.
    function _emitPoolInitialized(PoolId poolId) internal override {
        PoolDynamicConfigVars storage c = _config[poolId];
        emit PoolInitialized(poolId, c.baseFee, c.maxLpFee);
    }

    function _lpFee(PoolKey calldata, PoolId poolId, SwapParams calldata, bool) internal override returns (uint24) {
        PoolDynamicConfigVars storage c = _config[poolId];
        PoolDynamicFeeVars storage v = _vars[poolId];
        (, int24 tick,,) = poolManager.getSlot0(poolId);

        if (block.timestamp >= uint256(v.referenceTickTimestamp) + c.referenceTickFilterPeriod) {
            v.volatilityReference = v.volatilityAccumulator * c.decayFilterBps / BPS;
            v.referenceTick = tick;
            v.referenceTickTimestamp = uint64(block.timestamp);
        }
        if (block.timestamp >= uint256(v.resetTickTimestamp) + c.resetPeriod) {
            if (v.resetTickTimestamp != 0 && _distance(tick, v.resetTick) < _abs(c.resetTickFilter)) v.volatilityReference = 0;
            v.resetTick = tick;
            v.resetTickTimestamp = uint64(block.timestamp);
        }
        uint256 accumulator = v.volatilityReference + _distance(tick, v.referenceTick);
        v.volatilityAccumulator = accumulator;
        return feeAt(poolId, accumulator);
    }

    function _distance(int24 a, int24 b) internal pure returns (uint256) {
        return a > b ? uint256(int256(a) - int256(b)) : uint256(int256(b) - int256(a));
    }

    function _abs(int24 a) internal pure returns (uint256) {
        return a < 0 ? uint256(-int256(a)) : uint256(int256(a));
    }
}
