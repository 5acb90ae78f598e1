/**
 * Uniswap pools: v4 `Initialize`/`Swap` of launched tokens' pools (state, volume, price, and
 * the operator's buybacks), and the v3 pools the service trades in (reference prices, the
 * USDC leg of two-hop buybacks, secondary-asset purchases).
 */
import { ponder } from "ponder:registry";
import { buyback, operatorV3Swap, pool, poolInit, referencePrice, token } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig, isOperator } from "./config.js";
import { addProtocolTotals, addTokenTotals, openBuyback, recordActivity } from "./lib.js";
import { poolPrices } from "./prices.js";

const abs = (x: bigint) => (x < 0n ? -x : x);

ponder.on("PoolManager:Initialize", async ({ event, context }) => {
  const a = event.args;
  await context.db.insert(poolInit).values({
    poolId: a.id,
    currency0: a.currency0.toLowerCase() as Hex,
    currency1: a.currency1.toLowerCase() as Hex,
    fee: a.fee,
    tickSpacing: a.tickSpacing,
    hooks: a.hooks.toLowerCase() as Hex,
    sqrtPriceX96: a.sqrtPriceX96,
    tick: a.tick,
  });
});

ponder.on("PoolManager:Swap", async ({ event, context }) => {
  const a = event.args;
  const p = await context.db.find(pool, { poolId: a.id });
  if (!p) return; // not a launched token's pool

  // v4 amounts are from the swapper's view: negative paid in, positive received.
  const tokenIs0 = p.currency0 === p.token;
  const tokenDelta = tokenIs0 ? a.amount0 : a.amount1;
  const pairedDelta = tokenIs0 ? a.amount1 : a.amount0;
  const prices = await poolPrices(context.db, a.sqrtPriceX96, p.token, p.currency0, p.pairedToken);
  await context.db.update(pool, { poolId: a.id }).set((row) => ({
    sqrtPriceX96: a.sqrtPriceX96,
    tick: a.tick,
    liquidity: a.liquidity,
    ...prices,
    volumeToken: row.volumeToken + abs(tokenDelta),
    volumePaired: row.volumePaired + abs(pairedDelta),
    swaps: row.swaps + 1,
    updatedAt: event.block.timestamp,
  }));

  // A buyback: the operator's own transaction buying the token (not a locker fee conversion).
  if (!isOperator(event.transaction.from) || tokenDelta <= 0n) return;
  const t = await context.db.find(token, { address: p.token });
  if (!t || a.sender.toLowerCase() === t.locker) return;
  const pairedIn = -pairedDelta;
  let usdcIn = 0n;
  if (p.pairedToken === indexerConfig.usdc) usdcIn = pairedIn;
  else if (indexerConfig.wethUsdcPool) {
    const leg = await context.db.find(operatorV3Swap, { id: `${event.transaction.hash}-${indexerConfig.wethUsdcPool}` });
    usdcIn = leg?.usdcIn ?? 0n;
  }
  const kind = t.isProtocolToken ? "protocol-buyback" : "creator-buyback";
  await context.db.insert(buyback).values({
    id: `${event.transaction.hash}-${event.log.logIndex}`,
    token: p.token,
    kind,
    usdcIn,
    pairedIn,
    tokensBought: tokenDelta,
    tokensBurned: 0n,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
  });
  await openBuyback(context.db, p.token, `${event.transaction.hash}-${event.log.logIndex}`);
  await addTokenTotals(context.db, p.token, event.block.timestamp, { buybacks: 1, buybackUsdc: usdcIn, tokensBought: tokenDelta });
  await addProtocolTotals(
    context.db,
    event.block.timestamp,
    t.isProtocolToken
      ? { protocolBuybacks: 1, protocolBuybackUsdc: usdcIn, protocolTokensBought: tokenDelta }
      : { creatorBuybacks: 1, creatorBuybackUsdc: usdcIn },
  );
  await recordActivity(context.db, event, kind, p.token, { usdcIn, pairedIn, pairedToken: p.pairedToken, tokensBought: tokenDelta });
});

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
  if (usdcDelta <= 0n) return; // the operator sold into USDC: not a purchase
  await context.db.insert(operatorV3Swap).values({
    id: `${event.transaction.hash}-${poolAddress}`,
    txHash: event.transaction.hash,
    pool: poolAddress,
    usdcIn: usdcDelta,
    amountOut: -otherDelta,
  }).onConflictDoUpdate((row) => ({ usdcIn: row.usdcIn + usdcDelta, amountOut: row.amountOut - otherDelta }));

  if (poolAddress === indexerConfig.secondaryAssetPool) {
    await addProtocolTotals(context.db, event.block.timestamp, { assetPurchaseUsdc: usdcDelta });
    await recordActivity(context.db, event, "asset-purchased", null, { usdcIn: usdcDelta, assetBought: -otherDelta });
  }
});

/** The non-USDC token of the v3 pools we follow. */
function otherToken(poolAddress: Hex): Hex | undefined {
  if (poolAddress === indexerConfig.wethUsdcPool) return indexerConfig.weth;
  if (poolAddress === indexerConfig.secondaryAssetPool) return indexerConfig.secondaryAsset;
  return undefined;
}
