/**
 * The sniper auction of a launch's first tradable block (production.md §3). The winner pays
 * WETH; the MEV module stores 80% of it for the token's reward recipients in the fee locker
 * (`StoreTokens` sent by the module, no `ClaimedRewards`) and sends 20% to the factory. The
 * operator's share is a fee like a collection: it waits in the unclaimed queue until a claim
 * settles it, as the engine's attribution books it.
 */
import { ponder } from "ponder:registry";
import { auction, auctionConfig, pool } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig } from "./config.js";
import { recordActivity } from "./lib.js";

ponder.on("MevModule:AuctionWon", async ({ event, context }) => {
  const p = await context.db.find(pool, { poolId: event.args.poolId });
  if (!p) return; // not a launched token's pool
  await context.db.insert(auction).values({
    txHash: event.transaction.hash,
    poolId: event.args.poolId,
    token: p.token,
    payee: event.args.payee.toLowerCase() as Hex,
    amount: event.args.paymentAmount,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  });
  await recordActivity(context.db, event, "auction-won", p.token, { payee: event.args.payee, currency: indexerConfig.weth, amount: event.args.paymentAmount });
});

ponder.on("MevModule:FeeConfigSet", async ({ event, context }) => {
  const a = event.args;
  const config = { startingFee: a.startingFee, endingFee: a.endingFee, secondsToDecay: a.secondsToDecay, decayEndsAt: event.block.timestamp + a.secondsToDecay };
  await context.db.insert(auctionConfig).values({ poolId: a.poolId, ...config }).onConflictDoUpdate(config);
});

ponder.on("MevModule:AuctionInitialized", async ({ event, context }) => {
  const a = event.args;
  await context.db
    .insert(auctionConfig)
    .values({ poolId: a.poolId, startingFee: 0, endingFee: 0, secondsToDecay: 0n, decayEndsAt: event.block.timestamp, auctionBlock: a.auctionBlock })
    .onConflictDoUpdate({ auctionBlock: a.auctionBlock });
});
