/**
 * Launching the protocol token on any chain (`npm run engine -- launch-protocol-token`): the
 * configured Clanker launcher deploys it into a Uniswap v4 pool paired with USDC, starting at
 * about 10,000 USDC of market cap, with 100% of its LP fees to the operator wallet (paid in
 * USDC), and it is not enrolled in the registry (its fees are operator revenue, docs/design.md §5.1).
 * The transaction goes through the engine's pipeline under a key derived from the salt, so a
 * repeated command finds the first launch instead of sending a second one.
 */
import { type Address, type Hex, decodeFunctionResult, erc20Abi, getAddress, keccak256, toHex } from "viem";
import { FeeIn, clankerFactoryAbi } from "../../common/abis/clanker.js";
import { type Config, requireContract, requireLaunchFees } from "../../common/config.js";
import { USDC_DECIMALS, formatDecimal } from "../../common/money.js";
import { buildDeploymentConfig, describeDeploymentConfig, encodeDeployToken, parseTokenCreated } from "../../common/deploy-config.js";
import type { TxPipeline } from "../chain/pipeline/index.js";
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
  /** The whole launch config in words: hook and fees, MEV module and decay, locker, rewards, market cap. */
  description: ReturnType<typeof describeDeploymentConfig>;
  /** The address the launcher returns when the launch is simulated now (or the one it created). */
  token: Address;
  /** This launch was already sent and mined (same salt): nothing more to send. */
  alreadyLaunched: boolean;
  /** The protocol token the config already names (PROTOCOL_TOKEN_ADDRESS or the deployments file), if any. */
  existing: ExistingProtocolToken | null;
};

/** The configured protocol token as the chain knows it: deployed (code at the address) and its symbol. */
export type ExistingProtocolToken = { token: Address; deployed: boolean; symbol: string | null };

/** Reads the configured protocol token's code and symbol (null when none is configured). */
export async function configuredProtocolToken(deps: ProtocolTokenDeps): Promise<ExistingProtocolToken | null> {
  const address = deps.config.protocolToken;
  if (!address) return null;
  const token = getAddress(address);
  const code = await deps.pipeline.publicClient.getCode({ address: token });
  if (!code || code === "0x") return { token, deployed: false, symbol: null };
  const symbol = await deps.pipeline.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "symbol" }).catch(() => null);
  return { token, deployed: true, symbol };
}

/**
 * What `--dry-run` says the command would do: nothing when this launch already happened or a
 * deployed protocol token is configured (launching would only add a second token the service
 * ignores), otherwise launch the planned token and have it configured.
 */
export function dryRunVerdict(plan: ProtocolTokenPlan, symbol: string): { wouldSend: boolean; message: string } {
  const e = plan.existing;
  if (plan.alreadyLaunched) {
    return {
      wouldSend: false,
      message: `${symbol} was already launched by an earlier run at ${plan.token}: without --dry-run nothing would be sent; configure PROTOCOL_TOKEN_ADDRESS=${plan.token}`,
    };
  }
  if (e?.deployed && e.token === getAddress(plan.token)) {
    return {
      wouldSend: false,
      message: `the configured protocol token ${e.symbol ? `${e.symbol} at ` : ""}${e.token} is this one, already deployed: without --dry-run nothing would be sent`,
    };
  }
  if (e?.deployed) {
    const name = e.symbol ? `${e.symbol} at ${e.token}` : e.token;
    return {
      wouldSend: false,
      message:
        `a protocol token already exists: ${name} (PROTOCOL_TOKEN_ADDRESS), deployed on this chain. ` +
        `Launching now would deploy a second token, ${symbol} at ${plan.token}, which the service ignores until PROTOCOL_TOKEN_ADDRESS names it ` +
        `(its buybacks, burns and fees keep going to ${name}). To keep the current one, launch nothing; to replace it, run without --dry-run, then set PROTOCOL_TOKEN_ADDRESS=${plan.token} and restart`,
    };
  }
  if (e) {
    return {
      wouldSend: true,
      message: `PROTOCOL_TOKEN_ADDRESS=${e.token} has no code on this chain: without --dry-run this would launch ${symbol} at ${plan.token} from ${plan.operator}; then set PROTOCOL_TOKEN_ADDRESS=${plan.token}`,
    };
  }
  return {
    wouldSend: true,
    message: `no protocol token is configured: without --dry-run this would launch ${symbol} at ${plan.token} from ${plan.operator}; then set PROTOCOL_TOKEN_ADDRESS=${plan.token}`,
  };
}

export type ProtocolTokenDeps = { config: Config; pipeline: TxPipeline };

/** The launch transaction, simulated from the operator wallet: what would be sent, and the token it would create. */
export async function planProtocolToken(deps: ProtocolTokenDeps, p: ProtocolTokenParams): Promise<ProtocolTokenPlan> {
  const { config, pipeline } = deps;
  const operator = pipeline.operator;
  const launcher = requireContract(config, "launcher");
  const usdc = requireContract(config, "usdc");
  const salt = p.salt ?? keccak256(toHex(p.symbol));
  const startingMarketCap = p.startingMarketCap ?? PROTOCOL_TOKEN_MARKET_CAP_USDC;
  const deploymentConfig = buildDeploymentConfig({
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
    fees: requireLaunchFees(config),
  });
  const data = encodeDeployToken(deploymentConfig);
  const description = describeDeploymentConfig(deploymentConfig, { symbol: "USDC", decimals: USDC_DECIMALS });
  const key = `protocol-token:${salt}`;
  const plan = { launcher, operator, pairedToken: usdc, startingMarketCapUsdc: formatDecimal(startingMarketCap, USDC_DECIMALS), key, data, description };
  const existing = await configuredProtocolToken(deps);
  const earlier = await pipeline.result(key);
  if (earlier?.status === "mined") return { ...plan, token: parseTokenCreated(earlier.receipt, launcher).token, alreadyLaunched: true, existing };
  let token: Address;
  try {
    const result = await pipeline.publicClient.call({ account: operator, to: launcher, data });
    token = decodeFunctionResult({ abi: clankerFactoryAbi, functionName: "deployToken", data: result.data! }) as Address;
  } catch (error) {
    const e = classifyError(error);
    throw new Error(`the launcher refuses the protocol token: ${e.message}`);
  }
  return { ...plan, token, alreadyLaunched: false, existing };
}

/** Sends the planned launch through the pipeline and returns the token it created. */
export async function launchProtocolToken(deps: ProtocolTokenDeps, plan: ProtocolTokenPlan): Promise<{ token: Address; txHash: Hex; poolId: Hex }> {
  const outcome = await deps.pipeline.send({ key: plan.key, kind: "launch-protocol-token", worker: "cli", to: plan.launcher, data: plan.data });
  if (outcome.status !== "mined") throw new Error(`the protocol token launch did not land: ${outcome.reason}`);
  const created = parseTokenCreated(outcome.receipt, plan.launcher);
  return { token: created.token, txHash: outcome.receipt.transactionHash, poolId: created.poolId };
}
