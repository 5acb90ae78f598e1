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
  decodeAbiParameters,
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
import { formatDecimal } from "./money.js";
import { MAX_TICK, MIN_TICK } from "./uniswap.js";
import { ServiceError } from "./errors.js";

/** Every Clanker v4 token has 100B supply with 18 decimals, all of it placed in the pool. */
export const CLANKER_TOKEN_SUPPLY = 100_000_000_000n * 10n ** 18n;
/** The SDK's default (and Base's usual) tick spacing for Clanker pools. */
export const DEFAULT_TICK_SPACING = 200;
/** Width of the single launch position: the SDK's "Standard" position ([-230400, -120000]). */
export const STANDARD_POSITION_WIDTH = 110_400;
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
  /** The pool hook and its fees, and the MEV module that runs the pool's first seconds. */
  fees: LaunchFees;
};

/**
 * What makes a launch acceptable on Base (docs/base.md, "Launching on Base"): an enabled V2 hook with
 * its fee configuration, and an enabled MEV module (SniperAuctionV2) with its decaying fee.
 * Fees are Uniswap pips (1_000_000 = 100%). Without `dynamic` the hook is the static-fee V2
 * hook and `clankerFee`/`pairedFee` are its fees; with it, the hook is the dynamic-fee V2 hook
 * and `dynamic` its fee curve (`clankerFee`/`pairedFee` are then not encoded).
 */
export type LaunchFees = {
  hook: Address;
  /** LP fee when the launched token is the input (a sell). */
  clankerFee: number;
  /** LP fee when the paired token is the input (a buy). */
  pairedFee: number;
  /** The dynamic-fee V2 hook's curve; absent for the static-fee V2 hook. */
  dynamic?: DynamicPoolFees;
  mevModule: Address;
  /** The sniper fee right after the auction, decaying parabolically to `endingFee` over `secondsToDecay` from the last auction. */
  startingFee: number;
  endingFee: number;
  secondsToDecay: number;
};

/**
 * The dynamic-fee V2 hook's `PoolDynamicConfigVars` (clanker-sdk `fees: { type: "dynamic" }`,
 * whose `baseFee`/`maxFee` are in bps where these are pips): the LP fee is
 * `min(baseFee + feeControlNumerator * volatility² / 10^10, maxLpFee)`, the volatility in ticks.
 */
export type DynamicPoolFees = {
  baseFee: number;
  maxLpFee: number;
  /** Seconds before the reference tick moves to the current tick (and the volatility decays). */
  referenceTickFilterPeriod: number;
  /** Seconds between checks that zero the volatility of a calm pool. */
  resetPeriod: number;
  /** Ticks a pool must move within `resetPeriod` to keep its volatility. */
  resetTickFilter: number;
  feeControlNumerator: bigint;
  /** Share of the volatility kept when the reference tick moves (bps). */
  decayFilterBps: number;
};

/** clanker-sdk's defaults: 1% each way; sniper fee 66.6777% decaying to 4.1673% over 15 s. */
export const DEFAULT_POOL_FEES = { clankerFee: 10_000, pairedFee: 10_000 } as const;
export const DEFAULT_SNIPER_FEES = { startingFee: 666_777, endingFee: 41_673, secondsToDecay: 15 } as const;
/** Most LP fee a V2 hook accepts (10%). */
export const MAX_V2_HOOK_FEE = 100_000;
/** Least base fee of the dynamic-fee V2 hook (0.25%, clanker-sdk's 25 bps). */
export const MIN_DYNAMIC_BASE_FEE = 2_500;
/** clanker-sdk's `DynamicBasic` fee config in pips: 1% to 5%, 30 s reference, 2 min reset, 200 ticks, 5e8, 75%. */
export const DYNAMIC_BASIC_FEES: DynamicPoolFees = {
  baseFee: 10_000,
  maxLpFee: 50_000,
  referenceTickFilterPeriod: 30,
  resetPeriod: 120,
  resetTickFilter: 200,
  feeControlNumerator: 500_000_000n,
  decayFilterBps: 7_500,
};
/** The SDK's bounds of the sniper fees and of the decay. */
export const SNIPER_FEE_BOUNDS = { min: 30_000, max: 800_000 } as const;
export const SNIPER_DECAY_BOUNDS = { min: 1, max: 120 } as const;

/**
 * V2 hook pool data: `abi.encode((address extension, bytes extensionData, bytes feeData))` with
 * `feeData = abi.encode(uint24 clankerFee, uint24 pairedFee)`; no pool extension.
 */
