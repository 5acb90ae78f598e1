/** `eth_getLogs` over a block range in chunks (RPC providers cap the range per request). */
import type { AbiEvent, Address, Log, PublicClient } from "viem";

/** Blocks per getLogs request. */
export const LOG_CHUNK_BLOCKS = 5_000n;

export async function getLogsChunked<E extends AbiEvent>(
  client: PublicClient,
  p: { address: Address | Address[]; event: E; args?: Record<string, unknown>; fromBlock: bigint; toBlock: bigint },
): Promise<Log<bigint, number, false, E, true>[]> {
  const out: Log<bigint, number, false, E, true>[] = [];
  for (let from = p.fromBlock; from <= p.toBlock; from += LOG_CHUNK_BLOCKS) {
    const to = from + LOG_CHUNK_BLOCKS - 1n < p.toBlock ? from + LOG_CHUNK_BLOCKS - 1n : p.toBlock;
    const logs = await client.getLogs({ address: p.address, event: p.event, args: p.args as never, fromBlock: from, toBlock: to, strict: true } as never);
    out.push(...(logs as unknown as Log<bigint, number, false, E, true>[]));
  }
  return out.sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1));
}

/** Position of a log in the chain, comparable across blocks. */
export function logPosition(log: { blockNumber: bigint; logIndex: number }): bigint {
  return log.blockNumber * 1_000_000n + BigInt(log.logIndex);
}
