// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";

import {IClanker} from "../protocol/clanker/IClanker.sol";
import {IClankerExtension} from "../protocol/clanker/IClankerHook.sol";

/// @notice A launch extension for the devnet: during `deployToken` the factory hands it `extensionBps` of the supply,
///         which it pulls and passes on to the address its `extensionData` names (`abi.encode(address)`). It takes no
///         ETH. It exercises the factory's extension path (supply split, `ExtensionTriggered`) the way production's
///         extensions (vault, airdrop, dev buy) are driven.
contract DevnetAllocationExtension is IClankerExtension {
    address public immutable factory;

    event Allocated(address indexed token, address indexed recipient, uint256 amount, uint256 extensionIndex);

    error OnlyFactory();
    error NoEthAccepted();

    constructor(address factory_) {
        factory = factory_;
    }

    function receiveTokens(
        IClanker.DeploymentConfig calldata deploymentConfig,
        PoolKey memory,
        address token,
        uint256 extensionSupply,
        uint256 extensionIndex
    ) external payable {
        if (msg.sender != factory) revert OnlyFactory();
        if (msg.value != 0) revert NoEthAccepted();
        address recipient = abi.decode(deploymentConfig.extensionConfigs[extensionIndex].extensionData, (address));
        IERC20(token).transferFrom(factory, recipient, extensionSupply);
        emit Allocated(token, recipient, extensionSupply, extensionIndex);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IClankerExtension).interfaceId || interfaceId == 0x01ffc9a7;
    }
}
