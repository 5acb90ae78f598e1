// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice USDC stand-in for the devnet: 6 decimals, mintable by its owner (the devnet operator).
contract DevnetUSDC is ERC20 {
    address public immutable owner;

    constructor() ERC20("USD Coin", "USDC") {
        owner = msg.sender;
    }

    function decimals() public pure override returns (uint8) {
        return 6;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == owner, "only owner");
        _mint(to, amount);
    }
}
