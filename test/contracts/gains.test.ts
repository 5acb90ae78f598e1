/**
 * The devnet's twin of the gTrade v10 diamond, through the project's own ABI (common/abis/gains.ts):
 * pairs and views as Base's diamond answers them; the two-step market order (the trader's order
 * emits only `MarketOrderInitiated`, the keeper's fill at the devnet feed emits `MarketExecuted` of
 * 30 data words); a fill outside the slippage bound cancelled with the collateral back less the
 * pair's minimum fee; an unanswered order cancelled after `getMarketOrdersTimeoutBlocks()` with all
 * of it back; a close paying `collateral + PnL − fees` to the base unit; increase, decrease and the
 * leverage update that adds margin; a keeper liquidation past the liquidation price
 * (`LimitExecuted`, order type 6, 32 data words). The file's chain changes are reverted after it.
 */
import { type Address, type Hex, type TransactionReceipt, erc20Abi, maxUint256, parseAbi, parseEventLogs, toFunctionSelector } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import {
  GAINS_PERCENT_PRECISION,
  GainsCancelReason,
  GainsOrderType,
  gainsErrorsAbi,
  gainsEventsAbi,
  gainsTradingAbi as tradingAbi,
  gainsViewsAbi,
} from "../../common/abis/gains.js";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../../common/config.js";
import { createDevnetContext } from "../../devnet/context.js";
import { GAINS_MAX_LEVERAGE, GAINS_MIN_LEVERAGE, GAINS_TIMEOUT_BLOCKS } from "../../devnet/gains.js";
import { DEVNET_ACCOUNTS, devnetPrivateKey } from "../../devnet/protocol.js";
import { testEnv } from "../helpers/env.js";
import { type GainsTrade, gainsMarketOpenTrade, gainsTradeLiquidationPriceInput } from "../../common/abis/gains.js";
import { runGainsPreflight } from "../../engine/perps/gains-preflight.js";
import { rpc } from "../engine/helpers.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const feeds = deployments.contracts.priceFeeds!;
const diamond = c.gainsDiamond!;
const trader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(2));
const keeper = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(DEVNET_ACCOUNTS.keeper));
/** The diamond's owner (the deployer): the only sender of the twin's devnet-only setters. */
const owner = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
const me = trader.account.address;

const BTC = 0;
const ETH = 1;
const USDC = (n: bigint) => n * 1_000_000n;
const HUNDRED_PERCENT = 100n * GAINS_PERCENT_PRECISION;
/** 0.06% of max(size, $166.667): the devnet pairs' fee; the minimum fee is 0.1 USDC. */
const fee = (size: bigint) => ((size > 166_667_000n ? size : 166_667_000n) * 600_000_000n) / 10n ** 10n / 100n;
const MIN_FEE = 100_000n;

/** The trader's calls with the diamond's errors, so a refusal is decoded by name. */
const gainsTradingAbi = [...tradingAbi, ...gainsErrorsAbi];
const keeperAbi = parseAbi(["function executePendingOrder(address trader, uint32 index)"]);
const devnetAdminAbi = parseAbi([
  "function devnetSetFacet(bytes4 selector, bool present)",
  "function devnetSetTradingActivated(uint8 activated)",
  "function devnetSetCollateralIndex(uint8 index)",
]);
const admin = (functionName: string, args: readonly unknown[]) => owner.write(diamond, devnetAdminAbi, functionName, args);
const feedAbi = parseAbi(["function setAnswer(int256 answer)", "function latestAnswer() view returns (int256)"]);

type Trade = GainsTrade;

const feedOf = (pair: number) => feeds[pair === BTC ? "BTC_USD" : "ETH_USD"]!;
/** The pair's feed price at 1e10. */
const priceOf = async (pair: number) => (await keeper.read<bigint>(feedOf(pair), feedAbi, "latestAnswer")) * 100n;
const setPrice = (pair: number, price: bigint) => keeper.write(feedOf(pair), feedAbi, "setAnswer", [price / 100n]);
const usdcOf = (owner: Address) => trader.read<bigint>(c.usdc!, erc20Abi, "balanceOf", [owner]);
const receipt = (hash: Hex) => trader.publicClient.getTransactionReceipt({ hash });
const view = <T>(functionName: string, args: readonly unknown[] = []) => trader.read<T>(diamond, gainsViewsAbi, functionName, args);
const send = async (functionName: string, args: readonly unknown[]) => receipt(await trader.write(diamond, gainsTradingAbi, functionName, args));
const fill = async (index: number) => receipt(await keeper.write(diamond, keeperAbi, "executePendingOrder", [me, index]));

