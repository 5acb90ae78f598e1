/**
 * The desks' money path on gTrade v10: an engine configured with PERPS_VENUE=gains-v10 on a private
 * devnet, trading on the devnet's twin of the diamond, whose oracle leg the test plays as the devnet
 * keeper (anvil account 9: `executePendingOrder`, `triggerOrder` for a liquidation). A desk opens at
 * the minimum, grows by a second trade and by a two-step margin top-up, takes a profit (marked with
 * gTrade's fees and a day of holding fees, as the fills then charge them) that queues a
 * creator buyback, is halted past its drawdown limit (and reduced by a partial close), is liquidated;
 * an open filled outside its slippage bound is cancelled (its collateral back, less gTrade's fee), and
 * an open never filled is cancelled after gTrade's timeout by the engine itself. After every step the
 * ledger and the chain agree to the base unit (the three-way audit, and each trade's USDC against the
 * diamond's events), and no order, fill or cancel is sent or applied twice.
 */
import { type Address, type Log, getAddress, parseAbi, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GainsOrderType, gainsEventsAbi, gainsTradingAbi, gainsViewsAbi } from "../../common/abis/gains.js";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { registryAbi } from "../../common/abis/registry.js";
import { auditThreeWay } from "../../core/audit.js";
import { VIEWS_SCHEMA } from "../../common/constants.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { startTestPonder } from "../helpers/env.js";
import { peekPerpUsdc } from "../../core/ledger/accumulators.js";
import { Legs } from "../../core/ledger/legs.js";
import { legBalancesByToken } from "../../core/ledger/reads.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { setTokenMandate } from "../../core/token-mandate.js";
import { type DeskTrade, tradeById, tradesOf } from "../../engine/desks/trades.js";
import { GAINS_MIN_POSITION_SIZE_USD, GAINS_TIMEOUT_BLOCKS, GAINS_TOTAL_POSITION_SIZE_FEE_P } from "../../devnet/gains.js";
import { gainsV10 } from "../../engine/perps/gains-v10.js";
import { createEnginePort } from "../../api/engine-port.js";
import { deskLiquidationPrice, unrealisedPnl } from "../../api/read/desks.js";
import { KEEPER } from "./devnet.js";
import { rpc } from "./helpers.js";
import { type Scenario, startScenario } from "./scenario.js";

const USDC = 1_000_000n;
const TRADER = 5;
/** gTrade's ETH/USD (Avantis numbers it 0). */
const ETH = 1;
const keeperAbi = parseAbi(["function executePendingOrder(address trader, uint32 index)"]);
/** Not the operator: it holds the twin's devnet-only setters (a borrowing rate here). */
const ADMIN = 2;
const adminAbi = parseAbi(["function transferOwnership(address newOwner)", "function devnetSetBorrowingRate(uint16 pairIndex, uint256 ratePerSecondP)"]);
/** gTrade's borrowing rate (1e10 percent per second): 100% a year. */
const BORROWING_RATE = 31_709n;

let sc: Scenario;
let d: Scenario["d"];
let operator: Address;
let token: Address;
let diamond: Address;
let basePrice: bigint;

const run = (name: Parameters<Scenario["run"]>[0]) => sc.run(name);
const db = () => sc.engine.ctx.db;

type Pending = { index: number; orderType: number; createdBlock: number; trade: { index: number; pairIndex: number } };
const pendingOrders = () => d.as(1).read<Pending[]>(diamond, gainsViewsAbi, "getPendingOrders", [operator]);
const onchainTrade = (index: number) =>
  d.as(1).read<{ isOpen: boolean; collateralAmount: bigint; leverage: number; pairIndex: number }>(diamond, gainsViewsAbi, "getTrade", [operator, index]);

/** The devnet keeper answers every pending order of the operator at the feed's price; the fills' receipts. */
async function fillAll(): Promise<Log[]> {
  const logs: Log[] = [];
  for (const o of await pendingOrders()) {
    const hash = await d.as(KEEPER).write(diamond, keeperAbi, "executePendingOrder", [operator, o.index]);
    logs.push(...((await d.as(1).publicClient.getTransactionReceipt({ hash })).logs as Log[]));
  }
  return logs;
}

