/**
 * The state of a Clanker pool's sniper auction, read from the chain (the engine, the market
 * simulator and the tests all ask it the same way).
 *
 * A Clanker pool's first seconds, as its MEV module (SniperAuctionV2) runs them: no swap before
 * round 1's auction block (launch + 2); in a live auction block a swap must carry a bid (a
 * plain swap reverts); each won round opens the next one two blocks later, up to five rounds;
 * the first swap after an auction block nobody won ends the rounds, and a sniper fee then decays
 * from the last auction's timestamp over `secondsToDecay`. The hook stops consulting the module
 * once the decay is over or the pool is two minutes old.
 *
 * The engine never assumes how many rounds there are: it reads the module's state (`round`,
 * `nextAuctionBlock`, `poolDecayStartTime`, `feeConfig`) at the latest block. No swap or quote
 * it makes goes into an auction block of any round, and, unless a fee is allowed, none before
 * the decay is over.
 */
import { type Address, type PublicClient, parseAbi, zeroAddress } from "viem";
import { sniperAuctionAbi } from "./abis/clanker-hook.js";
import { type PoolKey, poolIdOf } from "./uniswap.js";

/** The hook's views of a pool's MEV module (Clanker's V2 hooks and the devnet's). */
const hookMevAbi = parseAbi([
  "function mevModuleEnabled(bytes32 poolId) view returns (bool)",
  "function poolCreationTimestamp(bytes32 poolId) view returns (uint256)",
  "function mevModule(bytes32 poolId) view returns (address)",
]);

/** How long a V2 hook consults a pool's MEV module at most (`MAX_MEV_MODULE_DELAY`). */
export const MAX_MEV_MODULE_SECONDS = 120n;

/** A sniper fee (pips) a swap may pay; 0 (the default) waits for the decay to end. */
export type SniperFeeAllowance = number;

export type AuctionStatus =
  | { over: true; fee?: number }
  | {
      over: false;
      /** Why a swap now would meet the auction, and until when (block or time). */
      reason: string;
      phase: "auction" | "decay" | "module";
      /** The block the next transaction may land in after the rounds known now (phase "auction"). */
      afterBlock?: bigint;
      /** The last timestamp of the decay (phase "decay"), or when the hook stops consulting the module (phase "module"). */
      until?: bigint;
      /** The module's state read, when it could be. */
      round?: bigint;
    };

/**
 * The sniper fee (pips) a swap at `timestamp` pays when the decay started at `start`:
 * endingFee + (startingFee − endingFee) × (remaining / secondsToDecay)², as the module computes
 * it (18 decimals); 0 once the decay is over.
 */
export function decayedSniperFee(c: { startingFee: number; endingFee: number; secondsToDecay: bigint }, start: bigint, timestamp: bigint): number {
  if (c.secondsToDecay <= 0n || timestamp > start + c.secondsToDecay) return 0;
  const elapsed = timestamp > start ? timestamp - start : 0n;
  const fraction = ((c.secondsToDecay - elapsed) * 10n ** 18n) / c.secondsToDecay;
  const squared = (fraction * fraction) / 10n ** 18n;
  return Number(BigInt(c.endingFee) + (BigInt(c.startingFee - c.endingFee) * squared) / 10n ** 18n);
}

const when = (t: bigint) => new Date(Number(t) * 1000).toISOString();

/**
 * Whether a swap sent now through `key` (landing in the next block or later) is clear of the
 * pool's sniper auction: never in or before a live auction block; during the decay only when
 * `allowedFee` pips cover the fee it would pay at the latest block's timestamp. A pool without a hook, or
 * whose hook does not run a module for it, is clear. `secondsToDecay` is the fallback when the
 * module's configuration cannot be read; a module whose state cannot be read at all is waited
 * out (the hook stops consulting it two minutes after the launch).
 */