function logs(r: TransactionReceipt) {
  return parseEventLogs({ abi: gainsEventsAbi, logs: r.logs.filter((l) => l.address.toLowerCase() === diamond.toLowerCase()) });
}
function one<N extends string>(r: TransactionReceipt, name: N) {
  const found = logs(r).filter((l) => l.eventName === name);
  expect(found, `${name} in ${r.transactionHash}`).toHaveLength(1);
  return found[0]! as unknown as { args: Record<string, unknown>; data: Hex; topics: Hex[] };
}
const dataWords = (log: { data: Hex }) => (log.data.length - 2) / 64;

/** `openPrice ∓ openPrice × (collateral × 90% − fees) / collateral / leverage`, fees = closing + opening fee. */
function liqPrice(openPrice: bigint, long: boolean, collateral: bigint, leverage: bigint): bigint {
  const size = (collateral * leverage) / 1000n;
  const fees = fee(size) * 2n;
  const distance = (openPrice * ((collateral * 90n) / 100n - fees) * 1000n) / collateral / leverage;
  return long ? openPrice - distance : openPrice + distance;
}
function percentProfit(open: bigint, price: bigint, long: boolean, leverage: bigint): bigint {
  const p = ((long ? price - open : open - price) * HUNDRED_PERCENT * leverage) / 1000n / open;
  return p < -HUNDRED_PERCENT ? -HUNDRED_PERCENT : p;
}

/** The diamond's `getTradeLiquidationPrice` of an open trade at `price`, with the default liquidation parameters. */
const liquidationPriceOf = (t: Trade, price: bigint) => view<bigint>("getTradeLiquidationPrice", [gainsTradeLiquidationPriceInput(t, price)]);

/** Requests a market open; returns the pending-order index of its `MarketOrderInitiated`. */
async function requestOpen(p: { pair: number; collateral: bigint; leverage: number; long: boolean; price?: bigint; slippageP?: number }) {
  const price = p.price ?? (await priceOf(p.pair));
  const r = await send("openTrade", [
    gainsMarketOpenTrade({ trader: me, pairIndex: p.pair, leverage: p.leverage, long: p.long, collateral: p.collateral, price }),
    p.slippageP ?? 1000,
    "0x0000000000000000000000000000000000000000",
  ]);
  expect(logs(r).map((l) => l.eventName)).toEqual(["MarketOrderInitiated"]);
  const initiated = one(r, "MarketOrderInitiated").args;
  expect(initiated).toMatchObject({ trader: me, pairIndex: p.pair, open: true });
  const orderId = initiated.orderId as { user: Address; index: number };
  expect(orderId.user).toBe(me);
  return { pendingIndex: orderId.index, receipt: r };
}

async function open(p: { pair: number; collateral: bigint; leverage: number; long: boolean }): Promise<Trade> {
  const { pendingIndex } = await requestOpen(p);
  const executed = one(await fill(pendingIndex), "MarketExecuted");
  return executed.args.t as Trade;
}

beforeAll(async () => {
  await trader.write(c.usdc!, erc20Abi, "approve", [diamond, maxUint256]);
});