const setEth = (answer: bigint) => d.setPrice("ETH_USD", answer);
/** ETH at `percent` of the price the suite started with. */
const ethAt = (percent: bigint) => setEth((basePrice * percent) / 100n);

/** The three-way audit of this engine; with `indexSchema`, against the index too. */
const audit = (indexSchema?: string) =>
  auditThreeWay({
    db: db(),
    pool: sc.engine.ctx.pool,
    publicClient: sc.engine.ctx.publicClient,
    operator,
    usdc: d.c.usdc!,
    weth: d.c.weth!,
    protocolToken: d.protocolToken,
    indexSchema,
  });

/** The ledger and the chain agree to the base unit: nothing in flight, no audit difference, every invariant. */
async function expectLedgerEqualsChain(): Promise<void> {
  const report = await audit();
  expect(report.inFlight).toEqual([]);
  expect(report.checks).toContain("operator holdings: chain vs ledger legs");
  expect(report.differences).toEqual([]);
  expect(await checkLedgerInvariants(db())).toEqual({ ok: true, violations: [] });
}

/** Every intent the engine sent to the diamond, by key: each key once, each a distinct transaction. */
async function diamondIntents(): Promise<{ key: string; status: string; tx_hash: string | null }[]> {
  const { rows } = await sc.engine.ctx.pool.query<{ key: string; status: string; tx_hash: string | null }>(
    'SELECT key, status, tx_hash FROM engine.tx_intents WHERE lower("to") = $1 ORDER BY id',
    [diamond.toLowerCase()],
  );
  return rows;
}

/** The operator's orders on the diamond (MarketOrderInitiated, PositionSizeUpdateInitiated, LeverageUpdateInitiated), from the chain. */
async function ordersOnchain(): Promise<number> {
  const logs = await d.as(1).publicClient.getLogs({ address: diamond, fromBlock: 0n, toBlock: "latest" });
  return parseEventLogs({
    abi: gainsEventsAbi,
    eventName: ["MarketOrderInitiated", "PositionSizeUpdateInitiated", "LeverageUpdateInitiated"],
    logs: logs as Log[],
  }).filter((l) => getAddress(l.args.trader) === operator).length;
}

async function ledgerSum(where: string, params: unknown[] = []): Promise<bigint> {
  return sc.sumRows(where, params);
}

/** The token's creator-buyback queue: USDC waiting to buy the token back. */
async function creatorBuybackUsdc(): Promise<bigint> {
  return (await legBalancesByToken(db(), Legs.creatorBuyback)).get(token) ?? 0n;
}

async function liveTrades(): Promise<DeskTrade[]> {
  return tradesOf(db(), token, ["opening", "open", "closing"]);
}

/** Fresh fees for the token's perp leg (the hook collects them in the next swap, as on Base), claimed and split. */
async function freshPerpUsdc(usdcIn: bigint): Promise<void> {
  await d.buy(TRADER, token, usdcIn);
  await d.buy(TRADER, token, 1n * USDC);
  await run("fee-claimer");
}

beforeAll(async () => {
  sc = await startScenario({
    env: { PERPS_VENUE: "gains-v10" },
    // The deployer (the operator) hands the twin's devnet-only setters to another account before the engine runs.
    beforeEngine: (devnet) => devnet.as(0).write(getAddress(devnet.c.gainsDiamond!), adminAbi, "transferOwnership", [devnet.as(ADMIN).account.address]),
  });
  d = sc.d;
  operator = sc.operator;
  token = sc.usdcToken;
  diamond = getAddress(d.c.gainsDiamond!);
  basePrice = await d.price("ETH_USD");
  await d.buy(TRADER, token, 6_000n * USDC);
  await d.sell(TRADER, token, (await d.balance(token, d.as(TRADER).account.address)) / 3n);
  for (let i = 0; i < 6; i++) await run("price-sampler");
  await run("fee-claimer");
}, 300_000);

