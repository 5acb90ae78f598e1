/**
 * The Avantis v1 perps simulator on the devnet, through the production ABIs: two-step market
 * orders executed by the keeper, margin deposits, closes paying exactly
 * `collateral × (100% + percentProfit)`, liquidation past the threshold, the per-pair minimum,
 * and open-trade enumeration by index. Runs inside an anvil snapshot (feed prices restored).
 */
import { type Abi, type Address, type Hex, type TransactionReceipt, createTestClient, erc20Abi, http, maxUint256, parseAbi, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LimitOrder, PERPS_PRECISION, perpsCallbacksAbi, perpsStorageAbi, perpsTradingAbi } from "../../common/abis/perps.js";
import { DEVNET_CHAIN_ID } from "../../common/config.js";
import { createDevnetContext } from "../../devnet/context.js";
import { DEVNET_ACCOUNTS, PERPS_MAX_LEVERAGE, PERPS_MIN_LEV_POS_USDC, PERPS_MIN_LEVERAGE, devnetPrivateKey } from "../../devnet/protocol.js";
import { testEnv } from "../helpers/env.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const feeds = deployments.contracts.priceFeeds!;
const trader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(2));
const keeper = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(DEVNET_ACCOUNTS.keeper));
const anvil = createTestClient({ mode: "anvil", transport: http(rpcUrl) });

const HUNDRED_PERCENT = 100n * PERPS_PRECISION;
const OPEN_FEE_P = 8n * 10n ** 8n; // 0.08% of the notional
const ETH = 0n;
const BTC = 1n;
/** Production keeper signatures (price update data ignored on the devnet). */
const keeperAbi = parseAbi([
  "function executeMarketOrders(uint256[] orderId, bytes[] priceUpdateData) payable",
  "function executeLimitOrder(uint8 _orderType, address _trader, uint256 _pairIndex, uint256 _index, bytes[] priceUpdateData) payable",
]);
const feedAbi = parseAbi(["function setAnswer(int256 answer)", "function latestAnswer() view returns (int256)"]);

type Trade = {
  trader: Address;
  pairIndex: bigint;
  index: bigint;
  initialPosToken: bigint;
  positionSizeUSDC: bigint;
  openPrice: bigint;
  buy: boolean;
  leverage: bigint;
  tp: bigint;
  sl: bigint;
  timestamp: bigint;
};

const receipt = (hash: Hex) => trader.publicClient.getTransactionReceipt({ hash });
const usdcOf = (owner: Address) => trader.read<bigint>(c.usdc!, erc20Abi, "balanceOf", [owner]);
const openTrade = (pairIndex: bigint, index: bigint) =>
  trader.read<Trade>(c.perpsStorage!, perpsStorageAbi as Abi, "openTrades", [trader.account.address, pairIndex, index]);
/** Sets a pair's feed (8 decimals) from a 1e10 price, as the keeper. */
const setPrice = (feed: string, price: bigint) => keeper.write(feeds[feed]!, feedAbi, "setAnswer", [price / 100n]);
const priceOf = async (feed: string) => (await keeper.read<bigint>(feeds[feed]!, feedAbi, "latestAnswer")) * 100n;

function percentProfit(openPrice: bigint, price: bigint, buy: boolean, leverage: bigint): bigint {
  const p = ((buy ? price - openPrice : openPrice - price) * 100n * leverage) / openPrice;
  return p < -HUNDRED_PERCENT ? -HUNDRED_PERCENT : p;
}
const closeValue = (collateral: bigint, pp: bigint) => (collateral * (HUNDRED_PERCENT + pp)) / HUNDRED_PERCENT;

function event<N extends "MarketExecuted" | "LimitExecuted">(r: TransactionReceipt, eventName: N) {
  const [log] = parseEventLogs({ abi: perpsCallbacksAbi, eventName, logs: r.logs });
  if (!log) throw new Error(`no ${eventName} in ${r.transactionHash}`);
  return log.args;
}

/** Trader requests a market open; returns the order id of MarketOrderInitiated. */
async function requestOpen(p: { pairIndex: bigint; collateral: bigint; leverage: bigint; buy: boolean; price: bigint }): Promise<bigint> {
  const t = {
    trader: trader.account.address,
    pairIndex: p.pairIndex,
    index: 0n,
    initialPosToken: 0n,
    positionSizeUSDC: p.collateral,
    openPrice: p.price,
    buy: p.buy,
    leverage: p.leverage,
    tp: 0n,
    sl: 0n,
    timestamp: 0n,
  };
  const r = await receipt(await trader.write(c.perpsTrading!, perpsTradingAbi as Abi, "openTrade", [t, 0, PERPS_PRECISION]));
  const [initiated] = parseEventLogs({ abi: perpsTradingAbi, eventName: "MarketOrderInitiated", logs: r.logs });
  expect(initiated!.args).toMatchObject({
    trader: trader.account.address,
    pairIndex: p.pairIndex,
    open: true,
    isBuy: p.buy,
    isPnl: false,
    initialPosToken: p.collateral,
    leverage: p.leverage,
  });
  return initiated!.args.orderId;
}

