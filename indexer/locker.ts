/**
 * LP locker: reward slots per token, and each `ClaimedRewards` attributed to (token,
 * recipient, currency) — the per-token view the pooled fee locker cannot give. The operator's
 * and the creator's fees per currency go to fees.ts (the operator's USDC split into legs when
 * its claim settles them; WETH once converted).
 */
import { ponder } from "ponder:registry";
import { enrollment, feeCollection, pool, rewardRecipient, token } from "ponder:schema";
import { type Hex, zeroAddress } from "viem";
import { FeeIn } from "../common/abis/clanker.js";
import { isOperator } from "./config.js";
import { collectCreatorFees, collectOperatorFees } from "./fees.js";
import { recordActivity } from "./lib.js";

ponder.on("LpLocker:TokenRewardAdded", async ({ event, context }) => {
  const a = event.args;
  for (let i = 0; i < a.rewardRecipients.length; i++) {
    const slot = { recipient: a.rewardRecipients[i]!.toLowerCase() as Hex, admin: a.rewardAdmins[i]!.toLowerCase() as Hex, bps: a.rewardBps[i]! };
    // Both until `InitialFeePreferences` says otherwise (a locker without preferences pays each
    // currency as earned); whichever of the two events comes first, the slot ends up complete.
    await context.db
      .insert(rewardRecipient)
      .values({ token: a.token.toLowerCase() as Hex, rewardIndex: i, ...slot, feeIn: FeeIn.Both })
      .onConflictDoUpdate(slot);
  }
});

ponder.on("LpLocker:InitialFeePreferences", async ({ event, context }) => {
  const token = event.args.token.toLowerCase() as Hex;
  for (const [i, feeIn] of event.args.feePreference.entries()) {
    await context.db
      .insert(rewardRecipient)
      .values({ token, rewardIndex: i, recipient: zeroAddress, admin: zeroAddress, bps: 0, feeIn })
      .onConflictDoUpdate({ feeIn });
  }
});

ponder.on("LpLocker:RewardRecipientUpdated", async ({ event, context }) => {
  await context.db
    .update(rewardRecipient, { token: event.args.token.toLowerCase() as Hex, rewardIndex: Number(event.args.rewardIndex) })
    .set({ recipient: event.args.newRecipient.toLowerCase() as Hex });
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

ponder.on("LpLocker:ClaimedRewards", async ({ event, context }) => {
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
});

ponder.on("LpLocker:FeesSwapped", async ({ event, context }) => {
  const a = event.args;
  await recordActivity(context.db, event, "fees-swapped", a.token, {
    rewardToken: a.rewardToken,
    amountSwapped: a.amountSwapped,
    swappedToken: a.swappedToken,
    amountOut: a.amountOut,
  });
});
