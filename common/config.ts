/**
 * The service's configuration: read from the environment once, validated with zod, and
 * passed in as a typed object. Nothing else in the codebase reads `process.env`.
 *
 * Contract addresses default to the devnet's `devnet/deployments.json` when the chain id
 * matches it; on any other chain they must be given explicitly.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Address, type Hex, getAddress, isAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { z } from "zod";
import { ETH_DECIMALS, USDC_DECIMALS, parseDecimal } from "./money.js";
import { GAINS_BASE_DIAMOND } from "./abis/gains.js";
import { DEFAULT_PERPS_VENUE, PERPS_VENUE_IDS } from "./perps-venues.js";
import { DYNAMIC_BASIC_FEES, type LaunchFees, MAX_V2_HOOK_FEE, MIN_DYNAMIC_BASE_FEE } from "./deploy-config.js";
import { ServiceError } from "./errors.js";

/** anvil's first default account: the devnet operator. Never valid outside the devnet. */
export const DEVNET_OPERATOR_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80" as const;
export const DEVNET_CHAIN_ID = 31337;
export const DEVNET_RPC_URL = "http://127.0.0.1:8545";
export const DEFAULT_PORT = 42069;
/** Where the engine serves Prometheus metrics (the prom-client exporter convention). */
export const DEFAULT_ENGINE_METRICS_PORT = 9464;

export const DEPLOYMENTS_PATH = fileURLToPath(new URL("../devnet/deployments.json", import.meta.url));

/** Environment variable → key of `contracts` in deployments.json. */
export const CONTRACT_VARIABLES = {
  USDC_ADDRESS: "usdc",
  WETH_ADDRESS: "weth",
  PERMIT2_ADDRESS: "permit2",
  V3_FACTORY_ADDRESS: "v3Factory",
  V3_ROUTER_ADDRESS: "v3Router",
  V3_POSITION_MANAGER_ADDRESS: "v3PositionManager",
  V3_WETH_USDC_POOL_ADDRESS: "v3WethUsdcPool",
  V4_POOL_MANAGER_ADDRESS: "v4PoolManager",
  V4_POSITION_MANAGER_ADDRESS: "v4PositionManager",
  UNIVERSAL_ROUTER_ADDRESS: "universalRouter",
  LAUNCHER_ADDRESS: "launcher",
  LP_LOCKER_ADDRESS: "lpLocker",
  FEE_LOCKER_ADDRESS: "feeLocker",
  CLANKER_HOOK_ADDRESS: "clankerHook",
  CLANKER_DYNAMIC_HOOK_ADDRESS: "clankerDynamicHook",
  MEV_MODULE_ADDRESS: "mevModule",
  REGISTRY_ADDRESS: "registry",
  PERPS_TRADING_ADDRESS: "perpsTrading",
  PERPS_STORAGE_ADDRESS: "perpsStorage",
  PERPS_CALLBACKS_ADDRESS: "perpsCallbacks",
  SECONDARY_ASSET_ADDRESS: "secondaryAsset",
  ASSET_VAULT_ADDRESS: "assetVault",
  SECONDARY_ASSET_POOL_ADDRESS: "secondaryAssetPool",
} as const;

export type ContractVariable = keyof typeof CONTRACT_VARIABLES;

export const BASE_CHAIN_ID = 8453;
/**
 * Clanker v4 on Base (docs/base.md, "Base addresses"): the defaults when
 * CHAIN_ID=8453. The hook is the static-fee V2 hook and the MEV module SniperAuctionV2, what
 * clanker-sdk launches with; the dynamic-fee V2 hook is there for launches with a dynamic fee.
 */