export async function sniperAuctionStatus(
  client: PublicClient,
  key: PoolKey,
  secondsToDecay: number,
  allowedFee: SniperFeeAllowance = 0,
): Promise<AuctionStatus> {
  if (BigInt(key.hooks) === 0n) return { over: true };
  const poolId = poolIdOf(key);
  let enabled: boolean;
  let createdAt: bigint;
  try {
    [enabled, createdAt] = await Promise.all([
      client.readContract({ address: key.hooks, abi: hookMevAbi, functionName: "mevModuleEnabled", args: [poolId] }),
      client.readContract({ address: key.hooks, abi: hookMevAbi, functionName: "poolCreationTimestamp", args: [poolId] }),
    ]);
  } catch {
    return { over: true }; // a hook without these views runs no module the engine knows of: the route's simulation guards
  }
  if (!enabled || createdAt === 0n) return { over: true }; // disabled for good: no more reads
  // The module's state and the block it is read at, together.
  const latest = await client.getBlock({ blockTag: "latest" });
  const blockNumber = latest.number;
  const moduleEnds = createdAt + MAX_MEV_MODULE_SECONDS;
  if (latest.timestamp >= moduleEnds) return { over: true }; // the next swap disables the module
  const waitModule = (why: string): AuctionStatus => ({
    over: false,
    phase: "module",
    until: moduleEnds,
    reason: `${why}: waiting until the hook stops consulting it (${when(moduleEnds)})`,
  });

  let state: {
    mevModule: Address;
    round: bigint;
    nextAuctionBlock: bigint;
    decayStart: bigint;
    config: { startingFee: number; endingFee: number; secondsToDecay: bigint };
  };
  try {
    const mevModule = await client.readContract({ address: key.hooks, abi: hookMevAbi, functionName: "mevModule", args: [poolId], blockNumber });
    if (BigInt(mevModule) === 0n || mevModule === zeroAddress) return { over: true };
    const read = <T>(functionName: "round" | "nextAuctionBlock" | "poolDecayStartTime" | "feeConfig") =>
      client.readContract({ address: mevModule, abi: sniperAuctionAbi, functionName, args: [poolId], blockNumber }) as Promise<T>;
    const [round, nextAuctionBlock, decayStart, config] = await Promise.all([
      read<bigint>("round"),
      read<bigint>("nextAuctionBlock"),
      read<bigint>("poolDecayStartTime"),
      read<readonly [number, number, bigint]>("feeConfig").catch(() => [0, 0, BigInt(secondsToDecay)] as const),
    ]);
    state = {
      mevModule,
      round,
      nextAuctionBlock,
      decayStart,
      config: { startingFee: config[0], endingFee: config[1], secondsToDecay: config[2] > 0n ? config[2] : BigInt(secondsToDecay) },
    };
  } catch {
    return waitModule("the pool's MEV module does not show its auction state");
  }

  // Rounds still to come: the next transaction must land after the current round's auction block.
  if (state.decayStart === 0n && blockNumber < state.nextAuctionBlock) {
    return {
      over: false,
      phase: "auction",
      afterBlock: state.nextAuctionBlock,
      round: state.round,
      reason: `the pool's sniper auction runs (round ${state.round}, auction block ${state.nextAuctionBlock}): no swap until a block after it`,
    };
  }
  // The decay: started, or starting at the next swap from the last auction (at the latest, the
  // timestamp of the auction block just passed, which bounds it).
  let start = state.decayStart;
  if (start === 0n) {
    const auctionBlock = await client.getBlock({ blockNumber: state.nextAuctionBlock });
    start = auctionBlock.timestamp;
  }
  // The module's decay is over once a block's timestamp is past `ends`; the next block may carry
  // the latest one's timestamp (anvil), never an earlier one.
  const ends = start + state.config.secondsToDecay;
  if (latest.timestamp > ends) return { over: true };
  const fee = decayedSniperFee(state.config, start, latest.timestamp);
  if (allowedFee > 0 && fee <= allowedFee) return { over: true, fee };
  return {
    over: false,
    phase: "decay",
    until: ends,
    round: state.round,
    reason: `the pool's sniper fee (${fee} pips now) decays until ${when(ends)}`,
  };
}
