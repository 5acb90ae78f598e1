// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";
import {Actions} from "@uniswap/v4-periphery/src/libraries/Actions.sol";
import {LiquidityAmounts} from "@uniswap/v4-periphery/src/libraries/LiquidityAmounts.sol";

import {IPermit2AllowanceLike, IV4PositionManagerLike} from "../interfaces/IUniswapPeriphery.sol";
import {IClanker} from "./IClanker.sol";
import {IClankerFeeLockerDeposit, IClankerLpLocker} from "./IClankerLpLocker.sol";

/// @notice The UniversalRouter entry point (Uniswap universal-router `IUniversalRouter.execute`).
interface IUniversalRouterLike {
    function execute(bytes calldata commands, bytes[] calldata inputs, uint256 deadline) external payable;
}

/// @notice Whether a pool's MEV module still runs (the Clanker hook's view).
interface IClankerHookMevState {
    function mevModuleOperating(PoolId poolId) external view returns (bool);
}

/// @title ClankerLpLocker
/// @notice Devnet mirror of Clanker's LP locker with fee conversion (ClankerLpLockerFeeConversion, Base
///         `0x63D2DfEA64b3433F4071A98665bcD7Ca14d93496`, clanker-devco/v4-contracts
///         `src/lp-lockers/ClankerLpLockerFeeConversion.sol`). Same selectors, events and `TokenRewardInfo` layout.
///
///         At launch the factory hands over the pool supply; the locker mints one Uniswap v4 position per configured
///         range through the real PositionManager (MINT_POSITION ×n + SETTLE_PAIR, paid through Permit2), all
///         single-sided in the token, mirroring the ticks when the token is currency1, and keeps the NFTs forever.
///         `collectRewards(token)` (anyone) pulls the LP fees of every position (DECREASE_LIQUIDITY 0 + TAKE_PAIR),
///         splits each currency by `rewardBps`, converts the share of recipients who asked for the other currency
///         (`FeeIn.Paired` converts the token side into the paired token, `FeeIn.Clanker` the reverse) by swapping in
///         the token's own pool, deposits everything in the fee locker (`storeFees`), and emits one `ClaimedRewards`.
///
/// @dev Rounding and accounting (production's; what `ClaimedRewards` reports is exactly what was stored in the fee
///      locker):
///      - Per currency, every recipient who keeps that currency receives `rewardBps[i] * amount / 10000`, rounded
///        down. The rest (the converting recipients' shares plus the rounding dust) is converted; when nobody
///        converts, the last recipient who keeps the currency takes its share plus the dust.
///      - Each converting recipient but the last receives `rewardBps[i] * amountOut / 10000` of the conversion's
///        output, and the last converting recipient everything left of it (production: when some recipients keep
///        the currency, the last converter thus receives more than its bps share).
///      - The conversion is an exact-input swap of the whole amount in the token's own pool down to the global price
///        limit, as production. Outside a swap (`collectRewards`) it goes through the UniversalRouter (V4_SWAP:
///        SWAP_EXACT_IN_SINGLE, SETTLE_ALL, TAKE_ALL; paid through Permit2), so the pool's `Swap.sender` is the
///        router. Inside a swap (the hook's `collectRewardsWithoutUnlock`) the PoolManager is already unlocked and
///        the locker swaps on it directly. `FeesSwapped(token, rewardToken, amountSwapped, swappedToken, amountOut)`
///        reports the amount handed to the swap and the output received. As production: through the router the
///        conversion asks a minimum output of 1 (TAKE_ALL's minimum), so a conversion that yields nothing reverts
///        `V4TooLittleReceived(1, 0)` and with it the whole `collectRewards`; input the pool cannot absorb (it runs
///        out of liquidity before the limit) is not paid and stays in the locker, credited to nobody (SETTLE_ALL
///        pays the debt only). Inside a swap the locker pays the whole input and takes whatever came out (0
///        included), so a partial fill leaves the PoolManager an unsettled credit and the outer swap reverts
///        (`CurrencyNotSettled`).
///      The pool hook collects on every swap (`collectRewardsWithoutUnlock`, inside the swap's unlock: the fees come
///      out through `modifyLiquiditiesWithoutUnlock`); nothing is collected while the pool's MEV module operates.
///      Devnet differences: empty `lockerData` means `FeeIn.Both` for every recipient; out-of-range fee preferences
///      at the launch revert with a named error; a conversion of 0 (nothing left to convert) is skipped without a swap
///      or `FeesSwapped` (production's swap of 0 would revert).
contract ClankerLpLocker is IClankerLpLocker, ReentrancyGuard, Ownable {
    using SafeERC20 for IERC20;
    using PoolIdLibrary for PoolKey;

    string public constant version = "1";
    uint256 public constant BASIS_POINTS = 10_000;
    uint256 public constant MAX_REWARD_PARTICIPANTS = 7;
    uint256 public constant MAX_LP_POSITIONS = 7;
    /// @dev UniversalRouter command: a v4 swap (universal-router `Commands.V4_SWAP`).
    uint256 internal constant V4_SWAP = 0x10;

    IPoolManager public immutable poolManager;
    IV4PositionManagerLike public immutable positionManager;
    IPermit2AllowanceLike public immutable permit2;
    IClankerFeeLockerDeposit public immutable feeLocker;
    /// @notice The Uniswap UniversalRouter fee conversions go through outside a swap.
    address public immutable universalRouter;
    address public immutable factory;

    /// @dev Guard against recursive collection (production skips silently).
    bool internal _inCollect;
    /// @dev The collection in progress runs inside a swap (`collectRewardsWithoutUnlock`).
    bool internal _withoutUnlock;

    mapping(address token => TokenRewardInfo info) internal _tokenRewards;
    mapping(address token => FeeIn[] feePreference) public feePreferences;

    /// @dev Same encoding as `LpFeeConversionInfo`, decoded as integers so bad values get a named error.
    struct RawFeePreferences {
        uint8[] feePreference;
    }

    /// @dev Shared inputs of the MINT_POSITION actions of one launch.
    struct MintContext {
        PoolKey poolKey;
        bool tokenIsToken0;
        uint160 startingPrice;
    }

    /// @dev v4-periphery `IV4Router.ExactInputSingleParams`, the UniversalRouter's SWAP_EXACT_IN_SINGLE input.
    struct ExactInputSingleParams {
        PoolKey poolKey;
        bool zeroForOne;
        uint128 amountIn;
        uint128 amountOutMinimum;
        bytes hookData;
    }

    /// @dev Working state of one currency's fee handling.
    struct FeeSplit {
        address rewardToken;
        address otherToken;
        FeeIn convertPreference;
        uint256 convertBps;
        uint256 toConvert;
        uint256[] rewardArray;
        uint256[] otherArray;
    }

    constructor(
        address owner_,
        address factory_,
        address feeLocker_,
        address positionManager_,
        address permit2_,
        address universalRouter_,
        address poolManager_
    ) Ownable(owner_) {
        factory = factory_;
        universalRouter = universalRouter_;
        feeLocker = IClankerFeeLockerDeposit(feeLocker_);
        positionManager = IV4PositionManagerLike(positionManager_);
        permit2 = IPermit2AllowanceLike(permit2_);
        poolManager = IPoolManager(poolManager_);
    }

    // ---------------------------------------------------------------- views

    function tokenRewards(address token) external view returns (TokenRewardInfo memory) {
        return _tokenRewards[token];
    }

    // ---------------------------------------------------------------- launch

    /// @notice Lock the pool supply of a freshly launched token (factory only; production signature).
    function placeLiquidity(
        IClanker.LockerConfig memory lockerConfig,
        IClanker.PoolConfig memory poolConfig,
        PoolKey memory poolKey,
        uint256 poolSupply,
        address token
    ) external nonReentrant returns (uint256 positionId) {
        if (msg.sender != factory) revert Unauthorized();
        if (_tokenRewards[token].positionId != 0) revert TokenAlreadyHasRewards();

        FeeIn[] memory preferences = _decodeFeePreferences(lockerConfig.lockerData, lockerConfig.rewardBps.length);
        _validateRewards(lockerConfig, preferences.length);

        IERC20(token).safeTransferFrom(msg.sender, address(this), poolSupply);
        positionId = _mintLiquidity(lockerConfig, poolConfig, poolKey, poolSupply, token);

        TokenRewardInfo storage info = _tokenRewards[token];
        info.token = token;
        info.poolKey = poolKey;
        info.positionId = positionId;
        info.numPositions = lockerConfig.tickLower.length;
        info.rewardBps = lockerConfig.rewardBps;
        info.rewardAdmins = lockerConfig.rewardAdmins;
        info.rewardRecipients = lockerConfig.rewardRecipients;
        feePreferences[token] = preferences;

        // Production's order: the preferences, then the rewards.
        emit InitialFeePreferences(token, preferences);
        _emitTokenRewardAdded(info, lockerConfig, poolSupply);
    }

    function _decodeFeePreferences(bytes memory lockerData, uint256 recipients)
        internal
        pure
        returns (FeeIn[] memory preferences)
    {
        if (lockerData.length == 0) return new FeeIn[](recipients);
        uint8[] memory raw = abi.decode(lockerData, (RawFeePreferences)).feePreference;
        preferences = new FeeIn[](raw.length);
        for (uint256 i = 0; i < raw.length; i++) {
            if (raw[i] > uint8(FeeIn.Clanker)) revert InvalidFeePreference();
            preferences[i] = FeeIn(raw[i]);
        }
    }

    function _validateRewards(IClanker.LockerConfig memory lockerConfig, uint256 preferenceCount) internal pure {
        uint256 n = lockerConfig.rewardBps.length;
        if (n != lockerConfig.rewardAdmins.length || n != lockerConfig.rewardRecipients.length || n != preferenceCount)
        {
            revert MismatchedRewardArrays();
        }
        if (n > MAX_REWARD_PARTICIPANTS) revert TooManyRewardParticipants();
        if (n == 0) revert NoRewardRecipients();
        uint256 total = 0;
        for (uint256 i = 0; i < n; i++) {
            if (lockerConfig.rewardBps[i] == 0) revert ZeroRewardAmount();
            if (lockerConfig.rewardAdmins[i] == address(0) || lockerConfig.rewardRecipients[i] == address(0)) {
                revert ZeroRewardAddress();
            }
            total += lockerConfig.rewardBps[i];
        }
        if (total != BASIS_POINTS) revert InvalidRewardBps();
    }

    function _validatePositions(IClanker.LockerConfig memory lockerConfig, IClanker.PoolConfig memory poolConfig)
        internal
        pure
    {
        uint256 n = lockerConfig.tickLower.length;
        if (n != lockerConfig.tickUpper.length || n != lockerConfig.positionBps.length) {
            revert MismatchedPositionInfos();
        }
        if (n == 0) revert NoPositions();
        if (n > MAX_LP_POSITIONS) revert TooManyPositions();
        uint256 total = 0;
        for (uint256 i = 0; i < n; i++) {
            int24 lower = lockerConfig.tickLower[i];
            int24 upper = lockerConfig.tickUpper[i];
            if (lower >= upper) revert TicksBackwards();
            if (lower < TickMath.MIN_TICK || upper > TickMath.MAX_TICK) revert TicksOutOfTickBounds();
            if (lower % poolConfig.tickSpacing != 0 || upper % poolConfig.tickSpacing != 0) {
                revert TicksNotMultipleOfTickSpacing();
            }
            if (lower < poolConfig.tickIfToken0IsClanker) revert TickRangeLowerThanStartingTick();
            total += lockerConfig.positionBps[i];
        }
        if (total != BASIS_POINTS) revert InvalidPositionBps();
    }

    /// @dev Mints every position in one PositionManager call; position ids are consecutive from `nextTokenId()`.
    ///      Each position holds floor(supply · `positionBps[i]` / 10000), as production: the rounding remainder (and
    ///      what the liquidity maths leaves) stays in the locker.
    function _mintLiquidity(
        IClanker.LockerConfig memory lockerConfig,
        IClanker.PoolConfig memory poolConfig,
        PoolKey memory poolKey,
        uint256 poolSupply,
        address token
    ) internal returns (uint256 positionId) {
        _validatePositions(lockerConfig, poolConfig);

        uint256 n = lockerConfig.tickLower.length;
        MintContext memory ctx;
        ctx.poolKey = poolKey;
        ctx.tokenIsToken0 = token == Currency.unwrap(poolKey.currency0);
        ctx.startingPrice = TickMath.getSqrtPriceAtTick(
            ctx.tokenIsToken0 ? poolConfig.tickIfToken0IsClanker : -poolConfig.tickIfToken0IsClanker
        );

        bytes memory actions;
        bytes[] memory params = new bytes[](n + 1);
        for (uint256 i = 0; i < n; i++) {
            uint256 amount = poolSupply * lockerConfig.positionBps[i] / BASIS_POINTS;
            params[i] = _mintParams(ctx, lockerConfig.tickLower[i], lockerConfig.tickUpper[i], amount);
            actions = abi.encodePacked(actions, uint8(Actions.MINT_POSITION));
        }
        actions = abi.encodePacked(actions, uint8(Actions.SETTLE_PAIR));
        params[n] = abi.encode(poolKey.currency0, poolKey.currency1);

        IERC20(token).forceApprove(address(permit2), poolSupply);
        permit2.approve(token, address(positionManager), uint160(poolSupply), uint48(block.timestamp));

        positionId = positionManager.nextTokenId();
        positionManager.modifyLiquidities(abi.encode(actions, params), block.timestamp);
    }

    /// @dev MINT_POSITION parameters for one range given as if the token were currency0; mirrored otherwise.
    function _mintParams(MintContext memory ctx, int24 configLower, int24 configUpper, uint256 amount)
        internal
        view
        returns (bytes memory)
    {
        (int24 lower, int24 upper) = ctx.tokenIsToken0 ? (configLower, configUpper) : (-configUpper, -configLower);
        uint256 amount0 = ctx.tokenIsToken0 ? amount : 0;
        uint256 amount1 = ctx.tokenIsToken0 ? 0 : amount;
        uint256 liquidity = LiquidityAmounts.getLiquidityForAmounts(
            ctx.startingPrice, TickMath.getSqrtPriceAtTick(lower), TickMath.getSqrtPriceAtTick(upper), amount0, amount1
        );
        return abi.encode(
            ctx.poolKey, lower, upper, liquidity, uint128(amount0), uint128(amount1), address(this), bytes("")
        );
    }

    function _emitTokenRewardAdded(
        TokenRewardInfo storage info,
        IClanker.LockerConfig memory lockerConfig,
        uint256 poolSupply
    ) internal {
        emit TokenRewardAdded(
            info.token,
            info.poolKey,
            poolSupply,
            info.positionId,
            info.numPositions,
            lockerConfig.rewardBps,
            lockerConfig.rewardAdmins,
            lockerConfig.rewardRecipients,
            lockerConfig.tickLower,
            lockerConfig.tickUpper,
            lockerConfig.positionBps
        );
    }

    // ---------------------------------------------------------------- fee collection

    /// @notice Collect the LP fees of every position of `token`, convert as requested and store them in the fee
    ///         locker. Anyone may call; emits `ClaimedRewards` even when nothing accrued. While the pool's MEV module
    ///         operates (production: pool younger than two minutes, module not yet disabled) and on re-entry, it
    ///         returns without doing or emitting anything.
    function collectRewards(address token) external {
        _collectRewards(token, false);
    }

    /// @notice The same from inside a swap (the PoolManager already unlocked), as the token's pool hook calls it
    ///         from its `beforeSwap`. Open to anyone, as production: while the MEV module runs it does nothing; outside a
    ///         swap the PoolManager refuses it (`ManagerLocked()`). An unknown token reverts with no data, as
    ///         production's read of the MEV state of a pool whose hook is the zero address.
    function collectRewardsWithoutUnlock(address token) external {
        if (_tokenRewards[token].positionId == 0) revert();
        _collectRewards(token, true);
    }

    function _collectRewards(address token, bool withoutUnlock) internal {
        TokenRewardInfo memory info = _tokenRewards[token];
        if (info.positionId == 0) revert TokenNotFound();
        if (_inCollect) return;
        if (_mevModuleOperating(info.poolKey)) return;
        _inCollect = true;
        _withoutUnlock = withoutUnlock;

        (uint256 amount0, uint256 amount1) = _bringFeesIntoContract(info.poolKey, info.positionId, info.numPositions);

        uint256[] memory rewards0 = new uint256[](info.rewardBps.length);
        uint256[] memory rewards1 = new uint256[](info.rewardBps.length);
        FeeIn[] memory preferences = feePreferences[token];
        if (amount0 > 0) _handleFees(info, preferences, true, amount0, rewards0, rewards1);
        if (amount1 > 0) _handleFees(info, preferences, false, amount1, rewards0, rewards1);

        _inCollect = false;
        _withoutUnlock = false;
        emit ClaimedRewards(token, _sum(rewards0), _sum(rewards1), rewards0, rewards1);
    }

    function _mevModuleOperating(PoolKey memory poolKey) internal view returns (bool) {
        if (address(poolKey.hooks) == address(0)) return false;
        return IClankerHookMevState(address(poolKey.hooks)).mevModuleOperating(poolKey.toId());
    }

    function _bringFeesIntoContract(PoolKey memory poolKey, uint256 positionId, uint256 numPositions)
        internal
        returns (uint256 amount0, uint256 amount1)
    {
        bytes memory actions;
        bytes[] memory params = new bytes[](numPositions + 1);
        for (uint256 i = 0; i < numPositions; i++) {
            actions = abi.encodePacked(actions, uint8(Actions.DECREASE_LIQUIDITY));
            params[i] = abi.encode(positionId + i, uint256(0), uint128(0), uint128(0), bytes(""));
        }
        actions = abi.encodePacked(actions, uint8(Actions.TAKE_PAIR));
        params[numPositions] = abi.encode(poolKey.currency0, poolKey.currency1, address(this));

        IERC20 token0 = IERC20(Currency.unwrap(poolKey.currency0));
        IERC20 token1 = IERC20(Currency.unwrap(poolKey.currency1));
        uint256 before0 = token0.balanceOf(address(this));
        uint256 before1 = token1.balanceOf(address(this));
        if (_withoutUnlock) positionManager.modifyLiquiditiesWithoutUnlock(actions, params);
        else positionManager.modifyLiquidities(abi.encode(actions, params), block.timestamp);
        amount0 = token0.balanceOf(address(this)) - before0;
        amount1 = token1.balanceOf(address(this)) - before1;
    }

    /// @dev Splits `amount` of one pool currency among the recipients; see the contract notes for rounding.
    function _handleFees(
        TokenRewardInfo memory info,
        FeeIn[] memory preferences,
        bool rewardIsToken0,
        uint256 amount,
        uint256[] memory rewards0,
        uint256[] memory rewards1
    ) internal {
        FeeSplit memory split;
        split.rewardToken = Currency.unwrap(rewardIsToken0 ? info.poolKey.currency0 : info.poolKey.currency1);
        split.otherToken = Currency.unwrap(rewardIsToken0 ? info.poolKey.currency1 : info.poolKey.currency0);
        split.convertPreference = split.rewardToken == info.token ? FeeIn.Paired : FeeIn.Clanker;
        split.rewardArray = rewardIsToken0 ? rewards0 : rewards1;
        split.otherArray = rewardIsToken0 ? rewards1 : rewards0;
        split.toConvert = amount;

        uint256 lastKeeper = 0;
        for (uint256 i = 0; i < preferences.length; i++) {
            if (preferences[i] == split.convertPreference) split.convertBps += info.rewardBps[i];
            else lastKeeper = i;
        }

        for (uint256 i = 0; i < preferences.length; i++) {
            if (preferences[i] == split.convertPreference) continue;
            if (split.convertBps == 0 && i == lastKeeper) continue;
            uint256 share = info.rewardBps[i] * amount / BASIS_POINTS;
            split.toConvert -= share;
            _credit(info.rewardRecipients[i], split.rewardToken, share, split.rewardArray, i);
        }

        if (split.convertBps == 0) {
            // Nobody converts this currency: the last keeper takes its share plus the rounding dust.
            _credit(info.rewardRecipients[lastKeeper], split.rewardToken, split.toConvert, split.rewardArray, lastKeeper);
            return;
        }

        if (split.toConvert == 0) return;
        uint256 received = _convert(info, split.rewardToken, split.otherToken, split.toConvert);
        _creditConverters(info, preferences, split, received);
        // Production's order: the converters' shares stored, then the conversion reported.
        emit FeesSwapped(info.token, split.rewardToken, split.toConvert, split.otherToken, received);
    }

    /// @dev Stores the conversion's output among the converting recipients: `rewardBps[i] / 10000` of it to each but
    ///      the last, the rest to the last (production).
    function _creditConverters(
        TokenRewardInfo memory info,
        FeeIn[] memory preferences,
        FeeSplit memory split,
        uint256 amountOut
    ) internal {
        uint256 last = 0;
        for (uint256 i = 0; i < preferences.length; i++) {
            if (preferences[i] == split.convertPreference) last = i;
        }
        // As production: one approval of the whole output (0 included), then each converter's share stored.
        IERC20(split.otherToken).forceApprove(address(feeLocker), amountOut);
        uint256 distributed = 0;
        for (uint256 i = 0; i < last; i++) {
            if (preferences[i] != split.convertPreference) continue;
            uint256 share = info.rewardBps[i] * amountOut / BASIS_POINTS;
            distributed += share;
            _store(info.rewardRecipients[i], split.otherToken, share, split.otherArray, i);
        }
        _store(info.rewardRecipients[last], split.otherToken, amountOut - distributed, split.otherArray, last);
    }

    /// @dev Stores `amount` (approved already) for `recipient` in the fee locker; nothing when 0.
    function _store(address recipient, address currency, uint256 amount, uint256[] memory rewards, uint256 index) internal {
        if (amount == 0) return;
        rewards[index] += amount;
        feeLocker.storeFees(recipient, currency, amount);
    }

    function _credit(address recipient, address currency, uint256 amount, uint256[] memory rewards, uint256 index)
        internal
    {
        if (amount == 0) return;
        rewards[index] += amount;
        IERC20(currency).forceApprove(address(feeLocker), amount);
        feeLocker.storeFees(recipient, currency, amount);
    }

    /// @dev Exact-input swap of `amountIn` of `tokenIn` for `tokenOut` in the token's pool, down to the global price
    ///      limit: through the UniversalRouter outside a swap, on the unlocked PoolManager inside one. Returns the
    ///      output received.
    function _convert(TokenRewardInfo memory info, address tokenIn, address tokenOut, uint256 amountIn)
        internal
        returns (uint256 received)
    {
        bool zeroForOne = tokenIn == Currency.unwrap(info.poolKey.currency0);
        uint256 outBefore = IERC20(tokenOut).balanceOf(address(this));
        if (_withoutUnlock) _swapUnlocked(info.poolKey, zeroForOne, amountIn);
        else _swapThroughRouter(info.poolKey, zeroForOne, tokenIn, tokenOut, amountIn);
        received = IERC20(tokenOut).balanceOf(address(this)) - outBefore;
    }

    /// @dev UniversalRouter V4_SWAP: SWAP_EXACT_IN_SINGLE, SETTLE_ALL (pays what the swap consumed, through Permit2),
    ///      TAKE_ALL (the output to this locker, at least 1: `V4TooLittleReceived(1, 0)` otherwise).
    function _swapThroughRouter(PoolKey memory key, bool zeroForOne, address tokenIn, address tokenOut, uint256 amountIn)
        internal
    {
        bytes memory actions =
            abi.encodePacked(uint8(Actions.SWAP_EXACT_IN_SINGLE), uint8(Actions.SETTLE_ALL), uint8(Actions.TAKE_ALL));
        bytes[] memory params = new bytes[](3);
        params[0] = abi.encode(
            ExactInputSingleParams({
                poolKey: key,
                zeroForOne: zeroForOne,
                amountIn: uint128(amountIn),
                amountOutMinimum: 0,
                hookData: ""
            })
        );
        params[1] = abi.encode(tokenIn, amountIn);
        params[2] = abi.encode(tokenOut, uint256(1));
        bytes[] memory inputs = new bytes[](1);
        inputs[0] = abi.encode(actions, params);

        IERC20(tokenIn).forceApprove(address(permit2), amountIn);
        permit2.approve(tokenIn, universalRouter, uint160(amountIn), uint48(block.timestamp));
        IUniversalRouterLike(universalRouter).execute(abi.encodePacked(uint8(V4_SWAP)), inputs, block.timestamp);
    }

    /// @dev Inside a swap the PoolManager is unlocked: swap, pay the whole input (a partial fill leaves a credit the
    ///      PoolManager refuses at the end of the unlock), take the output, even 0.
    function _swapUnlocked(PoolKey memory key, bool zeroForOne, uint256 amountIn) internal {
        BalanceDelta delta = poolManager.swap(
            key,
            SwapParams({
                zeroForOne: zeroForOne,
                amountSpecified: -int256(amountIn),
                sqrtPriceLimitX96: zeroForOne ? TickMath.MIN_SQRT_PRICE + 1 : TickMath.MAX_SQRT_PRICE - 1
            }),
            ""
        );
        int128 outDelta = zeroForOne ? delta.amount1() : delta.amount0();
        Currency currencyIn = zeroForOne ? key.currency0 : key.currency1;
        Currency currencyOut = zeroForOne ? key.currency1 : key.currency0;
        poolManager.sync(currencyIn);
        IERC20(Currency.unwrap(currencyIn)).safeTransfer(address(poolManager), amountIn);
        poolManager.settle();
        poolManager.take(currencyOut, address(this), uint256(uint128(outDelta)));
    }

    function _sum(uint256[] memory values) internal pure returns (uint256 total) {
        for (uint256 i = 0; i < values.length; i++) {
            total += values[i];
        }
    }

    // ---------------------------------------------------------------- reward administration

    /// @notice Reward updates check only the sender, as production: no zero-address check, and an index past the
    ///         rewards panics (0x32) on the array read.
    function updateRewardRecipient(address token, uint256 rewardIndex, address newRecipient) external {
        TokenRewardInfo storage info = _rewardInfoForAdmin(token, rewardIndex);
        address oldRecipient = info.rewardRecipients[rewardIndex];
        info.rewardRecipients[rewardIndex] = newRecipient;
        emit RewardRecipientUpdated(token, rewardIndex, oldRecipient, newRecipient);
    }

    function updateRewardAdmin(address token, uint256 rewardIndex, address newAdmin) external {
        TokenRewardInfo storage info = _rewardInfoForAdmin(token, rewardIndex);
        address oldAdmin = info.rewardAdmins[rewardIndex];
        info.rewardAdmins[rewardIndex] = newAdmin;
        emit RewardAdminUpdated(token, rewardIndex, oldAdmin, newAdmin);
    }

    /// @notice `newFeePreference` is the `FeeIn` enum (a uint8 in the ABI): a value past `Clanker` is refused by the
    ///         ABI decoder, with no data.
    function updateFeePreference(address token, uint256 rewardIndex, FeeIn newFeePreference) external {
        _rewardInfoForAdmin(token, rewardIndex);
        FeeIn oldFeePreference = feePreferences[token][rewardIndex];
        feePreferences[token][rewardIndex] = newFeePreference;
        emit FeePreferenceUpdated(token, rewardIndex, oldFeePreference, newFeePreference);
    }

    /// @dev Only `rewardAdmins[rewardIndex]` may change entry `rewardIndex`.
    function _rewardInfoForAdmin(address token, uint256 rewardIndex)
        internal
        view
        returns (TokenRewardInfo storage info)
    {
        info = _tokenRewards[token];
        if (msg.sender != info.rewardAdmins[rewardIndex]) revert Unauthorized();
    }

    // ---------------------------------------------------------------- misc (production surface)

    /// @notice Position NFTs may only arrive from the factory (production rule); minted ones never call this.
    function onERC721Received(address, address from, uint256 id, bytes calldata) external returns (bytes4) {
        if (from != factory) revert Unauthorized();
        emit Received(from, id);
        return this.onERC721Received.selector;
    }

    function withdrawETH(address recipient) external onlyOwner nonReentrant {
        (bool ok,) = payable(recipient).call{value: address(this).balance}("");
        require(ok, "ETH transfer failed");
    }

    function withdrawERC20(address token, address recipient) external onlyOwner nonReentrant {
        IERC20(token).safeTransfer(recipient, IERC20(token).balanceOf(address(this)));
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IERC721Receiver).interfaceId || interfaceId == type(IClankerLpLocker).interfaceId;
    }
}