export const BASE_CLANKER_CONTRACTS = {
  launcher: "0xE85A59c628F7d27878ACeB4bf3b35733630083a9",
  lpLocker: "0x63D2DfEA64b3433F4071A98665bcD7Ca14d93496",
  feeLocker: "0xF3622742b1E446D92e45E22923Ef11C2fcD55D68",
  clankerHook: "0xb429d62f8f3bFFb98CdB9569533eA23bF0Ba28CC",
  clankerDynamicHook: "0xd60D6B218116cFd801E28F78d011a203D2b068Cc",
  mevModule: "0xebB25BB797D82CB78E1bc70406b13233c0854413",
} as const satisfies Partial<Record<string, Address>>;
export type ContractName = (typeof CONTRACT_VARIABLES)[ContractVariable];

export type Deployments = {
  chainId: number;
  rpcUrl: string;
  operator: Address;
  startBlock?: number;
  /** Contract addresses by name, plus `priceFeeds` (feed name → address). */
  contracts: { [name: string]: Address | Record<string, Address> | undefined; priceFeeds?: Record<string, Address> };
  protocolToken?: Address;
};

export class ConfigError extends ServiceError {
  override name = "ConfigError";
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`, { code: "NOT_CONFIGURED" });
  }
}

/** A value the running service needs but was not configured (HTTP 503 at the edge). */
export class MissingConfigError extends ServiceError {
  override name = "MissingConfigError";
  constructor(readonly variable: string) {
    super(`missing configuration: ${variable} is not set`, { code: "NOT_CONFIGURED" });
  }
}

const decimal = (decimals: number, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      try {
        return parseDecimal(value, decimals);
      } catch {
        ctx.addIssue({ code: "custom", message: `expected a non-negative decimal with at most ${decimals} places` });
        return z.NEVER;
      }
    });

const integer = (min: number, max: number, fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, {
      message: `expected an integer from ${min} to ${max}`,
    })
    .transform(Number);

const address = z
  .string()
  .refine((v) => isAddress(v, { strict: false }), { message: "expected a 0x-prefixed 20-byte hex address" })
  .transform((v) => getAddress(v));

const bool = z
  .enum(["true", "false", "1", "0"], { message: "expected true or false" })
  .default("false")
  .transform((v) => v === "true" || v === "1");

const url = (protocols: string[]) =>
  z.string().refine(
    (v) => {
      try {
        return protocols.includes(new URL(v).protocol);
      } catch {
        return false;
      }
    },
    { message: `expected a ${protocols.map((p) => p.replace(":", "")).join(" or ")} URL` },
  );

/** Confirmations before a fact is final: none on the devnet, 12 blocks (24 s on Base) elsewhere. */
export const DEVNET_CONFIRMATIONS = 0;
export const DEFAULT_CONFIRMATIONS = 12;

const envSchema = z.object({
  DATABASE_URL: url(["postgres:", "postgresql:"]).optional(),
  RPC_URL: url(["http:", "https:"]).optional(),
  INDEXER_RPC_URLS: z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((u) => u.trim())
        .filter(Boolean),
    )
    .pipe(z.array(url(["http:", "https:"])).min(1, "expected one or more comma-separated URLs"))
    .optional(),
  CHAIN_ID: integer(1, 2 ** 31, DEVNET_CHAIN_ID),
  PROTOCOL_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte hex private key")
    .optional(),
  PROTOCOL_TOKEN_ADDRESS: address.optional(),
  OPERATOR_ADDRESS: address.optional(),
  PORT: integer(1, 65535, DEFAULT_PORT),
  BODY_TIMEOUT_SECONDS: integer(1, 600, 30),
  PUBLIC_URL: url(["http:", "https:"])
    .refine((v) => !/[?#]/.test(v) && ["", "/"].includes(new URL(v).pathname), { message: "expected an origin (scheme, host and port), without a path" })
    .optional(),
  ENGINE_METRICS_PORT: integer(0, 65535, DEFAULT_ENGINE_METRICS_PORT),
  PLATFORM_LAUNCH_FEE_ETH: decimal(ETH_DECIMALS, "0.002"),
  PERPS_MIN_NOTIONAL_USDC: decimal(USDC_DECIMALS, "100"),
  PERPS_VENUE: z.enum(PERPS_VENUE_IDS, { message: `expected one of ${PERPS_VENUE_IDS.join(", ")}` }).default(DEFAULT_PERPS_VENUE),
  CLAIM_BATCH_SIZE: integer(1, 1000, 10),
  CREATOR_BUYBACK_MIN_USDC: decimal(USDC_DECIMALS, "5"),
  PROTOCOL_BUYBACK_MIN_USDC: decimal(USDC_DECIMALS, "0.5"),
  SWAP_SLIPPAGE_BPS: integer(1, 5_000, 100),
  SWAP_DEADLINE_SECONDS: integer(30, 3_600, 300),
  TX_GAS_CEILING: integer(100_000, 1_000_000_000, 8_000_000),
  WORKER_INTERVAL_SCALE: z
    .string()
    .default("1")
    .refine((v) => /^\d+(\.\d+)?$/.test(v) && Number(v) > 0 && Number(v) <= 100, {
      message: "expected a positive number up to 100",
    })
    .transform(Number),
  START_BLOCK: integer(0, Number.MAX_SAFE_INTEGER, 0).optional(),
  CONFIRMATIONS: integer(0, 100_000, 0).optional(),
  LEADER_LEASE_SECONDS: integer(2, 600, 10),
  WEBHOOK_RETRY_BASE_MS: integer(10, 3_600_000, 10_000),
  WEBHOOK_RETRY_MAX_MS: integer(10, 86_400_000, 3_600_000),
  WEBHOOK_GIVE_UP_SECONDS: integer(1, 30 * 86_400, 86_400),
  WEBHOOK_TIMEOUT_MS: integer(100, 120_000, 10_000),
  INDEXER_MAX_LAG_BLOCKS: integer(1, 1_000_000, 10),
  INDEXER_STALL_SECONDS: integer(5, 86_400, 60),
  ETH_GET_LOGS_BLOCK_RANGE: integer(1, 1_000_000, 1).optional(),
  OPERATOR_API_KEY: z.string().min(16, "expected at least 16 characters").optional(),
  LEGACY_LAUNCH_OPEN: bool,
  RATE_LIMIT_SCALE: z
    .string()
    .default("1")
    .refine((v) => /^\d+(\.\d+)?$/.test(v) && Number(v) > 0 && Number(v) <= 1_000_000, {
      message: "expected a positive number up to 1000000",
    })
    .transform(Number),
  AGENT_KEY_SECRET: z.string().min(32, "expected at least 32 characters").optional(),
  INFERENCE_URL: url(["http:", "https:"]).optional(),
  INFERENCE_MODEL: z.string().min(1).max(200).optional(),
  INFERENCE_API_KEY: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error"], { message: "expected trace, debug, info, warn or error" }).default("info"),
  LOG_FORMAT: z.enum(["pretty", "json", "auto"], { message: "expected pretty, json or auto" }).default("auto"),
  DEPLOYMENTS_FILE: z.string().default(DEPLOYMENTS_PATH),
  // Launch fees in Uniswap pips (1_000_000 = 100%); clanker-sdk's defaults.
  LAUNCH_CLANKER_FEE_PIPS: integer(0, 100_000, 10_000),
  LAUNCH_PAIRED_FEE_PIPS: integer(0, 100_000, 10_000),
  // static: the static-fee V2 hook with the two fees above; dynamic: the dynamic-fee V2 hook, whose
  // LP fee moves from its base fee up to its maximum with the pool's volatility (clanker-sdk's DynamicBasic curve).
  LAUNCH_FEE_TYPE: z.enum(["static", "dynamic"], { message: "expected static or dynamic" }).default("static"),
  LAUNCH_DYNAMIC_BASE_FEE_PIPS: integer(MIN_DYNAMIC_BASE_FEE, MAX_V2_HOOK_FEE, DYNAMIC_BASIC_FEES.baseFee),
  LAUNCH_DYNAMIC_MAX_FEE_PIPS: integer(MIN_DYNAMIC_BASE_FEE, MAX_V2_HOOK_FEE, DYNAMIC_BASIC_FEES.maxLpFee),
  SNIPER_STARTING_FEE_PIPS: integer(30_000, 800_000, 666_777),
  SNIPER_ENDING_FEE_PIPS: integer(30_000, 800_000, 41_673),
  SNIPER_SECONDS_TO_DECAY: integer(1, 120, 15),
  ...(Object.fromEntries(Object.keys(CONTRACT_VARIABLES).map((k) => [k, address.optional()])) as Record<ContractVariable, z.ZodOptional<typeof address>>),
});

/** The typed configuration: what `loadConfig` returns, declared once (the env schema above, the shape below). */
export type Config = ReturnType<typeof loadConfig>;

/** Reads deployments.json if it exists and is for this chain. */
export function readDeployments(path: string, chainId?: number): Deployments | undefined {
  if (!existsSync(path)) return undefined;
  const deployments = JSON.parse(readFileSync(path, "utf8")) as Deployments;
  if (chainId !== undefined && deployments.chainId !== chainId) return undefined;
  return deployments;
}

/**
 * Validates the environment and returns the typed configuration.
 * Throws a ConfigError naming the first bad variable.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    const got = cleaned[variable];
    // Keys, secrets and URLs (a provider's API key or a database password rides in them) are never echoed.
    const shown = /(KEY|SECRET|URLS?)$/.test(variable) || got === undefined ? "" : ` (got "${got}")`;
    throw new ConfigError(variable, `${issue.message}${shown}`);
  }
  const e = parsed.data;
  const isDevnet = e.CHAIN_ID === DEVNET_CHAIN_ID;

  const operatorKey = (e.PROTOCOL_PRIVATE_KEY ?? (isDevnet ? DEVNET_OPERATOR_KEY : undefined)) as Hex | undefined;
  let operator: Address | undefined = e.OPERATOR_ADDRESS;
  if (operatorKey) {
    let derived: Address;
    try {
      derived = privateKeyToAccount(operatorKey).address;
    } catch {
      throw new ConfigError("PROTOCOL_PRIVATE_KEY", "not a valid secp256k1 private key");
    }
    if (operator && operator !== derived) {
      throw new ConfigError("OPERATOR_ADDRESS", `does not match the address of PROTOCOL_PRIVATE_KEY (${derived})`);
    }
    operator = derived;
  }

  const deployments = readDeployments(e.DEPLOYMENTS_FILE, e.CHAIN_ID);
  const contracts: Partial<Record<ContractName, Address>> = {};
  for (const [variable, name] of Object.entries(CONTRACT_VARIABLES) as [ContractVariable, ContractName][]) {
    const value = e[variable] ?? deployments?.contracts[name];
    if (typeof value === "string") contracts[name] = getAddress(value);
    else if (e.CHAIN_ID === BASE_CHAIN_ID && name in BASE_CLANKER_CONTRACTS) {
      contracts[name] = BASE_CLANKER_CONTRACTS[name as keyof typeof BASE_CLANKER_CONTRACTS];
    }
  }
  if (e.LAUNCH_DYNAMIC_MAX_FEE_PIPS < e.LAUNCH_DYNAMIC_BASE_FEE_PIPS) {
    throw new ConfigError("LAUNCH_DYNAMIC_MAX_FEE_PIPS", `must be at least LAUNCH_DYNAMIC_BASE_FEE_PIPS (${e.LAUNCH_DYNAMIC_BASE_FEE_PIPS})`);
  }
  if (e.SNIPER_ENDING_FEE_PIPS >= e.SNIPER_STARTING_FEE_PIPS) {
    throw new ConfigError("SNIPER_ENDING_FEE_PIPS", `must be below SNIPER_STARTING_FEE_PIPS (${e.SNIPER_STARTING_FEE_PIPS})`);
  }

  return {
    databaseUrl: e.DATABASE_URL,
    rpcUrl: e.RPC_URL ?? DEVNET_RPC_URL,
    /** The indexer's endpoints of the chain (INDEXER_RPC_URLS, default RPC_URL): ponder spreads its requests over them. */
    indexerRpcUrls: e.INDEXER_RPC_URLS ?? [e.RPC_URL ?? DEVNET_RPC_URL],
    chainId: e.CHAIN_ID,
    isDevnet,
    operatorKey,
    operator,
    protocolToken: e.PROTOCOL_TOKEN_ADDRESS ?? deployments?.protocolToken,
    port: e.PORT,
    /** Longest a client may take to send a request body before a 408 (BODY_TIMEOUT_SECONDS, default 30). */
    bodyTimeoutSeconds: e.BODY_TIMEOUT_SECONDS,
    /**
     * The origin users reach the service at (PUBLIC_URL, default `http://127.0.0.1:PORT`, where `npm start` listens):
     * Sign-In with Ethereum messages must be made for its host and carry a URI on it. Never
     * taken from a request's Host or X-Forwarded-* headers.
     */
    publicUrl: new URL(e.PUBLIC_URL ?? `http://127.0.0.1:${e.PORT}`),
    /** The engine's Prometheus `/metrics` port; 0 disables it. */
    engineMetricsPort: e.ENGINE_METRICS_PORT,
    platformLaunchFeeWei: e.PLATFORM_LAUNCH_FEE_ETH,
    perpsMinNotionalUsdc: e.PERPS_MIN_NOTIONAL_USDC,
    /**
     * The perps exchange adapter (common/perps-venues.ts). Desks trade only on a chain it
     * declares; elsewhere the engine sends no perps call and the perp leg accumulates.
     */
    perpsVenue: e.PERPS_VENUE,
    claimBatchSize: e.CLAIM_BATCH_SIZE,
    creatorBuybackMinUsdc: e.CREATOR_BUYBACK_MIN_USDC,
    protocolBuybackMinUsdc: e.PROTOCOL_BUYBACK_MIN_USDC,
    /** Most a swap's output may fall below its fresh quote, in bps (every swap the service signs). */
    swapSlippageBps: e.SWAP_SLIPPAGE_BPS,
    /** Seconds a signed swap stays valid after the chain's latest block when it was planned. */
    swapDeadlineSeconds: e.SWAP_DEADLINE_SECONDS,
    /** No transaction is signed with a gas limit above this (an out-of-gas retry included), unless its estimate is higher. */
    txGasCeiling: BigInt(e.TX_GAS_CEILING),
    workerIntervalScale: e.WORKER_INTERVAL_SCALE,
    startBlock: e.START_BLOCK ?? deployments?.startBlock ?? 0,
    /**
     * Blocks that must cover a receipt or a log before the engine counts it final (0 on the
     * devnet; 12 by default elsewhere). Until then the finality watcher re-checks it.
     */
    confirmations: e.CONFIRMATIONS ?? (isDevnet ? DEVNET_CONFIRMATIONS : DEFAULT_CONFIRMATIONS),
    /**
     * Term of the engine's leadership lease: a leader that stops renewing it (killed, frozen,
     * cut off from PostgreSQL) is replaced by a standby this long after its last renewal.
     */
    leaderLeaseSeconds: e.LEADER_LEASE_SECONDS,
    /**
     * Webhook deliveries (docs/design.md §7.1): the first retry waits `retryBaseMs`, doubling
     * (with jitter) up to `retryMaxMs`; a delivery still failing `giveUpSeconds` after it was
     * queued is dead-lettered; each attempt waits at most `timeoutMs` for an answer.
     */
    webhooks: {
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: Math.max(e.WEBHOOK_RETRY_MAX_MS, e.WEBHOOK_RETRY_BASE_MS),
      giveUpSeconds: e.WEBHOOK_GIVE_UP_SECONDS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
    /** Health is degraded while the indexer is more than this many blocks behind the chain's head. */
    indexerMaxLagBlocks: e.INDEXER_MAX_LAG_BLOCKS,
    /** Health is degraded while the indexer has not advanced for this long (s) though the head has. */
    indexerStallSeconds: e.INDEXER_STALL_SECONDS,
    /** Most blocks per eth_getLogs request of the indexer (unset: ponder decides). */
    ethGetLogsBlockRange: e.ETH_GET_LOGS_BLOCK_RANGE,
    operatorApiKey: e.OPERATOR_API_KEY,
    legacyLaunchOpen: e.LEGACY_LAUNCH_OPEN,
    /** Multiplies every per-client rate limit (burst and refill); 1 in production. */
    rateLimitScale: e.RATE_LIMIT_SCALE,
    agentKeySecret: e.AGENT_KEY_SECRET,
    inferenceUrl: e.INFERENCE_URL,
    inferenceModel: e.INFERENCE_MODEL,
    inferenceApiKey: e.INFERENCE_API_KEY,
    logLevel: e.LOG_LEVEL,
    /** pretty (pino-pretty), json, or auto: pretty on a terminal, JSON when piped. */
    logFormat: e.LOG_FORMAT,
    contracts,
    priceFeeds: deployments?.contracts.priceFeeds ?? {},
    /** The gTrade v10 diamond (common/abis/gains.ts): the devnet's twin from DEPLOYMENTS_FILE, on Base (8453) Base's own. */
    gainsDiamond: (deployments?.contracts.gainsDiamond as Address | undefined) ?? (e.CHAIN_ID === BASE_CHAIN_ID ? GAINS_BASE_DIAMOND : undefined),
    /** The fees every launch sets (the hook and the MEV module are in `contracts`). */
    launchFees: {
      type: e.LAUNCH_FEE_TYPE,
      clankerFee: e.LAUNCH_CLANKER_FEE_PIPS,
      pairedFee: e.LAUNCH_PAIRED_FEE_PIPS,
      /** With `type` dynamic: the curve's base and most LP fee (the rest is clanker-sdk's DynamicBasic). */
      dynamicBaseFee: e.LAUNCH_DYNAMIC_BASE_FEE_PIPS,
      dynamicMaxFee: e.LAUNCH_DYNAMIC_MAX_FEE_PIPS,
      startingFee: e.SNIPER_STARTING_FEE_PIPS,
      endingFee: e.SNIPER_ENDING_FEE_PIPS,
      secondsToDecay: e.SNIPER_SECONDS_TO_DECAY,
    },
  };
}

/**
 * The hook, the MEV module and the fees every launch sets (`LAUNCH_FEE_TYPE` picks the static- or
 * the dynamic-fee V2 hook); throws MissingConfigError without the hook or module it needs.
 */
export function requireLaunchFees(config: Config): LaunchFees {
  const { type, dynamicBaseFee, dynamicMaxFee, ...fees } = config.launchFees;
  const mevModule = requireContract(config, "mevModule");
  if (type === "static") return { ...fees, hook: requireContract(config, "clankerHook"), mevModule };
  return {
    ...fees,
    hook: requireContract(config, "clankerDynamicHook"),
    dynamic: { ...DYNAMIC_BASIC_FEES, baseFee: dynamicBaseFee, maxLpFee: dynamicMaxFee },
    mevModule,
  };
}

/** Returns a configured contract address or throws MissingConfigError naming its variable. */
export function requireContract(config: Config, name: ContractName): Address {
  const address = config.contracts[name];
  if (address) return address;
  const variable = Object.entries(CONTRACT_VARIABLES).find(([, n]) => n === name)![0];
  throw new MissingConfigError(variable);
}

/** Runs `main` with a validated config; a ConfigError ends the process with one clear line. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`configuration error: ${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
