/**
 * Ponder sources. Addresses come from the typed config (environment, or the devnet's
 * deployments.json); the same file indexes Base when the production addresses are given
 * (docs/base.md, "Indexing Base").
 *
 * Every source is keyed to our tokens (common/ours.ts, docs/design.md §4.6), at a cost that
 * grows with our activity, not with Base's:
 * - launches (`TokenCreated`, the locker's launch events, the MEV module's): one log per
 *   Clanker launch, the only per-launch facts that name agent wallets' launches; the handlers
 *   keep ours and write nothing for the others;
 * - the fee locker: only the operator's balances (`feeOwner` is an indexed topic); the LP
 *   locker's `ClaimedRewards`/`FeesSwapped` come from the receipts of the operator's stores;
 * - our tokens' own transfers: to the dead address (burns) and to or from the v4 PoolManager,
 *   whose receipts hold our pools' `Swap`s. The set of our tokens is a factory keyed on our
 *   registry's `TokenEnrolled` (an event only ours emit), plus the protocol token.
 * - the perps exchanges: only the operator's orders and executions (the trader is an indexed
 *   topic of every event followed), on Avantis v1 and on the gTrade v10 diamond (the devnet's
 *   twin from deployments, on Base Base's own; no diamond configured: nothing is followed).
 * Nothing follows the PoolManager's `Swap`/`Initialize` of every v4 pool.
 */
import { createConfig, factory } from "ponder";
import { getAbiItem, zeroAddress } from "viem";
import {
  clankerFactoryAbi,
  clankerFeeLockerAbi,
  clankerLpLockerAbi,
  clankerTokenEventsAbi,
  perpsCallbacksAbi,
  perpsTradingAbi,
  registryAbi,
  transferEventAbi,
  v3PoolEventsAbi,
} from "./common/abis/index.js";
import { sniperAuctionAbi } from "./common/abis/clanker-hook.js";
import { gainsEventsAbi } from "./common/abis/gains.js";
import { loadConfigOrExit, requireContract } from "./common/config.js";
import { CHAIN_NAME, DEAD_ADDRESS } from "./common/constants.js";

const config = loadConfigOrExit();
const startBlock = config.startBlock;
const on = (name: Parameters<typeof requireContract>[1]) => ({ chain: CHAIN_NAME as typeof CHAIN_NAME, address: requireContract(config, name), startBlock });
const poolManager = requireContract(config, "v4PoolManager");
const operator = config.operator ?? zeroAddress; // without an operator, its filters match nothing
/** The gTrade v10 diamond, if this chain has one (without it, the source matches nothing). */
const gainsDiamond = config.gainsDiamond ?? zeroAddress;
const v3Pools = [requireContract(config, "v3WethUsdcPool"), config.contracts.secondaryAssetPool].filter((a) => a !== undefined);

/** Our enrolled tokens: every token our registry enrols (an event only our operator can cause). */
const enrolledTokens = factory({
  address: requireContract(config, "registry"),
  event: getAbiItem({ abi: registryAbi, name: "TokenEnrolled" }),
  parameter: "token",
});

/**
 * One of our tokens' transfers that matter: into the dead address (burns) or the v4 PoolManager
 * ("in"), or out of the PoolManager ("out"); a swap in our pool moves our token one way or the
 * other. ponder allows one topic filter per event and source, hence two sources per set.
 */
function ourTokenSource<A>(address: A, direction: "in" | "out") {
  return {
    // The "in" sources also carry the token's own updates (image, metadata, admin).
    abi: direction === "in" ? clankerTokenEventsAbi : transferEventAbi,
    chain: CHAIN_NAME as typeof CHAIN_NAME,
    address,
    filter:
      direction === "in"
        ? { event: "Transfer" as const, args: { to: [DEAD_ADDRESS, poolManager] } }
        : { event: "Transfer" as const, args: { from: poolManager } },
    startBlock,
  };
}

export default createConfig({
  database: config.databaseUrl ? { kind: "postgres", connectionString: config.databaseUrl } : undefined,
  ordering: "omnichain",
  chains: {
    [CHAIN_NAME]: {
      id: config.chainId,
      // Every endpoint is a bucket of its own in ponder's client, each with its own adaptive
      // rate limit (20 requests/s to start): a second endpoint doubles what the backfill may send.
      rpc: config.indexerRpcUrls,
      pollingInterval: config.isDevnet ? 250 : 1_000,
      disableCache: config.isDevnet,
      ethGetLogsBlockRange: config.ethGetLogsBlockRange,
    },
  },
  contracts: {
    Launcher: { abi: clankerFactoryAbi, ...on("launcher") },
    // Our enrolled tokens: children of our registry's enrolments (followed from the enrolment on).
    OurTokenIn: ourTokenSource(enrolledTokens, "in"),
    OurTokenOut: ourTokenSource(enrolledTokens, "out"),
    // The protocol token (never enrolled), from its launch on.
    ProtocolTokenIn: ourTokenSource(config.protocolToken ?? zeroAddress, "in"),
    ProtocolTokenOut: ourTokenSource(config.protocolToken ?? zeroAddress, "out"),
    LpLocker: { abi: clankerLpLockerAbi, ...on("lpLocker") },
    FeeLocker: {
      abi: clankerFeeLockerAbi,
      ...on("feeLocker"),
      filter: [
        { event: "StoreTokens", args: { feeOwner: operator } },
        { event: "ClaimTokens", args: { feeOwner: operator } },
      ],
    },
    MevModule: { abi: sniperAuctionAbi, ...on("mevModule") },
    Registry: { abi: registryAbi, ...on("registry") },
    V3Pool: { abi: v3PoolEventsAbi, chain: CHAIN_NAME, address: v3Pools, startBlock },
    PerpsTrading: { abi: perpsTradingAbi, ...on("perpsTrading") },
    PerpsCallbacks: { abi: perpsCallbacksAbi, ...on("perpsCallbacks") },
    GainsDiamond: {
      abi: gainsEventsAbi,
      chain: CHAIN_NAME,
      address: gainsDiamond,
      startBlock,
      filter: [
        { event: "MarketOrderInitiated", args: { trader: operator } },
        { event: "PositionSizeUpdateInitiated", args: { trader: operator } },
        { event: "LeverageUpdateInitiated", args: { trader: operator } },
        { event: "MarketExecuted", args: { user: operator } },
        { event: "MarketOpenCanceled", args: { trader: operator } },
        { event: "MarketCloseCanceled", args: { trader: operator } },
        { event: "LimitExecuted", args: { user: operator } },
        { event: "PositionSizeIncreaseExecuted", args: { trader: operator } },
        { event: "PositionSizeDecreaseExecuted", args: { trader: operator } },
        { event: "LeverageUpdateExecuted", args: { trader: operator } },
        { event: "CollateralReturnedAfterTimeout", args: { trader: operator } },
        // Names no trader in its topics: every trader's timeouts are fetched, the operator's kept (rare: the oracle answers within seconds).
        { event: "ChainlinkCallbackTimeout", args: {} },
      ],
    },
  },
});
