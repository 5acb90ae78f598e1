/**
 * Launcher `TokenCreated` → `token` and its pool, for our launches only (common/ours.ts,
 * docs/design.md §4.6). The launcher serves every Clanker deployer: a stranger's launch writes
 * nothing. The pool's `Initialize`, the hook's `PoolInitialized` (its fees by direction) and the
 * MEV module's launch configuration come from the launch's own receipt (one read per launch of ours), not from following every v4 pool.
 */
import { ponder } from "ponder:registry";
import { enrollment, pool, rewardRecipient, token } from "ponder:schema";
import { type Hex, parseEventLogs } from "viem";
import { clankerHookAbi, sniperAuctionAbi } from "../common/abis/clanker-hook.js";
import { poolManagerAbi } from "../common/abis/uniswap.js";
import { applyAuctionInitialized, applyFeeConfig } from "./auction.js";
import { indexerConfig, receiptOf } from "./config.js";
import { addProtocolTotals, recordActivity } from "./lib.js";
import { poolPrices } from "./prices.js";

ponder.on("Launcher:TokenCreated", async ({ event, context }) => {
  const a = event.args;
  const address = a.tokenAddress.toLowerCase() as Hex;
  const isProtocolToken = address === indexerConfig.protocolToken;
  // Ours: the protocol token, a launch that pays the operator (the locker's `TokenRewardAdded`
  // earlier in this transaction kept its reward slots only then), or a token enrolled before it
  // was launched.
  const ours =
    isProtocolToken ||
    !!(await context.db.find(rewardRecipient, { token: address, rewardIndex: 0 })) ||
    !!(await context.db.find(enrollment, { token: address }));
  if (!ours) return;

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

  // The pool was initialised earlier in the same transaction, and the MEV module configured.
  const receipt = await receiptOf(context.client, event);
  const init = parseEventLogs({ abi: poolManagerAbi, eventName: "Initialize", logs: receipt.logs }).find(
    (l) => l.address.toLowerCase() === indexerConfig.poolManager && l.args.id === a.poolId,
  );
  const hookInit = parseEventLogs({ abi: clankerHookAbi, eventName: "PoolInitialized", logs: receipt.logs }).find(
    (l) => l.address.toLowerCase() === a.poolHook.toLowerCase() && l.args.poolId === a.poolId,
  );
  if (init) {
    const i = init.args;
    const currency0 = i.currency0.toLowerCase() as Hex;
    const prices = await poolPrices(context.db, i.sqrtPriceX96, address, currency0, a.pairedToken.toLowerCase() as Hex);
    await context.db.insert(pool).values({
      poolId: a.poolId,
      token: address,
      pairedToken: a.pairedToken.toLowerCase() as Hex,
      currency0,
      currency1: i.currency1.toLowerCase() as Hex,
      fee: i.fee,
      tickSpacing: i.tickSpacing,
      hooks: i.hooks.toLowerCase() as Hex,
      sqrtPriceX96: i.sqrtPriceX96,
      tick: i.tick,
      liquidity: 0n,
      ...prices,
      volumeToken: 0n,
      volumePaired: 0n,
      swaps: 0,
      clankerFee: hookInit?.args.clankerFee ?? null,
      pairedFee: hookInit?.args.pairedFee ?? null,
      protocolFees: 0n,
      updatedAt: event.block.timestamp,
    });
  }
  const mev = receipt.logs.filter((l) => l.address.toLowerCase() === indexerConfig.mevModule);
  for (const l of parseEventLogs({ abi: sniperAuctionAbi, eventName: "FeeConfigSet", logs: mev })) {
    if (l.args.poolId === a.poolId) await applyFeeConfig(context.db, l.args, event.block.timestamp);
  }
  for (const l of parseEventLogs({ abi: sniperAuctionAbi, eventName: "AuctionInitialized", logs: mev })) {
    if (l.args.poolId === a.poolId) await applyAuctionInitialized(context.db, l.args, event.block.timestamp);
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
