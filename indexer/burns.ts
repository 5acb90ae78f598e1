/** ERC20 transfers of tracked tokens to the dead address → `burn` rows and per-token totals. */
import { ponder } from "ponder:registry";
import { burn, burnDaily, tokenBurnTotal } from "ponder:schema";

const DAY = 86_400n;

ponder.on("BurnableToken:Transfer", async ({ event, context }) => {
  const token = event.log.address;
  const amount = event.args.value;
  await context.db.insert(burn).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    token,
    from: event.args.from,
    amount,
    kind: "organic",
    txHash: event.transaction.hash,
    txFrom: event.transaction.from,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
  });
  await context.db
    .insert(tokenBurnTotal)
    .values({ token, burned: amount, burns: 1 })
    .onConflictDoUpdate((row) => ({ burned: row.burned + amount, burns: row.burns + 1 }));
  const day = (event.block.timestamp / DAY) * DAY;
  await context.db
    .insert(burnDaily)
    .values({ token, day, burned: amount, burns: 1 })
    .onConflictDoUpdate((row) => ({ burned: row.burned + amount, burns: row.burns + 1 }));
});
