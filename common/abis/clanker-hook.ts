/**
 * Clanker v4's V2 pool hooks (static fee and dynamic fee: the same events) and the
 * SniperAuctionV2 MEV module, as Base runs them (reference/production.md §2-3): the events the
 * service may read, with production's signatures (their topic0s are pinned by the ABI
 * conformance test).
 */
import { parseAbi } from "viem";

export const clankerHookAbi = parseAbi([
  "event PoolCreatedFactory(address indexed pairedToken, address indexed clanker, bytes32 poolId, int24 tickIfToken0IsClanker, int24 tickSpacing, address locker, address mevModule)",
  "event PoolInitialized(bytes32 poolId, uint24 clankerFee, uint24 pairedFee)",
  "event ClaimProtocolFees(address indexed token, uint256 amount)",
  "event MevModuleDisabled(bytes32)",
  "event MevModuleSetFee(bytes32, uint24)",
]);

export const sniperAuctionAbi = parseAbi([
  "event AuctionInitialized(bytes32 poolId, uint256 gasPeg, uint256 auctionBlock, uint256 round)",
  "event AuctionWon(bytes32 indexed poolId, address indexed payee, uint256 paymentAmount, uint256 round)",
  "event AuctionRewardsTransferred(bytes32 indexed poolId, uint256 lpPayment, uint256 factoryPayment)",
  "event AuctionExpired(bytes32 poolId, uint256 round)",
  "event AuctionEnded(bytes32 poolId)",
  "event FeeConfigSet(bytes32 poolId, uint24 startingFee, uint24 endingFee, uint256 secondsToDecay)",
  "event DecayPeriodOver(bytes32 poolId)",
]);