describe("the gTrade twin's pairs and views", () => {
  it("lists BTC/USD as pair 0 and ETH/USD as pair 1 on the devnet feeds, with gTrade's crypto bounds and fee", async () => {
    const btc = await view<{ from: string; to: string; feed: { feed1: Address } }>("pairs", [0n]);
    const eth = await view<{ from: string; to: string; feed: { feed1: Address } }>("pairs", [1n]);
    expect([btc.from, btc.to, btc.feed.feed1]).toEqual(["BTC", "USD", feeds.BTC_USD]);
    expect([eth.from, eth.to, eth.feed.feed1]).toEqual(["ETH", "USD", feeds.ETH_USD]);
    for (const pair of [0n, 1n]) {
      expect(await view("pairMinLeverage", [pair])).toBe(BigInt(GAINS_MIN_LEVERAGE));
      expect(await view("pairMaxLeverage", [pair])).toBe(BigInt(GAINS_MAX_LEVERAGE));
      expect(await view("pairTotalPositionSizeFeeP", [pair])).toBe(600_000_000n);
      // $166.667 × 0.06% at 1e18: the minimum fee; collateral must reach five of it.
      expect(await view("pairMinFeeUsd", [pair])).toBe(100_000_200_000_000_000n);
    }
  });

  it("answers Base's checks: USDC is collateral 1, trading is activated, every served selector has a facet", async () => {
    expect(await view("getCollateralIndex", [c.usdc])).toBe(1);
    expect(await view("getCollateralIndex", [c.weth])).toBe(0);
    expect(await view("getCollateral", [1])).toMatchObject({ collateral: c.usdc, isActive: true, precision: 1_000_000n });
    expect(await view("getCollateralPriceUsd", [1])).toBe(100_000_000n);
    expect(await view("getTradingActivated")).toBe(0);
    expect(await view("getMarketOrdersTimeoutBlocks")).toBe(GAINS_TIMEOUT_BLOCKS);
    for (const item of [...tradingAbi, ...gainsViewsAbi]) {
      if (item.type !== "function") continue;
      expect(await view("facetAddress", [toFunctionSelector(item)]), item.name).toBe(diamond);
    }
    expect(await view("facetAddress", ["0x12345678"])).toBe("0x0000000000000000000000000000000000000000");
  });
});

