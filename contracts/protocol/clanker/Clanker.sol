// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {LPFeeLibrary} from "@uniswap/v4-core/src/libraries/LPFeeLibrary.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";
import {Currency} from "@uniswap/v4-core/src/types/Currency.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";

import {ClankerToken} from "./ClankerToken.sol";
import {IClanker} from "./IClanker.sol";

/// @notice The LP locker entry point the factory calls (production `IClankerLpLocker.placeLiquidity`).
interface IClankerLpLockerPlacement {
    function placeLiquidity(
        IClanker.LockerConfig memory lockerConfig,
        IClanker.PoolConfig memory poolConfig,
        PoolKey memory poolKey,
        uint256 poolSupply,
        address token
    ) external returns (uint256 positionId);
}

/// @title Clanker
/// @notice Devnet mirror of the Clanker v4 factory (Base `0xE85A59c628F7d27878ACeB4bf3b35733630083a9`,
///         clanker-devco/v4-contracts `src/Clanker.sol`). `deployToken(DeploymentConfig)` has the production selector
///         (0xdf40224a) and emits the production `TokenCreated`; it CREATE2-deploys a `ClankerToken` with salt
///         `keccak256(abi.encode(tokenAdmin, salt))`, initialises a Uniswap v4 pool on the real PoolManager, and has
///         the LP locker place the whole supply as single-sided liquidity and register the reward recipients.
/// @dev Simplifications against production:
///      - No Clanker hook. The pool key is `{min(token, paired), max(token, paired), poolFee, tickSpacing, hooks: 0}`
///        with one static LP fee for both directions (`poolFee`, default 10_000 = 1%, owner-settable), instead of the
///        hook's dynamic-fee flag, per-direction fees and 20% protocol fee. `poolConfig.hook`, `poolData` and the MEV
///        module config are accepted and ignored; `TokenCreated.poolHook` and `tokenDeploymentInfo.hook` report the
///        pool's real hook, address(0), and `poolId` is the id of the key actually initialised.
///      - No extensions: a non-empty `extensionConfigs` reverts `ExtensionNotEnabled()`, any ETH sent reverts
///        `ExtensionMsgValueMismatch()`, `extensionsSupply` is always 0 and the pool receives the whole supply.
///      - Lockers are allow-listed per (locker, hook) as in production; enabling a locker for hook address(0) admits
///        it for any `poolConfig.hook` (the SDK fills in Base hook addresses).
///      - The paired token must be an ERC20 (as the production hook requires); native ETH pools are rejected.
contract Clanker is IClanker, Ownable, ReentrancyGuard {
    using PoolIdLibrary for PoolKey;

    uint256 public constant TOKEN_SUPPLY = 100_000_000_000e18;
    uint256 public constant BPS = 10_000;
    uint256 public constant MAX_EXTENSIONS = 10;
    uint16 public constant MAX_EXTENSION_BPS = 9000;

    /// @notice The Uniswap v4 PoolManager every launched pool lives in.
    IPoolManager public immutable poolManager;
    /// @notice Static LP fee (pips, 1_000_000 = 100%) of pools launched from now on.
    uint24 public poolFee = 10_000;
    /// @notice When true, `deployToken` is disabled (production semantics).
    bool public deprecated;

    mapping(address account => bool enabled) public admins;
    mapping(address locker => mapping(address hook => bool enabled)) public enabledLockers;
    mapping(address token => DeploymentInfo info) internal _deploymentInfo;

    /// @notice Devnet addition: emitted when the owner changes the static LP fee of future pools.
    event SetPoolFee(uint24 fee);

    /// @notice Devnet addition: the paired token is address(0) (native ETH) or the clanker token itself.
    error InvalidPairedToken();
    /// @notice Devnet addition: a static fee above 100% or with the dynamic-fee flag.
    error InvalidPoolFee();

    /// @dev `TokenCreated` carries 16 values, more than the legacy code generator can keep on the stack; it is
    ///      emitted from this struct, whose ABI encoding is the event data behind a 32-byte offset word.
    struct TokenCreatedData {
        address msgSender;
        string tokenImage;
        string tokenName;
        string tokenSymbol;
        string tokenMetadata;
        string tokenContext;
        int24 startingTick;
        address poolHook;
        bytes32 poolId;
        address pairedToken;
        address locker;
        address mevModule;
        uint256 extensionsSupply;
        address[] extensions;
    }

    constructor(address owner_, address poolManager_) Ownable(owner_) {
        poolManager = IPoolManager(poolManager_);
    }

    modifier onlyOwnerOrAdmin() {
        if (msg.sender != owner() && !admins[msg.sender]) revert Unauthorized();
        _;
    }

    // ---------------------------------------------------------------- configuration

    function setAdmin(address admin, bool enabled) external onlyOwner {
        admins[admin] = enabled;
        emit SetAdmin(admin, enabled);
    }

    /// @notice Allow `locker` for pools of `pool` (the hook address in production; address(0) = any hook here).
    function setLocker(address locker, address pool, bool enabled) external onlyOwnerOrAdmin {
        enabledLockers[locker][pool] = enabled;
        emit SetLocker(locker, pool, enabled);
    }

    function setDeprecated(bool deprecated_) external onlyOwner {
        deprecated = deprecated_;
        emit SetDeprecated(deprecated_);
    }

    function setPoolFee(uint24 fee) external onlyOwner {
        if (fee > LPFeeLibrary.MAX_LP_FEE) revert InvalidPoolFee();
        poolFee = fee;
        emit SetPoolFee(fee);
    }

    // ---------------------------------------------------------------- views

    function tokenDeploymentInfo(address token) external view returns (DeploymentInfo memory) {
        DeploymentInfo memory info = _deploymentInfo[token];
        if (info.token == address(0)) revert NotFound();
        return info;
    }

    function deploymentInfoForToken(address token) external view returns (address token_, address hook, address locker) {
        DeploymentInfo storage info = _deploymentInfo[token];
        return (info.token, info.hook, info.locker);
    }

    // ---------------------------------------------------------------- deployment

    /// @notice Deploy a token, its v4 pool and its locked liquidity (production selector 0xdf40224a).
    function deployToken(DeploymentConfig memory deploymentConfig)
        external
        payable
        nonReentrant
        returns (address tokenAddress)
    {
        if (deprecated) revert Deprecated();
        TokenConfig memory tokenConfig = deploymentConfig.tokenConfig;
        PoolConfig memory poolConfig = deploymentConfig.poolConfig;
        address locker = deploymentConfig.lockerConfig.locker;

        if (block.chainid != tokenConfig.originatingChainId) revert OnlyOriginatingChain();
        if (deploymentConfig.extensionConfigs.length != 0) revert ExtensionNotEnabled();
        if (msg.value != 0) revert ExtensionMsgValueMismatch();
        if (!enabledLockers[locker][poolConfig.hook] && !enabledLockers[locker][address(0)]) {
            revert LockerNotEnabled();
        }
        if (poolConfig.pairedToken == address(0)) revert InvalidPairedToken();

        tokenAddress = address(
            new ClankerToken{salt: keccak256(abi.encode(tokenConfig.tokenAdmin, tokenConfig.salt))}(
                tokenConfig.name,
                tokenConfig.symbol,
                TOKEN_SUPPLY,
                tokenConfig.tokenAdmin,
                tokenConfig.image,
                tokenConfig.metadata,
                tokenConfig.context,
                tokenConfig.originatingChainId
            )
        );
        if (tokenAddress == poolConfig.pairedToken) revert InvalidPairedToken();

        PoolKey memory poolKey = _initializePool(poolConfig, tokenAddress);

        // The locker pulls the pool supply (production flow: approve, then placeLiquidity).
        IERC20(tokenAddress).approve(locker, TOKEN_SUPPLY);
        IClankerLpLockerPlacement(locker).placeLiquidity(
            deploymentConfig.lockerConfig, poolConfig, poolKey, TOKEN_SUPPLY, tokenAddress
        );

        address[] memory extensions = new address[](0);
        _deploymentInfo[tokenAddress] =
            DeploymentInfo({token: tokenAddress, hook: address(0), locker: locker, extensions: extensions});

        _emitTokenCreated(
            tokenAddress,
            tokenConfig.tokenAdmin,
            TokenCreatedData({
                msgSender: msg.sender,
                tokenImage: tokenConfig.image,
                tokenName: tokenConfig.name,
                tokenSymbol: tokenConfig.symbol,
                tokenMetadata: tokenConfig.metadata,
                tokenContext: tokenConfig.context,
                startingTick: poolConfig.tickIfToken0IsClanker,
                poolHook: address(0),
                poolId: PoolId.unwrap(poolKey.toId()),
                pairedToken: poolConfig.pairedToken,
                locker: locker,
                mevModule: deploymentConfig.mevModuleConfig.mevModule,
                extensionsSupply: 0,
                extensions: extensions
            })
        );
    }

    /// @dev Production `ClankerHook._initializePool` without the hook: the starting tick is
    ///      `tickIfToken0IsClanker` when the token sorts first, its negation otherwise.
    function _initializePool(PoolConfig memory poolConfig, address token) internal returns (PoolKey memory poolKey) {
        bool tokenIsToken0 = token < poolConfig.pairedToken;
        poolKey = PoolKey({
            currency0: Currency.wrap(tokenIsToken0 ? token : poolConfig.pairedToken),
            currency1: Currency.wrap(tokenIsToken0 ? poolConfig.pairedToken : token),
            fee: poolFee,
            tickSpacing: poolConfig.tickSpacing,
            hooks: IHooks(address(0))
        });
        int24 startingTick = tokenIsToken0 ? poolConfig.tickIfToken0IsClanker : -poolConfig.tickIfToken0IsClanker;
        poolManager.initialize(poolKey, TickMath.getSqrtPriceAtTick(startingTick));
    }

    function _emitTokenCreated(address token, address tokenAdmin, TokenCreatedData memory data) private {
        bytes memory encoded = abi.encode(data);
        bytes32 topic0 = TokenCreated.selector;
        assembly ("memory-safe") {
            // encoded = [length][offset word 0x20][tuple ...]; the log data is the tuple.
            log3(add(encoded, 0x40), sub(mload(encoded), 0x20), topic0, token, tokenAdmin)
        }
    }
}