export function encodePoolData(clankerFee: number, pairedFee: number): Hex {
  const feeData = encodeAbiParameters([{ type: "uint24" }, { type: "uint24" }], [clankerFee, pairedFee]);
  return encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "extension", type: "address" },
          { name: "extensionData", type: "bytes" },
          { name: "feeData", type: "bytes" },
        ],
      },
    ],
    [{ extension: zeroAddress, extensionData: "0x", feeData }],
  );
}

/**
 * Dynamic-fee V2 hook pool data: the same outer tuple, with `feeData = abi.encode(uint24 baseFee,
 * uint24 maxLpFee, uint256 referenceTickFilterPeriod, uint256 resetPeriod, int24 resetTickFilter,
 * uint256 feeControlNumerator, uint24 decayFilterBps)`; no pool extension.
 */
export function encodeDynamicPoolData(f: DynamicPoolFees): Hex {
  const feeData = encodeAbiParameters(DYNAMIC_FEE_DATA_ABI, [
    f.baseFee,
    f.maxLpFee,
    BigInt(f.referenceTickFilterPeriod),
    BigInt(f.resetPeriod),
    f.resetTickFilter,
    f.feeControlNumerator,
    f.decayFilterBps,
  ]);
  return encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "extension", type: "address" },
          { name: "extensionData", type: "bytes" },
          { name: "feeData", type: "bytes" },
        ],
      },
    ],
    [{ extension: zeroAddress, extensionData: "0x", feeData }],
  );
}

const DYNAMIC_FEE_DATA_ABI = [
  { type: "uint24", name: "baseFee" },
  { type: "uint24", name: "maxLpFee" },
  { type: "uint256", name: "referenceTickFilterPeriod" },
  { type: "uint256", name: "resetPeriod" },
  { type: "int24", name: "resetTickFilter" },
  { type: "uint256", name: "feeControlNumerator" },
  { type: "uint24", name: "decayFilterBps" },
] as const;

/** SniperAuctionV2 data: `abi.encode((uint24 startingFee, uint24 endingFee, uint256 secondsToDecay))`. */
export function encodeMevModuleData(startingFee: number, endingFee: number, secondsToDecay: number): Hex {
  return encodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "startingFee", type: "uint24" },
          { name: "endingFee", type: "uint24" },
          { name: "secondsToDecay", type: "uint256" },
        ],
      },
    ],
    [{ startingFee, endingFee, secondsToDecay: BigInt(secondsToDecay) }],
  );
}

/** Throws LaunchConfigError for anything a V2 hook or the sniper auction would refuse. */
export function validateLaunchFees(f: LaunchFees): void {
  for (const [what, address] of [
    ["hook", f.hook],
    ["MEV module", f.mevModule],
  ] as const) {
    if (!isAddress(address, { strict: false }) || BigInt(address) === 0n) {
      throw new LaunchConfigError(
        `the ${what} must be a non-zero address (Base reverts ${what === "hook" ? "HookNotEnabled" : "MevModuleNotEnabled"} otherwise)`,
      );
    }
  }
  if (f.dynamic) validateDynamicFees(f.dynamic);
  else {
    for (const [what, fee] of [
      ["clankerFee", f.clankerFee],
      ["pairedFee", f.pairedFee],
    ] as const) {
      if (!Number.isInteger(fee) || fee < 0 || fee > MAX_V2_HOOK_FEE)
        throw new LaunchConfigError(`${what} must be an integer from 0 to ${MAX_V2_HOOK_FEE} pips (got ${fee})`);
    }
  }
  for (const [what, fee] of [
    ["startingFee", f.startingFee],
    ["endingFee", f.endingFee],
  ] as const) {
    if (!Number.isInteger(fee) || fee < SNIPER_FEE_BOUNDS.min || fee > SNIPER_FEE_BOUNDS.max) {
      throw new LaunchConfigError(`${what} must be an integer from ${SNIPER_FEE_BOUNDS.min} to ${SNIPER_FEE_BOUNDS.max} pips (got ${fee})`);
    }
  }
  if (f.endingFee >= f.startingFee) throw new LaunchConfigError("the sniper endingFee must be below its startingFee");
  if (!Number.isInteger(f.secondsToDecay) || f.secondsToDecay < SNIPER_DECAY_BOUNDS.min || f.secondsToDecay > SNIPER_DECAY_BOUNDS.max) {
    throw new LaunchConfigError(`secondsToDecay must be an integer from ${SNIPER_DECAY_BOUNDS.min} to ${SNIPER_DECAY_BOUNDS.max} (got ${f.secondsToDecay})`);
  }
}