describe("a market open: the order, then the keeper's fill", () => {
  it("the order stores a pending order and takes the collateral; the fill opens the trade at the feed price", async () => {
    const before = await usdcOf(me);
    const counters = await view<{ currentIndex: number }>("getCounters", [me, 1]);
    const { pendingIndex, receipt: ordered } = await requestOpen({ pair: ETH, collateral: USDC(100n), leverage: 5000, long: true });
    expect(pendingIndex).toBe(counters.currentIndex);
    expect(await usdcOf(me)).toBe(before - USDC(100n));
    // The order's transaction moves only the collateral to the diamond.
    expect(ordered.logs.filter((l) => l.address.toLowerCase() !== diamond.toLowerCase()).map((l) => l.address.toLowerCase())).toEqual([c.usdc!.toLowerCase()]);
    const pending = await view<{ index: number; orderType: number; trade: Trade }[]>("getPendingOrders", [me]);
    expect(pending.map((o) => [o.index, o.orderType, o.trade.collateralAmount])).toEqual([[pendingIndex, GainsOrderType.MARKET_OPEN, USDC(100n)]]);
    const tradesBefore = await view<Trade[]>("getTrades", [me]);

    const price = await priceOf(ETH);
    const r = await fill(pendingIndex);
    const executed = one(r, "MarketExecuted");
    expect(dataWords(executed)).toBe(30);
    const t = executed.args.t as Trade;
    expect(executed.args).toMatchObject({ orderId: { user: me, index: pendingIndex }, user: me, open: true, oraclePrice: price, marketPrice: price });
    expect(t).toMatchObject({
      user: me,
      pairIndex: ETH,
      leverage: 5000,
      long: true,
      isOpen: true,
      collateralIndex: 1,
      collateralAmount: USDC(100n),
      openPrice: price,
    });
    expect(executed.args.liqPrice).toBe(liqPrice(price, true, USDC(100n), 5000n));
    expect(executed.args.amountSentToTrader).toBe(0n);
    expect(executed.args.collateralPriceUsd).toBe(100_000_000n);

    const trades = await view<Trade[]>("getTrades", [me]);
    expect(trades).toHaveLength(tradesBefore.length + 1);
    expect(await view("getTrade", [me, t.index])).toEqual(t);
    expect(await view<unknown[]>("getPendingOrders", [me])).toEqual([]);
    // v10: the opening fee is realized into the trade's fees data; the collateral stays whole.
    const fees = await view<{ realizedTradingFeesCollateral: bigint }>("getTradeFeesData", [me, t.index]);
    expect(fees.realizedTradingFeesCollateral).toBe(fee(USDC(500n)));
    expect(fees.realizedTradingFeesCollateral).toBe(300_000n);
    expect(await liquidationPriceOf(t, price)).toBe(executed.args.liqPrice);
  });

  it("refuses collateral below five minimum fees and leverage outside the pair's bounds", async () => {
    const price = await priceOf(BTC);
    const opened = async (collateral: bigint, leverage: number) =>
      trader.publicClient.simulateContract({
        account: trader.account,
        address: diamond,
        abi: gainsTradingAbi,
        functionName: "openTrade",
        args: [
          {
            user: me,
            index: 0,
            pairIndex: BTC,
            leverage,
            long: false,
            isOpen: true,
            collateralIndex: 1,
            tradeType: 0,
            collateralAmount: collateral,
            openPrice: price,
            tp: 0n,
            sl: 0n,
            isCounterTrade: false,
            positionSizeToken: 0n,
            __placeholder: 0,
          },
          1000,
          "0x0000000000000000000000000000000000000000",
        ],
      });
    await expect(opened(5n * MIN_FEE, 2000)).resolves.toBeDefined();
    await expect(opened(5n * MIN_FEE - 1n, 2000)).rejects.toThrow(/InsufficientCollateral/);
    await expect(opened(USDC(10n), GAINS_MIN_LEVERAGE - 1)).rejects.toThrow(/WrongLeverage/);
    await expect(opened(USDC(10n), GAINS_MAX_LEVERAGE + 1)).rejects.toThrow(/WrongLeverage/);
  });

  it("a fill past the slippage bound is cancelled (SLIPPAGE), returning the collateral less the minimum fee", async () => {
    const price = await priceOf(ETH);
    const { pendingIndex } = await requestOpen({ pair: ETH, collateral: USDC(50n), leverage: 3000, long: true, price, slippageP: 1000 });
    const before = await usdcOf(me);
    // 1% allowed: a fill 1.5% above the expected price is refused, one at +1% would not be.
    await setPrice(ETH, (price * 1015n) / 1000n);
    const canceled = one(await fill(pendingIndex), "MarketOpenCanceled");
    expect(canceled.args).toMatchObject({
      orderId: { user: me, index: pendingIndex },
      trader: me,
      pairIndex: BigInt(ETH),
      cancelReason: GainsCancelReason.SLIPPAGE,
      collateralReturned: USDC(50n) - MIN_FEE,
    });
    expect(await usdcOf(me)).toBe(before + USDC(50n) - MIN_FEE);
    expect(await view<unknown[]>("getPendingOrders", [me])).toEqual([]);
    await setPrice(ETH, price);
  });

  it("an order never answered is cancelled by its trader after the timeout, with all of its collateral", async () => {
    const before = await usdcOf(me);
    const { pendingIndex } = await requestOpen({ pair: BTC, collateral: USDC(20n), leverage: 4000, long: false });
    await expect(
      trader.publicClient.simulateContract({
        account: trader.account,
        address: diamond,
        abi: gainsTradingAbi,
        functionName: "cancelOrderAfterTimeout",
        args: [pendingIndex],
      }),
    ).rejects.toThrow(/WaitTimeout/);
    await trader.publicClient.request({ method: "anvil_mine" as never, params: [`0x${GAINS_TIMEOUT_BLOCKS.toString(16)}`] as never });
    const r = await send("cancelOrderAfterTimeout", [pendingIndex]);
    expect(one(r, "ChainlinkCallbackTimeout").args).toMatchObject({ pendingOrderId: { user: me, index: pendingIndex }, pairIndex: BigInt(BTC) });
    expect(one(r, "CollateralReturnedAfterTimeout").args).toMatchObject({
      pendingOrderId: { user: me, index: pendingIndex },
      collateralIndex: 1,
      trader: me,
      collateralAmount: USDC(20n),
    });
    expect(await usdcOf(me)).toBe(before);
    expect(await view<unknown[]>("getPendingOrders", [me])).toEqual([]);
    // Answered too late: nothing is pending any more.
    await expect(keeper.write(diamond, keeperAbi, "executePendingOrder", [me, pendingIndex])).rejects.toThrow();
  });
});

