/**
 * A venue's decoded logs of several events, merged into chain order (block, then log index) as
 * the venue-neutral `VenueLog` the desk sync reads.
 */
import type { Hex } from "viem";
import type { VenueLog } from "./types.js";

type DecodedLog = { blockNumber: bigint; blockHash: Hex; logIndex: number; transactionHash: Hex; eventName: string; args: Record<string, unknown> };

export function venueLogsInChainOrder(...sets: unknown[][]): VenueLog[] {
  return (sets.flat() as DecodedLog[])
    .sort((a, b) => (a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1))
    .map((log) => ({
      name: log.eventName,
      blockNumber: log.blockNumber,
      blockHash: log.blockHash,
      logIndex: log.logIndex,
      transactionHash: log.transactionHash,
      args: log.args,
    }));
}
