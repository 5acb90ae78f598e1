/**
 * Ponder sources. Addresses come from the typed config (environment, or the devnet's
 * deployments.json); the same file indexes Base when the production addresses are given
 * (see README, "Indexing Base").
 */
import { createConfig, factory } from "ponder";
import { getAbiItem } from "viem";
import {
  clankerFactoryAbi,
  clankerFeeLockerAbi,
  clankerLpLockerAbi,
  perpsCallbacksAbi,
  perpsTradingAbi,
  poolManagerAbi,
  registryAbi,
  transferEventAbi,
  v3PoolEventsAbi,
} from "./common/abis/index.js";
import { sniperAuctionAbi } from "./common/abis/clanker-hook.js";
import { loadConfigOrExit, requireContract } from "./common/config.js";
import { CHAIN_NAME, DEAD_ADDRESS } from "./common/constants.js";

const config = loadConfigOrExit();
const startBlock = config.startBlock;
const on = (name: Parameters<typeof requireContract>[1]) => ({ chain: CHAIN_NAME as typeof CHAIN_NAME, address: requireContract(config, name), startBlock });
const v3Pools = [requireContract(config, "v3WethUsdcPool"), config.contracts.secondaryAssetPool].filter((a) => a !== undefined);

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
    LaunchedToken: {
      abi: transferEventAbi,
      chain: CHAIN_NAME,
      address: factory({
        address: requireContract(config, "launcher"),
        event: getAbiItem({ abi: clankerFactoryAbi, name: "TokenCreated" }),
        parameter: "tokenAddress",
      }),
      filter: { event: "Transfer", args: { to: DEAD_ADDRESS } },
      startBlock,
    },
    LpLocker: { abi: clankerLpLockerAbi, ...on("lpLocker") },
    FeeLocker: { abi: clankerFeeLockerAbi, ...on("feeLocker") },
    MevModule: { abi: sniperAuctionAbi, ...on("mevModule") },
    Registry: { abi: registryAbi, ...on("registry") },
    PoolManager: { abi: poolManagerAbi, ...on("v4PoolManager") },
    V3Pool: { abi: v3PoolEventsAbi, chain: CHAIN_NAME, address: v3Pools, startBlock },
    PerpsTrading: { abi: perpsTradingAbi, ...on("perpsTrading") },
    PerpsCallbacks: { abi: perpsCallbacksAbi, ...on("perpsCallbacks") },
  },
});
