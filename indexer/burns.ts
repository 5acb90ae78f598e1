/**
 * Transfers of launched tokens to the dead address → `burn` rows, classified by who sent the
 * transaction; operator burns settle the token's outstanding buybacks oldest first.
 */
import { type Context, ponder } from "ponder:registry";
import { buyback, buybackQueue, buybackQueueEntry, burn, burnDaily, token } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig, isOperator } from "./config.js";
import { addProtocolTotals, addTokenTotals, recordActivity } from "./lib.js";

const DAY = 86_400n;

ponder.on("LaunchedToken:Transfer", async ({ event, context }) => {
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
});

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
