/**
 * Many contract reads in few requests: viem's `multicall` through Multicall3 at its canonical
 * address where the chain has it (Base does), otherwise "deployless" (the Multicall3 bytecode
 * runs inside the `eth_call` itself, so any chain answers, anvil included). The calls are
 * packed `MULTICALL_READS` to a request: a read of every enrolled token costs one `eth_call`
 * per 200 tokens, not one per token (docs/design.md §6).
 */
import type { Abi, Address, ContractFunctionParameters, PublicClient } from "viem";

/** Multicall3's address on every chain that has it (Base included). */
export const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;

/**
 * Reads per request: an `eth_call` runs under a gas cap (the node's block gas limit or its
 * own, often 25–50M), and a cold read of a locker's token struct costs ~50k gas.
 */
export const MULTICALL_READS = 200;

const hasMulticall3 = new WeakMap<PublicClient, Promise<boolean>>();

function multicall3On(client: PublicClient): Promise<boolean> {
  let known = hasMulticall3.get(client);
  if (!known) {
    known = client
      .getCode({ address: MULTICALL3 })
      .then((code) => !!code && code !== "0x")
      .catch((error: unknown) => {
        hasMulticall3.delete(client);
        throw error;
      });
    hasMulticall3.set(client, known);
  }
  return known;
}

export type Read = ContractFunctionParameters<Abi, "view" | "pure">;

/**
 * The results of `reads`, in order; any failed read throws (as `readContract` would). An empty
 * list costs no request.
 */
export async function readMany<T = unknown>(client: PublicClient, reads: readonly Read[]): Promise<T[]> {
  if (!reads.length) return [];
  const deployed = await multicall3On(client);
  const out: T[] = [];
  for (let i = 0; i < reads.length; i += MULTICALL_READS) {
    const results = await client.multicall({
      contracts: reads.slice(i, i + MULTICALL_READS) as Read[],
      allowFailure: false,
      batchSize: 0,
      ...(deployed ? { multicallAddress: MULTICALL3 as Address } : { deployless: true }),
    });
    out.push(...(results as T[]));
  }
  return out;
}
