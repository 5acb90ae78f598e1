/**
 * Small bookkeeping helpers shared by the handlers: activity rows, incremental totals and
 * prices. Pure functions of the event and the tables; no network, no side effects.
 */
import type { Context } from "ponder:registry";
import { activity, buybackQueue, buybackQueueEntry, protocolTotals, tokenQueue, tokenQueueEntry, tokenTotals, totalsDelta } from "ponder:schema";
import type { Hex } from "viem";
import { quoteAtSqrtPrice } from "../common/uniswap.js";
import { toJsonValue } from "../common/json.js";

type Db = Context["db"];
type EventLike = { block: { number: bigint; timestamp: bigint }; transaction: { hash: Hex }; log: { logIndex: number } };

export const ONE_TOKEN = 10n ** 18n;

/** Sorts in chain order as text: zero-padded block and log index, then a per-log sequence. */
export function activityId(event: EventLike, n = 0): string {
  return `${event.block.number.toString().padStart(12, "0")}-${event.log.logIndex.toString().padStart(6, "0")}-${n}`;
}

/** JSON-safe copy: bigints become decimal strings (money stays exact). */
export function jsonSafe(data: Record<string, unknown>): Record<string, unknown> {
  return toJsonValue(data);
}

export async function recordActivity(db: Db, event: EventLike, kind: string, token: Hex | null, data: Record<string, unknown>, n = 0): Promise<void> {
  await db.insert(activity).values({
    id: activityId(event, n),
    kind,
    token: token ? (token.toLowerCase() as Hex) : null,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
    data: jsonSafe(data),
  });
}

type ProtocolRow = typeof protocolTotals.$inferSelect;
type TokenRow = typeof tokenTotals.$inferSelect;
type Deltas<Row> = Partial<{ [K in keyof Row]: Row[K] extends bigint ? bigint : Row[K] extends number ? number : never }>;

const PROTOCOL_ZERO: Omit<ProtocolRow, "id" | "updatedAt"> = {
  tokensLaunched: 0,
  tokensEnrolled: 0,
  feesToOperatorUsdc: 0n,
  protocolLegUsdc: 0n,
  assetLegUsdc: 0n,
  perpLegUsdc: 0n,
  creatorLegUsdc: 0n,
  operatorLegUsdc: 0n,
  protocolTokenFeesUsdc: 0n,
  feesClaimedUsdc: 0n,
  protocolBuybacks: 0,
  protocolBuybackUsdc: 0n,
  protocolTokensBought: 0n,
  protocolTokensBurned: 0n,
  creatorBuybacks: 0,
  creatorBuybackUsdc: 0n,
  assetPurchaseUsdc: 0n,
  desksOpened: 0,
  desksOpen: 0,
  deskRealisedPnl: 0n,
};

const TOKEN_ZERO: Omit<TokenRow, "token" | "updatedAt"> = {
  feesToOperatorUsdc: 0n,
  protocolLegUsdc: 0n,
  assetLegUsdc: 0n,
  perpLegUsdc: 0n,
  operatorLegUsdc: 0n,
  creatorLegUsdc: 0n,
  buybacks: 0,
  buybackUsdc: 0n,
  tokensBought: 0n,
  burned: 0n,
  burns: 0,
  buybackBurned: 0n,
};

export function applyDeltas<Row extends Record<string, unknown>>(row: Row, deltas: Record<string, bigint | number | undefined>): Partial<Row> {
  const next: Record<string, unknown> = {};
  for (const [key, delta] of Object.entries(deltas)) {
    if (delta === undefined) continue;
    next[key] = typeof delta === "bigint" ? (row[key] as bigint) + delta : (row[key] as number) + delta;
  }
  return next as Partial<Row>;
}

/** The block of an event: its number (for the totals' per-block deltas) and its time. */
export type BlockAt = { number: bigint; timestamp: bigint };

/**
 * Each total's change in one block (`totals_delta`): what the API subtracts from a total for its
 * part not final yet (the blocks above the head less CONFIRMATIONS; docs/api.md, "Final and
 * pending"). Numbers (counts) are kept as bigint too.
 */
async function recordDeltas(db: Db, scope: string, block: bigint, deltas: Record<string, bigint | number | undefined>): Promise<void> {
  for (const [field, value] of Object.entries(deltas)) {
    if (value === undefined) continue;
    const delta = BigInt(value);
    if (delta === 0n) continue;
    await db
      .insert(totalsDelta)
      .values({ id: `${scope}-${block}-${field}`, scope, blockNumber: block, field, delta })
      .onConflictDoUpdate((row) => ({ delta: row.delta + delta }));
  }
}

