/**
 * Many contract reads in few requests: viem's `multicall` through Multicall3 at its canonical
 * address where the chain has it (Base does), otherwise "deployless" (the Multicall3 bytecode
 * runs inside the `eth_call` itself, so any chain answers, anvil included). The calls are
 * packed into requests of at most `MULTICALL_BYTES` of calldata each, so a read of every
 * enrolled token costs a handful of `eth_call`s whatever their number (docs/design.md §6).
 */
import type { Abi, Address, ContractFunctionParameters, PublicClient } from "viem";

/** Multicall3's address on every chain that has it (Base included). */
export const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11" as const;

/** Calldata per request: about 1,500 calls of one address argument. */
export const MULTICALL_BYTES = 100_000;

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
  const results = await client.multicall({
    contracts: reads as Read[],
    allowFailure: false,
    batchSize: MULTICALL_BYTES,
    ...(deployed ? { multicallAddress: MULTICALL3 as Address } : { deployless: true }),
  });
  return results as T[];
}
