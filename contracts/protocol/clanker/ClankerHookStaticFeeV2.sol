// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PoolId} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

import {ClankerHookV2} from "./ClankerHookV2.sol";

/// @title ClankerHookStaticFeeV2
/// @notice Devnet counterpart of Clanker's static-fee V2 hook (Base `0xb429d62f8f3bFFb98CdB9569533eA23bF0Ba28CC`),
///         written from reference/production.md §2 (what every V2 hook does: ClankerHookV2).
///         `feeData` is `abi.encode(uint24 clankerFee, uint24 pairedFee)` in Uniswap pips, each at most `MAX_LP_FEE`
///         (10%; above it `ClankerFeeTooHigh()` / `PairedFeeTooHigh()`). `beforeSwap` sets the LP fee by direction:
///         `pairedFee` when the paired token is the input (a buy), `clankerFee` when the launched token is the input
///         (a sell).
contract ClankerHookStaticFeeV2 is ClankerHookV2 {
    struct PoolFees {
        uint24 clankerFee;
        uint24 pairedFee;
    }

    mapping(PoolId => PoolFees) internal _fees;

    constructor(address poolManager_, address factory_) ClankerHookV2(poolManager_, factory_) {}

    /// @notice The pool's LP fee on sells (`clankerFee`) and on buys (`pairedFee`), in pips.
    function poolFees(PoolId poolId) external view returns (PoolFees memory) {
        return _fees[poolId];
    }

    function _setFeeData(PoolId poolId, bytes memory feeData) internal override {
        (uint24 clankerFee, uint24 pairedFee) = abi.decode(feeData, (uint24, uint24));
        if (clankerFee > MAX_LP_FEE) revert ClankerFeeTooHigh();
        if (pairedFee > MAX_LP_FEE) revert PairedFeeTooHigh();
        _fees[poolId] = PoolFees({clankerFee: clankerFee, pairedFee: pairedFee});
    }

    function _emitPoolInitialized(PoolId poolId) internal override {
        PoolFees storage f = _fees[poolId];
        emit PoolInitialized(poolId, f.clankerFee, f.pairedFee);
    }

    function _lpFee(PoolKey calldata, PoolId poolId, SwapParams calldata, bool paired) internal view override returns (uint24) {
        return paired ? _fees[poolId].pairedFee : _fees[poolId].clankerFee;
    }
}
