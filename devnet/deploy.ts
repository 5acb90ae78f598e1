/**
 * Deploys the whole devnet from a fresh anvil, in a fixed order from the operator account,
 * so every address is the same on every run: tokens and feeds, Uniswap, then the protocol
 * (devnet/protocol.ts: launcher, lockers, registry, perps, secondary asset, launched tokens),
 * then the gTrade v10 diamond's twin (devnet/gains.ts, last, so no other address moves), and
 * writes `deployments.json`.
 */
import { writeFileSync } from "node:fs";
import type { Address } from "viem";
import type { Deployments } from "../common/config.js";
import { compileAll } from "./compile.js";
import type { DevnetContext } from "./context.js";
import { deployGains } from "./gains.js";
import { deployProtocol } from "./protocol.js";
import { deployUniswap } from "./uniswap.js";

/** Chainlink-style feeds the devnet starts with (8 decimals, as Chainlink USD feeds). */
export const DEVNET_FEEDS: Record<string, bigint> = {
  ETH_USD: 3_000n * 10n ** 8n,
  BTC_USD: 60_000n * 10n ** 8n,
};

export type DeployProgress = (step: string) => void;

export async function deployDevnet(ctx: DevnetContext, progress: DeployProgress = () => {}): Promise<Deployments> {
  const startBlock = Number(await ctx.publicClient.getBlockNumber());
  if ((await ctx.publicClient.getTransactionCount({ address: ctx.account.address })) !== 0) {
    throw new Error("the devnet operator has already sent transactions: deploy only on a fresh anvil");
  }
  progress("compiling contracts");
  const artifacts = await compileAll();

  progress("deploying tokens and price feeds");
  const usdc = await ctx.deploy(artifacts.DevnetUSDC!);
  const weth = await ctx.deploy(artifacts.WETH9!);
  const priceFeeds: Record<string, Address> = {};
  for (const [name, answer] of Object.entries(DEVNET_FEEDS)) {
    priceFeeds[name] = await ctx.deploy(artifacts.PriceFeed!, [8, name.replace("_", " / "), answer]);
  }

  progress("deploying Uniswap (Permit2, v3, v4, UniversalRouter)");
  const uniswap = await deployUniswap(ctx, { usdc, weth });

  const protocol = await deployProtocol(ctx, { usdc, weth, ...uniswap, priceFeeds }, progress);

  progress("deploying the gTrade v10 diamond's twin");
  const gains = await deployGains(ctx, artifacts, { usdc, priceFeeds: protocol.priceFeeds });

  return {
    chainId: ctx.chainId,
    rpcUrl: ctx.rpcUrl,
    operator: ctx.account.address,
    startBlock,
    contracts: { usdc, weth, ...uniswap, ...protocol.contracts, ...gains, priceFeeds: protocol.priceFeeds },
    protocolToken: protocol.contracts.protocolToken,
  };
}

export function writeDeployments(path: string, deployments: Deployments): void {
  writeFileSync(path, `${JSON.stringify(deployments, null, 2)}\n`);
}
