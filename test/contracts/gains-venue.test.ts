/**
 * The `gains-v10` venue against the devnet's twin of the gTrade v10 diamond: the calls it builds
 * are sent as they are (an order, then the keeper's fill), and what it reads back agrees with the
 * chain: pair limits, prices, free slots, the operator's trades (`getTrades`), and its decoded
 * events (open executed, open cancelled for slippage or after the timeout, close executed with the
 * USDC sent, liquidation). Open, increase, margin, partial and full close all go through the
 * venue. The operator here is a test account; the file's chain changes are reverted after it.
 */
import { type Address, type Hex, erc20Abi, parseAbi } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { GAINS_PRICE_PRECISION, GainsOrderType, gainsTradingAbi } from "../../common/abis/gains.js";
import { DEVNET_CHAIN_ID, loadConfig } from "../../common/config.js";
import type { EngineContext } from "../../core/context.js";
import { createDevnetContext } from "../../devnet/context.js";
import { GAINS_TIMEOUT_BLOCKS } from "../../devnet/gains.js";
import { DEVNET_ACCOUNTS, devnetPrivateKey } from "../../devnet/protocol.js";
import { GAINS_MAX_TRADES_PER_PAIR, GainsVenueError, gainsCancelAfterTimeout, gainsPendingOrders, gainsV10 } from "../../engine/perps/gains-v10.js";
import type { VenueCall, VenueEvent } from "../../engine/perps/types.js";
import { testEnv } from "../helpers/env.js";

const { rpcUrl, deploymentsFile, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const feeds = deployments.contracts.priceFeeds!;
const trader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(1));
const keeper = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(DEVNET_ACCOUNTS.keeper));
const config = loadConfig({ RPC_URL: rpcUrl, CHAIN_ID: String(DEVNET_CHAIN_ID), DEPLOYMENTS_FILE: deploymentsFile, PERPS_VENUE: "gains-v10" });
/** What the venue reads of an engine context: the configuration, the chain and the operator (a test account). */
const ctx = { config, publicClient: trader.publicClient, operator: trader.account.address } as unknown as EngineContext;
const venue = gainsV10;
const me = trader.account.address;

const E10 = GAINS_PRICE_PRECISION;
const USDC = (n: bigint) => n * 1_000_000n;
const BTC = 0;
const ETH = 1;
const keeperAbi = parseAbi(["function executePendingOrder(address trader, uint32 index)"]);
const feedAbi = parseAbi(["function setAnswer(int256 answer)", "function latestAnswer() view returns (int256)"]);

const usdcOf = () => trader.read<bigint>(c.usdc!, erc20Abi, "balanceOf", [me]);
const setPrice = (pair: number, price: bigint) => keeper.write(feeds[pair === BTC ? "BTC_USD" : "ETH_USD"]!, feedAbi, "setAnswer", [price / 100n]);
const head = () => trader.publicClient.getBlockNumber();

/** Sends a venue call from the operator; returns its receipt. */
async function sendRaw(call: VenueCall) {
  expect(call.value).toBe(0n);
  const hash: Hex = await trader.walletClient.sendTransaction({
    account: trader.account,
    chain: trader.walletClient.chain,
    to: call.to,
    data: call.data,
    value: call.value,
  });
  const receipt = await trader.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe("success");
  return receipt;
}
/** Sends a venue call from the operator; returns its receipt and the order id the venue reads from it. */
async function send(call: VenueCall) {
  const receipt = await sendRaw(call);
  const orderId = venue.orderIdOf(receipt);
  expect(orderId).toBeDefined();
  return { receipt, orderId: orderId! };
}
const fill = (orderId: bigint) => keeper.write(c.gainsDiamond!, keeperAbi, "executePendingOrder", [me, Number(orderId)]);
async function eventsSince(from: bigint): Promise<VenueEvent[]> {
  return venue.readEvents(ctx, { fromBlock: from, toBlock: await head() });
}

beforeAll(async () => {
  expect(venue.collateralSpender(ctx)).toBe(c.gainsDiamond);
  await trader.write(c.usdc!, erc20Abi, "approve", [venue.collateralSpender(ctx), 10n ** 30n]);
});

