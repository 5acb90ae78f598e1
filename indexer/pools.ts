/**
 * Uniswap pools: v4 `Swap`s of our tokens' pools (read from the receipts of our tokens'
 * transfers to and from the PoolManager; the pools themselves come from our launches) (state, volume, price, and
 * the operator's buybacks), and the v3 pools the service trades in (reference prices, the
 * USDC or WETH leg of two-hop buybacks, secondary-asset purchases, the conversions of fee
 * WETH into USDC).
 */
import { type Context, ponder } from "ponder:registry";
import {
  buyback,
  buybackSpend,
  operatorV3Swap,
  pool,
  poolCandle,
  poolPricePoint,
  swapTx,
  poolVolumeUsdc,
  referencePrice,
  token,
  tokenBuybackSpend,
} from "ponder:schema";
import { type Hex, parseAbi, parseEventLogs, zeroAddress } from "viem";
import { clankerLpLockerAbi, poolManagerAbi } from "../common/abis/index.js";
import { indexerConfig, isOperator, receiptOf } from "./config.js";
import { convertFees } from "./fees.js";
import { ONE_TOKEN, addProtocolTotals, addTokenTotals, applyDeltas, openBuyback, recordActivity } from "./lib.js";
import { ethPriceUsdcE18, poolPrices } from "./prices.js";

const abs = (x: bigint) => (x < 0n ? -x : x);

type SwapArgs = { id: Hex; sender: Hex; amount0: bigint; amount1: bigint; sqrtPriceX96: bigint; liquidity: bigint; tick: number };
type TxEvent = { block: { number: bigint; timestamp: bigint; hash: Hex }; transaction: { hash: Hex; from: Hex }; log: { logIndex: number } };

/**
 * One of our tokens moved into or out of the v4 PoolManager: the transaction's receipt holds
 * the `Swap`s of our pools (docs/design.md §4.6). The receipt is read at the transaction's first
 * such transfer (`swap_tx` is the mark), and each swap handled at its own log position.
 */
export async function followSwaps(context: Pick<Context, "db" | "client">, event: TxEvent): Promise<void> {
  if (await context.db.find(swapTx, { txHash: event.transaction.hash })) return; // read at an earlier transfer
  await context.db.insert(swapTx).values({ txHash: event.transaction.hash });
  const receipt = await receiptOf(context.client, event);
  if (!receipt) return; // the block is being rolled back (indexer/receipts.ts)
  for (const l of parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: receipt.logs })) {
    if (l.address.toLowerCase() !== indexerConfig.poolManager) continue;
    const p = await context.db.find(pool, { poolId: l.args.id });
    if (!p) continue; // not one of our pools
    await onSwap(context.db, { ...event, log: { logIndex: l.logIndex }, args: l.args }, p, receipt.logs);
  }
}