afterAll(async () => {
  await sc?.stop();
});

describe("desks on gTrade v10 (PERPS_VENUE=gains-v10, the devnet's twin of the diamond)", () => {
  it("opens a desk at the minimum on gTrade's ETH/USD (pair 1), the keeper fills it, ledger and chain agree", async () => {
    expect(sc.engine.ctx.config.perpsVenue).toBe("gains-v10");
    const perp = await peekPerpUsdc(db(), token, Infinity);
    expect(perp).toBeGreaterThan(40n * USDC);
    // 20 USDC at the mandate's 5x: 100 USDC, exactly PERPS_MIN_NOTIONAL_USDC; gTrade's own minimum (5 × its
    // minimum fee, 0.50 USDC) holds too.
    await setTokenMandate(db(), token, { deskPairIndex: ETH, maxDeskUsdc: 20n * USDC });
    const manager = await run("desk-manager");
    expect(manager.actions).toContainEqual(expect.objectContaining({ token, action: "open" }));
    const [opening] = await liveTrades();
    expect(opening).toMatchObject({ status: "opening", pairIndex: ETH, basisUsdc: 20n * USDC, leverage: 5n * PERPS_PRECISION, side: "long" });
    expect((opening!.basisUsdc * opening!.leverage) / PERPS_PRECISION).toBe(100n * USDC);
    expect(await peekPerpUsdc(db(), token, Infinity)).toBe(perp - 20n * USDC);
    // Pending until the oracle's transaction: the order is on the diamond, no trade yet.
    const pending = await pendingOrders();
    expect(pending.map((o) => [BigInt(o.index), o.orderType, o.trade.pairIndex])).toEqual([[opening!.orderId, GainsOrderType.MARKET_OPEN, ETH]]);
    await run("profit-checker");
    expect((await tradeById(db(), opening!.id)).status).toBe("opening");

    const fills = await fillAll();
    const [executed] = parseEventLogs({ abi: gainsEventsAbi, eventName: "MarketExecuted", logs: fills });
    await run("profit-checker");
    const open = await tradeById(db(), opening!.id);
    expect(open).toMatchObject({ status: "open", tradeIndex: executed!.args.t.index, collateral: 20n * USDC, openPrice: basePrice * 100n });
    expect(await onchainTrade(open.tradeIndex!)).toMatchObject({ isOpen: true, collateralAmount: 20n * USDC, leverage: 5_000, pairIndex: ETH });
    // desk-risk's liquidation price is the diamond's (fees included), the one its fill reported.
    const [mark] = await gainsV10.markTrades(
      sc.engine.ctx,
      [{ pairIndex: ETH, index: open.tradeIndex!, side: "long", leverage: open.leverage, collateral: open.collateral!, openPrice: open.openPrice! }],
      basePrice * 100n,
    );
    expect(mark!.liquidationPrice).toBe(executed!.args.liqPrice);
    expect(mark!.value).toBe(20n * USDC - 2n * 100_000n); // at the open price: both fees on the minimum position size
    await expectLedgerEqualsChain();
  });

  it("grows the desk by a second trade, then by a two-step margin top-up applied at its fill", async () => {
    const [first] = await liveTrades();
    await setTokenMandate(db(), token, { deskPairIndex: ETH, maxDeskUsdc: 40n * USDC });
    const grow = await run("desk-manager");
    expect(grow.actions).toContainEqual(expect.objectContaining({ token, action: "open" }));
    await fillAll();
    await run("profit-checker");
    const trades = await liveTrades();
    expect(trades.map((t) => [t.status, t.basisUsdc])).toEqual([
      ["open", 20n * USDC],
      ["open", 20n * USDC],
    ]);

    // 3 USDC more: 15 USDC of notional, below a new trade's minimum: a margin top-up (gTrade: a lower leverage).
    await setTokenMandate(db(), token, { deskPairIndex: ETH, maxDeskUsdc: 43n * USDC });
    const perp = await peekPerpUsdc(db(), token, Infinity);
    const topUp = await run("desk-manager");
    expect(topUp.actions).toContainEqual(expect.objectContaining({ token, action: "top-up" }));
    const target = (await liveTrades()).find((t) => t.pendingTopup !== null)!;
    expect(target.pendingTopup).toBe(3n * USDC);
    expect(await peekPerpUsdc(db(), token, Infinity)).toBe(perp - 3n * USDC);
    // The order is pending: every desk worker leaves the top-up pending, and sends it once.
    const pending = await pendingOrders();
    expect(pending.map((o) => o.orderType)).toEqual([GainsOrderType.UPDATE_LEVERAGE]);
    await run("profit-checker");
    await run("desk-risk");
    expect(await pendingOrders()).toHaveLength(1);
    expect((await tradeById(db(), target.id)).pendingTopup).toBe(3n * USDC);

    await fillAll();
    await run("profit-checker");
    const grown = await tradeById(db(), target.id);
    const chain = await onchainTrade(grown.tradeIndex!);
    const pulled = chain.collateralAmount - 20n * USDC;
    expect(grown).toMatchObject({ pendingTopup: null, topups: 1, basisUsdc: 20n * USDC + pulled, collateral: chain.collateralAmount });
    expect(chain.collateralAmount).toBeLessThanOrEqual(23n * USDC);
    expect(chain.collateralAmount).toBeGreaterThan(22n * USDC);
    expect(grown.leverage).toBe(BigInt(chain.leverage) * 10_000_000n);
    expect(grown.leverage).toBeLessThan(first!.leverage);
    // What the top-up did not pull (gTrade rounds the leverage) is the perp leg's again, as it never left the wallet.
    expect(await peekPerpUsdc(db(), token, Infinity)).toBe(perp - pulled);
    await expectLedgerEqualsChain();
  });

  it("takes a profit marked with gTrade's fees and holding fees, and queues it as a creator buyback", async () => {
    const before = await liveTrades();
    const buybackBefore = await creatorBuybackUsdc();
    // A day of borrowing on ETH/USD, then the chain's clock held still: the marks and the fills count the same fees.
    const admin = (rate: bigint) => d.as(ADMIN).write(diamond, adminAbi, "devnetSetBorrowingRate", [ETH, rate]);
    await admin(BORROWING_RATE);
    const now = (await d.as(1).publicClient.getBlock()).timestamp;
    await rpc(d.rpcUrl, "evm_setNextBlockTimestamp", [Number(now + 86_400n)]);
    await rpc(d.rpcUrl, "evm_mine");
    await rpc(d.rpcUrl, "anvil_setBlockTimestampInterval", [0]);
    try {
      await takeProfit(before, buybackBefore);
    } finally {
      await rpc(d.rpcUrl, "anvil_removeBlockTimestampInterval");
      await admin(0n);
    }
  });

  async function takeProfit(before: DeskTrade[], buybackBefore: bigint) {
    await ethAt(105n); // +5% at up to 5x: above the 10% take-profit, fees included
    const holding = await Promise.all(
      before.map(
        async (t) =>
          (
            await d
              .as(1)
              .read<{ totalFeeCollateral: bigint }>(diamond, gainsViewsAbi, "getTradePendingHoldingFeesCollateral", [operator, t.tradeIndex!, basePrice * 105n])
          ).totalFeeCollateral,
      ),
    );
    expect(holding.every((h) => h > 0n)).toBe(true);
    // The venue's mark (profit-checker's and desk-risk's) is what the diamond then pays, to the base unit.
    const marks = await gainsV10.markTrades(
      sc.engine.ctx,
      before.map((t) => ({
        pairIndex: t.pairIndex,
        index: t.tradeIndex!,
        side: t.side,
        leverage: t.leverage,
        collateral: t.collateral!,
        openPrice: t.openPrice!,
      })),
      basePrice * 105n,
    );
    const check = await run("profit-checker");
    expect((check.closes as unknown[]).length).toBe(before.length);
    // The API's desk figures start from the same marks: the venue's charges and liquidation price, as profit-checker
    // recorded them beside each trade, give its value to the base unit at the price of the mark.
    const bindings = await createEnginePort(sc.engine.ctx.pool).deskBindings([token]);
    for (const [i, t] of before.entries()) {
      const mark = marks[i]!;
      const venueMark = bindings.find((b) => b.openOrderId === t.orderId)?.venueMark;
      expect(venueMark).toMatchObject({ price: basePrice * 105n, charges: mark.charges, liquidationPrice: mark.liquidationPrice });
      expect(mark.charges).toBeGreaterThan(holding[i]!);
      const row = { collateral: t.collateral!, leverage: t.leverage, openPrice: t.openPrice!, buy: t.side === "long" };
      expect(unrealisedPnl(row, basePrice * 105n, "gains-v10", venueMark!.charges)).toBe(mark.value - t.collateral!);
      expect(deskLiquidationPrice(row, "gains-v10", venueMark!)).toBe(mark.liquidationPrice);
      expect(mark.liquidationPrice).not.toBe(deskLiquidationPrice(row, "gains-v10"));
    }
    const fills = await fillAll();
    await run("profit-checker");
    const executed = parseEventLogs({ abi: gainsEventsAbi, eventName: "MarketExecuted", logs: fills });
    expect(executed.map((e) => e.args.open)).toEqual(before.map(() => false));
    let profit = 0n;
    for (const t of before) {
      const closed = await tradeById(db(), t.id);
      const event = executed.find((e) => e.args.t.index === t.tradeIndex)!;
      // The USDC the diamond sent is what the engine booked for the trade, to the base unit.
      expect(closed).toMatchObject({ status: "closed", usdcReturned: event.args.amountSentToTrader });
      // Fees included: the closing fee and the opening fee realized at the open, each 0.06% of the position but
      // at least of gTrade's minimum position size ($166.667, above these trades' 100 USDC): 0.10 USDC each.
      const size = (t.collateral! * t.leverage) / PERPS_PRECISION;
      expect(size).toBeLessThan(GAINS_MIN_POSITION_SIZE_USD / 10n ** 12n);
      const minFee = ((GAINS_MIN_POSITION_SIZE_USD / 10n ** 12n) * GAINS_TOTAL_POSITION_SIZE_FEE_P) / PERPS_PRECISION / 100n;
      expect(minFee).toBe(100_000n);
      const pnl = (t.collateral! * event.args.percentProfit) / (100n * PERPS_PRECISION);
      expect(event.args.amountSentToTrader).toBe(t.collateral! + pnl - 2n * minFee - holding[before.indexOf(t)]!);
      expect(marks[before.indexOf(t)]!.value).toBe(event.args.amountSentToTrader);
      profit += event.args.amountSentToTrader - t.basisUsdc;
    }
    expect(profit).toBeGreaterThan(0n);
    expect(await ledgerSum("kind = 'desk-profit' AND leg = 'creator-buyback' AND token = $1", [token])).toBe(profit);
    expect((await creatorBuybackUsdc()) - buybackBefore).toBe(profit);
    await ethAt(100n);
    await expectLedgerEqualsChain();
  }

  it("halts a desk past its drawdown limit, reduces it by a partial close (decreasePositionSize), mirrored in the registry", async () => {
    await freshPerpUsdc(6_000n * USDC);
    await setTokenMandate(db(), token, { deskPairIndex: ETH, maxDeskUsdc: null });
    const perp = await peekPerpUsdc(db(), token, Infinity);
    expect(perp).toBeGreaterThan(40n * USDC); // half of it at 5x still reaches the 100 USDC minimum
    await run("desk-manager");
    await fillAll();
    await run("profit-checker");
    const [trade] = await liveTrades();
    expect(trade).toMatchObject({ status: "open", basisUsdc: perp });

    await ethAt(88n); // −12% at 5x: −60% of the collateral, past the 50% drawdown limit
    const risk = await run("desk-risk");
    expect((risk.decisions as { token: string; action: string; reason: string }[]).find((x) => x.token === token)).toMatchObject({
      action: "halt",
      reason: expect.stringMatching(/drawdown/),
    });
    const enrollment = await d.as(1).read<readonly unknown[]>(d.c.registry!, registryAbi, "enrollment", [token]);
    expect(enrollment[7]).toBe(true);
    const reducing = await tradeById(db(), trade!.id);
    expect(reducing).toMatchObject({ status: "closing", closeAmount: perp / 2n });
    expect((await pendingOrders()).map((o) => o.orderType)).toEqual([GainsOrderType.MARKET_PARTIAL_CLOSE]);
    const fills = await fillAll();
    const [decrease] = parseEventLogs({ abi: gainsEventsAbi, eventName: "PositionSizeDecreaseExecuted", logs: fills });
    expect(decrease!.args.cancelReason).toBe(0);
    await run("profit-checker");
    const reduced = await tradeById(db(), trade!.id);
    const chain = await onchainTrade(reduced.tradeIndex!);
    expect(reduced).toMatchObject({ status: "open", collateral: chain.collateralAmount, usdcReturned: decrease!.args.values.collateralSentToTrader });
    expect(reduced.realisedPnl).toBeLessThan(0n);
    // A halted desk is skipped.
    expect((await run("desk-manager")).actions).toContainEqual(expect.objectContaining({ token, action: "skip" }));
    await expectLedgerEqualsChain();
  });

  it("books a keeper's liquidation (triggerOrder, LimitExecuted order type 6), then unhalts the empty desk", async () => {
    const [trade] = await liveTrades();
    // Where the diamond liquidates the trade, as desk-risk reads it (getTradeLiquidationPrice), and a price past it.
    const [mark] = await gainsV10.markTrades(
      sc.engine.ctx,
      [{ pairIndex: ETH, index: trade!.tradeIndex!, side: "long", leverage: trade!.leverage, collateral: trade!.collateral!, openPrice: trade!.openPrice! }],
      basePrice * 88n,
    );
    expect(mark!.liquidationPrice).toBeGreaterThan(0n);
    await setEth(mark!.liquidationPrice / 100n - 1n);
    const packed = BigInt(GainsOrderType.LIQ_CLOSE) | (BigInt(operator) << 8n) | (BigInt(trade!.tradeIndex!) << 168n);
    await d.as(KEEPER).write(diamond, gainsTradingAbi, "triggerOrder", [packed]);
    await run("profit-checker");
    const liquidated = await tradeById(db(), trade!.id);
    expect(liquidated).toMatchObject({ status: "liquidated", usdcReturned: trade!.usdcReturned });
    expect(liquidated.realisedPnl).toBe(trade!.realisedPnl - trade!.basisUsdc);
    await ethAt(100n);
    const after = await run("desk-risk");
    expect((after.decisions as { token: string; action: string }[]).find((x) => x.token === token)?.action).toBe("unhalt");
    await expectLedgerEqualsChain();
  });

  it("an open filled outside its slippage bound is cancelled: what gTrade returns goes back to the perp leg, its fee is the loss", async () => {
    await freshPerpUsdc(6_000n * USDC);
    await setTokenMandate(db(), token, { deskPairIndex: ETH, maxDeskUsdc: 20n * USDC });
    await run("desk-manager");
    const [opening] = await liveTrades();
    expect(opening).toMatchObject({ status: "opening", basisUsdc: 20n * USDC });
    const perp = await peekPerpUsdc(db(), token, Infinity);
    await ethAt(102n); // past the 1% slippage the venue sends
    const fills = await fillAll();
    await ethAt(100n);
    const [canceled] = parseEventLogs({ abi: gainsEventsAbi, eventName: "MarketOpenCanceled", logs: fills });
    expect(canceled!.args.cancelReason).toBe(3); // SLIPPAGE
    const returned = canceled!.args.collateralReturned;
    expect(returned).toBeLessThan(20n * USDC);
    await run("profit-checker");
    await run("desk-risk");
    expect(await tradeById(db(), opening!.id)).toMatchObject({ status: "canceled", usdcReturned: 0n, realisedPnl: returned - 20n * USDC });
    expect(await peekPerpUsdc(db(), token, Infinity)).toBe(perp + returned);
    await expectLedgerEqualsChain();
  });

  it("an open never filled is cancelled after gTrade's timeout, once, by the engine; its collateral back to the perp leg", async () => {
    await run("desk-manager");
    const [opening] = await liveTrades();
    expect(opening).toMatchObject({ status: "opening", basisUsdc: 20n * USDC });
    const perp = await peekPerpUsdc(db(), token, Infinity);
    // The oracle never answers: before the timeout the order stays pending and nothing is cancelled.
    await run("profit-checker");
    expect(await pendingOrders()).toHaveLength(1);
    expect((await diamondIntents()).filter((i) => i.key.includes(":timeout:"))).toEqual([]);
    await d.rpc("anvil_mine", [`0x${GAINS_TIMEOUT_BLOCKS.toString(16)}`]);
    const intentsBefore = (await diamondIntents()).length;
    await run("profit-checker");
    expect(await pendingOrders()).toEqual([]);
    const cancels = (await diamondIntents()).filter((i) => i.key.includes(":timeout:"));
    expect(cancels).toEqual([{ key: `desk-trade:${opening!.id}:timeout:${opening!.orderId}`, status: "mined", tx_hash: expect.any(String) }]);
    const receipt = await d.as(1).publicClient.getTransactionReceipt({ hash: cancels[0]!.tx_hash as `0x${string}` });
    const [back] = parseEventLogs({ abi: gainsEventsAbi, eventName: "CollateralReturnedAfterTimeout", logs: receipt.logs as Log[] });
    expect(back!.args.collateralAmount).toBe(20n * USDC);
    expect(await tradeById(db(), opening!.id)).toMatchObject({ status: "canceled", usdcReturned: 0n, realisedPnl: 0n });
    expect(await peekPerpUsdc(db(), token, Infinity)).toBe(perp + 20n * USDC);
    // Run again: nothing more is sent, the refund stands once.
    await run("desk-risk");
    await run("profit-checker");
    expect((await diamondIntents()).length).toBe(intentsBefore + 1);
    expect(await ledgerSum("key LIKE $1", [`refund:spend:desk-trade:${opening!.id}%`])).toBe(20n * USDC);
    await expectLedgerEqualsChain();
  });

  it("a close and a margin top-up left unfilled are cancelled after the timeout: the trade stays open, the top-up's USDC back to the perp leg", async () => {
    await run("desk-manager");
    await fillAll();
    await run("profit-checker");
    const [trade] = await liveTrades();
    expect(trade).toMatchObject({ status: "open", basisUsdc: 20n * USDC });

    // A take-profit close the oracle never answers.
    await ethAt(105n);
    await run("profit-checker");
    const closing = await tradeById(db(), trade!.id);
    expect(closing).toMatchObject({ status: "closing" });
    await ethAt(100n);
    await d.rpc("anvil_mine", [`0x${GAINS_TIMEOUT_BLOCKS.toString(16)}`]);
    await run("desk-risk");
    expect(await pendingOrders()).toEqual([]);
    expect(await tradeById(db(), trade!.id)).toMatchObject({ status: "open", closeOrderId: null, closeAmount: null, collateral: 20n * USDC });
    const closeCancel = (await diamondIntents()).filter((i) => i.key === `desk-trade:${trade!.id}:timeout:${closing.closeOrderId}`);
    expect(closeCancel).toHaveLength(1);

    // A margin top-up the oracle never answers.
    await setTokenMandate(db(), token, { deskPairIndex: ETH, maxDeskUsdc: 23n * USDC });
    const perp = await peekPerpUsdc(db(), token, Infinity);
    expect((await run("desk-manager")).actions).toContainEqual(expect.objectContaining({ token, action: "top-up" }));
    expect((await pendingOrders()).map((o) => o.orderType)).toEqual([GainsOrderType.UPDATE_LEVERAGE]);
    await d.rpc("anvil_mine", [`0x${GAINS_TIMEOUT_BLOCKS.toString(16)}`]);
    await run("profit-checker");
    expect(await pendingOrders()).toEqual([]);
    expect(await tradeById(db(), trade!.id)).toMatchObject({ status: "open", pendingTopup: null, topups: 1, basisUsdc: 20n * USDC, collateral: 20n * USDC });
    expect(await onchainTrade(trade!.tradeIndex!)).toMatchObject({ collateralAmount: 20n * USDC, leverage: 5_000 });
    expect(await peekPerpUsdc(db(), token, Infinity)).toBe(perp);
    await expectLedgerEqualsChain();

    // Closed at last, filled this time.
    await setTokenMandate(db(), token, { deskPairIndex: ETH, maxDeskUsdc: 20n * USDC });
    await ethAt(105n);
    await run("profit-checker");
    await fillAll();
    await run("profit-checker");
    await ethAt(100n);
    expect((await tradeById(db(), trade!.id)).status).toBe("closed");
    await expectLedgerEqualsChain();
  });

  it("sent nothing twice: one order on the diamond per desk intent, one intent per key", async () => {
    const intents = await diamondIntents();
    expect(new Set(intents.map((i) => i.key)).size).toBe(intents.length);
    expect(new Set(intents.map((i) => i.tx_hash)).size).toBe(intents.length);
    expect(intents.every((i) => i.status === "mined")).toBe(true);
    const cancels = intents.filter((i) => i.key.includes(":timeout:")).length;
    expect(await ordersOnchain()).toBe(intents.length - cancels);
    const { rows } = await sc.engine.ctx.pool.query("SELECT count(*)::int AS n FROM engine.perps_events GROUP BY tx_hash, log_index HAVING count(*) > 1");
    expect(rows).toEqual([]);
    await expectLedgerEqualsChain();
  });

  it("the index of the same chain agrees: ledger, index and chain, to the base unit", async () => {
    // The indexer over this devnet, into the engine's database (its views schema), as npm start runs it.
    const ponder = await startTestPonder(d.databaseUrl, d.env());
    try {
      await waitForIndexed(ponder, await d.as(1).publicClient.getBlockNumber({ cacheTime: 0 }), 180_000);
      const report = await audit(VIEWS_SCHEMA);
      expect(report.checks).toContain("desk USDC returned: engine vs indexed trades");
      expect(report.inFlight).toEqual([]);
      expect(report.differences).toEqual([]);
      // Trade by trade: what each desk trade got back, in the engine and in the index.
      const engineTrades = await sc.engine.ctx.pool.query<{ order_id: string; usdc_returned: string; status: string }>(
        "SELECT order_id::text, usdc_returned::text, status FROM engine.desk_trades WHERE order_id IS NOT NULL ORDER BY order_id",
      );
      const indexed = await sc.engine.ctx.pool.query<{ open_order_id: string; usdc_returned: string }>(
        `SELECT open_order_id::text, usdc_returned::text FROM "${VIEWS_SCHEMA}".desk_trade ORDER BY open_order_id`,
      );
      const returned = new Map(indexed.rows.map((r) => [r.open_order_id, r.usdc_returned]));
      for (const t of engineTrades.rows.filter((r) => ["open", "closed", "liquidated"].includes(r.status)))
        expect({ order: t.order_id, returned: returned.get(t.order_id) }).toEqual({ order: t.order_id, returned: t.usdc_returned });
    } finally {
      await ponder.stop();
    }
  }, 240_000);
});
