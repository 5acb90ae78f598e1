/**
 * A launch's sniper auction as the MEV module (SniperAuctionV2) runs it: round 1's auction block
 * two blocks after the launch (`AuctionInitialized`), each won round opening the next two blocks
 * later (`AuctionReset`), up to five (`AuctionEnded`); a round nobody won ends the rounds at the
 * next swap (`AuctionExpired`); the sniper fee then decays from the last auction's timestamp
 * (the launch's, or the last won round's). Each winner pays WETH; the module stores 80% of it
 * for the token's reward recipients in the fee locker (`StoreTokens` sent by the module, no
 * `ClaimedRewards`) and sends 20% to the factory. The operator's share is a fee like a
 * collection: it waits in the unclaimed queue until a claim settles it, as the engine's
 * attribution books it.
 */
import { type Context, ponder } from "ponder:registry";
import { auction, auctionConfig, enrollment, pool, token } from "ponder:schema";
import { type Hex, type Log, parseEventLogs } from "viem";
import { clankerFeeLockerAbi } from "../common/abis/clanker.js";
import { clankerHookAbi, sniperAuctionAbi } from "../common/abis/clanker-hook.js";
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
    round: Number(event.args.round),
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
  });
  await applyAuctionWon(context.db, event.args.poolId, event.block.timestamp, event.transaction.hash);
  await recordActivity(context.db, event, "auction-won", p.token, {
    payee: event.args.payee,
    currency: indexerConfig.weth,
    amount: event.args.paymentAmount,
    round: String(event.args.round),
  });
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

/** The last auction's timestamp, from which the decay runs: `decayEndsAt − secondsToDecay` of the row. */
const lastAuctionAt = (c: { decayEndsAt: bigint; secondsToDecay: bigint }) => c.decayEndsAt - c.secondsToDecay;

/** A pool's decaying-fee configuration (`FeeConfigSet`): the decay runs from the last auction (the launch until a round is won). */
export async function applyFeeConfig(
  db: Db,
  a: { poolId: Hex; startingFee: number; endingFee: number; secondsToDecay: bigint },
  timestamp: bigint,
): Promise<void> {
  const existing = await db.find(auctionConfig, { poolId: a.poolId });
  const start = existing ? lastAuctionAt(existing) : timestamp;
  const config = { startingFee: a.startingFee, endingFee: a.endingFee, secondsToDecay: a.secondsToDecay, decayEndsAt: start + a.secondsToDecay };
  await db
    .insert(auctionConfig)
    .values({ poolId: a.poolId, ...config })
    .onConflictDoUpdate(config);
}

/** Round 1's auction block (`AuctionInitialized`, at the launch: the last auction's time is the launch's). */
export async function applyAuctionInitialized(db: Db, a: { poolId: Hex; auctionBlock: bigint; round: bigint }, timestamp: bigint): Promise<void> {
  const existing = await db.find(auctionConfig, { poolId: a.poolId });
  const round = Number(a.round);
  if (existing) {
    await db
      .update(auctionConfig, { poolId: a.poolId })
      .set({ auctionBlock: a.auctionBlock, lastAuctionBlock: a.auctionBlock, round, roundsWon: 0, decayEndsAt: timestamp + existing.secondsToDecay });
    return;
  }
  await db.insert(auctionConfig).values({
    poolId: a.poolId,
    startingFee: 0,
    endingFee: 0,
    secondsToDecay: 0n,
    decayEndsAt: timestamp,
    auctionBlock: a.auctionBlock,
    lastAuctionBlock: a.auctionBlock,
    round,
    roundsWon: 0,
  });
}

/** A won round: the decay (when the rounds end) runs from this block's time. */
async function applyAuctionWon(db: Db, poolId: Hex, timestamp: bigint, txHash: Hex): Promise<void> {
  const c = await db.find(auctionConfig, { poolId });
  if (!c) return;
  await db
    .update(auctionConfig, { poolId })
    .set({ decayEndsAt: timestamp + c.secondsToDecay, roundsWon: (c.roundsWon ?? 0) + 1, wonTxs: [...(c.wonTxs ?? []), txHash] });
}

/**
 * At a token's enrolment, its creator's share of the auction rounds won before it (an agent
 * token is enrolled after its dev buy, so after every round): the module's `StoreTokens` for
 * the creator in each won round's receipt, booked as the creator's fees at the enrolment.
 */
