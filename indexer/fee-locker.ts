/** Fee locker: stored and claimed balances per (owner, currency), and claims (the operator's settle its collected fees). */
import { ponder } from "ponder:registry";
import { auction, enrollment, feeBalance, feeClaim, token } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig, isOperator } from "./config.js";
import { collectCreatorFees, collectOperatorFees, settleOperatorClaim } from "./fees.js";
import { addProtocolTotals, recordActivity } from "./lib.js";

ponder.on("FeeLocker:StoreTokens", async ({ event, context }) => {
  const owner = event.args.feeOwner.toLowerCase() as Hex;
  const currency = event.args.token.toLowerCase() as Hex;
  const balance = event.args.balance; // the owner's new claimable balance: the credit is the delta
  await context.db
    .insert(feeBalance)
    .values({ owner, currency, stored: balance, claimed: 0n, claimable: balance })
    .onConflictDoUpdate((row) => ({ stored: row.stored + (balance - row.claimable), claimable: balance }));

  // A sniper auction's proceeds, stored by the MEV module for the auctioned token's recipients.
  if (event.args.sender.toLowerCase() !== indexerConfig.mevModule) return;
  const won = await context.db.find(auction, { txHash: event.transaction.hash });
  const t = won ? await context.db.find(token, { address: won.token }) : null;
  if (!won || !t) return;
  const amount = event.args.amount;
  const ts = event.block.timestamp;
  if (isOperator(owner)) await collectOperatorFees(context.db, t, currency, amount, event.block);
  else if ((await context.db.find(enrollment, { token: t.address }))?.creator === owner) await collectCreatorFees(context.db, t, currency, amount, event.block);
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
