/**
 * Clanker v4's V2 pool hooks (static fee and dynamic fee: the same events) and the
 * SniperAuctionV2 MEV module, as Base runs them (reference/production.md §2-3): the events the
 * service may read, with production's signatures and indexed arguments (the ABI conformance test
 * pins their topic0s; every recorded log of the real contracts decodes with them), and the
 * module's state the engine reads (round, next auction block, current fee).
 */
import { type Address, type Hex, encodeAbiParameters, parseAbi } from "viem";

export const clankerHookAbi = parseAbi([
  "event PoolCreatedFactory(address indexed pairedToken, address indexed clanker, bytes32 poolId, int24 tickIfToken0IsClanker, int24 tickSpacing, address locker, address mevModule)",
  "event PoolInitialized(bytes32 poolId, uint24 clankerFee, uint24 pairedFee)",
  "event ClaimProtocolFees(address indexed token, uint256 amount)",
  "event MevModuleDisabled(bytes32)",
  "event MevModuleSetFee(bytes32, uint24)",
  "event PoolExtensionRegistered(bytes32 indexed poolId, address indexed extension)",
]);

export const sniperAuctionAbi = parseAbi([
  "event AuctionInitialized(bytes32 indexed poolId, uint256 gasPeg, uint256 indexed auctionBlock, uint256 round)",
  "event AuctionWon(bytes32 indexed poolId, address indexed payee, uint256 paymentAmount, uint256 round)",
  "event AuctionReset(bytes32 indexed poolId, uint256 gasPeg, uint256 indexed auctionBlock, uint256 round)",
  "event AuctionRewardsTransferred(bytes32 indexed poolId, uint256 lpPayment, uint256 factoryPayment)",
  "event AuctionExpired(bytes32 indexed poolId, uint256 round)",
  "event AuctionEnded(bytes32 indexed poolId)",
  "event FeeConfigSet(bytes32 poolId, uint24 startingFee, uint24 endingFee, uint256 secondsToDecay)",
  "event DecayPeriodOver(bytes32 poolId)",
  "function round(bytes32 poolId) view returns (uint256)",
  "function nextAuctionBlock(bytes32 poolId) view returns (uint256)",
  "function gasPeg(bytes32 poolId) view returns (uint256)",
  "function poolDecayStartTime(bytes32 poolId) view returns (uint256)",
  "function getFee(bytes32 poolId) view returns (uint24)",
  "function feeConfig(bytes32 poolId) view returns (uint24 startingFee, uint24 endingFee, uint256 secondsToDecay)",
  "function maxRounds() view returns (uint256)",
  "function blocksBetweenAuction() view returns (uint256)",
  "function paymentPerGasUnit() view returns (uint256)",
]);

/**
 * A swap's hookData bidding in a sniper auction round: `abi.encode((bytes mevModuleSwapData,
 * bytes poolExtensionSwapData))` with `mevModuleSwapData = abi.encode(payee)`. The bid itself is
 * the transaction's gas price above the round's `gasPeg`: the module pulls
 * (gasPrice − gasPeg) × `paymentPerGasUnit` WETH from the payee.
 */
export function encodeAuctionBid(payee: Address): Hex {
  return encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "mevModuleSwapData", type: "bytes" },
          { name: "poolExtensionSwapData", type: "bytes" },
        ],
      },
    ],
    [{ mevModuleSwapData: encodeAbiParameters([{ type: "address" }], [payee]), poolExtensionSwapData: "0x" }],
  );
}