const execute = async (orderId: bigint) => receipt(await keeper.write(c.perpsTrading!, keeperAbi, "executeMarketOrders", [[orderId], []]));

async function open(p: { pairIndex: bigint; collateral: bigint; leverage: bigint; buy: boolean }) {
  const price = await priceOf(p.pairIndex === ETH ? "ETH_USD" : "BTC_USD");
  const executed = event(await execute(await requestOpen({ ...p, price })), "MarketExecuted");
  return executed.t as Trade;
}

async function close(t: Trade): Promise<{ executed: ReturnType<typeof event<"MarketExecuted">>; received: bigint }> {
  const before = await usdcOf(trader.account.address);
  const r = await receipt(await trader.write(c.perpsTrading!, perpsTradingAbi as Abi, "closeTradeMarket", [t.pairIndex, t.index, maxUint256]));
  const [initiated] = parseEventLogs({ abi: perpsTradingAbi, eventName: "MarketOrderInitiated", logs: r.logs });
  expect(initiated!.args).toMatchObject({ open: false, initialPosToken: t.initialPosToken });
  const executed = event(await execute(initiated!.args.orderId), "MarketExecuted");
  return { executed, received: (await usdcOf(trader.account.address)) - before };
}

let snapshot: Hex;
beforeAll(async () => {
  snapshot = await anvil.snapshot();
  await trader.write(c.usdc!, erc20Abi, "approve", [c.perpsStorage!, maxUint256]);
});
afterAll(async () => {
  await anvil.revert({ id: snapshot });
});

describe("perps pairs", () => {
  it("lists ETH/USD, BTC/USD and the secondary asset on the devnet feeds with a 100 USDC minimum and 2x..50x", async () => {
    expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "pairsCount")).toBe(3n);
    for (const pair of [0n, 1n, 2n]) {
      expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "pairMinLevPosUSDC", [pair])).toBe(PERPS_MIN_LEV_POS_USDC);
      expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "pairMinLeverage", [pair, false])).toBe(PERPS_MIN_LEVERAGE);
      expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "pairMaxLeverage", [pair, false])).toBe(PERPS_MAX_LEVERAGE);
    }
    expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "callbacks")).toBe(c.perpsCallbacks);
    expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "maxTradesPerPair")).toBe(50n);
  });

  it("rejects a position below the pair's minimum leveraged size (BELOW_MIN_POS)", async () => {
    const t = {
      trader: trader.account.address,
      pairIndex: ETH,
      index: 0n,
      initialPosToken: 0n,
      positionSizeUSDC: 19_000_000n,
      openPrice: await priceOf("ETH_USD"),
      buy: true,
      leverage: 5n * PERPS_PRECISION,
      tp: 0n,
      sl: 0n,
      timestamp: 0n,
    };
    await expect(
      trader.publicClient.simulateContract({
        account: trader.account,
        address: c.perpsTrading!,
        abi: perpsTradingAbi,
        functionName: "openTrade",
        args: [t, 0, PERPS_PRECISION],
      }),
    ).rejects.toThrow(/BELOW_MIN_POS/);
    // 20 USDC at 5x is exactly the minimum.
    await trader.publicClient.simulateContract({
      account: trader.account,
      address: c.perpsTrading!,
      abi: perpsTradingAbi,
      functionName: "openTrade",
      args: [{ ...t, positionSizeUSDC: 20_000_000n }, 0, PERPS_PRECISION],
    });
  });
});