/** Throws LaunchConfigError for a curve the dynamic-fee V2 hook would refuse. */
function validateDynamicFees(d: DynamicPoolFees): void {
  const integer = (what: string, v: number, lo: number, hi: number) => {
    if (!Number.isSafeInteger(v) || v < lo || v > hi) throw new LaunchConfigError(`dynamic ${what} must be an integer from ${lo} to ${hi} (got ${v})`);
  };
  integer("baseFee", d.baseFee, MIN_DYNAMIC_BASE_FEE, MAX_V2_HOOK_FEE);
  integer("maxLpFee", d.maxLpFee, d.baseFee, MAX_V2_HOOK_FEE);
  integer("referenceTickFilterPeriod", d.referenceTickFilterPeriod, 0, Number.MAX_SAFE_INTEGER);
  integer("resetPeriod", d.resetPeriod, 0, Number.MAX_SAFE_INTEGER);
  integer("resetTickFilter", d.resetTickFilter, 0, 887_272);
  integer("decayFilterBps", d.decayFilterBps, 0, TOTAL_BPS);
  if (d.feeControlNumerator < 0n || d.feeControlNumerator >= 2n ** 128n) throw new LaunchConfigError("dynamic feeControlNumerator must be from 0 to 2^128 - 1");
}

/**
 * The exact Clanker v4 `DeploymentConfig`: the hook with its V2 pool data, the MEV module with
 * its data, no extensions, one position holding
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
  for (const [what, address] of [
    ["tokenAdmin", p.tokenAdmin],
    ["pairedToken", p.pairedToken],
    ["locker", p.locker],
  ] as const) {
    if (!isAddress(address, { strict: false }) || BigInt(address) === 0n) throw new LaunchConfigError(`${what} must be a non-zero address`);
  }
  validateRewards(p.rewards);
  validateLaunchFees(p.fees);

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
      hook: getAddress(p.fees.hook),
      pairedToken: getAddress(p.pairedToken),
      tickIfToken0IsClanker: startTick,
      tickSpacing,
      poolData: p.fees.dynamic ? encodeDynamicPoolData(p.fees.dynamic) : encodePoolData(p.fees.clankerFee, p.fees.pairedFee),
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
    mevModuleConfig: {
      mevModule: getAddress(p.fees.mevModule),
      mevModuleData: encodeMevModuleData(p.fees.startingFee, p.fees.endingFee, p.fees.secondsToDecay),
    },
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
    if (!Number.isInteger(r.bps) || r.bps < 1 || r.bps > TOTAL_BPS)
      throw new LaunchConfigError(`reward bps must be an integer from 1 to ${TOTAL_BPS} (got ${r.bps})`);
    if (!Object.values(FeeIn).includes(r.feeIn)) throw new LaunchConfigError(`unknown fee preference ${r.feeIn}`);
    for (const address of [r.admin, r.recipient]) {
      if (!isAddress(address, { strict: false }) || BigInt(address) === 0n)
        throw new LaunchConfigError("reward admins and recipients must be non-zero addresses");
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

// ------------------------------------------------------------------ the config in words

/** A fee in pips as an exact percentage ("1%", "66.6777%"). */
export function pipsToPercent(pips: number): string {
  const whole = Math.floor(pips / 10_000);
  const fraction = String(pips % 10_000)
    .padStart(4, "0")
    .replace(/0+$/, "");
  return `${whole}${fraction ? `.${fraction}` : ""}%`;
}

const FEE_IN_WORDS: Record<number, string> = { 0: "both currencies as earned", 1: "the paired token", 2: "the launched token" };

/**
 * A launch's whole config in words: the hook and its fees by direction, the MEV module and its
 * decay, the locker, every reward with its bps and fee preference, the position and the
 * starting market cap (in the paired token, with `pairedDecimals`).
 */
