// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";

import {IClanker} from "./IClanker.sol";

/// @title IClankerLpLocker
/// @notice Types, events and errors of Clanker's ClankerLpLockerFeeConversion as deployed on Base
///         (clanker-devco/v4-contracts `src/interfaces/IClankerLpLocker.sol`, `IClankerLpLockerFeeConversion.sol`;
///         clanker-sdk `ClankerLocker_v4_abi`). Event signatures and the `TokenRewardInfo` tuple order are exact.
interface IClankerLpLocker {
    /// @notice Currency a reward recipient wants its LP fees in.
    enum FeeIn {
        Both, // keep each currency as earned
        Paired, // convert the clanker-token side into the paired token
        Clanker // convert the paired-token side into the clanker token
    }

    /// @notice `lockerData` of the FeeConversion locker: `abi.encode(LpFeeConversionInfo)`, a tuple around the array.
    struct LpFeeConversionInfo {
        FeeIn[] feePreference;
    }

    struct TokenRewardInfo {
        address token;
        PoolKey poolKey;
        uint256 positionId;
        uint256 numPositions;
        uint16[] rewardBps;
        address[] rewardAdmins;
        address[] rewardRecipients;
    }

    event TokenRewardAdded(
        address token,
        PoolKey poolKey,
        uint256 poolSupply,
        uint256 positionId,
        uint256 numPositions,
        uint16[] rewardBps,
        address[] rewardAdmins,
        address[] rewardRecipients,
        int24[] tickLower,
        int24[] tickUpper,
        uint16[] positionBps
    );
    event InitialFeePreferences(address indexed token, FeeIn[] feePreference);
    event ClaimedRewards(
        address indexed token, uint256 amount0, uint256 amount1, uint256[] rewards0, uint256[] rewards1
    );
    event FeesSwapped(
        address indexed token,
        address indexed rewardToken,
        uint256 amountSwapped,
        address indexed swappedToken,
        uint256 amountOut
    );
    event FeePreferenceUpdated(
        address indexed token, uint256 indexed rewardIndex, FeeIn oldFeePreference, FeeIn indexed newFeePreference
    );
    event RewardRecipientUpdated(
        address indexed token, uint256 indexed rewardIndex, address oldRecipient, address newRecipient
    );
    event RewardAdminUpdated(address indexed token, uint256 indexed rewardIndex, address oldAdmin, address newAdmin);
    event Received(address indexed from, uint256 positionId);

    error Unauthorized();
    error TokenAlreadyHasRewards();
    error MismatchedRewardArrays();
    error TooManyRewardParticipants();
    error NoRewardRecipients();
    error ZeroRewardAmount();
    error InvalidRewardBps();
    error ZeroRewardAddress();
    error MismatchedPositionInfos();
    error NoPositions();
    error TooManyPositions();
    error TicksBackwards();
    error TicksOutOfTickBounds();
    error TicksNotMultipleOfTickSpacing();
    error TickRangeLowerThanStartingTick();
    error InvalidPositionBps();
    /// @notice Devnet addition: a fee preference outside {Both, Paired, Clanker}.
    error InvalidFeePreference();
    /// @notice Devnet addition: the token has no locked liquidity in this locker.
    error TokenNotFound();
    /// @notice Devnet addition: a reward index past the end of the recipients array.
    error InvalidRewardIndex();

    /// @notice Lock the pool supply of a freshly launched token (factory only).
    function placeLiquidity(
        IClanker.LockerConfig memory lockerConfig,
        IClanker.PoolConfig memory poolConfig,
        PoolKey memory poolKey,
        uint256 poolSupply,
        address token
    ) external returns (uint256 positionId);

    function collectRewards(address token) external;

    function collectRewardsWithoutUnlock(address token) external;

    function tokenRewards(address token) external view returns (TokenRewardInfo memory);

    /// @notice ERC-165: true for this interface (the factory's `setLocker` checks it) and for IERC721Receiver.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool);
}

/// @notice The fee locker's deposit entry point, as the LP locker calls it.
interface IClankerFeeLockerDeposit {
    function storeFees(address feeOwner, address token, uint256 amount) external;
}