describe("a long desk on ETH/USD: open, deposit, close with profit", () => {
  let trade: Trade;
  const collateral = 1_000_000_000n; // 1,000 USDC
  const leverage = 10n * PERPS_PRECISION;

  it("is a pending order until the keeper executes it at the feed price, net of the opening fee", async () => {
    const price = await priceOf("ETH_USD");
    const before = await usdcOf(trader.account.address);
    const orderId = await requestOpen({ pairIndex: ETH, collateral, leverage, buy: true, price });
    expect(await usdcOf(trader.account.address)).toBe(before - collateral);
    expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "pendingMarketOpenCount", [trader.account.address, ETH])).toBe(1n);

    const executed = event(await execute(orderId), "MarketExecuted");
    const fee = (((collateral * leverage) / PERPS_PRECISION) * OPEN_FEE_P) / HUNDRED_PERCENT;
    expect(fee).toBe(8_000_000n);
    trade = executed.t as Trade;
    expect(executed).toMatchObject({
      orderId,
      open: true,
      price,
      positionSizeUSDC: ((collateral - fee) * leverage) / PERPS_PRECISION,
      percentProfit: 0n,
      usdcSentToTrader: 0n,
      isPnl: false,
    });
    expect(trade).toMatchObject({
      trader: trader.account.address,
      pairIndex: ETH,
      initialPosToken: collateral - fee,
      positionSizeUSDC: 0n,
      openPrice: price,
      buy: true,
      leverage,
    });
    expect(await openTrade(ETH, trade.index)).toEqual(trade);
    expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "pendingMarketOpenCount", [trader.account.address, ETH])).toBe(0n);
  });

  it("takes a margin deposit: same position size, lower leverage", async () => {
    const deposit = 100_000_000n;
    const before = await usdcOf(trader.account.address);
    const r = await receipt(await trader.write(c.perpsTrading!, perpsTradingAbi as Abi, "updateMargin", [ETH, trade.index, 0, deposit, []]));
    const [updated] = parseEventLogs({ abi: perpsTradingAbi, eventName: "MarginUpdated", logs: r.logs });
    const collateralAfter = trade.initialPosToken + deposit;
    const leverageAfter = (trade.initialPosToken * trade.leverage) / collateralAfter;
    expect(updated!.args).toMatchObject({ trader: trader.account.address, pairIndex: ETH, index: trade.index, _type: 0 });
    expect(updated!.args.newTrade).toMatchObject({ initialPosToken: collateralAfter, leverage: leverageAfter });
    expect(await usdcOf(trader.account.address)).toBe(before - deposit);
    trade = await openTrade(ETH, trade.index);
    expect(trade.initialPosToken).toBe(collateralAfter);
  });

  it("closes 5% higher paying collateral × (100% + percentProfit) exactly", async () => {
    const price = (trade.openPrice * 105n) / 100n;
    await setPrice("ETH_USD", price);
    const pp = percentProfit(trade.openPrice, price, true, trade.leverage);
    expect(pp).toBeGreaterThan(0n);
    const { executed, received } = await close(trade);
    expect(executed).toMatchObject({ open: false, price, percentProfit: pp, usdcSentToTrader: closeValue(trade.initialPosToken, pp) });
    expect(received).toBe(closeValue(trade.initialPosToken, pp));
    expect(received).toBeGreaterThan(trade.initialPosToken);
    expect((await openTrade(ETH, trade.index)).leverage).toBe(0n);
  });
});

describe("losses and liquidation", () => {
  it("a short closed after a 3% rise pays back less than its collateral, exactly", async () => {
    const trade = await open({ pairIndex: ETH, collateral: 500_000_000n, leverage: 5n * PERPS_PRECISION, buy: false });
    const price = (trade.openPrice * 103n) / 100n;
    await setPrice("ETH_USD", price);
    const pp = percentProfit(trade.openPrice, price, false, trade.leverage);
    expect(pp).toBe(-15n * PERPS_PRECISION);
    const { executed, received } = await close(trade);
    expect(executed).toMatchObject({ open: false, percentProfit: pp, usdcSentToTrader: received });
    expect(received).toBe(closeValue(trade.initialPosToken, pp));
    expect(received).toBeLessThan(trade.initialPosToken);
  });

  it("a 20x long is liquidated (LimitExecuted LIQ, nothing paid) only once the loss reaches 90%", async () => {
    const trade = await open({ pairIndex: ETH, collateral: 200_000_000n, leverage: 20n * PERPS_PRECISION, buy: true });
    const liquidate = () => keeper.write(c.perpsTrading!, keeperAbi, "executeLimitOrder", [LimitOrder.LIQ, trader.account.address, ETH, trade.index, []]);
    await setPrice("ETH_USD", (trade.openPrice * 96n) / 100n); // -80%
    await expect(liquidate()).rejects.toThrow(/NOT_LIQUIDATABLE/);

    const price = (trade.openPrice * 95n) / 100n; // -100%
    await setPrice("ETH_USD", price);
    const before = await usdcOf(trader.account.address);
    const executed = event(await receipt(await liquidate()), "LimitExecuted");
    expect(executed).toMatchObject({ orderType: LimitOrder.LIQ, limitIndex: trade.index, price, percentProfit: -HUNDRED_PERCENT, usdcSentToTrader: 0n });
    expect(executed.t).toMatchObject({ trader: trader.account.address, index: trade.index, initialPosToken: trade.initialPosToken });
    expect(await usdcOf(trader.account.address)).toBe(before);
    expect((await openTrade(ETH, trade.index)).leverage).toBe(0n);
  });
});

describe("open trades by index", () => {
  it("enumerates slots with holes and refills the first empty one", async () => {
    const opened = [];
    for (let i = 0; i < 3; i++) opened.push(await open({ pairIndex: BTC, collateral: 100_000_000n, leverage: 2n * PERPS_PRECISION, buy: i % 2 === 0 }));
    expect(opened.map((t) => t.index)).toEqual([0n, 1n, 2n]);
    await close(opened[1]!);

    const max = await trader.read<bigint>(c.perpsStorage!, perpsStorageAbi as Abi, "maxTradesPerPair");
    const indices: bigint[] = [];
    for (let i = 0n; i < max; i++) if ((await openTrade(BTC, i)).leverage !== 0n) indices.push(i);
    expect(indices).toEqual([0n, 2n]);
    expect(await trader.read(c.perpsStorage!, perpsStorageAbi as Abi, "openTradesCount", [trader.account.address, BTC])).toBe(2n);

    const refill = await open({ pairIndex: BTC, collateral: 100_000_000n, leverage: 2n * PERPS_PRECISION, buy: true });
    expect(refill.index).toBe(1n);
  });
});
