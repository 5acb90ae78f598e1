/**
 * Clanker v4 launches: the exact `DeploymentConfig` a `deployToken` call takes, the locker
 * reward split of an enrolled token, and the `TokenCreated` fact read back from a receipt.
 * Pure functions; sending the transaction is the caller's business (the tx pipeline, the
 * devnet deploy).
 */
import {
  type Address,
  type ContractFunctionArgs,
  type Hex,
  type Log,
  encodeAbiParameters,
  encodeFunctionData,
  getAddress,
  isAddress,
  isHex,
  parseEventLogs,
  size,
  zeroAddress,
} from "viem";
import { FeeIn, clankerFactoryAbi } from "./abis/clanker.js";
import { CONFIGURABLE_BPS, DEFAULT_SPLIT, TOTAL_BPS } from "./constants.js";
import { MAX_TICK, MIN_TICK } from "./uniswap.js";
import { ServiceError } from "./errors.js";

/** Every Clanker v4 token has 100B supply with 18 decimals, all of it placed in the pool. */
export const CLANKER_TOKEN_SUPPLY = 100_000_000_000n * 10n ** 18n;
/** The SDK's default (and Base's usual) tick spacing for Clanker pools. */
export const DEFAULT_TICK_SPACING = 200;
/** Width of the single launch position, like the SDK's "Standard" position ([-230400, -120000]). */
export const STANDARD_POSITION_WIDTH = 110_000;
/** Limits of the locker (ClankerLpLocker `MAX_REWARD_PARTICIPANTS`). */
export const MAX_REWARD_RECIPIENTS = 7;

export type FeeInValue = (typeof FeeIn)[keyof typeof FeeIn];

/** One locker reward entry: who may change it, who is paid, its share and its currency. */
export type RewardRecipient = { admin: Address; recipient: Address; bps: number; feeIn: FeeInValue };

/** `deployToken`'s argument, typed from the production ABI. */
export type DeploymentConfig = ContractFunctionArgs<typeof clankerFactoryAbi, "payable", "deployToken">[0];

/** A launch the launcher would refuse (the caller's input). */
export class LaunchConfigError extends ServiceError {
  override name = "LaunchConfigError";
  constructor(message: string) {
    super(message, { code: "BAD_REQUEST" });
  }
}

export type BuildDeploymentConfigParameters = {
  tokenAdmin: Address;
  name: string;
  symbol: string;
  image?: string;
  metadata?: string;
  context?: string;
  /** bytes32; the token address is CREATE2 of `keccak256(abi.encode(tokenAdmin, salt))`. */
  salt: Hex;
  /** `originatingChainId`: the launcher rejects any chain but its own. */
  chainId: number;
  pairedToken: Address;
  locker: Address;
  rewards: readonly RewardRecipient[];
  /** Starting market cap of the whole supply in base units of the paired token (e.g. 10_000e6 for 10,000 USDC). */
  startingMarketCap?: bigint;
  /** Or the starting tick itself (as if the token were currency0), a multiple of `tickSpacing`. */
  tickIfToken0IsClanker?: number;
  tickSpacing?: number;
  /** The pool hook (the devnet launcher ignores it). */
  hook?: Address;
};

/**
 * The exact Clanker v4 `DeploymentConfig`: no extensions, no MEV module, one position holding
 * the whole supply from the starting tick over `STANDARD_POSITION_WIDTH`, and the reward
 * recipients with their fee preferences as the fee-conversion locker's `lockerData`
 * (`abi.encode((uint8[] feePreference))`). Throws `LaunchConfigError` on anything the
 * launcher would reject.
 */
