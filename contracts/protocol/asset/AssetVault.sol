// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {ERC4626} from "@openzeppelin/contracts/token/ERC20/extensions/ERC4626.sol";

/// @title AssetVault
/// @notice ERC-4626 staking vault over the secondary asset: "Staked Secondary Asset", symbol "st" + the asset's
///         symbol, OpenZeppelin's standard implementation with no fees and no lockup. Stands in for the production
///         staking vault; the service only uses the ERC-4626 surface (`deposit`, `balanceOf`, `convertToAssets`,
///         the `Deposit` event).
contract AssetVault is ERC4626 {
    constructor(IERC20Metadata asset_)
        ERC20("Staked Secondary Asset", string.concat("st", asset_.symbol()))
        ERC4626(asset_)
    {}
}
