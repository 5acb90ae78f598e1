/** Fee locker: stored and claimed balances per (owner, currency), and claims (the operator's settle its collected fees). */
import { ponder } from "ponder:registry";
import { feeBalance, feeClaim } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig, isOperator } from "./config.js";
import { settleOperatorClaim } from "./fees.js";
import { addProtocolTotals, recordActivity } from "./lib.js";

ponder.on("FeeLocker:StoreTokens", async ({ event, context }) => {
  const owner = event.args.feeOwner.toLowerCase() as Hex;
  const currency = event.args.token.toLowerCase() as Hex;
  const balance = event.args.balance; // the owner's new claimable balance: the credit is the delta
  await context.db
    .insert(feeBalance)
    .values({ owner, currency, stored: balance, claimed: 0n, claimable: balance })
    .onConflictDoUpdate((row) => ({ stored: row.stored + (balance - row.claimable), claimable: balance }));
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
    if (currency === indexerConfig.usdc) await addProtocolTotals(context.db, event.block.timestamp, { feesClaimedUsdc: amount });
  }
  await recordActivity(context.db, event, "fees-claimed", null, { owner, currency, amount });
});