describe("the gains-v10 venue on the devnet's diamond", () => {
  it("reads the pair limits, the feed prices by gTrade index and the free slots", async () => {
    expect(await venue.readPairLimits(ctx, ETH)).toEqual({
      minLevPosUsdc: 75_000_150n,
      minLeverage: 11n * 10n ** 9n,
      maxLeverage: 150n * E10,
      leverageStep: 10n ** 7n,
    });
    const eth = (await trader.read<bigint>(feeds.ETH_USD!, feedAbi, "latestAnswer")) * 100n;
    const btc = (await trader.read<bigint>(feeds.BTC_USD!, feedAbi, "latestAnswer")) * 100n;
    expect(await venue.readPairPrice(ctx, ETH)).toBe(eth);
    expect(await venue.readPairPrice(ctx, BTC)).toBe(btc);
    expect(await venue.freeTradeSlots(ctx, ETH)).toBe(GAINS_MAX_TRADES_PER_PAIR);
  });

  it("opens, grows, adds margin, reduces and closes a trade, every step an order and a fill, read back from the chain", async () => {
    const from = await head();
    const price = await venue.readPairPrice(ctx, ETH);
    const open = await send(await venue.open(ctx, { pairIndex: ETH, collateral: USDC(40n), side: "long", leverage: 5n * E10 }));
    expect(await venue.freeTradeSlots(ctx, ETH)).toBe(GAINS_MAX_TRADES_PER_PAIR - 1);
    expect(await eventsSince(from)).toEqual([]);
    await fill(open.orderId);
    const [opened] = await eventsSince(from);
    expect(opened).toMatchObject({ kind: "open-executed", orderId: open.orderId, name: "MarketExecuted" });
    if (opened?.kind !== "open-executed") throw new Error("no open");
    expect(opened.trade).toMatchObject({
      trader: me,
      pairIndex: ETH,
      collateral: USDC(40n),
      openPrice: price,
      side: "long",
      leverage: 5n * E10,
      timestamp: opened.blockNumber,
    });
    expect(await venue.readOperatorTrades(ctx)).toEqual([opened.trade]);
    const index = opened.trade.index;

    const grow = venue.increase(ctx, { pairIndex: ETH, index, collateral: USDC(10n), leverage: 5n * E10 });
    expect(grow).toBeDefined();
    await fill((await send(await grow!)).orderId);
    let [now] = await venue.readOperatorTrades(ctx);
    expect([now!.collateral, now!.leverage]).toEqual([USDC(50n), 5n * E10]);

    const before = await usdcOf();
    await fill((await send(await venue.updateMargin(ctx, { pairIndex: ETH, index, amount: USDC(12n) + 500_000n }))).orderId);
    [now] = await venue.readOperatorTrades(ctx);
    // 50 USDC at 5x + 12.5 USDC: 4x at the same size.
    expect([now!.collateral, now!.leverage]).toEqual([USDC(62n) + 500_000n, 4n * E10]);
    expect(await usdcOf()).toBe(before - USDC(12n) - 500_000n);

    await fill((await send(await venue.close(ctx, { pairIndex: ETH, index, amount: USDC(20n) }))).orderId);
    [now] = await venue.readOperatorTrades(ctx);
    expect(now!.collateral).toBeLessThan(USDC(43n));
    expect(now!.collateral).toBeGreaterThan(USDC(42n));

    const up = (price * 104n) / 100n;
    await setPrice(ETH, up);
    const closeFrom = await head();
    const close = await send(await venue.close(ctx, { pairIndex: ETH, index, amount: now!.collateral }));
    const beforeClose = await usdcOf();
    await fill(close.orderId);
    const [closed] = await eventsSince(closeFrom + 1n);
    expect(closed).toMatchObject({ kind: "close-executed", orderId: close.orderId });
    if (closed?.kind !== "close-executed") throw new Error("no close");
    expect(closed.trade).toMatchObject({ index, collateral: now!.collateral, timestamp: opened.blockNumber });
    expect(await usdcOf()).toBe(beforeClose + closed.usdcSent);
    // +4% at 4x: 16% on the collateral, less the fees.
    expect(closed.usdcSent).toBeGreaterThan(now!.collateral);
    expect(await venue.readOperatorTrades(ctx)).toEqual([]);
    await setPrice(ETH, price);
  });

  it("refuses an open below gTrade's minimum collateral without building a call", async () => {
    await expect(venue.open(ctx, { pairIndex: BTC, collateral: 500_000n, side: "short", leverage: 2n * E10 })).rejects.toThrow(GainsVenueError);
    await expect(venue.open(ctx, { pairIndex: BTC, collateral: 500_000n, side: "short", leverage: 2n * E10 })).rejects.toThrow(
      /below gTrade's minimum of 500001/,
    );
  });

  it("decodes an open cancelled for slippage, one cancelled after the timeout, and a liquidation", async () => {
    const from = await head();
    const price = await venue.readPairPrice(ctx, BTC);
    const slipped = await send(await venue.open(ctx, { pairIndex: BTC, collateral: USDC(10n), side: "long", leverage: 3n * E10 }));
    await setPrice(BTC, (price * 102n) / 100n);
    await fill(slipped.orderId);
    await setPrice(BTC, price);

    const late = await send(await venue.open(ctx, { pairIndex: BTC, collateral: USDC(10n), side: "long", leverage: 3n * E10 }));
    const pending = await gainsPendingOrders(ctx);
    expect(pending.timeoutBlocks).toBe(GAINS_TIMEOUT_BLOCKS);
    expect(pending.orders.map((o) => [o.index, o.orderType])).toEqual([[Number(late.orderId), GainsOrderType.MARKET_OPEN]]);
    await trader.publicClient.request({ method: "anvil_mine" as never, params: [`0x${GAINS_TIMEOUT_BLOCKS.toString(16)}`] as never });
    const cancel = await sendRaw(gainsCancelAfterTimeout(ctx, Number(late.orderId)));
    expect(venue.orderIdOf(cancel)).toBeUndefined();

    const liq = await send(await venue.open(ctx, { pairIndex: BTC, collateral: USDC(20n), side: "short", leverage: 20n * E10 }));
    await fill(liq.orderId);
    const [trade] = await venue.readOperatorTrades(ctx);
    await setPrice(BTC, (price * 106n) / 100n);
    const packed = BigInt(GainsOrderType.LIQ_CLOSE) | (BigInt(me) << 8n) | (BigInt(trade!.index) << 168n);
    await keeper.write(c.gainsDiamond!, gainsTradingAbi, "triggerOrder", [packed]);
    await setPrice(BTC, price);

    const events = await eventsSince(from);
    expect(events.map((e) => [e.kind, "orderId" in e ? e.orderId : undefined])).toEqual([
      ["open-canceled", slipped.orderId],
      ["open-canceled", late.orderId],
      ["open-executed", liq.orderId],
      ["limit-executed", undefined],
    ]);
    const last = events[3]!;
    expect(last).toMatchObject({ kind: "limit-executed", liquidation: true, usdcSent: 0n, trade: { index: trade!.index, timestamp: trade!.timestamp } });
    expect(await venue.readOperatorTrades(ctx)).toEqual([]);
  });
});
