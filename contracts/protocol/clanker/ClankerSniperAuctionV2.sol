// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

import {IClanker} from "./IClanker.sol";
import {IClankerMevModule} from "./IClankerHook.sol";
import {IClankerFeeLockerDeposit, IClankerLpLocker} from "./IClankerLpLocker.sol";

interface IClankerDeploymentInfo {
    function tokenDeploymentInfo(address token) external view returns (IClanker.DeploymentInfo memory);
}

interface IClankerLpLockerRewards {
    function tokenRewards(address token) external view returns (IClankerLpLocker.TokenRewardInfo memory);
}

/// @title ClankerSniperAuctionV2
/// @notice Devnet counterpart of Clanker's SniperAuctionV2 MEV module (Base `0xebB25BB797D82CB78E1bc70406b13233c0854413`),
///         written from reference/production.md §3. For each pool it runs, from the launch block L:
///         - blocks L..L+2: every swap reverts `NotAuctionBlock()` (the launch block and the two after it);
///         - block L+3, the auction block: the first swap naming a bid in its hookData
///           (`abi.encode(AuctionBid(payee, amount))`, payee = the transaction's origin) wins the auction; the payee
///           pays `amount` WETH, 80% of it stored for the reward recipients in the fee locker by their `rewardBps`
///           (`storeFees(recipient, WETH, …)`, the last recipient taking the rounding remainder; no `ClaimedRewards`),
///           20% to the factory. When the first swap after the no-trade blocks comes later or names no bid, nobody
///           won: `AuctionExpired`. Either way the auction then ends (`AuctionEnded`);
///         - from the first swap after the no-trade blocks, the LP fee is a sniper fee decaying linearly from
///           `startingFee` at the launch to `endingFee` at `secondsToDecay` after it; the first swap after that emits
///           `DecayPeriodOver` and tells the hook to disable the module (`MevModuleDisabled`).
/// @dev Production sizes bids by the transaction's priority fee; here a bid is named in hookData. One auction round.
contract ClankerSniperAuctionV2 is IClankerMevModule {
    using PoolIdLibrary for PoolKey;
    using SafeERC20 for IERC20;

    /// @notice Blocks after the launch block in which no swap is allowed.
    uint256 public constant BLOCKS_BEFORE_AUCTION = 2;
    uint256 public constant LP_SHARE_BPS = 8_000;
    uint256 public constant BPS = 10_000;
    uint24 public constant MIN_FEE = 30_000;
    uint24 public constant MAX_FEE = 800_000;
    uint256 public constant MAX_DECAY_SECONDS = 120;

    struct FeeConfig {
        uint24 startingFee;
        uint24 endingFee;
        uint256 secondsToDecay;
    }

    struct AuctionBid {
        address payee;
        uint256 amount;
    }

    struct PoolState {
        address hook;
        address token;
        uint64 launchBlock;
        uint64 launchTimestamp;
        bool auctionOver;
        uint24 startingFee;
        uint24 endingFee;
        uint32 secondsToDecay;
    }

    address public immutable factory;
    IERC20 public immutable weth;
    IClankerFeeLockerDeposit public immutable feeLocker;

    mapping(PoolId => PoolState) public pools;

    event AuctionInitialized(PoolId poolId, uint256 gasPeg, uint256 auctionBlock, uint256 round);
    event AuctionWon(PoolId indexed poolId, address indexed payee, uint256 paymentAmount, uint256 round);
    event AuctionRewardsTransferred(PoolId indexed poolId, uint256 lpPayment, uint256 factoryPayment);
    event AuctionExpired(PoolId poolId, uint256 round);
    event AuctionEnded(PoolId poolId);
    event FeeConfigSet(PoolId poolId, uint24 startingFee, uint24 endingFee, uint256 secondsToDecay);
    event DecayPeriodOver(PoolId poolId);

    error NotAuctionBlock();
    error OnlyHook();
    error AlreadyInitialized();
    error InvalidFeeConfig();
    error PayeeNotOrigin();

    constructor(address factory_, address weth_, address feeLocker_) {
        factory = factory_;
        weth = IERC20(weth_);
        feeLocker = IClankerFeeLockerDeposit(feeLocker_);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IClankerMevModule).interfaceId || interfaceId == 0x01ffc9a7; // IERC165
    }

    /// @notice First block in which `poolId` accepts a swap (its auction block).
    function auctionBlock(PoolId poolId) public view returns (uint256) {
        return uint256(pools[poolId].launchBlock) + BLOCKS_BEFORE_AUCTION + 1;
    }

    /// @notice The sniper fee a swap now would pay (0 once the decay is over).
    function currentFee(PoolId poolId) public view returns (uint24) {
        PoolState storage s = pools[poolId];
        uint256 elapsed = block.timestamp - s.launchTimestamp;
        if (elapsed >= s.secondsToDecay) return 0;
        return uint24(s.startingFee - (uint256(s.startingFee - s.endingFee) * elapsed) / s.secondsToDecay);
    }

    function initialize(PoolKey calldata poolKey, bytes calldata mevModuleData) external {
        PoolId poolId = poolKey.toId();
        PoolState storage s = pools[poolId];
        if (s.hook != address(0)) revert AlreadyInitialized();
        if (msg.sender != address(poolKey.hooks)) revert OnlyHook();
        FeeConfig memory config = abi.decode(mevModuleData, (FeeConfig));
        if (
            config.startingFee > MAX_FEE || config.endingFee < MIN_FEE || config.endingFee >= config.startingFee
                || config.secondsToDecay == 0 || config.secondsToDecay > MAX_DECAY_SECONDS
        ) revert InvalidFeeConfig();

        // The launched token is whichever currency the factory recorded a deployment for.
        address token0 = Currency.unwrap(poolKey.currency0);
        IClanker.DeploymentInfo memory info = _deploymentInfo(token0);
        address token = info.token == token0 ? token0 : Currency.unwrap(poolKey.currency1);

        pools[poolId] = PoolState({
            hook: msg.sender,
            token: token,
            launchBlock: uint64(block.number),
            launchTimestamp: uint64(block.timestamp),
            auctionOver: false,
            startingFee: config.startingFee,
            endingFee: config.endingFee,
            secondsToDecay: uint32(config.secondsToDecay)
        });
        emit FeeConfigSet(poolId, config.startingFee, config.endingFee, config.secondsToDecay);
        emit AuctionInitialized(poolId, block.basefee, auctionBlock(poolId), 1);
    }

    function beforeSwap(PoolKey calldata poolKey, SwapParams calldata, bool, bytes calldata swapData)
        external
        returns (bool disableMevModule, uint24 fee)
    {
        PoolId poolId = poolKey.toId();
        PoolState storage s = pools[poolId];
        if (msg.sender != s.hook) revert OnlyHook();
        if (block.number < auctionBlock(poolId)) revert NotAuctionBlock();

        if (!s.auctionOver) {
            s.auctionOver = true;
            AuctionBid memory bid;
            if (swapData.length > 0) bid = abi.decode(swapData, (AuctionBid));
            if (block.number == auctionBlock(poolId) && bid.amount > 0) _settleAuction(poolId, s.token, bid);
            else emit AuctionExpired(poolId, 1);
            emit AuctionEnded(poolId);
        }

        fee = currentFee(poolId);
        if (fee == 0) {
            emit DecayPeriodOver(poolId);
            return (true, 0);
        }
        return (false, fee);
    }

    function _settleAuction(PoolId poolId, address token, AuctionBid memory bid) internal {
        if (bid.payee != tx.origin) revert PayeeNotOrigin();
        weth.safeTransferFrom(bid.payee, address(this), bid.amount);
        uint256 lpPayment = bid.amount * LP_SHARE_BPS / BPS;
        uint256 factoryPayment = bid.amount - lpPayment;
        emit AuctionWon(poolId, bid.payee, bid.amount, 1);

        IClanker.DeploymentInfo memory info = _deploymentInfo(token);
        IClankerLpLocker.TokenRewardInfo memory rewards = IClankerLpLockerRewards(info.locker).tokenRewards(token);
        uint256 remaining = lpPayment;
        uint256 n = rewards.rewardRecipients.length;
        for (uint256 i = 0; i < n; i++) {
            uint256 share = i == n - 1 ? remaining : lpPayment * rewards.rewardBps[i] / BPS;
            remaining -= share;
            if (share == 0) continue;
            weth.forceApprove(address(feeLocker), share);
            feeLocker.storeFees(rewards.rewardRecipients[i], address(weth), share);
        }
        if (factoryPayment > 0) weth.safeTransfer(factory, factoryPayment);
        emit AuctionRewardsTransferred(poolId, lpPayment, factoryPayment);
    }

    function _deploymentInfo(address token) internal view returns (IClanker.DeploymentInfo memory info) {
        try IClankerDeploymentInfo(factory).tokenDeploymentInfo(token) returns (IClanker.DeploymentInfo memory found) {
            return found;
        } catch {
            return info;
        }
    }
}