export function buildDeploymentConfig(p: BuildDeploymentConfigParameters): DeploymentConfig {
  const tickSpacing = p.tickSpacing ?? DEFAULT_TICK_SPACING;
  if (!Number.isInteger(tickSpacing) || tickSpacing < 1 || tickSpacing > 16_383) {
    throw new LaunchConfigError(`tick spacing must be an integer from 1 to 16383 (got ${tickSpacing})`);
  }
  if (!p.name.trim() || !p.symbol.trim()) throw new LaunchConfigError("name and symbol must not be empty");
  if (!isHex(p.salt) || size(p.salt) !== 32) throw new LaunchConfigError("salt must be 32 bytes of hex");
  if (!Number.isSafeInteger(p.chainId) || p.chainId < 1) throw new LaunchConfigError(`invalid chain id ${p.chainId}`);
  for (const [what, address] of [["tokenAdmin", p.tokenAdmin], ["pairedToken", p.pairedToken], ["locker", p.locker]] as const) {
    if (!isAddress(address, { strict: false }) || BigInt(address) === 0n) throw new LaunchConfigError(`${what} must be a non-zero address`);
  }
  validateRewards(p.rewards);

  const startTick = startingTick(p, tickSpacing);
  const tickUpper = startTick + Math.floor(STANDARD_POSITION_WIDTH / tickSpacing) * tickSpacing;
  // The locker mirrors the range when the token sorts second: both orientations must fit.
  if (startTick < -MAX_TICK || tickUpper > MAX_TICK) {
    throw new LaunchConfigError(`launch range [${startTick}, ${tickUpper}] is outside the tick bounds`);
  }

  return {
    tokenConfig: {
      tokenAdmin: getAddress(p.tokenAdmin),
      name: p.name,
      symbol: p.symbol,
      salt: p.salt,
      image: p.image ?? "",
      metadata: p.metadata ?? "",
      context: p.context ?? "",
      originatingChainId: BigInt(p.chainId),
    },
    poolConfig: {
      hook: p.hook ?? zeroAddress,
      pairedToken: getAddress(p.pairedToken),
      tickIfToken0IsClanker: startTick,
      tickSpacing,
      poolData: "0x",
    },
    lockerConfig: {
      locker: getAddress(p.locker),
      rewardAdmins: p.rewards.map((r) => getAddress(r.admin)),
      rewardRecipients: p.rewards.map((r) => getAddress(r.recipient)),
      rewardBps: p.rewards.map((r) => r.bps),
      tickLower: [startTick],
      tickUpper: [tickUpper],
      positionBps: [TOTAL_BPS],
      lockerData: encodeLockerData(p.rewards.map((r) => r.feeIn)),
    },
    mevModuleConfig: { mevModule: zeroAddress, mevModuleData: "0x" },
    extensionConfigs: [],
  };
}

function startingTick(p: BuildDeploymentConfigParameters, tickSpacing: number): number {
  if ((p.startingMarketCap === undefined) === (p.tickIfToken0IsClanker === undefined)) {
    throw new LaunchConfigError("give exactly one of startingMarketCap and tickIfToken0IsClanker");
  }
  if (p.tickIfToken0IsClanker !== undefined) {
    const tick = p.tickIfToken0IsClanker;
    if (!Number.isInteger(tick) || tick % tickSpacing !== 0) {
      throw new LaunchConfigError(`starting tick ${tick} is not a multiple of the tick spacing ${tickSpacing}`);
    }
    return tick;
  }
  return tickFromMarketCap(p.startingMarketCap!, tickSpacing);
}

function validateRewards(rewards: readonly RewardRecipient[]): void {
  if (rewards.length < 1 || rewards.length > MAX_REWARD_RECIPIENTS) {
    throw new LaunchConfigError(`expected 1 to ${MAX_REWARD_RECIPIENTS} reward recipients (got ${rewards.length})`);
  }
  let total = 0;
  for (const r of rewards) {
    if (!Number.isInteger(r.bps) || r.bps < 1 || r.bps > TOTAL_BPS) throw new LaunchConfigError(`reward bps must be an integer from 1 to ${TOTAL_BPS} (got ${r.bps})`);
    if (!Object.values(FeeIn).includes(r.feeIn)) throw new LaunchConfigError(`unknown fee preference ${r.feeIn}`);
    for (const address of [r.admin, r.recipient]) {
      if (!isAddress(address, { strict: false }) || BigInt(address) === 0n) throw new LaunchConfigError("reward admins and recipients must be non-zero addresses");
    }
    total += r.bps;
  }
  if (total !== TOTAL_BPS) throw new LaunchConfigError(`reward bps must sum to ${TOTAL_BPS} (got ${total})`);
}

