/**
 * Pool state reads: a v4 pool's slot0 and liquidity through the PoolManager's `extsload`
 * (the storage layout StateLibrary reads), and a v3 pool's slot0, liquidity and tokens.
 */
import { type Address, type Hex, type PublicClient, encodeAbiParameters, hexToBigInt, keccak256 } from "viem";
import { extsloadAbi, v3PoolStateAbi } from "../../common/abis/engine.js";
import { type PoolKey, poolIdOf } from "../../common/uniswap.js";

/** `PoolManager._pools` is at storage slot 6 (StateLibrary.POOLS_SLOT); liquidity is 3 slots into a pool's state. */
const POOLS_SLOT = 6n;
const LIQUIDITY_OFFSET = 3n;

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

export async function readV4PoolState(client: PublicClient, poolManager: Address, key: PoolKey): Promise<V4PoolState> {
  const slot = v4PoolStateSlot(key);
  const liquiditySlot = `0x${(hexToBigInt(slot) + LIQUIDITY_OFFSET).toString(16).padStart(64, "0")}` as Hex;
  const [slot0, liquidity] = await Promise.all([
    client.readContract({ address: poolManager, abi: extsloadAbi, functionName: "extsload", args: [slot] }),
    client.readContract({ address: poolManager, abi: extsloadAbi, functionName: "extsload", args: [liquiditySlot] }),
  ]);
  return { ...decodeV4Slot0(slot0 as Hex), liquidity: hexToBigInt(liquidity as Hex) & ((1n << 128n) - 1n) };
}

export type V3PoolState = { sqrtPriceX96: bigint; liquidity: bigint; token0: Address; token1: Address; fee: number };

export async function readV3PoolState(client: PublicClient, pool: Address): Promise<V3PoolState> {
  const [slot0, liquidity, token0, token1, fee] = await Promise.all([
    client.readContract({ address: pool, abi: v3PoolStateAbi, functionName: "slot0" }),
    client.readContract({ address: pool, abi: v3PoolStateAbi, functionName: "liquidity" }),
    client.readContract({ address: pool, abi: v3PoolStateAbi, functionName: "token0" }),
    client.readContract({ address: pool, abi: v3PoolStateAbi, functionName: "token1" }),
    client.readContract({ address: pool, abi: v3PoolStateAbi, functionName: "fee" }),
  ]);
  return { sqrtPriceX96: slot0[0], liquidity, token0, token1, fee };
}