async function onSwap(db: Context["db"], event: TxEvent & { args: SwapArgs }, p: typeof pool.$inferSelect, logs: ReceiptLog[]): Promise<void> {
  const context = { db };
  const a = event.args;

  // v4 amounts are from the swapper's view: negative paid in, positive received.
  const tokenIs0 = p.currency0 === p.token;
  const tokenDelta = tokenIs0 ? a.amount0 : a.amount1;
  const pairedDelta = tokenIs0 ? a.amount1 : a.amount0;
  const prices = await poolPrices(context.db, a.sqrtPriceX96, p.token, p.currency0, p.pairedToken);
  // Read before the update: the store's cached row is the object the update changes.
  const priceBefore = p.pricePairedE18;
  const protocolFee = protocolFeeOf(logs, event.log.logIndex, p.hooks, p.pairedToken);
  await context.db.update(pool, { poolId: a.id }).set((row) => ({
    sqrtPriceX96: a.sqrtPriceX96,
    tick: a.tick,
    liquidity: a.liquidity,
    ...prices,
    volumeToken: row.volumeToken + abs(tokenDelta),
    volumePaired: row.volumePaired + abs(pairedDelta),
    swaps: row.swaps + 1,
    protocolFees: row.protocolFees + protocolFee,
    updatedAt: event.block.timestamp,
  }));
  await recordPriceHistory(context.db, event, p, priceBefore, prices, abs(tokenDelta), abs(pairedDelta));

  // A buyback: the operator's own transaction buying the token (not a locker fee conversion).
  if (!isOperator(event.transaction.from) || tokenDelta <= 0n) return;
  const t = await context.db.find(token, { address: p.token });
  if (!t || a.sender.toLowerCase() === t.locker) return;
  // Only the operator's token-buying swaps get here (rare): their receipt tells a buyback from a
  // fee conversion and gives the hook's protocol fee.
  if (isLockerConversion(logs, event.log.logIndex, t.locker, p.token, tokenDelta)) return;
  // The hook's protocol fee is paid on top of what the pool took (off the input before the pool
  // sees it, or added to it after): the buyer paid both.
  const pairedIn = -pairedDelta + protocolFee;
  const spend = await buybackSpendOf(context.db, event.transaction.hash, p.pairedToken, pairedIn);
  const kind = t.isProtocolToken ? "protocol-buyback" : "creator-buyback";
  const id = `${event.transaction.hash}-${event.log.logIndex}`;
  const ts = event.block.timestamp;
  await context.db.insert(buyback).values({
    id,
    token: p.token,
    kind,
    usdcIn: spend.usdcIn,
    pairedIn,
    currencyIn: spend.currencyIn,
    amountIn: spend.amountIn,
    tokensBought: tokenDelta,
    tokensBurned: 0n,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: ts,
  });
  await openBuyback(context.db, p.token, id);
  await addTokenTotals(context.db, p.token, event.block, { buybacks: 1, buybackUsdc: spend.usdcIn, tokensBought: tokenDelta });
  await addProtocolTotals(
    context.db,
    event.block,
    t.isProtocolToken
      ? { protocolBuybacks: 1, protocolBuybackUsdc: spend.usdcIn, protocolTokensBought: tokenDelta }
      : { creatorBuybacks: 1, creatorBuybackUsdc: spend.usdcIn },
  );
  const deltas = { buybacks: 1, amountIn: spend.amountIn, usdcIn: spend.usdcIn };
  await context.db
    .insert(tokenBuybackSpend)
    .values({ token: p.token, currency: spend.currencyIn, ...deltas })
    .onConflictDoUpdate((row) => applyDeltas(row, deltas));
  await context.db
    .insert(buybackSpend)
    .values({ kind, currency: spend.currencyIn, ...deltas })
    .onConflictDoUpdate((row) => applyDeltas(row, deltas));
  await recordActivity(context.db, event, kind, p.token, {
    usdcIn: spend.usdcIn,
    pairedIn,
    pairedToken: p.pairedToken,
    amountIn: spend.amountIn,
    currencyIn: spend.currencyIn,
    tokensBought: tokenDelta,
  });
}

const PERIODS = [
  ["hour", 3_600n],
  ["day", 86_400n],
] as const;

/**
 * The swap's USDC value: a USDC leg as it is, a WETH leg at the WETH/USDC price of the moment
 * (null when none is indexed yet, or the paired currency is neither).
 */
async function pairedToUsdc(db: Context["db"], pairedToken: Hex, amount: bigint): Promise<bigint | null> {
  if (pairedToken === indexerConfig.usdc) return amount;
  if (pairedToken !== indexerConfig.weth) return null;
  const eth = await ethPriceUsdcE18(db);
  // wei × (USDC base units per 1e18 WETH) / (1e18 wei per WETH × 1e18 scale)
  return eth === 0n ? null : (amount * eth) / (ONE_TOKEN * ONE_TOKEN);
}

/**
 * The swap's part in the pool's price history: the price point after it, its hour and day
 * candles (opened at the pool's price before the swap, `before`) and the pool's USDC volume.
 */
