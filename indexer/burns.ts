/**
 * Transfers of launched tokens to the dead address → `burn` rows, classified by who sent the
 * transaction; operator burns settle the token's outstanding buybacks oldest first.
 */
import { type Context, ponder } from "ponder:registry";
import { buyback, burn, burnDaily, token } from "ponder:schema";
import { and, asc, eq, lt } from "ponder";
import type { Hex } from "viem";
import { isOperator } from "./config.js";
import { addProtocolTotals, addTokenTotals, recordActivity } from "./lib.js";

const DAY = 86_400n;

ponder.on("LaunchedToken:Transfer", async ({ event, context }) => {
  const address = event.log.address.toLowerCase() as Hex;
  const amount = event.args.value;
  const t = await context.db.find(token, { address });
  const byOperator = isOperator(event.transaction.from);
  const kind = byOperator ? (t?.isProtocolToken ? "protocol-buyback" : "creator-buyback") : "organic";

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
  await addTokenTotals(context.db, address, event.block.timestamp, { burned: amount, burns: 1, buybackBurned: settled });
  if (t?.isProtocolToken) await addProtocolTotals(context.db, event.block.timestamp, { protocolTokensBurned: amount });
  await recordActivity(context.db, event, "burn", address, { amount, kind, from: event.args.from });
});

/** Marks `amount` of operator-burned tokens against the token's unburned buybacks, oldest first. */
async function settleBuybacks(db: Context["db"], address: Hex, amount: bigint): Promise<bigint> {
  const open = await db.sql
    .select()
    .from(buyback)
    .where(and(eq(buyback.token, address), lt(buyback.tokensBurned, buyback.tokensBought)))
    .orderBy(asc(buyback.blockNumber), asc(buyback.logIndex));
  let left = amount;
  for (const row of open) {
    if (left === 0n) break;
    const take = row.tokensBought - row.tokensBurned < left ? row.tokensBought - row.tokensBurned : left;
    await db.update(buyback, { id: row.id }).set({ tokensBurned: row.tokensBurned + take });
    left -= take;
  }
  return amount - left;
}