describe("closing, resizing and liquidating", () => {
  it("a close pays collateral + PnL − the closing and opening fees, to the base unit", async () => {
    const t = await open({ pair: ETH, collateral: USDC(100n), leverage: 5000, long: true });
    const up = (t.openPrice * 110n) / 100n;
    await setPrice(ETH, up);
    const r = await send("closeTradeMarket", [t.index, up]);
    const initiated = one(r, "MarketOrderInitiated").args;
    expect(initiated).toMatchObject({ trader: me, pairIndex: ETH, open: false });
    const before = await usdcOf(me);
    const executed = one(await fill((initiated.orderId as { index: number }).index), "MarketExecuted");
    const pp = percentProfit(t.openPrice, up, true, 5000n);
    expect(pp).toBe(50n * GAINS_PERCENT_PRECISION);
    const expected = USDC(100n) + USDC(50n) - fee(USDC(500n)) - fee(USDC(500n));
    expect(expected).toBe(149_400_000n);
    expect(executed.args).toMatchObject({ open: false, percentProfit: pp, amountSentToTrader: expected, oraclePrice: up });
    expect(await usdcOf(me)).toBe(before + expected);
    expect((await view<Trade>("getTrade", [me, t.index])).isOpen).toBe(false);
    expect((await view<Trade[]>("getTrades", [me])).some((x) => x.index === t.index)).toBe(false);
  });

  it("a second close of a trade being closed is refused (AlreadyBeingMarketClosed)", async () => {
    const t = await open({ pair: BTC, collateral: USDC(10n), leverage: 2000, long: true });
    const r = await send("closeTradeMarket", [t.index, t.openPrice]);
    const call = (functionName: "closeTradeMarket" | "updateLeverage", args: readonly [number, bigint] | readonly [number, number]) =>
      trader.publicClient.simulateContract({ account: trader.account, address: diamond, abi: gainsTradingAbi, functionName, args } as never);
    await expect(call("closeTradeMarket", [t.index, t.openPrice])).rejects.toThrow(/AlreadyBeingMarketClosed/);
    await expect(call("updateLeverage", [t.index, 3000])).rejects.toThrow(/ConflictingPendingOrder/);
    expect(one(await fill((one(r, "MarketOrderInitiated").args.orderId as { index: number }).index), "MarketExecuted").args.open).toBe(false);
  });

  it("increase, decrease and a leverage update adding margin, each a pending order and a fill", async () => {
    const t = await open({ pair: BTC, collateral: USDC(100n), leverage: 5000, long: false });
    const price = t.openPrice;

    const inc = await send("increasePositionSize", [t.index, USDC(50n), 5000, price, 1000]);
    const incInit = one(inc, "PositionSizeUpdateInitiated").args;
    expect(incInit).toMatchObject({
      trader: me,
      pairIndex: BigInt(BTC),
      index: BigInt(t.index),
      isIncrease: true,
      collateralDelta: USDC(50n),
      leverageDelta: 5000n,
    });
    const incExec = one(await fill((incInit.orderId as { index: number }).index), "PositionSizeIncreaseExecuted");
    expect(dataWords(incExec)).toBe(30);
    expect(incExec.args).toMatchObject({ cancelReason: 0, trader: me, index: BigInt(t.index) });
    let now = await view<Trade>("getTrade", [me, t.index]);
    expect([now.collateralAmount, now.leverage, now.openPrice]).toEqual([USDC(150n), 5000, price]);
    expect((await view<{ realizedTradingFeesCollateral: bigint }>("getTradeFeesData", [me, t.index])).realizedTradingFeesCollateral).toBe(
      fee(USDC(500n)) + fee(USDC(250n)),
    );

    // Margin: 5x → 3x at the same size pulls collateral × (5/3 − 1) now.
    const before = await usdcOf(me);
    const lev = await send("updateLeverage", [t.index, 3000]);
    expect(one(lev, "LeverageUpdateInitiated").args).toMatchObject({ trader: me, index: BigInt(t.index), isIncrease: false, newLeverage: 3000n });
    expect(await usdcOf(me)).toBe(before - USDC(100n));
    const levExec = one(await fill((one(lev, "LeverageUpdateInitiated").args.orderId as { index: number }).index), "LeverageUpdateExecuted");
    expect(levExec.args).toMatchObject({ isIncrease: false, cancelReason: 0, collateralDelta: USDC(100n) });
    now = await view<Trade>("getTrade", [me, t.index]);
    expect([now.collateralAmount, now.leverage]).toEqual([USDC(250n), 3000]);

    // Close 50 USDC of collateral at a 2% gain on the short: its share of PnL, less its closing fee and share of fees.
    const down = (price * 98n) / 100n;
    await setPrice(BTC, down);
    const dec = await send("decreasePositionSize", [t.index, USDC(50n), 0, down]);
    const decInit = one(dec, "PositionSizeUpdateInitiated").args;
    expect(decInit).toMatchObject({ isIncrease: false, collateralDelta: USDC(50n), leverageDelta: 0n });
    const beforeDec = await usdcOf(me);
    const decExec = one(await fill((decInit.orderId as { index: number }).index), "PositionSizeDecreaseExecuted");
    expect(dataWords(decExec)).toBe(30);
    const values = decExec.args.values as { collateralSentToTrader: bigint; closingFeeCollateral: bigint; newCollateralAmount: bigint; newLeverage: number };
    const deltaSize = USDC(150n); // 50 USDC at 3x
    const pnlShare = (((percentProfit(price, down, false, 3000n) * USDC(250n)) / HUNDRED_PERCENT) * deltaSize) / USDC(750n);
    const feesShare = ((fee(USDC(500n)) + fee(USDC(250n))) * deltaSize) / USDC(750n);
    expect(values.closingFeeCollateral).toBe(fee(deltaSize));
    expect(values.collateralSentToTrader).toBe(USDC(50n) + pnlShare - fee(deltaSize) - feesShare);
    expect([values.newCollateralAmount, values.newLeverage]).toEqual([USDC(200n), 3000]);
    expect(await usdcOf(me)).toBe(beforeDec + values.collateralSentToTrader);
    await setPrice(BTC, price);
  });

  it("a keeper liquidates past the liquidation price: LimitExecuted, order type 6, nothing sent", async () => {
    const t = await open({ pair: ETH, collateral: USDC(40n), leverage: 10_000, long: true });
    const liq = liqPrice(t.openPrice, true, USDC(40n), 10_000n);
    const packed = BigInt(GainsOrderType.LIQ_CLOSE) | (BigInt(me) << 8n) | (BigInt(t.index) << 168n);
    await setPrice(ETH, liq + 100n);
    await expect(keeper.write(diamond, gainsTradingAbi, "triggerOrder", [packed])).rejects.toThrow();
    await setPrice(ETH, liq - 100n);
    const price = await priceOf(ETH);
    const before = await usdcOf(me);
    const r = await receipt(await keeper.write(diamond, gainsTradingAbi, "triggerOrder", [packed]));
    const executed = one(r, "LimitExecuted");
    expect(dataWords(executed)).toBe(32);
    expect(executed.args).toMatchObject({
      user: me,
      index: t.index,
      limitIndex: t.index,
      triggerCaller: keeper.account.address,
      orderType: GainsOrderType.LIQ_CLOSE,
      liqPrice: liq,
      amountSentToTrader: 0n,
      oraclePrice: price,
      percentProfit: percentProfit(t.openPrice, price, true, 10_000n),
    });
    expect((executed.args.t as Trade).collateralAmount).toBe(USDC(40n));
    expect(await usdcOf(me)).toBe(before);
    expect((await view<Trade>("getTrade", [me, t.index])).isOpen).toBe(false);
    await setPrice(ETH, t.openPrice);
  });
});

