// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IClanker
/// @notice Types, events and errors of the Clanker v4 factory, laid out exactly as in production
///         (clanker-devco/v4-contracts `src/interfaces/IClanker.sol`, clanker-sdk `Clanker_v4_abi`), so the
///         `deployToken` selector (0xdf40224a) and the `TokenCreated` topic match Base mainnet byte for byte.
interface IClanker {
    struct TokenConfig {
        address tokenAdmin;
        string name;
        string symbol;
        bytes32 salt;
        string image;
        string metadata;
        string context;
        uint256 originatingChainId;
    }

    struct PoolConfig {
        address hook;
        address pairedToken;
        int24 tickIfToken0IsClanker;
        int24 tickSpacing;
        bytes poolData;
    }

    struct LockerConfig {
        address locker;
        address[] rewardAdmins;
        address[] rewardRecipients;
        uint16[] rewardBps;
        int24[] tickLower;
        int24[] tickUpper;
        uint16[] positionBps;
        bytes lockerData;
    }

    struct MevModuleConfig {
        address mevModule;
        bytes mevModuleData;
    }

    struct ExtensionConfig {
        address extension;
        uint256 msgValue;
        uint16 extensionBps;
        bytes extensionData;
    }

    struct DeploymentConfig {
        TokenConfig tokenConfig;
        PoolConfig poolConfig;
        LockerConfig lockerConfig;
        MevModuleConfig mevModuleConfig;
        ExtensionConfig[] extensionConfigs;
    }

    struct DeploymentInfo {
        address token;
        address hook;
        address locker;
        address[] extensions;
    }

    event TokenCreated(
        address msgSender,
        address indexed tokenAddress,
        address indexed tokenAdmin,
        string tokenImage,
        string tokenName,
        string tokenSymbol,
        string tokenMetadata,
        string tokenContext,
        int24 startingTick,
        address poolHook,
        bytes32 poolId,
        address pairedToken,
        address locker,
        address mevModule,
        uint256 extensionsSupply,
        address[] extensions
    );
    event ExtensionTriggered(address extension, uint256 extensionSupply, uint256 msgValue);
    event ClaimTeamFees(address indexed token, address indexed recipient, uint256 amount);
    event SetAdmin(address indexed admin, bool enabled);
    event SetDeprecated(bool deprecated);
    event SetLocker(address locker, address pool, bool enabled);
    event SetHook(address hook, bool enabled);
    event SetMevModule(address mevModule, bool enabled);
    event SetTeamFeeRecipient(address oldTeamFeeRecipient, address newTeamFeeRecipient);
    event SetExtension(address extension, bool enabled);

    error Deprecated();
    error OnlyOriginatingChain();
    error ExtensionNotEnabled();
    error ExtensionMsgValueMismatch();
    error LockerNotEnabled();
    error HookNotEnabled();
    error MevModuleNotEnabled();
    error NotFound();
    error Unauthorized();
    error OnlyNonOriginatingChains();
    error InvalidHook();
    error InvalidLocker();
    error InvalidMevModule();
    error InvalidExtension();
    error MaxExtensionsExceeded();
    error MaxExtensionBpsExceeded();
}
