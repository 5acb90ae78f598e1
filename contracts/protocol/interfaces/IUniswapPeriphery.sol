// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The part of Uniswap v4's PositionManager (v4-periphery `src/PositionManager.sol`) the LP locker uses.
/// @dev Declared locally because v4-periphery's full interface imports `permit2/` sources outside our remappings.
interface IV4PositionManagerLike {
    function modifyLiquidities(bytes calldata unlockData, uint256 deadline) external payable;
    function modifyLiquiditiesWithoutUnlock(bytes calldata actions, bytes[] calldata params) external payable;
    function nextTokenId() external view returns (uint256);
    function getPositionLiquidity(uint256 tokenId) external view returns (uint128 liquidity);
}

/// @notice The part of Permit2's AllowanceTransfer the LP locker uses to let the PositionManager pull tokens.
interface IPermit2AllowanceLike {
    function approve(address token, address spender, uint160 amount, uint48 expiration) external;
}

/// @notice Chainlink AggregatorV3-style price feed (our devnet `PriceFeed`, Chainlink on Base).
interface IAggregatorV3Like {
    function decimals() external view returns (uint8);
    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound);
}
