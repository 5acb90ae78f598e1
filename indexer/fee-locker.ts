/**
 * Fee locker: the operator's stored and claimed balances per currency, and its claims (which
 * settle its collected fees). The sources are filtered to `feeOwner` = the operator
 * (ponder.config.ts): other owners' balances are not ours to follow.
 */
import { ponder } from "ponder:registry";
import { auction, feeBalance, feeClaim, token } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig, isOperator, receiptOf } from "./config.js";
import { collectOperatorFees, settleOperatorClaim } from "./fees.js";
import { addProtocolTotals, recordActivity } from "./lib.js";
import { lockerEventsOf } from "./locker.js";

ponder.on("FeeLocker:StoreTokens", async ({ event, context }) => {
  const owner = event.args.feeOwner.toLowerCase() as Hex;
  const currency = event.args.token.toLowerCase() as Hex;
  const balance = event.args.balance; // the owner's new claimable balance: the credit is the delta
  await context.db
    .insert(feeBalance)
    .values({ owner, currency, stored: balance, claimed: 0n, claimable: balance })
    .onConflictDoUpdate((row) => ({ stored: row.stored + (balance - row.claimable), claimable: balance }));

  // A collection paying the operator: the LP locker's `ClaimedRewards` (and `FeesSwapped`) of
  // this transaction, read from its receipt (docs/design.md §4.6).
  const sender = event.args.sender.toLowerCase();
  if (sender === indexerConfig.lpLocker) {
    const receipt = await receiptOf(context.client, event);
    if (receipt) await lockerEventsOf(context, receipt, event.block); // else the block is being rolled back
    return;
  }
  // A sniper auction's proceeds, stored by the MEV module for the auctioned token's recipients:
  // the operator's share here (the creator's is read from the auction's receipt, auction.ts).
  if (sender !== indexerConfig.mevModule || !isOperator(owner)) return;
  const won = await context.db.find(auction, { txHash: event.transaction.hash });
  const t = won ? await context.db.find(token, { address: won.token }) : null;
  if (!won || !t) return;
  const amount = event.args.amount;
  await collectOperatorFees(context.db, t, currency, amount, event.block);
  await recordActivity(context.db, event, "auction-fees", t.address, { recipient: owner, currency, amount });
});

ponder.on("FeeLocker:ClaimTokens", async ({ event, context }) => {
  const owner = event.args.feeOwner.toLowerCase() as Hex;
  const currency = event.args.token.toLowerCase() as Hex;
  const amount = event.args.amountClaimed;
  await context.db
    .insert(feeBalance)
    .values({ owner, currency, stored: 0n, claimed: amount, claimable: 0n })
    .onConflictDoUpdate((row) => ({ claimed: row.claimed + amount, claimable: 0n }));
  await context.db.insert(feeClaim).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    owner,
    currency,
    amount,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  });
  if (isOperator(owner)) {
    // The claim settles every collection of the operator's fees in this currency since the last one.
    await settleOperatorClaim(context.db, event, currency, amount);
    if (currency === indexerConfig.usdc) await addProtocolTotals(context.db, event.block, { feesClaimedUsdc: amount });
  }
  await recordActivity(context.db, event, "fees-claimed", null, { owner, currency, amount });
});