export async function creditAuctionsBeforeEnrolment(
  context: Pick<Context, "db" | "client">,
  event: { transaction: { hash: Hex }; block: { number: bigint; timestamp: bigint }; log: { logIndex: number } },
  address: Hex,
): Promise<void> {
  const t = await context.db.find(token, { address });
  const creator = (await context.db.find(enrollment, { token: address }))?.creator;
  if (!t || !creator || isOperator(creator)) return;
  const won = (await context.db.find(auctionConfig, { poolId: t.poolId }))?.wonTxs ?? [];
  let n = 100; // after the enrolment's own activity
  for (const hash of won) {
    const receipt = await context.client.getTransactionReceipt({ hash });
    const stores = parseEventLogs({ abi: clankerFeeLockerAbi, eventName: "StoreTokens", logs: receipt.logs }).filter(
      (l) =>
        l.address.toLowerCase() === indexerConfig.feeLocker &&
        l.args.sender.toLowerCase() === indexerConfig.mevModule &&
        l.args.feeOwner.toLowerCase() === creator,
    );
    for (const l of stores) {
      const currency = l.args.token.toLowerCase() as Hex;
      await collectCreatorFees(context.db, t, currency, l.args.amount, event.block);
      await recordActivity(context.db, event, "auction-fees", address, { recipient: creator, currency, amount: l.args.amount, auctionTx: hash }, ++n);
    }
  }
}

/**
 * A launch's auction as its receipt shows it, in log order: the hook's `PoolExtensionRegistered`
 * and the module's `AuctionInitialized` and `FeeConfigSet` of `poolId` (the pool has no row
 * before `TokenCreated`, so launcher.ts hands them over).
 */
export async function applyLaunchAuction(db: Db, logs: Log[], p: { poolId: Hex; hook: Hex }, timestamp: bigint): Promise<void> {
  const hook = p.hook.toLowerCase();
  for (const l of parseEventLogs({ abi: clankerHookAbi, eventName: "PoolExtensionRegistered", logs })) {
    if (l.address.toLowerCase() !== hook || l.args.poolId !== p.poolId) continue;
    const extension = l.args.extension.toLowerCase() as Hex;
    await db
      .insert(auctionConfig)
      .values({ poolId: p.poolId, startingFee: 0, endingFee: 0, secondsToDecay: 0n, decayEndsAt: timestamp, poolExtension: extension })
      .onConflictDoUpdate({ poolExtension: extension });
  }
  const mev = logs.filter((l) => l.address.toLowerCase() === indexerConfig.mevModule);
  for (const l of parseEventLogs({ abi: sniperAuctionAbi, logs: mev })) {
    if (l.args.poolId !== p.poolId) continue;
    if (l.eventName === "AuctionInitialized") await applyAuctionInitialized(db, l.args, timestamp);
    else if (l.eventName === "FeeConfigSet") await applyFeeConfig(db, l.args, timestamp);
  }
}

// A launch's own configuration is read from its receipt by launcher.ts (the pool has no row
// before `TokenCreated`); these handlers keep later changes of the launches the index knows.
ponder.on("MevModule:FeeConfigSet", async ({ event, context }) => {
  if (!(await context.db.find(pool, { poolId: event.args.poolId }))) return;
  await applyFeeConfig(context.db, event.args, event.block.timestamp);
});

ponder.on("MevModule:AuctionInitialized", async ({ event, context }) => {
  if (!(await context.db.find(pool, { poolId: event.args.poolId }))) return;
  await applyAuctionInitialized(context.db, event.args, event.block.timestamp);
});

/** A won round opened the next: its number and auction block (`auctionBlock` stays round 1's). */
ponder.on("MevModule:AuctionReset", async ({ event, context }) => {
  const c = await context.db.find(auctionConfig, { poolId: event.args.poolId });
  if (!c) return;
  await context.db.update(auctionConfig, { poolId: event.args.poolId }).set({ lastAuctionBlock: event.args.auctionBlock, round: Number(event.args.round) });
});

/** A round nobody won: the rounds are over and the decay runs from the last auction (already in `decayEndsAt`). */
ponder.on("MevModule:AuctionExpired", async ({ event, context }) => {
  const c = await context.db.find(auctionConfig, { poolId: event.args.poolId });
  if (!c) return;
  await context.db.update(auctionConfig, { poolId: event.args.poolId }).set({ decayStartsAt: lastAuctionAt(c), round: Number(event.args.round) });
});

/** The last round was won (in this block, after its `AuctionWon`): the decay runs from now. */
ponder.on("MevModule:AuctionEnded", async ({ event, context }) => {
  const c = await context.db.find(auctionConfig, { poolId: event.args.poolId });
  if (!c) return;
  const at = event.block.timestamp;
  await context.db.update(auctionConfig, { poolId: event.args.poolId }).set({ decayStartsAt: at, decayEndsAt: at + c.secondsToDecay });
});
