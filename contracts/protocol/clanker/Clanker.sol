// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {IPoolManager} from "@uniswap/v4-core/src/interfaces/IPoolManager.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";

import {ClankerToken} from "./ClankerToken.sol";
import {IClanker} from "./IClanker.sol";
import {IClankerExtension, IClankerHook, IClankerMevModule} from "./IClankerHook.sol";
import {IClankerLpLocker} from "./IClankerLpLocker.sol";

/// @title Clanker
/// @notice Devnet mirror of the Clanker v4 factory (Base `0xE85A59c628F7d27878ACeB4bf3b35733630083a9`,
///         clanker-devco/v4-contracts `src/Clanker.sol`). `deployToken(DeploymentConfig)` has the production selector
///         (0xdf40224a) and emits the production `TokenCreated`; it CREATE2-deploys a `ClankerToken` with salt
///         `keccak256(abi.encode(tokenAdmin, salt))`, initialises a Uniswap v4 pool on the real PoolManager, and has
///         the LP locker place the whole supply as single-sided liquidity and register the reward recipients.
/// @dev As strict as production where a launch is concerned:
///      - the hook must be enabled (`setHook`; reverts `HookNotEnabled()`, hook 0 included), the MEV module too
///        (`setMevModule`; `MevModuleNotEnabled()`), and the locker for that exact hook (`setLocker(locker, hook)`;
///        `LockerNotEnabled()`);
///      - the hook creates and initialises the pool (`initializePool`: dynamic-fee key, V2 pool data), the locker
///        places the liquidity, then the hook hands the MEV module its data (`initializeMevModule`);
///        `TokenCreated.poolHook` and `mevModule` are the real ones.
///      - hooks, MEV modules, lockers and extensions are enabled only if they declare their interface
///        (ERC-165 `supportsInterface`; `InvalidHook()`, `InvalidMevModule()`, `InvalidLocker()`,
///        `InvalidExtension()`);
///      - extensions as production: at most `MAX_EXTENSIONS`, together at most `MAX_EXTENSION_BPS` of the supply, each
///        enabled, their `msgValue`s summing to the ETH sent; each receives its share through `receiveTokens` after
///        the liquidity is placed (`ExtensionTriggered`), and the pool gets the rest;
///      - deployments open with `initialize(teamFeeRecipient)`, which also names who `claimTeamFees` pays;
///        `deployTokenZeroSupply` deploys a token on any chain but its originating one, without supply.
///      Simplification: the paired token must be an ERC20 (native ETH pools are rejected).
contract Clanker is IClanker, Ownable, ReentrancyGuard {
    using PoolIdLibrary for PoolKey;
    using SafeERC20 for IERC20;

    uint256 public constant TOKEN_SUPPLY = 100_000_000_000e18;
    /// @notice The IClankerHook interface id of Clanker's published v4 source, which its V2 hooks answer.
    bytes4 internal constant CLANKER_HOOK_INTERFACE_ID = 0x13caa09c;
    uint256 public constant BPS = 10_000;
    uint256 public constant MAX_EXTENSIONS = 10;
    uint16 public constant MAX_EXTENSION_BPS = 9000;

    /// @notice The Uniswap v4 PoolManager every launched pool lives in.
    IPoolManager public immutable poolManager;
    /// @notice When true, `deployToken` is disabled (production semantics); true until `initialize`.
    bool public deprecated;
    /// @notice Who `claimTeamFees` pays (set by `initialize`, changed by `setTeamFeeRecipient`).
    address public teamFeeRecipient;
    bool internal _initialized;

    mapping(address account => bool enabled) public admins;
    mapping(address locker => mapping(address hook => bool enabled)) public enabledLockers;
    mapping(address hook => bool enabled) public enabledHooks;
    mapping(address mevModule => bool enabled) public enabledMevModules;
    mapping(address extension => bool enabled) public enabledExtensions;
    mapping(address token => DeploymentInfo info) internal _deploymentInfo;

    /// @notice Devnet addition: the paired token is address(0) (native ETH) or the clanker token itself.
    error InvalidPairedToken();
    /// @notice Devnet addition: `initialize` called a second time.
    error AlreadyInitialized();

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
        // Deployments open once `initialize` names the team fee recipient (production).
        deprecated = true;
    }

    modifier onlyOwnerOrAdmin() {
        if (msg.sender != owner() && !admins[msg.sender]) revert Unauthorized();
        _;
    }

    // ---------------------------------------------------------------- configuration

    /// @notice Opens deployments and names the team fee recipient (owner, once).
    function initialize(address teamFeeRecipient_) external onlyOwner {
        if (_initialized) revert AlreadyInitialized();
        _initialized = true;
        teamFeeRecipient = teamFeeRecipient_;
        deprecated = false;
    }

    function setAdmin(address admin, bool enabled) external onlyOwner {
        admins[admin] = enabled;
        emit SetAdmin(admin, enabled);
    }

    function setTeamFeeRecipient(address teamFeeRecipient_) external onlyOwner {
        address old = teamFeeRecipient;
        teamFeeRecipient = teamFeeRecipient_;
        emit SetTeamFeeRecipient(old, teamFeeRecipient_);
    }

    /// @notice Allow `locker` for pools of the hook `pool` (only that exact hook).
    function setLocker(address locker, address pool, bool enabled) external onlyOwnerOrAdmin {
        if (!_supports(locker, type(IClankerLpLocker).interfaceId)) revert InvalidLocker();
        enabledLockers[locker][pool] = enabled;
        emit SetLocker(locker, pool, enabled);
    }

    function setDeprecated(bool deprecated_) external onlyOwner {
        deprecated = deprecated_;
        emit SetDeprecated(deprecated_);
    }

    function setHook(address hook, bool enabled) external onlyOwnerOrAdmin {
        // Asked directly, as production: an account without code (or without the function) reverts with no data.
        if (!IClankerHook(hook).supportsInterface(CLANKER_HOOK_INTERFACE_ID)) revert InvalidHook();
        enabledHooks[hook] = enabled;
        emit SetHook(hook, enabled);
    }

    function setMevModule(address mevModule, bool enabled) external onlyOwnerOrAdmin {
        if (!_supports(mevModule, type(IClankerMevModule).interfaceId)) revert InvalidMevModule();
        enabledMevModules[mevModule] = enabled;
        emit SetMevModule(mevModule, enabled);
    }

    /// @notice Enable a launch extension (it may apply its own access control).
    function setExtension(address extension, bool enabled) external onlyOwnerOrAdmin {
        if (!_supports(extension, type(IClankerExtension).interfaceId)) revert InvalidExtension();
        enabledExtensions[extension] = enabled;
        emit SetExtension(extension, enabled);
    }

    /// @dev ERC-165 probe; an account without code, or one that reverts, does not support anything.
    function _supports(address target, bytes4 interfaceId) internal view returns (bool) {
        if (target.code.length == 0) return false;
        try IClankerHook(target).supportsInterface(interfaceId) returns (bool ok) {
            return ok;
        } catch {
            return false;
        }
    }

    /// @notice Pays the factory's whole balance of `token` (the hooks' protocol fees, paid to it as the ERC-20 at the
    ///         start of the swap after each, and the auctions' share) to the team fee recipient: a plain transfer.
    function claimTeamFees(address token) external onlyOwnerOrAdmin nonReentrant {
        uint256 amount = IERC20(token).balanceOf(address(this));
        IERC20(token).safeTransfer(teamFeeRecipient, amount);
        emit ClaimTeamFees(token, teamFeeRecipient, amount);
    }

    // ---------------------------------------------------------------- views

    /// @notice A token's deployment; zeros for a token this factory did not deploy (no revert, as production).
    function tokenDeploymentInfo(address token) external view returns (DeploymentInfo memory) {
        return _deploymentInfo[token];
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
        uint256 extensionsSupply = _prepareExtensions(deploymentConfig.extensionConfigs);
        if (!enabledHooks[poolConfig.hook]) revert HookNotEnabled();
        if (!enabledLockers[locker][poolConfig.hook]) revert LockerNotEnabled();
        if (!enabledMevModules[deploymentConfig.mevModuleConfig.mevModule]) revert MevModuleNotEnabled();
        if (poolConfig.pairedToken == address(0)) revert InvalidPairedToken();

        tokenAddress = _deployToken(tokenConfig);
        if (tokenAddress == poolConfig.pairedToken) revert InvalidPairedToken();

        PoolKey memory poolKey = _initializePool(deploymentConfig, tokenAddress);

        // The locker pulls the pool supply (production flow: approve, then placeLiquidity).
        uint256 poolSupply = TOKEN_SUPPLY - extensionsSupply;
        IERC20(tokenAddress).approve(locker, poolSupply);
        IClankerLpLocker(locker).placeLiquidity(deploymentConfig.lockerConfig, poolConfig, poolKey, poolSupply, tokenAddress);

        address[] memory extensions = _triggerExtensions(deploymentConfig, poolKey, tokenAddress);
        _deploymentInfo[tokenAddress] =
            DeploymentInfo({token: tokenAddress, hook: poolConfig.hook, locker: locker, extensions: extensions});
        IClankerHook(poolConfig.hook).initializeMevModule(poolKey, deploymentConfig.mevModuleConfig.mevModuleData);

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
                poolHook: poolConfig.hook,
                poolId: PoolId.unwrap(poolKey.toId()),
                pairedToken: poolConfig.pairedToken,
                locker: locker,
                mevModule: deploymentConfig.mevModuleConfig.mevModule,
                extensionsSupply: extensionsSupply,
                extensions: extensions
            })
        );
    }

    /// @notice Deploy the token alone, without supply, on a chain other than its originating one (its supply
    ///         arrives through the ERC-7802 bridge). Same address as on the originating chain.
    function deployTokenZeroSupply(TokenConfig memory tokenConfig) external returns (address tokenAddress) {
        if (block.chainid == tokenConfig.originatingChainId) revert OnlyNonOriginatingChains();
        tokenAddress = _deployToken(tokenConfig);
    }

    /// @dev CREATE2 with salt `keccak256(abi.encode(tokenAdmin, salt))`; the supply is minted to this factory only on
    ///      the originating chain.
    function _deployToken(TokenConfig memory tokenConfig) internal returns (address) {
        return address(
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
    }

    /// @dev Validates the extensions and returns the supply they take (production rules and order of checks).
    function _prepareExtensions(ExtensionConfig[] memory configs) internal view returns (uint256) {
        // Production returns early here: ETH sent without extensions is not checked (it stays in the factory).
        if (configs.length == 0) return 0;
        if (configs.length > MAX_EXTENSIONS) revert MaxExtensionsExceeded();
        uint256 bps = 0;
        uint256 value = 0;
        for (uint256 i = 0; i < configs.length; i++) {
            bps += configs[i].extensionBps;
            value += configs[i].msgValue;
        }
        if (bps > MAX_EXTENSION_BPS) revert MaxExtensionBpsExceeded();
        if (value != msg.value) revert ExtensionMsgValueMismatch();
        for (uint256 i = 0; i < configs.length; i++) {
            if (!enabledExtensions[configs[i].extension]) revert ExtensionNotEnabled();
        }
        return bps * TOKEN_SUPPLY / BPS;
    }

    /// @dev Hands each extension its share of the supply and its ETH, in order; returns their addresses.
    function _triggerExtensions(DeploymentConfig memory deploymentConfig, PoolKey memory poolKey, address token)
        internal
        returns (address[] memory extensions)
    {
        ExtensionConfig[] memory configs = deploymentConfig.extensionConfigs;
        extensions = new address[](configs.length);
        for (uint256 i = 0; i < configs.length; i++) {
            uint256 extensionSupply = configs[i].extensionBps * TOKEN_SUPPLY / BPS;
            IERC20(token).approve(configs[i].extension, extensionSupply);
            IClankerExtension(configs[i].extension).receiveTokens{value: configs[i].msgValue}(
                deploymentConfig, poolKey, token, extensionSupply, i
            );
            extensions[i] = configs[i].extension;
            emit ExtensionTriggered(configs[i].extension, extensionSupply, configs[i].msgValue);
        }
    }

    /// @dev The hook creates and initialises the pool (production flow).
    function _initializePool(DeploymentConfig memory deploymentConfig, address token) internal returns (PoolKey memory) {
        PoolConfig memory poolConfig = deploymentConfig.poolConfig;
        return IClankerHook(poolConfig.hook).initializePool(
            token,
            poolConfig.pairedToken,
            poolConfig.tickIfToken0IsClanker,
            poolConfig.tickSpacing,
            deploymentConfig.lockerConfig.locker,
            deploymentConfig.mevModuleConfig.mevModule,
            poolConfig.poolData
        );
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
