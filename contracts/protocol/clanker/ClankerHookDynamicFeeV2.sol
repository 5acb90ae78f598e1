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
///         collection, MEV module) with an LP fee that rises with the pool's volatility, as the published source's
///         (replayed against its recorded behaviour: test/contracts/clanker-replay.test.ts).
///
///         `feeData` is clanker-sdk's `abi.encode(uint24 baseFee, uint24 maxLpFee, uint256 referenceTickFilterPeriod,
///         uint256 resetPeriod, int24 resetTickFilter, uint256 feeControlNumerator, uint24 decayFilterBps)` (fees in
///         pips; `PoolDynamicConfigVars`). It is refused when `baseFee` is below `MIN_BASE_FEE` (`BaseFeeTooLow()`),
///         `maxLpFee` above `MAX_LP_FEE` (`MaxLpFeeTooHigh()`), `baseFee` above `maxLpFee`
///         (`BaseFeeGreaterThanMaxLpFee()`) or `decayFilterBps` above 10_000 (`InvalidDecayFilterBps()`, a devnet
///         bound). The launch emits the curve: `PoolInitialized(poolId, baseFee, maxLpFee, …)`.
///
///         The fee of a swap, set before anything else in its `beforeSwap`:
///             fee = min(baseFee + feeControlNumerator * volatilityAccumulator² / 10_000_000_000, maxLpFee)
///         with the accumulator in ticks, from the pool's tick before the swap (`tickBefore`):
///         - more than `referenceTickFilterPeriod` seconds after the last swap, the reference tick and the reset tick
///           move to `tickBefore` and the carried-over volatility (`appliedVR`) becomes the last swap's accumulator
///           times `decayFilterBps / 10_000` when that swap is less than `resetPeriod` old, else 0; the pool's fee is
///           set to that volatility's fee meanwhile;
///         - otherwise, more than `resetPeriod` seconds after the reset tick was set: if the tick has moved more than
///           `resetTickFilter` from it, only the reset tick moves to `tickBefore`; else the pool calmed down: the
///           reference and reset ticks move to `tickBefore`, `appliedVR` is zeroed and the fee set to `baseFee`;
///         - the swap is then simulated at the pool's current fee (its protocol fee taken as the hook will take it)
///           and reverted, for the tick it ends at (`EstimatedTickDifference(tickBefore, tickAfter)`);
///         - accumulator = |referenceTick − tickAfter| + appliedVR (capped at 2^24 − 1), kept as `prevVA`.
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
        uint256 resetTickTimestamp;
        uint256 lastSwapTimestamp;
        /// @dev Volatility carried over from before the reference tick (ticks).
        uint24 appliedVR;
        /// @dev The accumulator of the last swap (ticks).
        uint24 prevVA;
    }

    mapping(PoolId => PoolDynamicConfigVars) internal _config;
    mapping(PoolId => PoolDynamicFeeVars) internal _vars;

    event PoolInitialized(
        PoolId poolId,
        uint24 baseFee,
        uint24 maxLpFee,
        uint256 referenceTickFilterPeriod,
        uint256 resetPeriod,
        int24 resetTickFilter,
        uint256 feeControlNumerator,
        uint24 decayFilterBps
    );
    event EstimatedTickDifference(int24 beforeTick, int24 afterTick);

    error BaseFeeTooLow();
    error MaxLpFeeTooHigh();
    error BaseFeeGreaterThanMaxLpFee();
    error InvalidDecayFilterBps();
    /// @dev How the simulated swap reports the tick it ends at (always reverted).
    error TickReturned(int24 tick);

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

    function _emitPoolInitialized(PoolId poolId) internal override {
        PoolDynamicConfigVars storage c = _config[poolId];
        emit PoolInitialized(
            poolId,
            c.baseFee,
            c.maxLpFee,
            c.referenceTickFilterPeriod,
            c.resetPeriod,
            c.resetTickFilter,
            c.feeControlNumerator,
            c.decayFilterBps
        );
    }

    function _lpFee(PoolKey calldata key, PoolId poolId, SwapParams calldata params, bool) internal override returns (uint24) {
        PoolDynamicConfigVars storage c = _config[poolId];
        PoolDynamicFeeVars storage v = _vars[poolId];
        (, int24 tickBefore,,) = poolManager.getSlot0(poolId);

        if (v.lastSwapTimestamp + c.referenceTickFilterPeriod < block.timestamp) {
            v.referenceTick = tickBefore;
            v.resetTick = tickBefore;
            v.resetTickTimestamp = block.timestamp;
            uint256 carried = v.lastSwapTimestamp + c.resetPeriod > block.timestamp ? uint256(v.prevVA) * c.decayFilterBps / BPS : 0;
            v.appliedVR = carried > type(uint24).max ? type(uint24).max : uint24(carried);
            _setFee(key, feeAt(poolId, v.appliedVR));
        } else if (v.resetTickTimestamp + c.resetPeriod < block.timestamp) {
            if (_distance(tickBefore, v.resetTick) > _abs(c.resetTickFilter)) {
                v.resetTick = tickBefore;
                v.resetTickTimestamp = block.timestamp;
            } else {
                v.referenceTick = tickBefore;
                v.resetTick = tickBefore;
                v.resetTickTimestamp = block.timestamp;
                v.appliedVR = 0;
                _setFee(key, c.baseFee);
            }
        }
        v.lastSwapTimestamp = block.timestamp;

        int24 tickAfter = _simulatedTick(key, params);
        uint256 accumulator = _distance(v.referenceTick, tickAfter) + v.appliedVR;
        v.prevVA = accumulator > type(uint24).max ? type(uint24).max : uint24(accumulator);
        emit EstimatedTickDifference(tickBefore, tickAfter);
        return feeAt(poolId, v.prevVA);
    }

    /// @dev The tick the swap would end at, at the pool's current fee: the swap run and reverted (`simulateSwap`).
    function _simulatedTick(PoolKey calldata key, SwapParams calldata params) internal returns (int24 tickAfter) {
        try this.simulateSwap(key, params) {
            revert("simulate swap should fail");
        } catch (bytes memory reason) {
            if (reason.length != 36 || bytes4(reason) != TickReturned.selector) revert("returned selector should be TickReturned");
            assembly {
                tickAfter := signextend(2, mload(add(reason, 36)))
            }
        }
    }

    /// @notice The hook's own simulation of a swap (only the hook may call it; it always reverts `TickReturned`):
    ///         the specified amount less (an exact-input buy) or plus (an exact-output sell) the protocol fee the hook
    ///         will take from it, swapped from the hook itself (so no hook runs), then the pool's tick.
    function simulateSwap(PoolKey calldata key, SwapParams memory params) external {
        require(msg.sender == address(this), "simulateSwap can only be called by the hook");
        bool clankerIsToken0 = _state[key.toId()].clankerIsToken0;
        bool specifiedIsToken0 = (params.amountSpecified < 0) == params.zeroForOne;
        if (specifiedIsToken0 != clankerIsToken0) {
            bool exactInput = params.amountSpecified < 0;
            uint256 rate = protocolFee;
            int256 scaled = int256(exactInput ? rate * 1e18 / (FEE_DENOMINATOR + rate) : rate * 1e18 / (FEE_DENOMINATOR - rate));
            // An exact-input buy swaps less (amountSpecified < 0 grows towards 0); an exact-output sell asks more.
            params.amountSpecified += exactInput ? -params.amountSpecified * scaled / 1e18 : params.amountSpecified * scaled / 1e18;
        }
        poolManager.swap(key, params, "");
        (, int24 tick,,) = poolManager.getSlot0(key.toId());
        revert TickReturned(tick);
    }

    function _distance(int24 a, int24 b) internal pure returns (uint256) {
        return a > b ? uint256(int256(a) - int256(b)) : uint256(int256(b) - int256(a));
    }

    function _abs(int24 a) internal pure returns (uint256) {
        return a < 0 ? uint256(-int256(a)) : uint256(int256(a));
    }
}