export function describeDeploymentConfig(config: DeploymentConfig, paired: { symbol: string; decimals: number }) {
  const pool = decodePoolData(config.poolConfig.poolData);
  const mev = decodeMevModuleData(config.mevModuleConfig.mevModuleData);
  const preferences = decodeLockerData(config.lockerConfig.lockerData);
  const cap = marketCapAtTick(config.poolConfig.tickIfToken0IsClanker);
  return {
    token: {
      name: config.tokenConfig.name,
      symbol: config.tokenConfig.symbol,
      admin: config.tokenConfig.tokenAdmin,
      chainId: Number(config.tokenConfig.originatingChainId),
    },
    hook: {
      address: config.poolConfig.hook,
      ...(pool.dynamic
        ? {
            buyFee: `${pipsToPercent(pool.dynamic.baseFee)} to ${pipsToPercent(pool.dynamic.maxLpFee)} LP fee, rising with the pool's volatility (dynamic fee)`,
            sellFee: `${pipsToPercent(pool.dynamic.baseFee)} to ${pipsToPercent(pool.dynamic.maxLpFee)} LP fee, rising with the pool's volatility (dynamic fee)`,
          }
        : {
            buyFee:
              pool.pairedFee === pool.clankerFee
                ? `${pipsToPercent(pool.pairedFee)} LP fee when ${paired.symbol} is the input (pairedFee)`
                : `${pipsToPercent(pool.pairedFee)} LP fee when ${paired.symbol} is the input (pairedFee); a buy that follows a sell pays the sell fee, set by the LP locker's conversion of the sell's token fees inside it`,
            sellFee: `${pipsToPercent(pool.clankerFee)} LP fee when the token is the input (clankerFee)`,
          }),
      protocolFee: `20% of the LP fee, in ${paired.symbol}, to the launcher`,
    },
    mevModule: {
      address: config.mevModuleConfig.mevModule,
      auction:
        "no swaps for 2 blocks after the launch, then up to 5 WETH auction rounds (one block each, every 2 blocks while won; a swap in a live auction block must bid)",
      decay: `sniper fee ${pipsToPercent(mev.startingFee)} decaying to ${pipsToPercent(mev.endingFee)} over ${mev.secondsToDecay} s from the last auction`,
    },
    locker: config.lockerConfig.locker,
    rewards: config.lockerConfig.rewardRecipients.map((recipient, i) => ({
      recipient,
      admin: config.lockerConfig.rewardAdmins[i],
      share: `${config.lockerConfig.rewardBps[i]} bps (${pipsToPercent(config.lockerConfig.rewardBps[i]! * 100)})`,
      paidIn: FEE_IN_WORDS[preferences[i]!] ?? `unknown preference ${preferences[i]}`,
    })),
    pairedToken: `${paired.symbol} ${config.poolConfig.pairedToken}`,
    position: `ticks [${config.lockerConfig.tickLower.join(", ")}] to [${config.lockerConfig.tickUpper.join(", ")}], tick spacing ${config.poolConfig.tickSpacing}`,
    startingMarketCap: `${formatDecimal(cap, paired.decimals)} ${paired.symbol} (tick ${config.poolConfig.tickIfToken0IsClanker})`,
  };
}

/**
 * A V2 hook's pool data: the static hook's two fees, or (feeData of seven words) the dynamic
 * hook's curve, in which case `clankerFee`/`pairedFee` are its base fee.
 */
export function decodePoolData(poolData: Hex): { clankerFee: number; pairedFee: number; extension: Address; dynamic?: DynamicPoolFees } {
  const [outer] = decodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "extension", type: "address" },
          { name: "extensionData", type: "bytes" },
          { name: "feeData", type: "bytes" },
        ],
      },
    ],
    poolData,
  );
  if (size(outer.feeData) === 7 * 32) {
    const [baseFee, maxLpFee, referenceTickFilterPeriod, resetPeriod, resetTickFilter, feeControlNumerator, decayFilterBps] = decodeAbiParameters(
      DYNAMIC_FEE_DATA_ABI,
      outer.feeData,
    );
    const dynamic = {
      baseFee,
      maxLpFee,
      referenceTickFilterPeriod: Number(referenceTickFilterPeriod),
      resetPeriod: Number(resetPeriod),
      resetTickFilter,
      feeControlNumerator,
      decayFilterBps,
    };
    return { clankerFee: baseFee, pairedFee: baseFee, extension: outer.extension, dynamic };
  }
  const [clankerFee, pairedFee] = decodeAbiParameters([{ type: "uint24" }, { type: "uint24" }], outer.feeData);
  return { clankerFee, pairedFee, extension: outer.extension };
}

export function decodeMevModuleData(data: Hex): { startingFee: number; endingFee: number; secondsToDecay: number } {
  const [d] = decodeAbiParameters(
    [
      {
        type: "tuple",
        components: [
          { name: "startingFee", type: "uint24" },
          { name: "endingFee", type: "uint24" },
          { name: "secondsToDecay", type: "uint256" },
        ],
      },
    ],
    data,
  );
  return { startingFee: d.startingFee, endingFee: d.endingFee, secondsToDecay: Number(d.secondsToDecay) };
}

function decodeLockerData(data: Hex): number[] {
  const [d] = decodeAbiParameters([{ type: "tuple", components: [{ name: "feePreference", type: "uint8[]" }] }], data);
  return [...d.feePreference];
}
