/** Protocol constants of the spec (§Constants). */
export const DEAD_ADDRESS = "0x000000000000000000000000000000000000dEaD" as const;
/** Fixed tithe of every enrolled token's LP fees to the protocol token. */
export const PROTOCOL_REWARD_BPS = 500;
/** The three configurable legs share the rest. */
export const CONFIGURABLE_BPS = 9_500;
export const TOTAL_BPS = 10_000;
/** Default split of the spec's Resources part. */
export const DEFAULT_SPLIT = { assetBps: 2_850, perpBps: 5_700, creatorBps: 950 } as const;
/** The single ponder chain name used by the indexer and the API, whatever the chain. */
export const CHAIN_NAME = "chain" as const;

/**
 * Base's sniper auction (SniperAuctionV2's settings): round 1's auction block is the launch block
 * + `AUCTION_FIRST_BLOCK_AFTER_LAUNCH` (the blocks before it refuse every swap); each won round
 * opens the next `AUCTION_BLOCKS_BETWEEN_ROUNDS` blocks later, `AUCTION_MAX_ROUNDS` rounds at
 * most. A swap in a live auction block must carry a bid. The engine reads the module's state
 * (core/chain/auction.ts) rather than these; they bound what a devnet launch can take.
 */
export const AUCTION_FIRST_BLOCK_AFTER_LAUNCH = 2n;
export const AUCTION_BLOCKS_BETWEEN_ROUNDS = 2n;
export const AUCTION_MAX_ROUNDS = 5n;
/** The latest auction block a launch can have, after its launch block: every round won. */
export const LAST_AUCTION_BLOCK_AFTER_LAUNCH = AUCTION_FIRST_BLOCK_AFTER_LAUNCH + (AUCTION_MAX_ROUNDS - 1n) * AUCTION_BLOCKS_BETWEEN_ROUNDS;
/** WETH (wei) a winning bid pays per unit of gas price above the round's gas peg. */
export const AUCTION_PAYMENT_PER_GAS_UNIT = 100_000_000_000_000n;

/** The schema where ponder keeps stable views of the current build's indexed tables, for other processes. */
export const VIEWS_SCHEMA = "launchpad";
