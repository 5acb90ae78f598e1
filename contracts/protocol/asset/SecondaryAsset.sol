// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @title SecondaryAsset
/// @notice Devnet stand-in for the secondary asset the service accumulates: a plain 18-decimal ERC20 the owner
///         (the devnet deployer) can mint, e.g. to seed its USDC pool. In production this is an existing token.
contract SecondaryAsset is ERC20, Ownable {
    constructor(string memory name_, string memory symbol_, address owner_) ERC20(name_, symbol_) Ownable(owner_) {}

    function mint(address to, uint256 amount) external onlyOwner {
        _mint(to, amount);
    }
}