async function recordPriceHistory(
  db: Context["db"],
  event: { block: { number: bigint; timestamp: bigint }; log: { logIndex: number } },
  p: typeof pool.$inferSelect,
  before: bigint,
  prices: { pricePairedE18: bigint; priceUsdcE18: bigint },
  tokenVolume: bigint,
  pairedVolume: bigint,
): Promise<void> {
  const usdc = await pairedToUsdc(db, p.pairedToken, pairedVolume);
  await db.insert(poolPricePoint).values({
    poolId: p.poolId,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    pricePairedE18: prices.pricePairedE18,
    priceUsdcE18: usdc === null ? null : prices.priceUsdcE18,
  });
  const after = prices.pricePairedE18;
  const hi = before > after ? before : after;
  const lo = before < after ? before : after;
  const volumeUsdc = usdc ?? 0n;
  const unpriced = usdc === null ? 1 : 0;
  for (const [period, seconds] of PERIODS) {
    await db
      .insert(poolCandle)
      .values({
        poolId: p.poolId,
        period,
        start: (event.block.timestamp / seconds) * seconds,
        token: p.token,
        pairedToken: p.pairedToken,
        open: before,
        high: hi,
        low: lo,
        close: after,
        volumeToken: tokenVolume,
        volumePaired: pairedVolume,
        volumeUsdc,
        unpricedSwaps: unpriced,
        swaps: 1,
      })
      .onConflictDoUpdate((row) => ({
        high: row.high > after ? row.high : after,
        low: row.low < after ? row.low : after,
        close: after,
        volumeToken: row.volumeToken + tokenVolume,
        volumePaired: row.volumePaired + pairedVolume,
        volumeUsdc: row.volumeUsdc + volumeUsdc,
        unpricedSwaps: row.unpricedSwaps + unpriced,
        swaps: row.swaps + 1,
      }));
  }
  await db
    .insert(poolVolumeUsdc)
    .values({ poolId: p.poolId, volumeUsdc, unpricedSwaps: unpriced })
    .onConflictDoUpdate((row) => ({ volumeUsdc: row.volumeUsdc + volumeUsdc, unpricedSwaps: row.unpricedSwaps + unpriced }));
}

type ReceiptLog = Parameters<typeof parseEventLogs>[0]["logs"][number];

/** The PoolManager's ERC-6909 claims (v4-core `ERC6909.Transfer`): a mint is a transfer from the zero address. */
const claimsAbi = parseAbi(["event Transfer(address caller, address indexed from, address indexed to, uint256 indexed id, uint256 amount)"]);

/**
 * The protocol fee the pool's Clanker hook took off this swap, in the paired token (20% of the LP
 * fee; docs/base.md, "Launching on Base"). The hook mints itself PoolManager claims of the paired currency
 * for it: right before the swap's `Swap` when it takes the fee from the specified amount in its
 * beforeSwap (an exact-input buy, an exact-output sell), right after it when it takes it from the
 * unspecified amount in its afterSwap (an exact-input sell, an exact-output buy); nothing else
 * comes between. The hook pays its claims to the Clanker factory only at the start of a later swap
 * of any of its pools (`ClaimProtocolFees(paired token, everything accumulated)`), so that event
 * says nothing of this swap, and none of it is the operator's.
 */
function protocolFeeOf(logs: ReceiptLog[], logIndex: number, hooks: Hex, pairedToken: Hex): bigint {
  if (BigInt(hooks) === 0n) return 0n;
  const at = logs.findIndex((l) => l.logIndex === logIndex);
  if (at < 0) return 0n;
  const mint = (l: ReceiptLog | undefined): bigint | null => {
    if (!l || l.address.toLowerCase() !== indexerConfig.poolManager) return null;
    const [claim] = parseEventLogs({ abi: claimsAbi, eventName: "Transfer", logs: [l], strict: true });
    if (!claim) return null;
    const { from, to, id, amount } = claim.args;
    return from === zeroAddress && to.toLowerCase() === hooks && id === BigInt(pairedToken) ? amount : null;
  };
  // Taken after the swap, else before it (a mint right before this Swap and none right after).
  return mint(logs[at + 1]) ?? mint(logs[at - 1]) ?? 0n;
}

/**
 * Whether this swap is the token's LP locker converting fees into the token through the
 * UniversalRouter (an explicit `collectRewards` whose recipients take fees in the token): the
 * swap's sender is the router, not the locker, and the transaction is the operator's when the
 * fee claimer collects; the locker's `FeesSwapped` after it reports the same output.
 */
function isLockerConversion(logs: ReceiptLog[], logIndex: number, locker: Hex, token: Hex, tokenOut: bigint): boolean {
  return parseEventLogs({ abi: clankerLpLockerAbi, eventName: "FeesSwapped", logs }).some(
    (l) => l.address.toLowerCase() === locker && l.logIndex > logIndex && l.args.swappedToken.toLowerCase() === token && l.args.amountOut === tokenOut,
  );
}

/**
 * What a buyback paid in and its USDC, from the operator's v3 hop in the same transaction:
 * USDC → WETH before a WETH-paired pool (paid in USDC), or WETH → USDC before a USDC-paired
 * pool (a legacy-WETH buyback: paid in WETH, its USDC at that hop's realised rate); without a
 * hop, the pool's paired currency itself (no USDC involved when that is WETH).
 */