/** The fee-conversion locker's `lockerData`: `abi.encode((uint8[] feePreference))`. */
export function encodeLockerData(feePreference: readonly FeeInValue[]): Hex {
  return encodeAbiParameters([{ type: "tuple", components: [{ name: "feePreference", type: "uint8[]" }] }], [{ feePreference }]);
}

/** Calldata of `deployToken(config)` (production selector 0xdf40224a). */
export function encodeDeployToken(config: DeploymentConfig): Hex {
  return encodeFunctionData({ abi: clankerFactoryAbi, functionName: "deployToken", args: [config] });
}

export type LaunchSplit = { assetBps: number; perpBps: number; creatorBps: number };

/**
 * Locker rewards of an enrolled token: the operator wallet at index 0 with everything but the
 * creator leg (9050 bps with the default split), the creator at index 1 with `creatorBps`,
 * both paid in the paired token. A zero creator leg leaves the operator alone at 10000.
 */
export function launchSplitRewards(p: { operator: Address; creator: Address; split?: LaunchSplit }): RewardRecipient[] {
  const split = p.split ?? DEFAULT_SPLIT;
  const legs = [split.assetBps, split.perpBps, split.creatorBps];
  if (legs.some((bps) => !Number.isInteger(bps) || bps < 0) || legs.reduce((a, b) => a + b, 0) !== CONFIGURABLE_BPS) {
    throw new LaunchConfigError(`asset, perp and creator bps must be non-negative integers summing to ${CONFIGURABLE_BPS}`);
  }
  const operator: RewardRecipient = { admin: p.operator, recipient: p.operator, bps: TOTAL_BPS - split.creatorBps, feeIn: FeeIn.Paired };
  if (split.creatorBps === 0) return [operator];
  return [operator, { admin: p.creator, recipient: p.creator, bps: split.creatorBps, feeIn: FeeIn.Paired }];
}

/** The decoded `TokenCreated` of a launch. `startingTick` is `tickIfToken0IsClanker` as passed. */
export type TokenCreated = {
  token: Address;
  tokenAdmin: Address;
  msgSender: Address;
  name: string;
  symbol: string;
  image: string;
  metadata: string;
  context: string;
  startingTick: number;
  hook: Address;
  poolId: Hex;
  pairedToken: Address;
  locker: Address;
  mevModule: Address;
  extensionsSupply: bigint;
  extensions: readonly Address[];
  logIndex: number;
};

/**
 * Reads the `TokenCreated` event out of a launch receipt. With `launcher`, only logs of that
 * address count. Throws when the receipt holds none.
 */
export function parseTokenCreated(receipt: { logs: readonly Log[] }, launcher?: Address): TokenCreated {
  const logs = parseEventLogs({ abi: clankerFactoryAbi, eventName: "TokenCreated", logs: receipt.logs as Log[] }).filter(
    (log) => !launcher || log.address.toLowerCase() === launcher.toLowerCase(),
  );
  const log = logs[0];
  if (!log) throw new Error("the receipt has no TokenCreated event");
  const a = log.args;
  return {
    token: getAddress(a.tokenAddress),
    tokenAdmin: getAddress(a.tokenAdmin),
    msgSender: getAddress(a.msgSender),
    name: a.tokenName,
    symbol: a.tokenSymbol,
    image: a.tokenImage,
    metadata: a.tokenMetadata,
    context: a.tokenContext,
    startingTick: a.startingTick,
    hook: getAddress(a.poolHook),
    poolId: a.poolId,
    pairedToken: getAddress(a.pairedToken),
    locker: getAddress(a.locker),
    mevModule: getAddress(a.mevModule),
    extensionsSupply: a.extensionsSupply,
    extensions: a.extensions,
    logIndex: log.logIndex,
  };
}

// ------------------------------------------------------------------ tick maths (exact, as v4-core TickMath)