describe("holding fees (borrowing v2)", () => {
  /** 1e10 percent per second: gTrade's highest borrowing rate (1,000% a year). */
  const RATE = 317_097n;
  const setRate = (rate: bigint) =>
    owner.write(diamond, parseAbi(["function devnetSetBorrowingRate(uint16 pairIndex, uint256 ratePerSecondP)"]), "devnetSetBorrowingRate", [ETH, rate]);
  const timestampOf = async (hash: Hex) => (await trader.publicClient.getBlock({ blockNumber: (await receipt(hash)).blockNumber })).timestamp;
  const at = (seconds: bigint) => rpc(rpcUrl, "evm_setNextBlockTimestamp", [Number(seconds)]);
  /** `positionSize × rate × seconds × price / openPrice / 1e10 / 100`: borrowing v2 at a constant rate and price. */
  const borrowing = (size: bigint, seconds: bigint, price: bigint, openPrice: bigint) => (size * RATE * seconds * price) / openPrice / 10n ** 12n;

  it("charge positionSize × rate × seconds × price / openPrice: in the view, the liquidation price and the close, to the base unit", async () => {
    const t = await open({ pair: ETH, collateral: USDC(100n), leverage: 5000, long: true });
    const size = USDC(500n);
    const from = await timestampOf(await setRate(RATE));
    try {
      // The view, an hour on, at the open price and at 10% above it (the accumulator grows with the price).
      await at(from + 3_600n);
      await rpc(rpcUrl, "evm_mine");
      const pending = (price: bigint) =>
        view<{ fundingFeeCollateral: bigint; borrowingFeeCollateral: bigint; totalFeeCollateral: bigint }>("getTradePendingHoldingFeesCollateral", [
          me,
          t.index,
          price,
        ]);
      const hour = borrowing(size, 3_600n, t.openPrice, t.openPrice);
      expect(hour).toBe(570_774n);
      expect(await pending(t.openPrice)).toMatchObject({ fundingFeeCollateral: 0n, borrowingFeeCollateral: hour, totalFeeCollateral: hour });
      expect((await pending((t.openPrice * 11n) / 10n)).borrowingFeeCollateral).toBe(borrowing(size, 3_600n, (t.openPrice * 11n) / 10n, t.openPrice));

      // The liquidation price counts them as fees: the loss it takes is 90% of the collateral less every fee.
      const liquidationPrice = await liquidationPriceOf(t, t.openPrice);
      const fees = fee(size) * 2n + hour;
      expect(liquidationPrice).toBe(t.openPrice - (t.openPrice * ((USDC(100n) * 90n) / 100n - fees) * 1000n) / USDC(100n) / 5000n);

      // A close two hours in, at the open price: the collateral less both fees and two hours of borrowing.
      await at(from + 7_199n);
      const r = await send("closeTradeMarket", [t.index, t.openPrice]);
      const pendingIndex = (one(r, "MarketOrderInitiated").args.orderId as { index: number }).index;
      await at(from + 7_200n);
      const executed = one(await fill(pendingIndex), "MarketExecuted");
      const twoHours = borrowing(size, 7_200n, t.openPrice, t.openPrice);
      expect(executed.args).toMatchObject({ open: false, percentProfit: 0n, amountSentToTrader: USDC(100n) - fee(size) * 2n - twoHours });
      expect(await pending(t.openPrice)).toMatchObject({ totalFeeCollateral: 0n });
    } finally {
      await setRate(0n);
    }
  });
});

