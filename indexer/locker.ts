/**
 * LP locker: reward slots per token, and each `ClaimedRewards` attributed to (token,
 * recipient, currency) — the per-token view the pooled fee locker cannot give. The operator's
 * and the creator's fees per currency go to fees.ts (the operator's USDC split into legs when
 * its claim settles them; WETH once converted).
 */
import { type Context, ponder } from "ponder:registry";
import { activity, enrollment, feeCollection, pool, rewardRecipient, token } from "ponder:schema";
import { type Hex, type TransactionReceipt, parseEventLogs } from "viem";
import { FeeIn, clankerLpLockerAbi } from "../common/abis/clanker.js";
import { isOurLaunch } from "../common/ours.js";
import { indexerConfig, isOperator, oursContext, receiptOf } from "./config.js";
import { collectCreatorFees, collectOperatorFees } from "./fees.js";
import { activityId, recordActivity } from "./lib.js";

ponder.on("LpLocker:TokenRewardAdded", async ({ event, context }) => {
  const a = event.args;
  // Every Clanker launch has one; only ours leave slots (launcher.ts reads them to tell ours).
  const enrolled = await context.db.find(enrollment, { token: a.token.toLowerCase() as Hex });
  if (!enrolled && !isOurLaunch(oursContext, { token: a.token, rewardRecipients: a.rewardRecipients })) return;
  // The launch's `InitialFeePreferences`, from its receipt: production's locker emits it before
  // this event, when the slots (and so whether the launch is ours) are not known yet.
  const receipt = await receiptOf(context.client, event);
  if (!receipt) return; // the block is being rolled back (indexer/receipts.ts)
  const preferences = initialFeePreferences(receipt, event.log.address, a.token);
  for (let i = 0; i < a.rewardRecipients.length; i++) {
    const slot = { recipient: a.rewardRecipients[i]!.toLowerCase() as Hex, admin: a.rewardAdmins[i]!.toLowerCase() as Hex, bps: a.rewardBps[i]! };
    // Both when the launch states no preference (a locker without preferences pays each currency
    // as earned).
    await context.db
      .insert(rewardRecipient)
      .values({ token: a.token.toLowerCase() as Hex, rewardIndex: i, ...slot, feeIn: preferences?.[i] ?? FeeIn.Both })
      .onConflictDoUpdate(slot);
  }
});

/** The fee preferences a launch's receipt states for `token` (the locker's `InitialFeePreferences`), if any. */
export function initialFeePreferences(receipt: TransactionReceipt, locker: Hex, tokenAddress: Hex): readonly number[] | undefined {
  const logs = receipt.logs.filter((l) => l.address.toLowerCase() === locker.toLowerCase());
  const found = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "InitialFeePreferences", logs }).find(
    (l) => l.args.token.toLowerCase() === tokenAddress.toLowerCase(),
  );
  return found?.args.feePreference;
}

// Production emits this before `TokenRewardAdded` (which then reads it from the receipt); after it,
// the slots exist and take the preferences here.
ponder.on("LpLocker:InitialFeePreferences", async ({ event, context }) => {
  const token = event.args.token.toLowerCase() as Hex;
  if (!(await context.db.find(rewardRecipient, { token, rewardIndex: 0 }))) return; // not ours, or its slots come next
  for (const [i, feeIn] of event.args.feePreference.entries()) {
    const key = { token, rewardIndex: i };
    if (await context.db.find(rewardRecipient, key)) await context.db.update(rewardRecipient, key).set({ feeIn });
  }
});

ponder.on("LpLocker:RewardRecipientUpdated", async ({ event, context }) => {
  const key = { token: event.args.token.toLowerCase() as Hex, rewardIndex: Number(event.args.rewardIndex) };
  if (!(await context.db.find(rewardRecipient, key))) return; // not ours
  await context.db.update(rewardRecipient, key).set({ recipient: event.args.newRecipient.toLowerCase() as Hex });
});

ponder.on("LpLocker:FeePreferenceUpdated", async ({ event, context }) => {
  const key = { token: event.args.token.toLowerCase() as Hex, rewardIndex: Number(event.args.rewardIndex) };
  if (!(await context.db.find(rewardRecipient, key))) return;
  await context.db.update(rewardRecipient, key).set({ feeIn: event.args.newFeePreference, updatedBlock: event.block.number });
});