async function buybackSpendOf(
  db: Context["db"],
  txHash: Hex,
  pairedToken: Hex,
  pairedIn: bigint,
): Promise<{ currencyIn: Hex; amountIn: bigint; usdcIn: bigint }> {
  const hop = indexerConfig.wethUsdcPool ? await db.find(operatorV3Swap, { id: `${txHash}-${indexerConfig.wethUsdcPool}` }) : null;
  if (pairedToken === indexerConfig.usdc) {
    if (hop && hop.otherIn > 0n && hop.usdcOut > 0n) return { currencyIn: indexerConfig.weth, amountIn: hop.otherIn, usdcIn: pairedIn };
    return { currencyIn: pairedToken, amountIn: pairedIn, usdcIn: pairedIn };
  }
  if (hop && hop.usdcIn > 0n) return { currencyIn: indexerConfig.usdc, amountIn: hop.usdcIn, usdcIn: hop.usdcIn };
  return { currencyIn: pairedToken, amountIn: pairedIn, usdcIn: 0n };
}

ponder.on("V3Pool:Initialize", async ({ event, context }) => {
  await context.db
    .insert(referencePrice)
    .values({ pool: event.log.address.toLowerCase() as Hex, sqrtPriceX96: event.args.sqrtPriceX96, updatedAt: event.block.timestamp })
    .onConflictDoUpdate({ sqrtPriceX96: event.args.sqrtPriceX96, updatedAt: event.block.timestamp });
});

ponder.on("V3Pool:Swap", async ({ event, context }) => {
  const poolAddress = event.log.address.toLowerCase() as Hex;
  await context.db
    .insert(referencePrice)
    .values({ pool: poolAddress, sqrtPriceX96: event.args.sqrtPriceX96, updatedAt: event.block.timestamp })
    .onConflictDoUpdate({ sqrtPriceX96: event.args.sqrtPriceX96, updatedAt: event.block.timestamp });
  if (!isOperator(event.transaction.from)) return;

  // v3 amounts are from the pool's view: positive = the pool received.
  const usdcIs0 = BigInt(indexerConfig.usdc) < BigInt(otherToken(poolAddress) ?? indexerConfig.usdc);
  const usdcDelta = usdcIs0 ? event.args.amount0 : event.args.amount1;
  const otherDelta = usdcIs0 ? event.args.amount1 : event.args.amount0;
  const id = `${event.transaction.hash}-${poolAddress}`;
  const row = { id, txHash: event.transaction.hash, pool: poolAddress, usdcIn: 0n, amountOut: 0n, otherIn: 0n, usdcOut: 0n };
  if (usdcDelta > 0n) {
    // The operator bought with USDC.
    await context.db
      .insert(operatorV3Swap)
      .values({ ...row, usdcIn: usdcDelta, amountOut: -otherDelta })
      .onConflictDoUpdate((r) => ({ usdcIn: r.usdcIn + usdcDelta, amountOut: r.amountOut - otherDelta }));
    if (poolAddress === indexerConfig.secondaryAssetPool) {
      await addProtocolTotals(context.db, event.block, { assetPurchaseUsdc: usdcDelta });
      await recordActivity(context.db, event, "asset-purchased", null, { usdcIn: usdcDelta, assetBought: -otherDelta });
    }
    return;
  }
  if (usdcDelta === 0n || otherDelta <= 0n) return;
  // The operator sold the other token for USDC.
  await context.db
    .insert(operatorV3Swap)
    .values({ ...row, otherIn: otherDelta, usdcOut: -usdcDelta })
    .onConflictDoUpdate((r) => ({ otherIn: r.otherIn + otherDelta, usdcOut: r.usdcOut - usdcDelta }));
  // Sold to itself (not into the router for a next hop): the engine's conversion of fee WETH.
  if (poolAddress === indexerConfig.wethUsdcPool && isOperator(event.args.recipient)) {
    await convertFees(context.db, event, indexerConfig.weth, otherDelta, -usdcDelta);
  }
});

/** The non-USDC token of the v3 pools we follow. */
function otherToken(poolAddress: Hex): Hex | undefined {
  if (poolAddress === indexerConfig.wethUsdcPool) return indexerConfig.weth;
  if (poolAddress === indexerConfig.secondaryAssetPool) return indexerConfig.secondaryAsset;
  return undefined;
}
