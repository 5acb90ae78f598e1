// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {Hooks} from "@uniswap/v4-core/src/libraries/Hooks.sol";
import {LPFeeLibrary} from "@uniswap/v4-core/src/libraries/LPFeeLibrary.sol";
import {StateLibrary} from "@uniswap/v4-core/src/libraries/StateLibrary.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {BeforeSwapDelta, BeforeSwapDeltaLibrary, toBeforeSwapDelta} from "@uniswap/v4-core/src/types/BeforeSwapDelta.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {ModifyLiquidityParams, SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

import {IClankerHook, IClankerLpLockerCollect, IClankerMevModule} from "./IClankerHook.sol";

/// @title ClankerHookV2
/// @notice What Clanker's V2 pool hooks share (reference/production.md §2); the static-fee and the dynamic-fee hook
///         differ only in how they read their `feeData` and which LP fee a swap pays (`_setFeeData`, `_lpFee`).
///         Deployed at a CREATE2 address whose low 14 bits carry exactly its permissions (0x28CC, as Base's V2 hooks):
///         beforeInitialize, beforeAddLiquidity, beforeSwap, afterSwap, beforeSwapReturnDelta, afterSwapReturnDelta.
///
///         - Pools exist only through the factory (`initializePool`); any other `initialize` reverts. The pool key has
///           the dynamic-fee flag; `poolData` is `abi.encode(PoolInitializationData)` with no pool extension.
///         - On top of the LP fee the hook takes a protocol fee, always in the paired token; LP positions keep 100% of
///           the LP fee. With p = 20% of the swap's LP fee (pips): from the specified amount in `beforeSwap` when the
///           paired token is the specified currency (an exact-input buy pays amountIn·p/(1e6+p), an exact-output sell
///           amountOut·p/(1e6−p), each through production's 1e18-scaled rate), from the unspecified amount in
///           `afterSwap` otherwise (amount·p/1e6). As production, the fee is minted to the hook itself as PoolManager
///           ERC-6909 claims (no token moves inside the swap, so the first buy of a fresh pool works), and the next
///           swap of any of the hook's pools paired in that token pays every claim the hook holds in it out to the
///           factory as the ERC-20, first thing in its `beforeSwap`: `ClaimProtocolFees(paired token, amount)`. The
///           factory's `claimTeamFees` then transfers that ERC-20.
///         - `beforeSwap` first sets the pool's LP fee for this swap (`updateDynamicLPFee`: the swap pays the pool's fee
///           as it stands, with no override) and the hook's protocol fee rate, `protocolFee`, one variable for all its
///           pools. It then pays the claims out, calls the locker's `collectRewardsWithoutUnlock(token)` (fees reach
///           the fee locker on every swap, one swap late) and consults the pool's MEV module while it runs: for at
///           most two minutes after the launch, until the module says it is done (`MevModuleDisabled`). A fee the
///           module imposes (`MevModuleSetFee`) replaces the pool's LP fee and the rate when higher.
///         - As production, the locker's conversion is a swap nested in that `beforeSwap`, after the outer swap's fees
///           were set: it sets its own, so a buy whose collection converts token fees (a sell) pays the sell's LP fee
///           and protocol fee rate (clanker-v4-real.md item 7).
abstract contract ClankerHookV2 is IHooks, IClankerHook {
    using PoolIdLibrary for PoolKey;

    uint160 public constant PERMISSIONS = Hooks.BEFORE_INITIALIZE_FLAG | Hooks.BEFORE_ADD_LIQUIDITY_FLAG
        | Hooks.BEFORE_SWAP_FLAG | Hooks.AFTER_SWAP_FLAG | Hooks.BEFORE_SWAP_RETURNS_DELTA_FLAG
        | Hooks.AFTER_SWAP_RETURNS_DELTA_FLAG;
    /// @notice Protocol fee: 20% of the LP fee (Uniswap pips over 1_000_000).
    uint256 public constant PROTOCOL_FEE_NUMERATOR = 200_000;
    uint256 public constant FEE_DENOMINATOR = 1_000_000;
    /// @notice Most LP fee a V2 hook charges (10%).
    uint24 public constant MAX_LP_FEE = 100_000;
    uint256 public constant MAX_MEV_MODULE_DELAY = 2 minutes;
    /// @notice Most LP fee the MEV module may set (80%).
    uint24 public constant MAX_MEV_LP_FEE = 800_000;

    /// @notice A swap's hookData: what the MEV module and the pool extension each receive.
    struct PoolSwapData {
        bytes mevModuleSwapData;
        bytes poolExtensionSwapData;
    }

    IPoolManager public immutable poolManager;
    address public immutable factory;

    /// @notice What every V2 hook keeps of a pool (the fee configuration is the concrete hook's).
    struct PoolState {
        bool clankerIsToken0;
        bool mevModuleEnabled;
        uint64 poolCreationTimestamp;
        address locker;
        address mevModule;
    }

    mapping(PoolId => PoolState) internal _state;
    /// @notice The protocol fee rate (pips) of the swap in progress, or of the last one: 20% of the LP fee the hook
    ///         last set. One variable for every pool of the hook, as production: the locker's conversion swap, nested
    ///         in a swap's `beforeSwap`, overwrites it (and the pool's LP fee), so the outer swap pays the nested
    ///         one's rates.
    uint24 public protocolFee;

    error NotPoolManager();
    error HookNotImplemented();
    error Unauthorized();

    constructor(address poolManager_, address factory_) {
        poolManager = IPoolManager(poolManager_);
        factory = factory_;
        Hooks.validateHookPermissions(
            IHooks(address(this)),
            Hooks.Permissions({
                beforeInitialize: true,
                afterInitialize: false,
                beforeAddLiquidity: true,
                afterAddLiquidity: false,
                beforeRemoveLiquidity: false,
                afterRemoveLiquidity: false,
                beforeSwap: true,
                afterSwap: true,
                beforeDonate: false,
                afterDonate: false,
                beforeSwapReturnDelta: true,
                afterSwapReturnDelta: true,
                afterAddLiquidityReturnDelta: false,
                afterRemoveLiquidityReturnDelta: false
            })
        );
    }

    modifier onlyPoolManager() {
        if (msg.sender != address(poolManager)) revert NotPoolManager();
        _;
    }

    modifier onlyFactory() {
        if (msg.sender != factory) revert OnlyFactory();
        _;
    }

    // ---------------------------------------------------------------- what a concrete hook decides

    /// @dev Validates and stores the pool's `feeData` (reverting with production's error when out of range); called
    ///      before the pool is initialised.
    function _setFeeData(PoolId poolId, bytes memory feeData) internal virtual;

    /// @dev Emits the hook's `PoolInitialized`, before `PoolCreatedFactory`.
    function _emitPoolInitialized(PoolId poolId) internal virtual;

    /// @dev The LP fee of this swap, before the MEV module's; `paired` is true when the paired token is the input.
    function _lpFee(PoolKey calldata key, PoolId poolId, SwapParams calldata params, bool paired) internal virtual returns (uint24);

    // ---------------------------------------------------------------- views

    function mevModuleEnabled(PoolId poolId) external view returns (bool) {
        return _state[poolId].mevModuleEnabled;
    }

    function mevModule(PoolId poolId) external view returns (address) {
        return _state[poolId].mevModule;
    }

    function poolCreationTimestamp(PoolId poolId) external view returns (uint256) {
        return _state[poolId].poolCreationTimestamp;
    }

    function mevModuleOperating(PoolId poolId) public view returns (bool) {
        PoolState storage s = _state[poolId];
        return s.mevModuleEnabled && block.timestamp < uint256(s.poolCreationTimestamp) + MAX_MEV_MODULE_DELAY;
    }

    // ---------------------------------------------------------------- launch (factory)

    function initializePool(
        address clanker,
        address pairedToken,
        int24 tickIfToken0IsClanker,
        int24 tickSpacing,
        address locker,
        address mevModule,
        bytes calldata poolData
    ) external onlyFactory returns (PoolKey memory poolKey) {
        bool clankerIsToken0 = clanker < pairedToken;
        poolKey = PoolKey({
            currency0: Currency.wrap(clankerIsToken0 ? clanker : pairedToken),
            currency1: Currency.wrap(clankerIsToken0 ? pairedToken : clanker),
            fee: LPFeeLibrary.DYNAMIC_FEE_FLAG,
            tickSpacing: tickSpacing,
            hooks: IHooks(address(this))
        });
        PoolId poolId = poolKey.toId();
        PoolInitializationData memory data = abi.decode(poolData, (PoolInitializationData));
        if (data.extension != address(0)) revert PoolExtensionNotEnabled();
        _setFeeData(poolId, data.feeData);
        _state[poolId] = PoolState({
            clankerIsToken0: clankerIsToken0,
            mevModuleEnabled: mevModule != address(0),
            poolCreationTimestamp: uint64(block.timestamp),
            locker: locker,
            mevModule: mevModule
        });
        // The PoolManager skips this hook's own beforeInitialize when the hook itself initialises.
        poolManager.initialize(
            poolKey, TickMath.getSqrtPriceAtTick(clankerIsToken0 ? tickIfToken0IsClanker : -tickIfToken0IsClanker)
        );

        // Production's order: the pool's fees, then the pool.
        _emitPoolInitialized(poolId);
        emit PoolCreatedFactory(pairedToken, clanker, poolId, tickIfToken0IsClanker, tickSpacing, locker, mevModule);
        emit PoolExtensionRegistered(poolId, address(0));
    }

    function initializeMevModule(PoolKey calldata poolKey, bytes calldata mevModuleData) external onlyFactory {
        PoolState storage s = _state[poolKey.toId()];
        if (s.mevModule == address(0)) return;
        IClankerMevModule(s.mevModule).initialize(poolKey, mevModuleData);
    }

    // ---------------------------------------------------------------- hook callbacks

    function beforeInitialize(address, PoolKey calldata, uint160) external view onlyPoolManager returns (bytes4) {
        revert UnsupportedInitializePath();
    }

    function beforeAddLiquidity(address, PoolKey calldata, ModifyLiquidityParams calldata, bytes calldata)
        external
        view
        onlyPoolManager
        returns (bytes4)
    {
        return IHooks.beforeAddLiquidity.selector;
    }

    function beforeSwap(address, PoolKey calldata key, SwapParams calldata params, bytes calldata hookData)
        external
        onlyPoolManager
        returns (bytes4, BeforeSwapDelta, uint24)
    {
        PoolId poolId = key.toId();
        PoolState storage s = _state[poolId];

        // Production's order: the swap's LP fee into the pool (`updateDynamicLPFee`) and its protocol fee rate; the
        // protocol fees of the swaps so far to the factory; their LP fees into the fee locker (a no-op while the MEV
        // module runs; its conversion is a nested swap, which sets its own fees over these); the MEV module, which
        // may raise the fee. The swap then pays the pool's LP fee as it stands (no override).
        _setFee(key, _lpFee(key, poolId, params, params.zeroForOne != s.clankerIsToken0));
        _payProtocolFees(s.clankerIsToken0 ? key.currency1 : key.currency0);
        IClankerLpLockerCollect(s.locker).collectRewardsWithoutUnlock(
            Currency.unwrap(s.clankerIsToken0 ? key.currency0 : key.currency1)
        );
        _runMevModule(key, params, hookData);
        BeforeSwapDelta delta = _protocolFeeBeforeSwap(key, params, s.clankerIsToken0);
        return (IHooks.beforeSwap.selector, delta, 0);
    }

    /// @dev The pool's LP fee from now on, and the hook's protocol fee rate (20% of it).
    function _setFee(PoolKey calldata key, uint24 lpFee) internal {
        protocolFee = uint24(uint256(lpFee) * PROTOCOL_FEE_NUMERATOR / FEE_DENOMINATOR);
        poolManager.updateDynamicLPFee(key, lpFee);
    }

    /// @dev The protocol fee from the specified amount when that is the paired token (an exact-input buy, an
    ///      exact-output sell), at the hook's current rate; otherwise afterSwap takes it.
    function _protocolFeeBeforeSwap(PoolKey calldata key, SwapParams calldata params, bool clankerIsToken0)
        internal
        returns (BeforeSwapDelta)
    {
        uint256 rate = protocolFee;
        // The specified currency is the input of an exact-input swap, the output of an exact-output one.
        bool specifiedIsToken0 = (params.amountSpecified < 0) == params.zeroForOne;
        if (specifiedIsToken0 == clankerIsToken0) return BeforeSwapDeltaLibrary.ZERO_DELTA;
        bool exactInput = params.amountSpecified < 0;
        uint256 amount = exactInput ? uint256(-params.amountSpecified) : uint256(params.amountSpecified);
        // An exact-input buy: the fee is taken before the swap, so of amountIn it is p/(1e6+p) (the LP fee then
        // comes out of the rest); an exact-output sell: the pool gives amountOut·(1e6)/(1e6−p), p/(1e6−p) of it to
        // the hook. Production's arithmetic: a rate scaled by 1e18, then the amount, each rounded down.
        uint256 scaled = exactInput ? rate * 1e18 / (FEE_DENOMINATOR + rate) : rate * 1e18 / (FEE_DENOMINATOR - rate);
        uint256 fee = amount * scaled / 1e18;
        _mintProtocolFee(clankerIsToken0 ? key.currency1 : key.currency0, fee);
        return toBeforeSwapDelta(int128(int256(fee)), 0);
    }

    function afterSwap(address, PoolKey calldata key, SwapParams calldata params, BalanceDelta delta, bytes calldata)
        external
        onlyPoolManager
        returns (bytes4, int128)
    {
        return (IHooks.afterSwap.selector, _protocolFeeAfterSwap(key, params, delta));
    }

    /// @dev The protocol fee from the unspecified amount (the paired token: an exact-input sell, an exact-output
    ///      buy), at the hook's current rate.
    function _protocolFeeAfterSwap(PoolKey calldata key, SwapParams calldata params, BalanceDelta delta) internal returns (int128) {
        bool clankerIsToken0 = _state[key.toId()].clankerIsToken0;
        bool specifiedIsToken0 = (params.amountSpecified < 0) == params.zeroForOne;
        if (specifiedIsToken0 != clankerIsToken0) return 0;
        uint256 rate = protocolFee;
        int128 pairedDelta = clankerIsToken0 ? delta.amount1() : delta.amount0();
        uint256 fee = (pairedDelta < 0 ? uint256(uint128(-pairedDelta)) : uint256(uint128(pairedDelta))) * rate / FEE_DENOMINATOR;
        _mintProtocolFee(clankerIsToken0 ? key.currency1 : key.currency0, fee);
        return int128(int256(fee));
    }

    /// @dev The hook's positive delta (returned to the PoolManager) becomes the hook's own ERC-6909 claims (production
    ///      mints even 0), paid to the factory at the start of the next swap (`_payProtocolFees`).
    function _mintProtocolFee(Currency paired, uint256 fee) internal {
        poolManager.mint(address(this), paired.toId(), fee);
    }

    /// @dev Every claim the hook holds in `paired` (the protocol fees of earlier swaps, of any of its pools paired in
    ///      it) out to the factory as the ERC-20: burn the claims, take the tokens. Nothing when it holds none.
    function _payProtocolFees(Currency paired) internal {
        uint256 fee = poolManager.balanceOf(address(this), paired.toId());
        if (fee == 0) return;
        poolManager.burn(address(this), paired.toId(), fee);
        poolManager.take(paired, factory, fee);
        emit ClaimProtocolFees(Currency.unwrap(paired), fee);
    }

    /// @dev Consults the pool's MEV module while it runs, with the `mevModuleSwapData` of the swap's hookData
    ///      (`abi.encode(PoolSwapData)`; empty hookData is empty data). The module may raise the swap's LP fee
    ///      through `mevModuleSetFee` during the call.
    function _runMevModule(PoolKey calldata key, SwapParams calldata params, bytes calldata hookData) internal {
        PoolId poolId = key.toId();
        PoolState storage s = _state[poolId];
        if (!_mevModuleOperational(poolId)) return;
        PoolSwapData memory swapData;
        if (hookData.length > 0) swapData = abi.decode(hookData, (PoolSwapData));
        bool disable = IClankerMevModule(s.mevModule).beforeSwap(key, params, s.clankerIsToken0, swapData.mevModuleSwapData);
        if (disable) {
            s.mevModuleEnabled = false;
            emit MevModuleDisabled(poolId);
        }
    }

    /// @dev Whether the pool's MEV module runs; disables it (`MevModuleDisabled`) once the pool is two minutes old.
    function _mevModuleOperational(PoolId poolId) internal returns (bool) {
        PoolState storage s = _state[poolId];
        if (!s.mevModuleEnabled) return false;
        if (block.timestamp >= uint256(s.poolCreationTimestamp) + MAX_MEV_MODULE_DELAY) {
            s.mevModuleEnabled = false;
            emit MevModuleDisabled(poolId);
            return false;
        }
        return true;
    }

    /// @notice The pool's MEV module sets the LP fee of the swap in progress: ignored while the module does not
    ///         run, above `MAX_MEV_LP_FEE`, or not above the pool's current LP fee; otherwise the pool's LP fee and the
    ///         protocol fee rate follow it (`MevModuleSetFee`).
    function mevModuleSetFee(PoolKey calldata poolKey, uint24 fee) external {
        PoolId poolId = poolKey.toId();
        if (msg.sender != _state[poolId].mevModule) revert Unauthorized();
        if (!_mevModuleOperational(poolId)) return;
        if (fee > MAX_MEV_LP_FEE) return;
        (,,, uint24 currentLpFee) = StateLibrary.getSlot0(poolManager, poolId);
        if (fee <= currentLpFee) return;
        _setFee(poolKey, fee);
        emit MevModuleSetFee(poolId, fee);
    }

    // ---------------------------------------------------------------- callbacks this hook does not use

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        // IClankerHook (published source) and IClankerHookV2, as production; not IERC165.
        return interfaceId == 0x13caa09c || interfaceId == 0x85f82179;
    }

    function afterInitialize(address, PoolKey calldata, uint160, int24) external pure returns (bytes4) {
        revert HookNotImplemented();
    }

    function afterAddLiquidity(address, PoolKey calldata, ModifyLiquidityParams calldata, BalanceDelta, BalanceDelta, bytes calldata)
        external
        pure
        returns (bytes4, BalanceDelta)
    {
        revert HookNotImplemented();
    }

    function beforeRemoveLiquidity(address, PoolKey calldata, ModifyLiquidityParams calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        revert HookNotImplemented();
    }

    function afterRemoveLiquidity(address, PoolKey calldata, ModifyLiquidityParams calldata, BalanceDelta, BalanceDelta, bytes calldata)
        external
        pure
        returns (bytes4, BalanceDelta)
    {
        revert HookNotImplemented();
    }

    function beforeDonate(address, PoolKey calldata, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        revert HookNotImplemented();
    }

    function afterDonate(address, PoolKey calldata, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        revert HookNotImplemented();
    }
}
