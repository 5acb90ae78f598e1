/**
 * Ponder sources. Addresses come from the typed config (env, or devnet/deployments.json on
 * the devnet); the same file indexes Base when the production addresses are configured.
 */
import { createConfig } from "ponder";
import { http } from "viem";
import { transferEventAbi } from "./common/abis/erc20.js";
import { loadConfigOrExit, requireContract } from "./common/config.js";
import { CHAIN_NAME, DEAD_ADDRESS } from "./common/constants.js";

const config = loadConfigOrExit();

export default createConfig({
  database: config.databaseUrl ? { kind: "postgres", connectionString: config.databaseUrl } : undefined,
  ordering: "omnichain",
  chains: {
    [CHAIN_NAME]: {
      id: config.chainId,
      rpc: http(config.rpcUrl),
      pollingInterval: config.isDevnet ? 250 : 1_000,
      disableCache: config.isDevnet,
    },
  },
  contracts: {
    BurnableToken: {
      chain: CHAIN_NAME,
      abi: transferEventAbi,
      address: [requireContract(config, "weth")],
      filter: { event: "Transfer", args: { to: DEAD_ADDRESS } },
      startBlock: config.startBlock,
    },
  },
});
