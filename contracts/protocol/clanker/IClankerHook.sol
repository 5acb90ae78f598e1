// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PoolId} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

import {IClanker} from "./IClanker.sol";

/// @title IClankerHook
/// @notice What the factory, the LP locker and the MEV module see of a Clanker v4 pool hook, with the hook's events
///         exactly as production emits them (reference/production.md §2).
interface IClankerHook {
    /// @notice V2 hooks' `poolData`: `abi.encode(PoolInitializationData)`; `feeData` is the static-fee hook's
    ///         `abi.encode(uint24 clankerFee, uint24 pairedFee)`.
    struct PoolInitializationData {
        address extension;
        bytes extensionData;
        bytes feeData;
    }

    event PoolCreatedFactory(
        address indexed pairedToken,
        address indexed clanker,
        PoolId poolId,
        int24 tickIfToken0IsClanker,
        int24 tickSpacing,
        address locker,
        address mevModule
    );
    event PoolInitialized(PoolId poolId, uint24 clankerFee, uint24 pairedFee);
    event PoolExtensionRegistered(PoolId indexed poolId, address indexed extension);
    event ClaimProtocolFees(address indexed token, uint256 amount);
    event MevModuleDisabled(PoolId);
    event MevModuleSetFee(PoolId, uint24);

    error OnlyFactory();
    error UnsupportedInitializePath();
    error PoolExtensionNotEnabled();
    error ClankerFeeTooHigh();
    error PairedFeeTooHigh();
    error MevModuleAlreadyInitialized();

    /// @notice Creates and initialises the pool of a freshly deployed token (factory only).
    function initializePool(
        address clanker,
        address pairedToken,
        int24 tickIfToken0IsClanker,
        int24 tickSpacing,
        address locker,
        address mevModule,
        bytes calldata poolData
    ) external returns (PoolKey memory);

    /// @notice Hands the MEV module its launch data, once the liquidity is placed (factory only).
    function initializeMevModule(PoolKey calldata poolKey, bytes calldata mevModuleData) external;

    /// @notice True while the pool's MEV module runs: enabled, and the pool younger than two minutes.
    function mevModuleOperating(PoolId poolId) external view returns (bool);

    /// @notice Answers as production's V2 hooks: true for IClankerHook as the published source declares it
    ///         (0x13caa09c, which the factory's `setHook` checks) and for IClankerHookV2 (0x85f82179); false for IERC165.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool);
}

/// @title IClankerMevModule
/// @notice A MEV module as the hook drives it: initialised once per pool, consulted before every swap.
interface IClankerMevModule {
    function initialize(PoolKey calldata poolKey, bytes calldata mevModuleData) external;

    /// @notice Consulted before every swap while the module runs; `swapData` is the `mevModuleSwapData` of the
    ///         swap's hookData. A fee the module imposes goes through the hook's `mevModuleSetFee`.
    /// @return disableMevModule the module is done with this pool (the hook stops consulting it)
    function beforeSwap(PoolKey calldata poolKey, SwapParams calldata swapParams, bool clankerIsToken0, bytes calldata swapData)
        external
        returns (bool disableMevModule);

    /// @notice ERC-165: true for this interface (the factory's `setMevModule` checks it).
    function supportsInterface(bytes4 interfaceId) external pure returns (bool);
}

/// @title IClankerExtension
/// @notice A launch extension (production `IClankerExtension`): enabled on the factory with `setExtension`, it
///         receives `extensionBps` of the supply (and its `msgValue`) during `deployToken`.
interface IClankerExtension {
    function receiveTokens(
        IClanker.DeploymentConfig calldata deploymentConfig,
        PoolKey memory poolKey,
        address token,
        uint256 extensionSupply,
        uint256 extensionIndex
    ) external payable;

    /// @notice ERC-165: true for this interface (the factory's `setExtension` checks it).
    function supportsInterface(bytes4 interfaceId) external pure returns (bool);
}

/// @notice The LP locker's collection entry point the hook calls on every swap.
interface IClankerLpLockerCollect {
    function collectRewardsWithoutUnlock(address token) external;
}
