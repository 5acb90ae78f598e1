// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
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

/// @notice What the module reads of and asks from the V2 hook that drives it.
interface IClankerHookMevFee {
    function MAX_MEV_LP_FEE() external view returns (uint24);
    function MAX_MEV_MODULE_DELAY() external view returns (uint256);
    function mevModuleSetFee(PoolKey calldata poolKey, uint24 fee) external;
}

/// @title ClankerSniperAuctionV2
/// @notice Devnet counterpart of Clanker's SniperAuctionV2 MEV module, held to the recorded behaviour of the real
///         module (reference/clanker-v4-traces). For each pool, from its launch block L:
///         - rounds of auction: round 1's auction block is L + `blocksBetweenDeploymentAndFirstAuction` (2); before
///           it every swap reverts `NotAuctionBlock()`. In the auction block a swap must carry a bid: the hook's
///           `hookData` is `abi.encode((bytes mevModuleSwapData, bytes poolExtensionSwapData))` with
///           `mevModuleSwapData = abi.encode(address payee)`; a swap without one reverts with empty data (the
///           payee cannot be decoded). The payee pays (tx.gasprice − gasPeg) × `paymentPerGasUnit` WETH
///           (`GasSignalNegative()` below the peg): 20% to the factory, 80% stored for the token's reward recipients
///           in the fee locker by their `rewardBps` (the last recipient takes the rounding remainder, a store is made
///           even of 0). The winning swap pays the starting fee, and the next round's auction block is
///           `blocksBetweenAuction` (2) blocks later (`AuctionReset`), with a gas peg from that block's base fee,
///           until `maxRounds` (5) rounds were won (`AuctionEnded`);
///         - the first swap after an auction block that nobody won ends the rounds (`AuctionExpired`);
///         - the sniper fee then decays parabolically from `startingFee` to `endingFee` over `secondsToDecay`,
///           counted from the last auction's timestamp (the last won round's block, else the launch): each swap
///           asks the hook for it (`mevModuleSetFee`, applied only above the pool's own fee); the first swap after
///           the decay emits `DecayPeriodOver` and has the hook disable the module.
///         gasPeg = basefee × 1.125^blocks (blocks to the auction block), the most the base fee can grow meanwhile.
contract ClankerSniperAuctionV2 is IClankerMevModule, Ownable, ReentrancyGuard {
    using PoolIdLibrary for PoolKey;
    using SafeERC20 for IERC20;

    uint256 public constant FACTORY_PORTION = 2_000;
    uint256 public constant BPS = 10_000;

    struct FeeConfig {
        uint24 startingFee;
        uint24 endingFee;
        uint256 secondsToDecay;
    }

    uint256 public blocksBetweenDeploymentAndFirstAuction = 2;
    uint256 public blocksBetweenAuction = 2;
    uint256 public maxRounds = 5;
    uint256 public paymentPerGasUnit = 1e14;

    mapping(PoolId => uint256) public gasPeg;
    mapping(PoolId => uint256) public nextAuctionBlock;
    mapping(PoolId => uint256) public round;
    mapping(PoolId => FeeConfig) public feeConfig;
    mapping(PoolId => uint256) public poolDecayStartTime;
    /// @dev Timestamp the decay starts from once the rounds end: the launch's, then each won round's.
    mapping(PoolId => uint256) internal _lastAuctionTime;

    address public immutable weth;
    address public immutable factory;
    IClankerFeeLockerDeposit public immutable feeLocker;

    event AuctionInitialized(PoolId indexed poolId, uint256 gasPeg, uint256 indexed auctionBlock, uint256 round);
    event AuctionWon(PoolId indexed poolId, address indexed payee, uint256 paymentAmount, uint256 round);
    event AuctionReset(PoolId indexed poolId, uint256 gasPeg, uint256 indexed auctionBlock, uint256 round);
    event AuctionExpired(PoolId indexed poolId, uint256 round);
    event AuctionEnded(PoolId indexed poolId);
    event AuctionRewardsTransferred(PoolId indexed poolId, uint256 lpPayment, uint256 factoryPayment);
    event FeeConfigSet(PoolId poolId, uint24 startingFee, uint24 endingFee, uint256 secondsToDecay);
    event DecayPeriodOver(PoolId poolId);
    event SetBlocksBetweenDeploymentAndFirstAuction(uint256 oldBlocks, uint256 newBlocks);
    event SetBlocksBetweenAuction(uint256 oldBlocksBetweenAuction, uint256 newBlocksBetweenAuction);
    event SetMaxRounds(uint256 oldMaxRounds, uint256 newMaxRounds);
    event SetPaymentPerGasUnit(uint256 oldPaymentPerGasUnit, uint256 newPaymentPerGasUnit);

    error OnlyHook();
    error NotAuctionBlock();
    error GasSignalNegative();
    error PoolAlreadyInitialized();
    error StartingFeeMustBeGreaterThanZero();
    error StartingFeeMustBeGreaterThanEndingFee();
    error TimeDecayMustBeGreaterThanZero();
    error TimeDecayLongerThanMaxMevDelay();
    error StartingFeeGreaterThanMaxLpFee();

    constructor(address owner_, address factory_, address feeLocker_, address weth_) Ownable(owner_) {
        factory = factory_;
        feeLocker = IClankerFeeLockerDeposit(feeLocker_);
        weth = weth_;
    }

    modifier onlyHook(PoolKey calldata poolKey) {
        if (msg.sender != address(poolKey.hooks)) revert OnlyHook();
        _;
    }

    // ---------------------------------------------------------------- owner settings

    function setBlocksBetweenDeploymentAndFirstAuction(uint256 blocks) external onlyOwner {
        emit SetBlocksBetweenDeploymentAndFirstAuction(blocksBetweenDeploymentAndFirstAuction, blocks);
        blocksBetweenDeploymentAndFirstAuction = blocks;
    }

    function setBlocksBetweenAuction(uint256 blocks) external onlyOwner {
        emit SetBlocksBetweenAuction(blocksBetweenAuction, blocks);
        blocksBetweenAuction = blocks;
    }

    function setMaxRounds(uint256 rounds) external onlyOwner {
        emit SetMaxRounds(maxRounds, rounds);
        maxRounds = rounds;
    }

    function setPaymentPerGasUnit(uint256 payment) external onlyOwner {
        emit SetPaymentPerGasUnit(paymentPerGasUnit, payment);
        paymentPerGasUnit = payment;
    }

    // ---------------------------------------------------------------- views

    /// @notice The LP fee the module would ask for a swap now: 0 for an unknown pool or once the decay is over, the
    ///         starting fee until the decay starts.
    function getFee(PoolId poolId) external view returns (uint24) {
        if (gasPeg[poolId] == 0) return 0;
        uint256 start = poolDecayStartTime[poolId];
        if (start == 0) return feeConfig[poolId].startingFee;
        if (block.timestamp > start + feeConfig[poolId].secondsToDecay) return 0;
        return _decayedFee(poolId);
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IClankerMevModule).interfaceId;
    }

    // ---------------------------------------------------------------- hook callbacks

    function initialize(PoolKey calldata poolKey, bytes calldata mevModuleData) external nonReentrant onlyHook(poolKey) {
        PoolId poolId = poolKey.toId();
        if (gasPeg[poolId] != 0) revert PoolAlreadyInitialized();
        uint256 blocks = blocksBetweenDeploymentAndFirstAuction;
        gasPeg[poolId] = _gasPegOver(blocks);
        nextAuctionBlock[poolId] = block.number + blocks;
        round[poolId] = 1;
        emit AuctionInitialized(poolId, gasPeg[poolId], nextAuctionBlock[poolId], 1);

        FeeConfig memory config = abi.decode(mevModuleData, (FeeConfig));
        _checkFeeConfig(poolKey, config);
        feeConfig[poolId] = config;
        emit FeeConfigSet(poolId, config.startingFee, config.endingFee, config.secondsToDecay);
        _lastAuctionTime[poolId] = block.timestamp;
    }

    /// @return disableMevModule the decay is over: the hook stops consulting the module for this pool
    function beforeSwap(PoolKey calldata poolKey, SwapParams calldata, bool clankerIsToken0, bytes calldata swapData)
        external
        nonReentrant
        onlyHook(poolKey)
        returns (bool disableMevModule)
    {
        PoolId poolId = poolKey.toId();
        if (poolDecayStartTime[poolId] != 0) return _decay(poolKey, poolId);
        uint256 auctionBlock = nextAuctionBlock[poolId];
        if (block.number < auctionBlock) revert NotAuctionBlock();
        if (block.number > auctionBlock) {
            // Nobody won the round: the rounds are over, the decay runs from the last auction.
            emit AuctionExpired(poolId, round[poolId]);
            poolDecayStartTime[poolId] = _lastAuctionTime[poolId];
            return _decay(poolKey, poolId);
        }

        // The auction block: this swap wins the round (its bid decodes, or the swap reverts).
        address payee = abi.decode(swapData, (address));
        int256 gasSignal = int256(tx.gasprice) - int256(gasPeg[poolId]);
        if (gasSignal < 0) revert GasSignalNegative();
        uint256 payment = uint256(gasSignal) * paymentPerGasUnit;
        IERC20(weth).safeTransferFrom(payee, address(this), payment);
        emit AuctionWon(poolId, payee, payment, round[poolId]);
        _distribute(poolKey, poolId, clankerIsToken0, payment);

        IClankerHookMevFee(msg.sender).mevModuleSetFee(poolKey, feeConfig[poolId].startingFee);
        _nextRound(poolId);
        return false;
    }

    // ---------------------------------------------------------------- internals

    function _checkFeeConfig(PoolKey calldata poolKey, FeeConfig memory config) internal view {
        if (config.secondsToDecay == 0) revert TimeDecayMustBeGreaterThanZero();
        if (config.startingFee == 0) revert StartingFeeMustBeGreaterThanZero();
        if (config.startingFee < config.endingFee) revert StartingFeeMustBeGreaterThanEndingFee();
        IClankerHookMevFee hook = IClankerHookMevFee(address(poolKey.hooks));
        if (config.startingFee > hook.MAX_MEV_LP_FEE()) revert StartingFeeGreaterThanMaxLpFee();
        if (config.secondsToDecay > hook.MAX_MEV_MODULE_DELAY()) revert TimeDecayLongerThanMaxMevDelay();
    }

    /// @dev basefee × 1.125^blocks: the highest the base fee can reach `blocks` blocks later.
    function _gasPegOver(uint256 blocks) internal view returns (uint256) {
        return block.basefee * (1125 ** blocks) / (1000 ** blocks);
    }

    function _nextRound(PoolId poolId) internal {
        uint256 next = round[poolId] + 1;
        round[poolId] = next;
        _lastAuctionTime[poolId] = block.timestamp;
        if (next > maxRounds) {
            poolDecayStartTime[poolId] = block.timestamp;
            emit AuctionEnded(poolId);
            return;
        }
        uint256 blocks = blocksBetweenAuction;
        gasPeg[poolId] = _gasPegOver(blocks);
        nextAuctionBlock[poolId] = block.number + blocks;
        emit AuctionReset(poolId, gasPeg[poolId], block.number + blocks, next);
    }

    /// @dev Asks the hook for the decayed fee, or reports the decay over.
    function _decay(PoolKey calldata poolKey, PoolId poolId) internal returns (bool) {
        if (block.timestamp > poolDecayStartTime[poolId] + feeConfig[poolId].secondsToDecay) {
            emit DecayPeriodOver(poolId);
            return true;
        }
        IClankerHookMevFee(msg.sender).mevModuleSetFee(poolKey, _decayedFee(poolId));
        return false;
    }

    /// @dev endingFee + (startingFee − endingFee) × (remaining / secondsToDecay)², with 18 decimals of precision.
    function _decayedFee(PoolId poolId) internal view returns (uint24) {
        FeeConfig storage c = feeConfig[poolId];
        uint256 remaining = c.secondsToDecay - (block.timestamp - poolDecayStartTime[poolId]);
        uint256 fraction = remaining * 1e18 / c.secondsToDecay;
        uint256 squared = fraction * fraction / 1e18;
        return uint24(c.endingFee + uint256(c.startingFee - c.endingFee) * squared / 1e18);
    }

    /// @dev 20% of a winning bid to the factory, 80% to the token's reward recipients through the fee locker.
    function _distribute(PoolKey calldata poolKey, PoolId poolId, bool clankerIsToken0, uint256 payment) internal {
        if (payment == 0) return;
        uint256 factoryPayment = payment * FACTORY_PORTION / BPS;
        uint256 lpPayment = payment - factoryPayment;
        IERC20(weth).safeTransfer(factory, factoryPayment);

        address token = Currency.unwrap(clankerIsToken0 ? poolKey.currency0 : poolKey.currency1);
        address locker = IClankerDeploymentInfo(factory).tokenDeploymentInfo(token).locker;
        IClankerLpLocker.TokenRewardInfo memory rewards = IClankerLpLockerRewards(locker).tokenRewards(token);
        uint256 n = rewards.rewardBps.length;
        IERC20(weth).forceApprove(address(feeLocker), lpPayment);
        uint256 given = 0;
        for (uint256 i = 0; i < n; i++) {
            uint256 share = i == n - 1 ? lpPayment - given : rewards.rewardBps[i] * lpPayment / BPS;
            given += share;
            feeLocker.storeFees(rewards.rewardRecipients[i], weth, share);
        }
        emit AuctionRewardsTransferred(poolId, lpPayment, factoryPayment);
    }
}
