/**
 * The operator's LP fees, per token and currency, through the three steps that make them
 * USDC (docs/design.md §5.2): collected by the locker (`ClaimedRewards`), claimed from the fee
 * locker (`ClaimTokens`, which settles every collection since the previous claim, as the
 * engine's attribution does), and — for WETH — sold by the operator's conversion swap, whose
 * realised USDC is divided among the tokens as the engine divides it. Collected fees wait,
 * one queued fact per collection, until a claim settles them: USDC counts (and is split into
 * legs with the ledger's maths, fact by fact) at the claim, as the ledger books it; WETH at its
 * conversion. Pure bookkeeping by key.
 */
import type { Context } from "ponder:registry";
import { enrollment, feeConversion, feeCurrencyTotals, token as tokenTable, tokenFee } from "ponder:schema";
import type { Hex } from "viem";
import { splitOperatorShare } from "../common/split.js";
import { indexerConfig } from "./config.js";
import { divideConversion } from "../common/conversion.js";
import { type BlockAt, addProtocolTotals, addTokenTotals, applyDeltas, drainQueue, enqueueToken, recordActivity } from "./lib.js";

type Db = Context["db"];
type TokenRow = typeof tokenTable.$inferSelect;
type FeeDeltas = Partial<Record<"toOperator" | "unclaimed" | "awaitingConversion" | "converted" | "usdc" | "toCreator", bigint>>;
type EventLike = Parameters<typeof recordActivity>[1];

const FEE_ZERO = { toOperator: 0n, unclaimed: 0n, awaitingConversion: 0n, converted: 0n, usdc: 0n, toCreator: 0n };

const unclaimedQueue = (currency: Hex) => `unclaimed:${currency}`;
const unconvertedQueue = (currency: Hex) => `unconverted:${currency}`;

/** Adds to a token's fees in one currency and to that currency's totals; returns the token's row after. */
async function addFees(db: Db, address: Hex, currency: Hex, deltas: FeeDeltas): Promise<typeof tokenFee.$inferSelect> {
  const initial = { ...FEE_ZERO, ...applyDeltas(FEE_ZERO, deltas) };
  await db
    .insert(feeCurrencyTotals)
    .values({ currency, ...initial })
    .onConflictDoUpdate((row) => applyDeltas(row, deltas));
  return db
    .insert(tokenFee)
    .values({ token: address, currency, ...initial })
    .onConflictDoUpdate((row) => applyDeltas(row, deltas));
}

/**
 * USDC the operator received for a token (collected USDC, or a conversion's share), split as
 * the ledger splits it: an enrolled token's into the protocol, asset and perp legs; the protocol
 * token's and a token not enrolled all to the operator leg.
 */
async function bookOperatorUsdc(db: Db, t: TokenRow, usdc: bigint, block: BlockAt): Promise<LegAmounts> {
  const enrolled = t.isProtocolToken ? undefined : await db.find(enrollment, { token: t.address });
  if (enrolled) {
    const legs = splitOperatorShare(usdc, enrolled);
    const deltas = { feesToOperatorUsdc: usdc, protocolLegUsdc: legs.protocol, assetLegUsdc: legs.asset, perpLegUsdc: legs.perp };
    await addProtocolTotals(db, block, deltas);
    await addTokenTotals(db, t.address, block, deltas);
    return { protocolUsdc: legs.protocol, assetUsdc: legs.asset, perpUsdc: legs.perp, operatorUsdc: 0n };
  }
  await addProtocolTotals(db, block, { feesToOperatorUsdc: usdc, operatorLegUsdc: usdc, ...(t.isProtocolToken ? { protocolTokenFeesUsdc: usdc } : {}) });
  await addTokenTotals(db, t.address, block, { feesToOperatorUsdc: usdc, operatorLegUsdc: usdc });
  return { protocolUsdc: 0n, assetUsdc: 0n, perpUsdc: 0n, operatorUsdc: usdc };
}

/** A token's USDC in each leg of one attribution. */
type LegAmounts = { protocolUsdc: bigint; assetUsdc: bigint; perpUsdc: bigint; operatorUsdc: bigint };

/**
 * Fees a `ClaimedRewards` paid the token's operator slots in `currency` (summed over the slots,
 * as the ledger books them): collected, not the operator's USDC until a claim settles them.
 */