describe("the twin's devnet-only setters break each preflight check, and the preflight names it", () => {
  const preflight = () => runGainsPreflight(trader.publicClient, diamond, c.usdc!);
  const failed = async () => (await preflight()).checks.filter((x) => x.verdict === "fail");
  const order = { pair: ETH, collateral: USDC(10n), leverage: 5000, long: true };

  it("passes every check on the deployed twin, reporting each pair's limits", async () => {
    const result = await preflight();
    expect(result.checks.filter((x) => x.verdict === "fail")).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.checks.find((x) => x.id === "facet:openTrade")?.says).toBe(
      `openTrade (0x5bfcc4f8), which the venue sends, is served by the facet ${diamond}`,
    );
    expect(result.checks.find((x) => x.id === "collateral-index")?.says).toBe(`USDC (${c.usdc}) is collateral index 1, the index the venue opens trades with`);
    expect(result.checks.find((x) => x.id === "trading-activated")?.says).toBe("trading is ACTIVATED (getTradingActivated() = 0)");
    expect(result.checks.find((x) => x.id === "pair:0")?.says).toBe(
      "BTC/USD (pair 0): leverage 1.1x to 150x, minimum fee $0.1000002, so at least 0.500001 USDC of collateral",
    );
    expect(result.checks.find((x) => x.id === "pair:1")?.says).toMatch(/^ETH\/USD \(pair 1\): leverage 1.1x to 150x/);
  });

  it("a removed facet: the loupe answers zero for it, and the preflight fails that check alone", async () => {
    const selector = toFunctionSelector("closeTradeMarket(uint32,uint64)");
    await admin("devnetSetFacet", [selector, false]);
    try {
      expect(await view("facetAddress", [selector])).toBe("0x0000000000000000000000000000000000000000");
      expect(await failed()).toEqual([
        {
          id: "facet:closeTradeMarket",
          verdict: "fail",
          says: "closeTradeMarket (0x36ce736b), which the venue sends, has no facet on the diamond: facetAddress answers the zero address",
        },
      ]);
    } finally {
      await admin("devnetSetFacet", [selector, true]);
    }
    expect(await view("facetAddress", [selector])).toBe(diamond);
  });

  it("CLOSE_ONLY and PAUSED refuse opens (Paused) and fail the trading check by name", async () => {
    for (const [state, name] of [
      [1, "CLOSE_ONLY"],
      [2, "PAUSED"],
    ] as const) {
      const r = await receipt(await owner.write(diamond, devnetAdminAbi, "devnetSetTradingActivated", [state]));
      expect(one(r, "TradingActivatedUpdated").args.activated).toBe(state);
      try {
        expect(await view("getTradingActivated")).toBe(state);
        await expect(requestOpen(order)).rejects.toThrow(/Paused/);
        expect(await failed()).toEqual([
          {
            id: "trading-activated",
            verdict: "fail",
            says: `trading is ${name} (getTradingActivated() = ${state}), not ACTIVATED: the diamond refuses new orders`,
          },
        ]);
      } finally {
        await admin("devnetSetTradingActivated", [0]);
      }
    }
    expect((await preflight()).ok).toBe(true);
  });

  it("USDC moved to another collateral index: opens at index 1 are refused, and the index check fails", async () => {
    await admin("devnetSetCollateralIndex", [2]);
    try {
      expect(await view("getCollateralIndex", [c.usdc])).toBe(2);
      expect(await view("getCollateral", [2])).toMatchObject({ collateral: c.usdc, isActive: true });
      await expect(requestOpen(order)).rejects.toThrow(/CollateralNotActive/);
      const ids = (await failed()).map((x) => [x.id, x.says]);
      expect(ids).toEqual([
        ["collateral-index", `USDC (${c.usdc}) is collateral index 2 on the diamond, not 1, the index the venue opens trades with`],
        ["collateral-active", `collateral 1 on the diamond is 0x0000000000000000000000000000000000000000, not USDC (${c.usdc})`],
      ]);
    } finally {
      await admin("devnetSetCollateralIndex", [1]);
    }
    expect((await preflight()).ok).toBe(true);
  });

  it("only the owner may use them; an unreachable diamond is a failed check with its reason, never a throw", async () => {
    await expect(trader.write(diamond, devnetAdminAbi, "devnetSetTradingActivated", [2])).rejects.toThrow();
    const nowhere = await runGainsPreflight(trader.publicClient, c.usdc!, c.usdc!);
    expect(nowhere.ok).toBe(false);
    expect(nowhere.checks.every((x) => x.verdict === "fail")).toBe(true);
    expect(nowhere.checks.find((x) => x.id === "trading-activated")?.says).toMatch(
      /^getTradingActivated\(\) on the diamond 0x[0-9a-fA-F]{40} could not be read: /,
    );
  });
});
