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

/** Base's sniper auction: blocks after a launch's own block in which its pool refuses every swap; the next one is the auction block. */
export const NO_TRADE_BLOCKS = 2n;

/** The schema where ponder keeps stable views of the current build's indexed tables, for other processes. */
export const VIEWS_SCHEMA = "launchpad";
