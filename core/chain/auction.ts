/**
 * Waiting out a Clanker pool's sniper auction before the engine swaps: common/sniper-auction.ts
 * reads the module's state (rounds, next auction block, decay); this file turns it into a
 * retryable engine error or a wait.
 */
import type { PublicClient } from "viem";
import { type SniperFeeAllowance, sniperAuctionStatus } from "../../common/sniper-auction.js";
import type { PoolKey } from "../../common/uniswap.js";
import { EngineError } from "../errors.js";

/** Throws a retryable EngineError while the pool's sniper auction or decaying fee runs. */
export async function assertSniperAuctionOver(client: PublicClient, key: PoolKey, secondsToDecay: number): Promise<void> {
  const status = await sniperAuctionStatus(client, key, secondsToDecay);
  if (!status.over) throw new EngineError(`not swapping yet: ${status.reason}`, { code: "sniper-auction", retryable: true });
}

/**
 * Waits until a swap through `key` is clear of the launch's auction, every round of it, and of
 * the decaying fee (or the fee is at most `allowedFee` pips). Reads the module's state on every
 * poll (a won round moves the next auction block). Polls every `pollMs`; gives up after
 * `timeoutMs` with a retryable EngineError.
 */
export async function waitForSniperAuction(
  client: PublicClient,
  p: {
    key: PoolKey;
    secondsToDecay: number;
    allowedFee?: SniperFeeAllowance;
    pollMs?: number;
    timeoutMs?: number;
    onWait?: (reason: string) => void;
  },
): Promise<{ fee?: number }> {
  const deadline = Date.now() + (p.timeoutMs ?? 180_000);
  let told = "";
  for (;;) {
    const status = await sniperAuctionStatus(client, p.key, p.secondsToDecay, p.allowedFee ?? 0);
    if (status.over) return { fee: status.fee };
    if (told !== status.phase) p.onWait?.(status.reason);
    told = status.phase;
    if (Date.now() > deadline) throw new EngineError(`not swapping yet: ${status.reason}`, { code: "sniper-auction", retryable: true });
    await new Promise((resolve) => setTimeout(resolve, p.pollMs ?? 500));
  }
}