ponder.on("LpLocker:RewardAdminUpdated", async ({ event, context }) => {
  const key = { token: event.args.token.toLowerCase() as Hex, rewardIndex: Number(event.args.rewardIndex) };
  if (!(await context.db.find(rewardRecipient, key))) return;
  await context.db.update(rewardRecipient, key).set({ admin: event.args.newAdmin.toLowerCase() as Hex, updatedBlock: event.block.number });
});

type Db = Context["db"];
type LogEvent<Args> = { args: Args; block: { number: bigint; timestamp: bigint }; transaction: { hash: Hex }; log: { logIndex: number } };
type ClaimedRewardsArgs = { token: Hex; rewards0: readonly bigint[]; rewards1: readonly bigint[] };

/**
 * The LP locker's `ClaimedRewards` and `FeesSwapped` of one transaction, for our tokens, once:
 * read from the receipt of the operator's `StoreTokens` (every collection that pays the operator
 * stores its share in the fee locker first), not from every Clanker token's collections.
 */
export async function lockerEventsOf(context: { db: Db }, receipt: TransactionReceipt, block: { number: bigint; timestamp: bigint }): Promise<void> {
  const logs = receipt.logs.filter((l) => l.address.toLowerCase() === indexerConfig.lpLocker);
  const tx = { hash: receipt.transactionHash };
  for (const l of parseEventLogs({ abi: clankerLpLockerAbi, logs })) {
    const ev = { block, transaction: tx, log: { logIndex: l.logIndex } };
    // Once per log: its activity row is the mark (a transaction may store several times for the operator).
    if (await context.db.find(activity, { id: activityId(ev) })) continue;
    if (l.eventName === "ClaimedRewards") await onClaimedRewards(context.db, { ...ev, args: l.args });
    else if (l.eventName === "FeesSwapped") await onFeesSwapped(context.db, { ...ev, args: l.args });
  }
}

async function onClaimedRewards(db: Db, event: LogEvent<ClaimedRewardsArgs>): Promise<void> {
  const context = { db };
  const address = event.args.token.toLowerCase() as Hex;
  const t = await context.db.find(token, { address });
  const p = t ? await context.db.find(pool, { poolId: t.poolId }) : null;
  if (!t || !p) return;
  const enrolled = await context.db.find(enrollment, { token: address });
  const ts = event.block.timestamp;
  const sides = [
    { currency: p.currency0, rewards: event.args.rewards0, side: 0 },
    { currency: p.currency1, rewards: event.args.rewards1, side: 1 },
  ];
  const collected: Record<string, unknown>[] = [];
  for (const { currency, rewards, side } of sides) {
    let toOperator = 0n;
    let toCreator = 0n;
    for (let i = 0; i < rewards.length; i++) {
      const amount = rewards[i]!;
      if (amount === 0n) continue;
      const slot = await context.db.find(rewardRecipient, { token: address, rewardIndex: i });
      const recipient = (slot?.recipient ?? "0x") as Hex;
      await context.db.insert(feeCollection).values({
        id: `${event.transaction.hash}-${event.log.logIndex}-${i}-${side}`,
        token: address,
        rewardIndex: i,
        recipient,
        currency,
        amount,
        txHash: event.transaction.hash,
        blockNumber: event.block.number,
        timestamp: ts,
      });
      collected.push({ rewardIndex: i, recipient, currency, amount });
      if (isOperator(recipient)) toOperator += amount;
      else if (enrolled && recipient === enrolled.creator) toCreator += amount;
    }
    // The operator's slots of one log count as one fact, as the ledger books it.
    if (toOperator > 0n) await collectOperatorFees(context.db, t, currency, toOperator, event.block);
    if (toCreator > 0n) await collectCreatorFees(context.db, t, currency, toCreator, event.block);
  }
  if (collected.length) await recordActivity(context.db, event, "fees-collected", address, { collected });
}

async function onFeesSwapped(
  db: Db,
  event: LogEvent<{ token: Hex; rewardToken: Hex; amountSwapped: bigint; swappedToken: Hex; amountOut: bigint }>,
): Promise<void> {
  const a = event.args;
  if (!(await db.find(token, { address: a.token.toLowerCase() as Hex }))) return; // not ours
  await recordActivity(db, event, "fees-swapped", a.token, {
    rewardToken: a.rewardToken,
    amountSwapped: a.amountSwapped,
    swappedToken: a.swappedToken,
    amountOut: a.amountOut,
  });
}
