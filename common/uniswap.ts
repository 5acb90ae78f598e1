/**
 * Uniswap v3/v4 primitives shared by the devnet, the indexer and the engine: pool keys,
 * pool ids, and exact integer price maths (no floats).
 */
import { type Address, type Hex, encodeAbiParameters, hexToBigInt, keccak256 } from "viem";

export type PoolKey = {
  currency0: Address;
  currency1: Address;
  fee: number;
  tickSpacing: number;
  hooks: Address;
};

export const POOL_KEY_ABI = {
  type: "tuple",
  components: [
    { name: "currency0", type: "address" },
    { name: "currency1", type: "address" },
    { name: "fee", type: "uint24" },
    { name: "tickSpacing", type: "int24" },
    { name: "hooks", type: "address" },
  ],
} as const;

export const Q96 = 2n ** 96n;
export const MIN_TICK = -887272;
export const MAX_TICK = 887272;
export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000" as const;

/** Orders two currencies as Uniswap does (numerically by address). */
export function sortCurrencies(a: Address, b: Address): [Address, Address] {
  return BigInt(a) < BigInt(b) ? [a, b] : [b, a];
}

/** `keccak256(abi.encode(poolKey))`, as v4-core's PoolIdLibrary. */
export function poolIdOf(key: PoolKey): Hex {
  return keccak256(encodeAbiParameters([POOL_KEY_ABI], [key]));
}

export function bigintSqrt(value: bigint): bigint {
  if (value < 0n) throw new RangeError("square root of a negative number");
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) >> 1n;
  while (y < x) {
    x = y;
    y = (x + value / x) >> 1n;
  }
  return x;
}

/**
 * sqrtPriceX96 for a price given as a ratio of raw base units: `amount1 / amount0`
 * (how many base units of currency1 one base unit of currency0 is worth, as a fraction).
 */
export function sqrtPriceX96FromRatio(amount1: bigint, amount0: bigint): bigint {
  return bigintSqrt((amount1 << 192n) / amount0);
}

/**
 * Converts an input amount at sqrtPriceX96 to the other currency (no fee, no impact).
 * `zeroForOne`: the input is currency0.
 */
export function quoteAtSqrtPrice(amountIn: bigint, sqrtPriceX96: bigint, zeroForOne: boolean): bigint {
  const priceX192 = sqrtPriceX96 * sqrtPriceX96;
  return zeroForOne ? (amountIn * priceX192) >> 192n : (amountIn << 192n) / priceX192;
}

/** Full-range ticks for a tick spacing. */
export function fullRangeTicks(tickSpacing: number): [number, number] {
  const lower = Math.ceil(MIN_TICK / tickSpacing) * tickSpacing;
  const upper = Math.floor(MAX_TICK / tickSpacing) * tickSpacing;
  return [lower, upper];
}

/** `PoolManager._pools` is at storage slot 6 (StateLibrary.POOLS_SLOT); liquidity is 3 slots into a pool's state. */
const POOLS_SLOT = 6n;
export const LIQUIDITY_OFFSET = 3n;

export type V4PoolState = { sqrtPriceX96: bigint; tick: number; protocolFee: number; lpFee: number; liquidity: bigint };

function toInt24(value: bigint): number {
  const v = Number(value & 0xffffffn);
  return v >= 0x800000 ? v - 0x1000000 : v;
}

/** Decodes the packed slot0 word: sqrtPriceX96 (160) | tick (24) | protocolFee (24) | lpFee (24). */
export function decodeV4Slot0(word: Hex): Omit<V4PoolState, "liquidity"> {
  const v = hexToBigInt(word);
  return {
    sqrtPriceX96: v & ((1n << 160n) - 1n),
    tick: toInt24(v >> 160n),
    protocolFee: Number((v >> 184n) & 0xffffffn),
    lpFee: Number((v >> 208n) & 0xffffffn),
  };
}

/** The storage slot of a pool's state in the PoolManager. */
export function v4PoolStateSlot(key: PoolKey): Hex {
  return keccak256(encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }], [poolIdOf(key), POOLS_SLOT]));
}
