/**
 * The sniper auction of a launch's first tradable block (production.md §3). The winner pays
 * WETH; the MEV module stores 80% of it for the token's reward recipients in the fee locker
 * (`StoreTokens` sent by the module, no `ClaimedRewards`) and sends 20% to the factory. The
 * operator's share is a fee like a collection: it waits in the unclaimed queue until a claim
 * settles it, as the engine's attribution books it.
 */
import { type Context, ponder } from "ponder:registry";
import { auction, auctionConfig, enrollment, pool, token } from "ponder:schema";
import { type Hex, parseEventLogs } from "viem";
import { clankerFeeLockerAbi } from "../common/abis/clanker.js";
import { indexerConfig, isOperator, receiptOf } from "./config.js";
import { collectCreatorFees } from "./fees.js";
import { recordActivity } from "./lib.js";

ponder.on("MevModule:AuctionWon", async ({ event, context }) => {
  const p = await context.db.find(pool, { poolId: event.args.poolId });
  if (!p) return; // not one of our pools
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
  await creatorAuctionProceeds(context, event, p.token);
});

/**
 * The enrolled creator's share of our pool's auction proceeds: the MEV module's `StoreTokens`
 * later in this transaction. The fee-locker source follows the operator's stores only
 * (ponder.config.ts, docs/design.md §4.6; fee-locker.ts books the operator's share at its own
 * log), so the creator's stores are read from this auction's receipt — one read per auction of
 * ours — each recorded at its own log position.
 */
async function creatorAuctionProceeds(
  context: Pick<Context, "db" | "client">,
  event: Parameters<Parameters<typeof ponder.on<"MevModule:AuctionWon">>[1]>[0]["event"],
  address: Hex,
): Promise<void> {
  const creator = (await context.db.find(enrollment, { token: address }))?.creator;
  if (!creator || isOperator(creator)) return;
  const t = await context.db.find(token, { address });
  if (!t) return;
  const receipt = await receiptOf(context.client, event);
  if (!receipt) return; // the block is being rolled back (indexer/receipts.ts)
  const stores = parseEventLogs({ abi: clankerFeeLockerAbi, eventName: "StoreTokens", logs: receipt.logs }).filter(
    (l) =>
      l.address.toLowerCase() === indexerConfig.feeLocker &&
      l.logIndex > event.log.logIndex &&
      l.args.sender.toLowerCase() === indexerConfig.mevModule &&
      l.args.feeOwner.toLowerCase() === creator,
  );
  for (const l of stores) {
    const currency = l.args.token.toLowerCase() as Hex;
    await collectCreatorFees(context.db, t, currency, l.args.amount, event.block);
    await recordActivity(context.db, { ...event, log: { logIndex: l.logIndex } }, "auction-fees", address, {
      recipient: creator,
      currency,
      amount: l.args.amount,
    });
  }
}

type Db = Context["db"];

/** A pool's decaying-fee configuration (`FeeConfigSet`). */
export async function applyFeeConfig(
  db: Db,
  a: { poolId: Hex; startingFee: number; endingFee: number; secondsToDecay: bigint },
  timestamp: bigint,
): Promise<void> {
  const config = { startingFee: a.startingFee, endingFee: a.endingFee, secondsToDecay: a.secondsToDecay, decayEndsAt: timestamp + a.secondsToDecay };
  await db
    .insert(auctionConfig)
    .values({ poolId: a.poolId, ...config })
    .onConflictDoUpdate(config);
}

/** A pool's auction block (`AuctionInitialized`). */
export async function applyAuctionInitialized(db: Db, a: { poolId: Hex; auctionBlock: bigint }, timestamp: bigint): Promise<void> {
  await db
    .insert(auctionConfig)
    .values({ poolId: a.poolId, startingFee: 0, endingFee: 0, secondsToDecay: 0n, decayEndsAt: timestamp, auctionBlock: a.auctionBlock })
    .onConflictDoUpdate({ auctionBlock: a.auctionBlock });
}

// A launch's own configuration is read from its receipt by launcher.ts (the pool has no row
// before `TokenCreated`); these handlers keep later changes of our pools only.
ponder.on("MevModule:FeeConfigSet", async ({ event, context }) => {
  if (!(await context.db.find(pool, { poolId: event.args.poolId }))) return;
  await applyFeeConfig(context.db, event.args, event.block.timestamp);
});

ponder.on("MevModule:AuctionInitialized", async ({ event, context }) => {
  if (!(await context.db.find(pool, { poolId: event.args.poolId }))) return;
  await applyAuctionInitialized(context.db, event.args, event.block.timestamp);
});
