/**
 * Our tokens' transfers (ponder.config.ts keeps those to the dead address and to or from the
 * v4 PoolManager): to the dead address → `burn` rows, classified by who sent the transaction
 * (operator burns settle the token's outstanding buybacks oldest first); to or from the
 * PoolManager → the swaps of our pools in that transaction (pools.ts).
 */
import { type Context, ponder } from "ponder:registry";
import { buyback, buybackQueue, buybackQueueEntry, burn, burnDaily, token } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig, isOperator } from "./config.js";
import { addProtocolTotals, addTokenTotals, recordActivity } from "./lib.js";
import { followSwaps } from "./pools.js";
import { DEAD_ADDRESS } from "../common/constants.js";

const DAY = 86_400n;

type TransferEvent = Parameters<Parameters<typeof ponder.on<"OurTokenIn:Transfer">>[1]>[0];

/** Into the dead address or the PoolManager. */
async function transferIn({ event, context }: TransferEvent): Promise<void> {
  const to = event.args.to.toLowerCase();
  if (to === indexerConfig.poolManager) return followSwaps(context, event);
  if (to === DEAD_ADDRESS.toLowerCase()) return recordBurn({ event, context });
}

/** Out of the PoolManager (a transfer from it to the dead address is a burn, recorded once by `transferIn`). */
async function transferOut({ event, context }: TransferEvent): Promise<void> {
  await followSwaps(context, event);
}

ponder.on("OurTokenIn:Transfer", transferIn);
ponder.on("ProtocolTokenIn:Transfer", transferIn);
ponder.on("OurTokenOut:Transfer", transferOut);
ponder.on("ProtocolTokenOut:Transfer", transferOut);

async function recordBurn({ event, context }: TransferEvent): Promise<void> {
  const address = event.log.address.toLowerCase() as Hex;
  const amount = event.args.value;
  // `token.isProtocolToken` is `address === protocolToken`: only that token's row needs reading.
  const isProtocolToken = address === indexerConfig.protocolToken && !!(await context.db.find(token, { address }))?.isProtocolToken;
  const byOperator = isOperator(event.transaction.from);
  const kind = byOperator ? (isProtocolToken ? "protocol-buyback" : "creator-buyback") : "organic";

  await context.db.insert(burn).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    token: address,
    from: event.args.from.toLowerCase() as Hex,
    amount,
    kind,
    txHash: event.transaction.hash,
    txFrom: event.transaction.from.toLowerCase() as Hex,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
  });
  const day = (event.block.timestamp / DAY) * DAY;
  await context.db
    .insert(burnDaily)
    .values({ token: address, day, burned: amount, burns: 1 })
    .onConflictDoUpdate((row) => ({ burned: row.burned + amount, burns: row.burns + 1 }));

  const settled = byOperator ? await settleBuybacks(context.db, address, amount) : 0n;
  await addTokenTotals(context.db, address, event.block, { burned: amount, burns: 1, buybackBurned: settled });
  if (isProtocolToken) await addProtocolTotals(context.db, event.block, { protocolTokensBurned: amount });
  await recordActivity(context.db, event, "burn", address, { amount, kind, from: event.args.from });
}

/**
 * Marks `amount` of operator-burned tokens against the token's unburned buybacks, oldest
 * first, walking the token's buyback queue (pools.ts appends each new buyback) by key.
 */
async function settleBuybacks(db: Context["db"], address: Hex, amount: bigint): Promise<bigint> {
  const queue = await db.find(buybackQueue, { token: address });
  if (!queue) return 0n;
  let left = amount;
  let head = queue.head;
  while (left > 0n && head < queue.tail) {
    const entry = (await db.find(buybackQueueEntry, { token: address, seq: head }))!;
    const row = (await db.find(buyback, { id: entry.buybackId }))!;
    const open = row.tokensBought - row.tokensBurned;
    const take = open < left ? open : left;
    await db.update(buyback, { id: row.id }).set({ tokensBurned: row.tokensBurned + take });
    left -= take;
    if (take === open) head++;
  }
  if (head !== queue.head) await db.update(buybackQueue, { token: address }).set({ head });
  return amount - left;
}

/**
 * The token admin's updates (the token's UpdateImage, UpdateMetadata and UpdateAdmin events), so every view shows the latest image,
 * metadata and admin. Followed with the token's transfers: from its enrolment on (the
 * protocol token from its launch).
 */
type UpdateEvent<N extends "UpdateImage" | "UpdateMetadata" | "UpdateAdmin"> = Parameters<Parameters<typeof ponder.on<`OurTokenIn:${N}`>>[1]>[0];

async function updateToken(
  db: UpdateEvent<"UpdateImage">["context"]["db"],
  address: string,
  set: Partial<Pick<typeof token.$inferSelect, "image" | "metadata" | "admin">>,
): Promise<void> {
  const key = { address: address.toLowerCase() as Hex };
  if (!(await db.find(token, key))) return; // enrolled without a launch row of ours (docs/base.md)
  await db.update(token, key).set(set);
}

const onImage = async ({ event, context }: UpdateEvent<"UpdateImage">) => updateToken(context.db, event.log.address, { image: event.args.image });
const onMetadata = async ({ event, context }: UpdateEvent<"UpdateMetadata">) => updateToken(context.db, event.log.address, { metadata: event.args.metadata });
const onAdmin = async ({ event, context }: UpdateEvent<"UpdateAdmin">) =>
  updateToken(context.db, event.log.address, { admin: event.args.newAdmin.toLowerCase() as Hex });
ponder.on("OurTokenIn:UpdateImage", onImage);
ponder.on("ProtocolTokenIn:UpdateImage", onImage);
ponder.on("OurTokenIn:UpdateMetadata", onMetadata);
ponder.on("ProtocolTokenIn:UpdateMetadata", onMetadata);
ponder.on("OurTokenIn:UpdateAdmin", onAdmin);
ponder.on("ProtocolTokenIn:UpdateAdmin", onAdmin);
