// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";

/// @title ClankerFeeLocker
/// @notice Devnet mirror of Clanker's fee locker (Base `0xF3622742b1E446D92e45E22923Ef11C2fcD55D68`,
///         clanker-devco/v4-contracts `src/ClankerFeeLocker.sol`). Allowed depositors (the LP lockers) store fees
///         per (fee owner, currency); balances are pooled across every clanker token that paid that owner in that
///         currency. Anyone may `claim(feeOwner, token)`, which pays the whole balance to the fee owner.
/// @dev Same selectors, events and errors as production. `ClaimTokensPermissioned`, `ClaimAmountTooHigh()` and
///      `InvalidRecipient()` are declared (they are in the production ABI, from its interface) but, as in the
///      published source, no function raises or emits them. A token transfer that returns false reverts
///      `TransferFailed()` (production); one that reverts or returns nothing on claim reverts through SafeERC20.
contract ClankerFeeLocker is Ownable, ReentrancyGuard {
    using SafeERC20 for IERC20;

    mapping(address feeOwner => mapping(address token => uint256 balance)) public feesToClaim;
    mapping(address depositor => bool allowed) public allowedDepositors;

    event StoreTokens(
        address indexed sender, address indexed feeOwner, address indexed token, uint256 balance, uint256 amount
    );
    event ClaimTokens(address indexed feeOwner, address indexed token, uint256 amountClaimed);
    event ClaimTokensPermissioned(
        address indexed feeOwner, address indexed token, address recipient, uint256 amountClaimed
    );
    event AddDepositor(address indexed depositor);

    error Unauthorized();
    error NoFeesToClaim();
    error ClaimAmountTooHigh();
    error InvalidRecipient();
    error TransferFailed();

    constructor(address owner_) Ownable(owner_) {}

    function addDepositor(address depositor) external onlyOwner {
        allowedDepositors[depositor] = true;
        emit AddDepositor(depositor);
    }

    /// @notice Pull `amount` of `token` from the depositor and credit `feeOwner` with what actually arrived.
    /// @dev `StoreTokens.balance` is the owner's new unclaimed balance, `amount` the requested amount.
    function storeFees(address feeOwner, address token, uint256 amount) external nonReentrant {
        if (!allowedDepositors[msg.sender]) revert Unauthorized();
        uint256 balanceBefore = IERC20(token).balanceOf(address(this));
        if (!IERC20(token).transferFrom(msg.sender, address(this), amount)) revert TransferFailed();
        uint256 received = IERC20(token).balanceOf(address(this)) - balanceBefore;
        uint256 balance = feesToClaim[feeOwner][token] + received;
        feesToClaim[feeOwner][token] = balance;
        emit StoreTokens(msg.sender, feeOwner, token, balance, amount);
    }

    /// @notice Pay `feeOwner` its whole balance of `token`. Anyone may call; reverts `NoFeesToClaim()` when empty.
    function claim(address feeOwner, address token) external nonReentrant {
        uint256 balance = feesToClaim[feeOwner][token];
        if (balance == 0) revert NoFeesToClaim();
        feesToClaim[feeOwner][token] = 0;
        IERC20(token).safeTransfer(feeOwner, balance);
        emit ClaimTokens(feeOwner, token, balance);
    }

    function availableFees(address feeOwner, address token) external view returns (uint256) {
        return feesToClaim[feeOwner][token];
    }

    /// @notice ERC-165 over the fee locker's production interface (`storeFees`, `claim`, `addDepositor`,
    ///         `availableFees`, `supportsInterface`).
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId
            == (
                this.storeFees.selector ^ this.claim.selector ^ this.addDepositor.selector ^ this.availableFees.selector
                    ^ this.supportsInterface.selector
            );
    }
}