const SQRT_PRICE_FACTORS: [number, bigint][] = [
  [0x2, 0xfff97272373d413259a46990580e213an],
  [0x4, 0xfff2e50f5f656932ef12357cf3c7fdccn],
  [0x8, 0xffe5caca7e10e4e61c3624eaa0941cd0n],
  [0x10, 0xffcb9843d60f6159c9db58835c926644n],
  [0x20, 0xff973b41fa98c081472e6896dfb254c0n],
  [0x40, 0xff2ea16466c96a3843ec78b326b52861n],
  [0x80, 0xfe5dee046a99a2a811c461f1969c3053n],
  [0x100, 0xfcbe86c7900a88aedcffc83b479aa3a4n],
  [0x200, 0xf987a7253ac413176f2b074cf7815e54n],
  [0x400, 0xf3392b0822b70005940c7a398e4b70f3n],
  [0x800, 0xe7159475a2c29b7443b29c7fa6e889d9n],
  [0x1000, 0xd097f3bdfd2022b8845ad8f792aa5825n],
  [0x2000, 0xa9f746462d870fdf8a65dc1f90e061e5n],
  [0x4000, 0x70d869a156d2a1b890bb3df62baf32f7n],
  [0x8000, 0x31be135f97d08fd981231505542fcfa6n],
  [0x10000, 0x9aa508b5b7a84e1c677de54f3e99bc9n],
  [0x20000, 0x5d6af8dedb81196699c329225ee604n],
  [0x40000, 0x2216e584f5fa1ea926041bedfe98n],
  [0x80000, 0x48a170391f7dc42444e8fa2n],
];
const MAX_UINT256 = 2n ** 256n - 1n;

/** `TickMath.getSqrtPriceAtTick`: sqrt(1.0001^tick) in Q64.96, rounded up, bit-exact. */
export function sqrtPriceAtTick(tick: number): bigint {
  if (!Number.isInteger(tick) || tick < MIN_TICK || tick > MAX_TICK) throw new RangeError(`tick ${tick} out of range`);
  const absTick = Math.abs(tick);
  let price = absTick & 0x1 ? 0xfffcb933bd6fad37aa2d162d1a594001n : 1n << 128n;
  for (const [bit, factor] of SQRT_PRICE_FACTORS) if (absTick & bit) price = (price * factor) >> 128n;
  if (tick > 0) price = MAX_UINT256 / price;
  return (price >> 32n) + (price % (1n << 32n) === 0n ? 0n : 1n);
}

/**
 * `tickIfToken0IsClanker` for a starting market cap of the whole supply, in base units of the
 * paired token: the tick of the price `marketCap / supply` (paired base units per token base
 * unit), rounded down to a multiple of the tick spacing. The SDK's `getTickFromMarketCapUSDC`
 * computes the same with floats.
 */
export function tickFromMarketCap(marketCap: bigint, tickSpacing = DEFAULT_TICK_SPACING, supply = CLANKER_TOKEN_SUPPLY): number {
  if (marketCap <= 0n) throw new LaunchConfigError("starting market cap must be positive");
  const tick = tickAtPriceRatio(marketCap, supply);
  return Math.floor(tick / tickSpacing) * tickSpacing;
}

/** Greatest tick t with 1.0001^t (as TickMath rounds it) at most amount1/amount0, without rounding the ratio. */
function tickAtPriceRatio(amount1: bigint, amount0: bigint): number {
  // sqrtPriceAtTick(t)^2 <= amount1/amount0 * 2^192, compared in integers.
  const atMost = (t: number) => sqrtPriceAtTick(t) ** 2n * amount0 <= amount1 << 192n;
  if (!atMost(MIN_TICK) || atMost(MAX_TICK)) throw new LaunchConfigError("starting market cap is outside the price range of a pool");
  let tick = Math.floor(Math.log(Number(amount1) / Number(amount0)) / Math.log(1.0001));
  tick = Math.max(MIN_TICK, Math.min(MAX_TICK - 1, tick));
  while (tick > MIN_TICK && !atMost(tick)) tick--;
  while (tick < MAX_TICK - 1 && atMost(tick + 1)) tick++;
  return tick;
}

/** Market cap of the whole supply, in paired base units (rounded down), at a tick given as if the token were currency0. */
export function marketCapAtTick(tickIfToken0IsClanker: number, supply = CLANKER_TOKEN_SUPPLY): bigint {
  return (sqrtPriceAtTick(tickIfToken0IsClanker) ** 2n * supply) >> 192n;
}