export async function collectOperatorFees(db: Db, t: TokenRow, currency: Hex, amount: bigint, block: BlockAt): Promise<void> {
  await addFees(db, t.address, currency, { toOperator: amount, unclaimed: amount });
  await enqueueToken(db, unclaimedQueue(currency), t.address, amount);
  await addTokenTotals(db, t.address, block, {}); // the token has fees: its totals row exists
}

/** Fees a `ClaimedRewards` paid the token's enrolled creator in `currency`. */
export async function collectCreatorFees(db: Db, t: TokenRow, currency: Hex, amount: bigint, block: BlockAt): Promise<void> {
  await addFees(db, t.address, currency, { toCreator: amount });
  const usdc = currency === indexerConfig.usdc ? amount : 0n;
  await addProtocolTotals(db, block, { creatorLegUsdc: usdc });
  await addTokenTotals(db, t.address, block, { creatorLegUsdc: usdc });
}

/**
 * The operator's `ClaimTokens` of `claimed` in `currency` settles every collection since its
 * previous claim, collection by collection as the ledger's attribution books them: USDC is
 * split into legs; WETH awaits the next conversion swap. USDC claimed beyond the collections
 * goes to the operator leg, as the ledger's unattributed row does.
 */
export async function settleOperatorClaim(db: Db, event: EventLike, currency: Hex, claimed: bigint): Promise<void> {
  const block = event.block;
  const isUsdc = currency === indexerConfig.usdc;
  const convertible = currency === indexerConfig.weth;
  let settled = 0n;
  let n = 0;
  for (const { token: address, amount } of await drainQueue(db, unclaimedQueue(currency))) {
    if (!amount) continue;
    settled += amount;
    const row = await addFees(db, address, currency, {
      unclaimed: -amount,
      ...(isUsdc ? { usdc: amount } : {}),
      ...(convertible ? { awaitingConversion: amount } : {}),
    });
    if (convertible && row.awaitingConversion === amount) await enqueueToken(db, unconvertedQueue(currency), address);
    const legs = isUsdc ? await bookOperatorUsdc(db, (await db.find(tokenTable, { address }))!, amount, block) : undefined;
    // The token's own line in the feed: what this claim settled for it, and its legs (WETH gets them at its conversion).
    await recordActivity(db, event, "fees-attributed", address, { currency, amount, ...(legs ? { legs } : { awaitingConversion: convertible }) }, ++n);
  }
  if (isUsdc && claimed > settled) await addProtocolTotals(db, block, { feesToOperatorUsdc: claimed - settled, operatorLegUsdc: claimed - settled });
}

/**
 * The operator sold `amountIn` of claimed fee WETH for `usdcOut` (its conversion swap): each
 * token awaiting conversion gets its share of the USDC at the swap's realised rate, split
 * into legs.
 */
export async function convertFees(db: Db, event: EventLike, currency: Hex, amountIn: bigint, usdcOut: bigint): Promise<void> {
  const awaiting: { token: Hex; amount: bigint }[] = [];
  for (const { token: address } of await drainQueue(db, unconvertedQueue(currency))) {
    const amount = (await db.find(tokenFee, { token: address, currency }))?.awaitingConversion ?? 0n;
    if (amount > 0n) awaiting.push({ token: address, amount });
  }
  const shares = divideConversion(amountIn, usdcOut, awaiting);
  const ts = event.block.timestamp;
  for (const share of shares) {
    const address = share.token as Hex;
    const row = await addFees(db, address, currency, { awaitingConversion: -share.sold, converted: share.sold, usdc: share.usdc });
    if (row.awaitingConversion > 0n) await enqueueToken(db, unconvertedQueue(currency), address);
    const t = (await db.find(tokenTable, { address }))!;
    const legs = await bookOperatorUsdc(db, t, share.usdc, event.block);
    await recordActivity(db, event, "fees-attributed", address, { currency, amount: share.sold, usdc: share.usdc, legs }, shares.indexOf(share) + 1);
  }
  const attributed = shares.reduce((a, s) => a + s.sold, 0n);
  await db.insert(feeConversion).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    currency,
    amountIn,
    usdcOut,
    attributed,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: ts,
  });
  await recordActivity(db, event, "fees-converted", null, {
    currencyIn: currency,
    amountIn,
    usdcOut,
    shares: shares.map((s) => ({ token: s.token, currency, amount: s.sold, usdc: s.usdc })),
  });
}
