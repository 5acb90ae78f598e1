/**
 * Pool state reads: a v4 pool's slot0 and liquidity through the PoolManager's `extsload`
 * (the storage layout StateLibrary reads), and a v3 pool's slot0, liquidity and tokens.
 */
import { type Address, type Hex, type PublicClient, hexToBigInt } from "viem";
import { extsloadAbi, v3PoolStateAbi } from "../../common/abis/engine.js";
import { LIQUIDITY_OFFSET, type PoolKey, type V4PoolState, decodeV4Slot0, v4PoolStateSlot } from "../../common/uniswap.js";

export type { V4PoolState };

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