/** Adds to the protocol-wide totals (one row, created on first use). */
export async function addProtocolTotals(db: Db, at: BlockAt, deltas: Deltas<ProtocolRow>): Promise<void> {
  const timestamp = at.timestamp;
  await recordDeltas(db, "protocol", at.number, deltas as Record<string, bigint | number | undefined>);
  const initial = { ...PROTOCOL_ZERO, ...applyDeltas(PROTOCOL_ZERO as Record<string, unknown>, deltas) };
  await db
    .insert(protocolTotals)
    .values({ id: "protocol", ...(initial as typeof PROTOCOL_ZERO), updatedAt: timestamp })
    .onConflictDoUpdate((row) => ({ ...applyDeltas(row, deltas), updatedAt: timestamp }));
}

/** Adds to one token's totals. */
export async function addTokenTotals(db: Db, token: Hex, at: BlockAt, deltas: Deltas<TokenRow>): Promise<void> {
  const timestamp = at.timestamp;
  await recordDeltas(db, token.toLowerCase(), at.number, deltas as Record<string, bigint | number | undefined>);
  const initial = { ...TOKEN_ZERO, ...applyDeltas(TOKEN_ZERO as Record<string, unknown>, deltas) };
  await db
    .insert(tokenTotals)
    .values({ token: token.toLowerCase() as Hex, ...(initial as typeof TOKEN_ZERO), updatedAt: timestamp })
    .onConflictDoUpdate((row) => ({ ...applyDeltas(row, deltas), updatedAt: timestamp }));
}

/** Paired-currency base units that 1e18 whole tokens (1e36 base units) are worth at this price. */
export function tokenPriceE18(sqrtPriceX96: bigint, tokenIsCurrency0: boolean): bigint {
  if (sqrtPriceX96 === 0n) return 0n;
  return quoteAtSqrtPrice(ONE_TOKEN * ONE_TOKEN, sqrtPriceX96, tokenIsCurrency0);
}

/** Appends a new buyback (always open: it bought a positive amount) to its token's queue. */
export async function openBuyback(db: Db, address: Hex, id: string): Promise<void> {
  const queue = await db
    .insert(buybackQueue)
    .values({ token: address, head: 0, tail: 1 })
    .onConflictDoUpdate((row) => ({ tail: row.tail + 1 }));
  await db
    .insert(buybackQueueEntry)
    .values({ token: address, seq: queue.tail - 1, buybackId: id })
    .onConflictDoUpdate({ buybackId: id });
}

/**
 * Appends a token (and the amount of the fact it stands for, if any) to a named queue (`token_queue`).
 *
 * The queue row (`head`, `tail`) is the truth; an entry is a slot, and a slot at or past `tail` is
 * free whatever it holds. After a whole-stack crash the devnet rolls back and ponder's crash
 * recovery rewinds the queue row; a slot written in the rewound blocks can survive it (seen as a
 * duplicate key on `token_queue_entry`), so appending overwrites the slot instead of assuming it
 * empty. The same holds for the buyback queue.
 */
export async function enqueueToken(db: Db, name: string, address: Hex, amount: bigint | null = null): Promise<void> {
  const queue = await db
    .insert(tokenQueue)
    .values({ name, head: 0, tail: 1 })
    .onConflictDoUpdate((row) => ({ tail: row.tail + 1 }));
  await db
    .insert(tokenQueueEntry)
    .values({ name, seq: queue.tail - 1, token: address, amount })
    .onConflictDoUpdate({ token: address, amount });
}

/** Every entry of a named queue, oldest first, and empties it (entries before `head` are read). */
export async function drainQueue(db: Db, name: string): Promise<{ token: Hex; amount: bigint | null }[]> {
  const queue = await db.find(tokenQueue, { name });
  if (!queue || queue.head === queue.tail) return [];
  const entries: { token: Hex; amount: bigint | null }[] = [];
  for (let seq = queue.head; seq < queue.tail; seq++) {
    const entry = (await db.find(tokenQueueEntry, { name, seq }))!;
    entries.push({ token: entry.token, amount: entry.amount });
  }
  await db.update(tokenQueue, { name }).set({ head: queue.tail });
  return entries;
}
