/** Launcher `TokenCreated` → `token`, and the token's pool from its `Initialize`. */
import { ponder } from "ponder:registry";
import { pool, poolInit, token } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig } from "./config.js";
import { addProtocolTotals, recordActivity } from "./lib.js";
import { poolPrices } from "./prices.js";

ponder.on("Launcher:TokenCreated", async ({ event, context }) => {
  const a = event.args;
  const address = a.tokenAddress.toLowerCase() as Hex;
  const isProtocolToken = address === indexerConfig.protocolToken;
  await context.db.insert(token).values({
    address,
    name: a.tokenName,
    symbol: a.tokenSymbol,
    image: a.tokenImage,
    metadata: a.tokenMetadata,
    context: a.tokenContext,
    admin: a.tokenAdmin.toLowerCase() as Hex,
    deployer: a.msgSender.toLowerCase() as Hex,
    poolId: a.poolId,
    pairedToken: a.pairedToken.toLowerCase() as Hex,
    locker: a.locker.toLowerCase() as Hex,
    startingTick: a.startingTick,
    isProtocolToken,
    launchTx: event.transaction.hash,
    createdBlock: event.block.number,
    createdAt: event.block.timestamp,
  });

  // The pool was initialised earlier in the same transaction.
  const init = await context.db.find(poolInit, { poolId: a.poolId });
  if (init) {
    const prices = await poolPrices(context.db, init.sqrtPriceX96, address, init.currency0, a.pairedToken.toLowerCase() as Hex);
    await context.db.insert(pool).values({
      poolId: a.poolId,
      token: address,
      pairedToken: a.pairedToken.toLowerCase() as Hex,
      currency0: init.currency0,
      currency1: init.currency1,
      fee: init.fee,
      tickSpacing: init.tickSpacing,
      hooks: init.hooks,
      sqrtPriceX96: init.sqrtPriceX96,
      tick: init.tick,
      liquidity: 0n,
      ...prices,
      volumeToken: 0n,
      volumePaired: 0n,
      swaps: 0,
      updatedAt: event.block.timestamp,
    });
  }

  await addProtocolTotals(context.db, event.block, { tokensLaunched: 1 });
  await recordActivity(context.db, event, "token-launched", address, {
    name: a.tokenName,
    symbol: a.tokenSymbol,
    admin: a.tokenAdmin,
    poolId: a.poolId,
    pairedToken: a.pairedToken,
    isProtocolToken,
  });
});
