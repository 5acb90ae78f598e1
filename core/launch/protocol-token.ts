/**
 * Launching the protocol token on any chain (`npm run engine -- launch-protocol-token`): the
 * configured Clanker launcher deploys it into a Uniswap v4 pool paired with USDC, starting at
 * about 10,000 USDC of market cap, with 100% of its LP fees to the operator wallet (paid in
 * USDC), and it is not enrolled in the registry (its fees are operator revenue, docs/design.md §5.1).
 * The transaction goes through the engine's pipeline under a key derived from the salt, so a
 * repeated command finds the first launch instead of sending a second one.
 */
import { type Address, type Hex, decodeFunctionResult, keccak256, toHex } from "viem";
import { FeeIn, clankerFactoryAbi } from "../../common/abis/clanker.js";
import { type Config, requireContract } from "../../common/config.js";
import { USDC_DECIMALS, formatDecimal } from "../../common/money.js";
import { buildDeploymentConfig, encodeDeployToken, parseTokenCreated } from "../../common/deploy-config.js";
import type { TxPipeline } from "../chain/pipeline.js";
import { classifyError } from "../errors.js";

/** About 10,000 USDC of starting market cap (docs/design.md §4.5). */
export const PROTOCOL_TOKEN_MARKET_CAP_USDC = 10_000n * 10n ** BigInt(USDC_DECIMALS);

export type ProtocolTokenParams = {
  name: string;
  symbol: string;
  image?: string;
  /** Starting market cap in USDC base units (default about 10,000 USDC). */
  startingMarketCap?: bigint;
  /** CREATE2 salt (default: from the symbol), so the address is known before the launch. */
  salt?: Hex;
};

export type ProtocolTokenPlan = {
  launcher: Address;
  operator: Address;
  pairedToken: Address;
  startingMarketCapUsdc: string;
  key: string;
  data: Hex;
  /** The address the launcher returns when the launch is simulated now (or the one it created). */
  token: Address;
  /** This launch was already sent and mined (same salt): nothing more to send. */
  alreadyLaunched: boolean;
};

export type ProtocolTokenDeps = { config: Config; pipeline: TxPipeline };

/** The launch transaction, simulated from the operator wallet: what would be sent, and the token it would create. */
export async function planProtocolToken(deps: ProtocolTokenDeps, p: ProtocolTokenParams): Promise<ProtocolTokenPlan> {
  const { config, pipeline } = deps;
  const operator = pipeline.operator;
  const launcher = requireContract(config, "launcher");
  const usdc = requireContract(config, "usdc");
  const salt = p.salt ?? keccak256(toHex(p.symbol));
  const startingMarketCap = p.startingMarketCap ?? PROTOCOL_TOKEN_MARKET_CAP_USDC;
  const data = encodeDeployToken(
    buildDeploymentConfig({
      tokenAdmin: operator,
      name: p.name,
      symbol: p.symbol,
      image: p.image,
      context: JSON.stringify({ interface: "launchpad", platform: "protocol-token" }),
      salt,
      chainId: config.chainId,
      pairedToken: usdc,
      locker: requireContract(config, "lpLocker"),
      rewards: [{ admin: operator, recipient: operator, bps: 10_000, feeIn: FeeIn.Paired }],
      startingMarketCap,
    }),
  );
  const key = `protocol-token:${salt}`;
  const plan = { launcher, operator, pairedToken: usdc, startingMarketCapUsdc: formatDecimal(startingMarketCap, USDC_DECIMALS), key, data };
  const earlier = await pipeline.result(key);
  if (earlier?.status === "mined") return { ...plan, token: parseTokenCreated(earlier.receipt, launcher).token, alreadyLaunched: true };
  let token: Address;
  try {
    const result = await pipeline.publicClient.call({ account: operator, to: launcher, data });
    token = decodeFunctionResult({ abi: clankerFactoryAbi, functionName: "deployToken", data: result.data! }) as Address;
  } catch (error) {
    const e = classifyError(error);
    throw new Error(`the launcher refuses the protocol token: ${e.message}`);
  }
  return { ...plan, token, alreadyLaunched: false };
}

/** Sends the planned launch through the pipeline and returns the token it created. */
export async function launchProtocolToken(deps: ProtocolTokenDeps, plan: ProtocolTokenPlan): Promise<{ token: Address; txHash: Hex; poolId: Hex }> {
  const outcome = await deps.pipeline.send({ key: plan.key, kind: "launch-protocol-token", worker: "cli", to: plan.launcher, data: plan.data });
  if (outcome.status !== "mined") throw new Error(`the protocol token launch did not land: ${outcome.reason}`);
  const created = parseTokenCreated(outcome.receipt, plan.launcher);
  return { token: created.token, txHash: outcome.receipt.transactionHash, poolId: created.poolId };
}
