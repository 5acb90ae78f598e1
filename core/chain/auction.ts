/**
 * A Clanker pool's first seconds (reference/production.md §3): its MEV module refuses every
 * swap for two blocks after the launch, sells the next block by auction, then charges a sniper
 * fee that decays to the pool's own fee over `secondsToDecay`. No swap the service signs goes
 * into that: the engine waits until the decay is over (latest block's timestamp at least the
 * pool's creation plus `secondsToDecay`), or, where a charter allows paying the decaying fee,
 * at least until the auction block has passed.
 */
import { type PublicClient, parseAbi } from "viem";
import { type PoolKey, poolIdOf } from "../../common/uniswap.js";
import { NO_TRADE_BLOCKS } from "../../common/constants.js";
import { EngineError } from "../errors.js";

/** The hook's views of a pool's MEV module (the devnet's hook; Base's static-fee V2 hook keeps the same state). */
const hookMevAbi = parseAbi([
  "function mevModuleEnabled(bytes32 poolId) view returns (bool)",
  "function poolCreationTimestamp(bytes32 poolId) view returns (uint256)",
]);

export type AuctionStatus = { over: true } | { over: false; until: bigint; reason: string };

/**
 * Whether a swap through `key` now would meet the pool's sniper auction or its decaying fee.
 * A pool without a hook, or whose hook has disabled its MEV module, is clear. A hook without
 * these views is treated as clear: the route's simulation (which reverts in the no-trade
 * blocks) is then the only guard.
 */
export async function sniperAuctionStatus(client: PublicClient, key: PoolKey, secondsToDecay: number): Promise<AuctionStatus> {
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
    return { over: true };
  }
  if (!enabled || createdAt === 0n) return { over: true };
  const until = createdAt + BigInt(secondsToDecay);
  const latest = await client.getBlock({ blockTag: "latest" });
  if (latest.timestamp >= until) return { over: true };
  return { over: false, until, reason: `the pool's sniper auction and decaying fee run until ${new Date(Number(until) * 1000).toISOString()}` };
}

/** Throws a retryable EngineError while the pool's sniper auction or decaying fee runs. */
export async function assertSniperAuctionOver(client: PublicClient, key: PoolKey, secondsToDecay: number): Promise<void> {
  const status = await sniperAuctionStatus(client, key, secondsToDecay);
  if (!status.over) throw new EngineError(`not swapping yet: ${status.reason}`, { code: "sniper-auction", retryable: true });
}

/**
 * Waits until a swap through `key` is clear of the launch's auction: past the no-trade blocks
 * and the auction block of `launchBlock`, and, unless `payDecayingFee`, past the decay. Polls
 * every `pollMs`; gives up after `timeoutMs` with a retryable EngineError.
 */
export async function waitForSniperAuction(
  client: PublicClient,
  p: {
    key: PoolKey;
    launchBlock: bigint;
    secondsToDecay: number;
    payDecayingFee?: boolean;
    pollMs?: number;
    timeoutMs?: number;
    onWait?: (reason: string) => void;
  },
): Promise<void> {
  const deadline = Date.now() + (p.timeoutMs ?? 180_000);
  let told = false;
  for (;;) {
    const latest = await client.getBlockNumber({ cacheTime: 0 });
    // The next transaction lands in latest + 1: it must come after the auction block (launch + 3).
    const blocksClear = latest >= p.launchBlock + NO_TRADE_BLOCKS + 1n;
    const status = p.payDecayingFee ? ({ over: true } as const) : await sniperAuctionStatus(client, p.key, p.secondsToDecay);
    if (blocksClear && status.over) return;
    const reason = !blocksClear
      ? `the pool refuses swaps until after block ${p.launchBlock + NO_TRADE_BLOCKS + 1n} (its auction block)`
      : (status as { reason: string }).reason;
    if (!told) p.onWait?.(reason);
    told = true;
    if (Date.now() > deadline) throw new EngineError(`not swapping yet: ${reason}`, { code: "sniper-auction", retryable: true });
    await new Promise((resolve) => setTimeout(resolve, p.pollMs ?? 500));
  }
}
