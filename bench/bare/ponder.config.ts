/**
 * The framework's floor: a bare ponder app that indexes only the launched tokens' Transfer
 * events (a factory source on the launcher) into one table, for the indexing benchmark.
 */
import { createConfig, factory } from "ponder";
import { getAbiItem } from "viem";
import { clankerFactoryAbi, transferEventAbi } from "../../common/abis/index.js";

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

export default createConfig({
  database: { kind: "postgres", connectionString: env("DATABASE_URL") },
  chains: {
    chain: {
      id: Number(env("CHAIN_ID")),
      // The same endpoints as ours gets (INDEXER_RPC_URLS, comma-separated), else RPC_URL.
      rpc: (process.env.INDEXER_RPC_URLS ?? env("RPC_URL")).split(","),
      disableCache: true,
      ethGetLogsBlockRange: process.env.ETH_GET_LOGS_BLOCK_RANGE ? Number(process.env.ETH_GET_LOGS_BLOCK_RANGE) : undefined,
    },
  },
  contracts: {
    Token: {
      chain: "chain",
      abi: transferEventAbi,
      address: factory({
        address: env("LAUNCHER_ADDRESS") as `0x${string}`,
        event: getAbiItem({ abi: clankerFactoryAbi, name: "TokenCreated" }),
        parameter: "tokenAddress",
      }),
      startBlock: Number(env("START_BLOCK")),
    },
  },
});
