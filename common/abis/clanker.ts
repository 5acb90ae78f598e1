/**
 * Clanker v4 ABIs the indexer and engine use, exactly as deployed on Base (checked against
 * clanker-sdk's copies in test/contracts/abis.test.ts). The devnet simulators match them.
 */
import { parseAbi } from "viem";

const STRUCTS = [
  "struct TokenConfig { address tokenAdmin; string name; string symbol; bytes32 salt; string image; string metadata; string context; uint256 originatingChainId; }",
  "struct PoolConfig { address hook; address pairedToken; int24 tickIfToken0IsClanker; int24 tickSpacing; bytes poolData; }",
  "struct LockerConfig { address locker; address[] rewardAdmins; address[] rewardRecipients; uint16[] rewardBps; int24[] tickLower; int24[] tickUpper; uint16[] positionBps; bytes lockerData; }",
  "struct MevModuleConfig { address mevModule; bytes mevModuleData; }",
  "struct ExtensionConfig { address extension; uint256 msgValue; uint16 extensionBps; bytes extensionData; }",
  "struct DeploymentConfig { TokenConfig tokenConfig; PoolConfig poolConfig; LockerConfig lockerConfig; MevModuleConfig mevModuleConfig; ExtensionConfig[] extensionConfigs; }",
] as const;

export const clankerFactoryAbi = parseAbi([
  ...STRUCTS,
  "function deployToken(DeploymentConfig deploymentConfig) payable returns (address tokenAddress)",
  "event TokenCreated(address msgSender, address indexed tokenAddress, address indexed tokenAdmin, string tokenImage, string tokenName, string tokenSymbol, string tokenMetadata, string tokenContext, int24 startingTick, address poolHook, bytes32 poolId, address pairedToken, address locker, address mevModule, uint256 extensionsSupply, address[] extensions)",
]);

export const clankerLpLockerAbi = parseAbi([
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "struct TokenRewardInfo { address token; PoolKey poolKey; uint256 positionId; uint256 numPositions; uint16[] rewardBps; address[] rewardAdmins; address[] rewardRecipients; }",
  "function collectRewards(address token)",
  "function tokenRewards(address token) view returns (TokenRewardInfo)",
  "function feePreferences(address token, uint256 index) view returns (uint8)",
  "function updateRewardRecipient(address token, uint256 rewardIndex, address newRecipient)",
  "function updateRewardAdmin(address token, uint256 rewardIndex, address newAdmin)",
  "function updateFeePreference(address token, uint256 rewardIndex, uint8 newFeePreference)",
  "event TokenRewardAdded(address token, PoolKey poolKey, uint256 poolSupply, uint256 positionId, uint256 numPositions, uint16[] rewardBps, address[] rewardAdmins, address[] rewardRecipients, int24[] tickLower, int24[] tickUpper, uint16[] positionBps)",
  "event ClaimedRewards(address indexed token, uint256 amount0, uint256 amount1, uint256[] rewards0, uint256[] rewards1)",
  "event FeesSwapped(address indexed token, address indexed rewardToken, uint256 amountSwapped, address indexed swappedToken, uint256 amountOut)",
  "event RewardRecipientUpdated(address indexed token, uint256 indexed rewardIndex, address oldRecipient, address newRecipient)",
  "event InitialFeePreferences(address indexed token, uint8[] feePreference)",
  "event FeePreferenceUpdated(address indexed token, uint256 indexed rewardIndex, uint8 oldFeePreference, uint8 indexed newFeePreference)",
  "event RewardAdminUpdated(address indexed token, uint256 indexed rewardIndex, address oldAdmin, address newAdmin)",
]);

export const clankerFeeLockerAbi = parseAbi([
  "function claim(address feeOwner, address token)",
  "function availableFees(address feeOwner, address token) view returns (uint256)",
  "event StoreTokens(address indexed sender, address indexed feeOwner, address indexed token, uint256 balance, uint256 amount)",
  "event ClaimTokens(address indexed feeOwner, address indexed token, uint256 amountClaimed)",
]);

/** FeeIn of the fee-conversion locker: which currency a recipient is paid in. */
export const FeeIn = { Both: 0, Paired: 1, Clanker: 2 } as const;

/** The name of a `FeeIn` value as the views show it (`Both`, `Paired`, `Clanker`). */
export function feeInName(value: number): "Both" | "Paired" | "Clanker" | "unknown" {
  return value === FeeIn.Both ? "Both" : value === FeeIn.Paired ? "Paired" : value === FeeIn.Clanker ? "Clanker" : "unknown";
}

/** A Clanker token's own events beside ERC-20 `Transfer`: its admin's updates (production.md §4). */
export const clankerTokenEventsAbi = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event UpdateAdmin(address indexed oldAdmin, address indexed newAdmin)",
  "event UpdateImage(string image)",
  "event UpdateMetadata(string metadata)",
]);

/** The factory's payout of the protocol fees it holds to the Clanker team (`claimTeamFees`). */
export const clankerTeamFeesAbi = parseAbi(["event ClaimTeamFees(address indexed token, address indexed recipient, uint256 amount)"]);
