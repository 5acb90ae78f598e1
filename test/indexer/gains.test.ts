/**
 * The indexer's desks on gTrade v10: the operator's orders sent straight to the devnet's twin of
 * the diamond and filled by its keeper (open, increase, an increase refused for slippage, the
 * leverage update that adds margin, decrease, a close refused for slippage, close; an open cancelled for slippage; an open
 * reclaimed after the timeout; a keeper liquidation), and another trader's trade beside them.
 * Every indexed amount (collateral, USDC returned, realised PnL) is compared with the chain to the
 * base unit: the diamond's events, its `getTrade` after each fill, and the operator's balance.
 * The file's chain changes are reverted after it.
 */
import { type Address, type Hex, type TransactionReceipt, erc20Abi, maxUint256, parseAbi, parseEventLogs } from "viem";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GainsCancelReason, GainsOrderType, gainsErrorsAbi, gainsEventsAbi, gainsTradingAbi, gainsViewsAbi } from "../../common/abis/gains.js";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { rpc } from "../../devnet/anvil.js";
import { GAINS_TIMEOUT_BLOCKS } from "../../devnet/gains.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { DEVNET_ACCOUNTS, devnetPrivateKey } from "../../devnet/protocol.js";
import { createDevnetContext } from "../../devnet/context.js";
import { type GainsTrade, gainsMarketOpenTrade } from "../../common/abis/gains.js";
import { createDatabase, devnetAs, startTestPonder, testEnv } from "../helpers/env.js";
import { activitySchemaProblems } from "../helpers/activity-facts.js";

const USDC = (n: bigint) => n * 1_000_000n;
const BTC = 0;
const ETH = 1;
/** The tables' leverage (1e10) of a gTrade leverage (1e3). */
const lev = (l: number) => BigInt(l) * (PERPS_PRECISION / 1_000n);
const lc = (a: string) => a.toLowerCase();

type Log = { eventName: string; args: Record<string, unknown> };
type Step = { tx: Hex; collateral: bigint };

describe("indexer: the operator's desks on gTrade v10", () => {
  const env = testEnv();
  const c = env.deployments.contracts as Record<string, Address>;
  const feeds = env.deployments.contracts.priceFeeds!;
  const diamond = c.gainsDiamond!;
  const operator = devnetAs(0);
  const stranger = devnetAs(2);
  const keeper = createDevnetContext(env.rpcUrl, env.deployments.chainId, devnetPrivateKey(DEVNET_ACCOUNTS.keeper));
  const me = operator.account.address;
  const abi = [...gainsTradingAbi, ...gainsErrorsAbi];
  const keeperAbi = parseAbi(["function executePendingOrder(address trader, uint32 index)"]);
  const feedAbi = parseAbi(["function setAnswer(int256 answer)", "function latestAnswer() view returns (int256)"]);
  let ponder: Awaited<ReturnType<typeof startTestPonder>>;
  let db: pg.Pool;
  let snapshot: string;
  const q = async <T = Record<string, unknown>>(text: string, values: unknown[] = []) => (await db.query(text, values)).rows as T[];

  const receipt = (hash: Hex) => operator.publicClient.getTransactionReceipt({ hash });
  const logs = (r: TransactionReceipt) =>
    parseEventLogs({ abi: gainsEventsAbi, logs: r.logs.filter((l) => lc(l.address) === lc(diamond)) }) as unknown as Log[];
  const one = (r: TransactionReceipt, name: string) => {
    const found = logs(r).filter((l) => l.eventName === name);
    expect(found, `${name} in ${r.transactionHash}`).toHaveLength(1);
    return found[0]!.args;
  };
  const feedOf = (pair: number) => feeds[pair === BTC ? "BTC_USD" : "ETH_USD"]!;
  const priceOf = async (pair: number) => (await keeper.read<bigint>(feedOf(pair), feedAbi, "latestAnswer")) * 100n;
  const setPrice = (pair: number, price: bigint) => keeper.write(feedOf(pair), feedAbi, "setAnswer", [price / 100n]);
  const usdcOf = (who: Address) => operator.read<bigint>(c.usdc!, erc20Abi, "balanceOf", [who]);
  const tradeOf = (index: number) => operator.read<GainsTrade>(diamond, gainsViewsAbi, "getTrade", [me, index]);
  const send = async (ctx: typeof operator, functionName: string, args: readonly unknown[]) => receipt(await ctx.write(diamond, abi, functionName, args));
  const pendingIndex = (r: TransactionReceipt) => {
    const initiated = logs(r).find((l) => ["MarketOrderInitiated", "PositionSizeUpdateInitiated", "LeverageUpdateInitiated"].includes(l.eventName));
    return (initiated!.args.orderId as { index: number }).index;
  };
  const fill = async (trader: Address, index: number) => receipt(await keeper.write(diamond, keeperAbi, "executePendingOrder", [trader, index]));
  const openArgs = (p: { trader: Address; pair: number; collateral: bigint; leverage: number; long: boolean; price: bigint }) => [
    gainsMarketOpenTrade({ ...p, pairIndex: p.pair }),
    1000,
    "0x0000000000000000000000000000000000000000",
  ];

  // What the scenario did, read back from the chain.
  const s = {} as {
    /** Trade A (ETH long): its open order, trade index, and each step's tx with the collateral gTrade holds after it. */
    a: { order: number; index: number; openTx: Hex; steps: Step[]; collateralIn: bigint; returned: bigint; balanceBefore: bigint; balanceAfter: bigint };
    /** The fills: the increase, the refused increase, the leverage update, the decrease, the close. */
    increase: { order: number; tx: Hex; delta: bigint };
    refused: { order: number; tx: Hex; delta: bigint; fee: bigint };
    margin: { order: number; tx: Hex; delta: bigint };
    decrease: { order: number; tx: Hex; sent: bigint; removed: bigint };
    close: { order: number; tx: Hex; sent: bigint; price: bigint };
    refusedClose: { order: number; tx: Hex };
    slippage: { order: number; tx: Hex; returned: bigint; balanceDelta: bigint };
    timeout: { order: number; tx: Hex; returned: bigint; balanceDelta: bigint };
    /** Trade B's close, timed out and cancelled. */
    closeTimeout: { order: number };
    liq: { order: number; index: number; tx: Hex; collateral: bigint; sent: bigint };
    strangerOrder: number;
    lastBlock: bigint;
  };

  beforeAll(async () => {
    const databaseUrl = await createDatabase("gains");
    db = new pg.Pool({ connectionString: databaseUrl, options: "-c search_path=app" });
    ponder = await startTestPonder(databaseUrl);
    snapshot = await rpc<string>(env.rpcUrl, "evm_snapshot");
    const mint = parseAbi(["function mint(address to, uint256 amount)"]);
    for (const who of [operator, stranger]) {
      await operator.write(c.usdc!, mint, "mint", [who.account.address, USDC(10_000n)]);
      await who.write(c.usdc!, erc20Abi, "approve", [diamond, maxUint256]);
    }
    const ethPrice = await priceOf(ETH);

    // Trade A: 100 USDC 5x long on ETH.
    const balanceBefore = await usdcOf(me);
    const openReq = await send(operator, "openTrade", openArgs({ trader: me, pair: ETH, collateral: USDC(100n), leverage: 5000, long: true, price: ethPrice }));
    const order = pendingIndex(openReq);
    const openFill = await fill(me, order);
    const index = (one(openFill, "MarketExecuted").t as GainsTrade).index;
    const steps: Step[] = [{ tx: openFill.transactionHash, collateral: (await tradeOf(index)).collateralAmount }];
    s.a = { order, index, openTx: openReq.transactionHash, steps, collateralIn: USDC(100n), returned: 0n, balanceBefore, balanceAfter: 0n };

    // Increase: 50 USDC more at 5x.
    const incReq = await send(operator, "increasePositionSize", [index, USDC(50n), 5000, ethPrice, 1000]);
    const incFill = await fill(me, pendingIndex(incReq));
    expect(one(incFill, "PositionSizeIncreaseExecuted").cancelReason).toBe(GainsCancelReason.NONE);
    s.increase = { order: pendingIndex(incReq), tx: incFill.transactionHash, delta: USDC(50n) };
    s.a.collateralIn += USDC(50n);
    steps.push({ tx: incFill.transactionHash, collateral: (await tradeOf(index)).collateralAmount });

    // An increase refused: expected 5% below the fill, past its 1% bound. The added USDC comes back; gTrade keeps its fee from the trade.
    const before = (await tradeOf(index)).collateralAmount;
    const refReq = await send(operator, "increasePositionSize", [index, USDC(30n), 5000, (ethPrice * 95n) / 100n, 1000]);
    const refFill = await fill(me, pendingIndex(refReq));
    expect(one(refFill, "PositionSizeIncreaseExecuted").cancelReason).toBe(GainsCancelReason.SLIPPAGE);
    const afterRefused = (await tradeOf(index)).collateralAmount;
    s.refused = { order: pendingIndex(refReq), tx: refFill.transactionHash, delta: USDC(30n), fee: before - afterRefused };
    expect(s.refused.fee).toBeGreaterThan(0n);
    steps.push({ tx: refFill.transactionHash, collateral: afterRefused });

    // Margin: 5x → 4x at the same size pulls collateral × (5/4 − 1).
    const levReq = await send(operator, "updateLeverage", [index, 4000]);
    const levFill = await fill(me, pendingIndex(levReq));
    const levExec = one(levFill, "LeverageUpdateExecuted");
    expect(levExec.cancelReason).toBe(GainsCancelReason.NONE);
    s.margin = { order: pendingIndex(levReq), tx: levFill.transactionHash, delta: levExec.collateralDelta as bigint };
    s.a.collateralIn += s.margin.delta;
    steps.push({ tx: levFill.transactionHash, collateral: (await tradeOf(index)).collateralAmount });

    // Decrease: 40 USDC of collateral at +2%.
    await setPrice(ETH, (ethPrice * 102n) / 100n);
    const beforeDec = (await tradeOf(index)).collateralAmount;
    const decReq = await send(operator, "decreasePositionSize", [index, USDC(40n), 0, (ethPrice * 102n) / 100n]);
    const decFill = await fill(me, pendingIndex(decReq));
    const decExec = one(decFill, "PositionSizeDecreaseExecuted");
    expect(decExec.cancelReason).toBe(GainsCancelReason.NONE);
    const decValues = decExec.values as { collateralSentToTrader: bigint; newCollateralAmount: bigint };
    s.decrease = {
      order: pendingIndex(decReq),
      tx: decFill.transactionHash,
      sent: decValues.collateralSentToTrader,
      removed: beforeDec - decValues.newCollateralAmount,
    };
    steps.push({ tx: decFill.transactionHash, collateral: (await tradeOf(index)).collateralAmount });

    // Close the rest at +5%.
    const up = (ethPrice * 105n) / 100n;
    await setPrice(ETH, up);
    // A close refused first: expected 10% above the fill, past the closing bound; the trade stays as it was.
    const refusedClose = await send(operator, "closeTradeMarket", [index, (up * 110n) / 100n]);
    const refusedCloseFill = await fill(me, pendingIndex(refusedClose));
    expect(one(refusedCloseFill, "MarketCloseCanceled").cancelReason).toBe(GainsCancelReason.SLIPPAGE);
    s.refusedClose = { order: pendingIndex(refusedClose), tx: refusedCloseFill.transactionHash };
    expect((await tradeOf(index)).collateralAmount).toBe(steps.at(-1)!.collateral);
    const closeReq = await send(operator, "closeTradeMarket", [index, up]);
    const closeFill = await fill(me, pendingIndex(closeReq));
    const closed = one(closeFill, "MarketExecuted");
    expect(closed.open).toBe(false);
    s.close = { order: pendingIndex(closeReq), tx: closeFill.transactionHash, sent: closed.amountSentToTrader as bigint, price: closed.oraclePrice as bigint };
    expect((await tradeOf(index)).isOpen).toBe(false);
    steps.push({ tx: closeFill.transactionHash, collateral: 0n });
    s.a.returned = s.decrease.sent + s.close.sent;
    s.a.balanceAfter = await usdcOf(me);
    await setPrice(ETH, ethPrice);

    // An open cancelled for slippage: the fill 1.5% above a 1% bound; the collateral back less the fee.
    const slipBefore = await usdcOf(me);
    const slipReq = await send(operator, "openTrade", openArgs({ trader: me, pair: ETH, collateral: USDC(50n), leverage: 3000, long: true, price: ethPrice }));
    await setPrice(ETH, (ethPrice * 1015n) / 1000n);
    const slipFill = await fill(me, pendingIndex(slipReq));
    const canceled = one(slipFill, "MarketOpenCanceled");
    expect(canceled.cancelReason).toBe(GainsCancelReason.SLIPPAGE);
    s.slippage = {
      order: pendingIndex(slipReq),
      tx: slipFill.transactionHash,
      returned: canceled.collateralReturned as bigint,
      balanceDelta: (await usdcOf(me)) - slipBefore,
    };
    await setPrice(ETH, ethPrice);

    // An open on BTC never answered, reclaimed after the timeout with all of its collateral.
    const btcPrice = await priceOf(BTC);
    const toBefore = await usdcOf(me);
    const toReq = await send(operator, "openTrade", openArgs({ trader: me, pair: BTC, collateral: USDC(20n), leverage: 4000, long: false, price: btcPrice }));
    await rpc(env.rpcUrl, "anvil_mine", [`0x${GAINS_TIMEOUT_BLOCKS.toString(16)}`]);
    const toCancel = await send(operator, "cancelOrderAfterTimeout", [pendingIndex(toReq)]);
    s.timeout = {
      order: pendingIndex(toReq),
      tx: toCancel.transactionHash,
      returned: one(toCancel, "CollateralReturnedAfterTimeout").collateralAmount as bigint,
      balanceDelta: (await usdcOf(me)) - toBefore,
    };

    // Trade B: 40 USDC 10x long on ETH, liquidated by the keeper past its liquidation price.
    const liqReq = await send(operator, "openTrade", openArgs({ trader: me, pair: ETH, collateral: USDC(40n), leverage: 10_000, long: true, price: ethPrice }));
    const liqOpened = one(await fill(me, pendingIndex(liqReq)), "MarketExecuted");
    const b = liqOpened.t as GainsTrade;
    // Its market close never answered, cancelled after the timeout: it held no collateral, so only
    // ChainlinkCallbackTimeout (which names no trader in its topics) says so.
    const closeToReq = await send(operator, "closeTradeMarket", [b.index, ethPrice]);
    await rpc(env.rpcUrl, "anvil_mine", [`0x${GAINS_TIMEOUT_BLOCKS.toString(16)}`]);
    const closeToCancel = await send(operator, "cancelOrderAfterTimeout", [pendingIndex(closeToReq)]);
    expect(logs(closeToCancel).map((l) => l.eventName)).toEqual(["ChainlinkCallbackTimeout"]);
    s.closeTimeout = { order: pendingIndex(closeToReq) };
    await setPrice(ETH, (ethPrice * 90n) / 100n);
    const packed = BigInt(GainsOrderType.LIQ_CLOSE) | (BigInt(me) << 8n) | (BigInt(b.index) << 168n);
    const liqTx = await receipt(await keeper.write(diamond, abi, "triggerOrder", [packed]));
    const liquidated = one(liqTx, "LimitExecuted");
    expect(liquidated.orderType).toBe(GainsOrderType.LIQ_CLOSE);
    s.liq = {
      order: pendingIndex(liqReq),
      index: b.index,
      tx: liqTx.transactionHash,
      collateral: b.collateralAmount,
      sent: liquidated.amountSentToTrader as bigint,
    };
    await setPrice(ETH, ethPrice);

    // Another trader's trade: none of the operator's desks.
    const strangerReq = await send(
      stranger,
      "openTrade",
      openArgs({ trader: stranger.account.address, pair: ETH, collateral: USDC(30n), leverage: 2000, long: false, price: ethPrice }),
    );
    s.strangerOrder = pendingIndex(strangerReq);
    await fill(stranger.account.address, s.strangerOrder);

    s.lastBlock = await operator.publicClient.getBlockNumber();
    await waitForIndexed(ponder, s.lastBlock);
  }, 300_000);

  afterAll(async () => {
    await ponder?.stop();
    await db?.end();
    if (snapshot) await rpc(env.rpcUrl, "evm_revert", [snapshot]);
  });

  const tradeIdA = () => `${ETH}-${s.a.index}-${s.a.order}`;

  it("follows trade A through open, increase, a refused increase, margin, decrease and close, to the base unit", async () => {
    const [trade] = await q("SELECT * FROM desk_trade WHERE id = $1", [tradeIdA()]);
    expect(trade).toMatchObject({
      open_order_id: String(s.a.order),
      pair_index: String(ETH),
      trade_index: String(s.a.index),
      buy: true,
      leverage: String(lev(4000)),
      status: "closed",
      collateral: "0",
      usdc_returned: String(s.a.returned),
      realised_pnl: String(s.a.returned - s.a.collateralIn),
      open_tx: s.a.openTx,
    });
    // What the operator's balance says the trade made.
    expect(s.a.balanceAfter - s.a.balanceBefore).toBe(s.a.returned - s.a.collateralIn);

    const events = await q<{ kind: string; collateral_delta: string; realised_pnl: string; usdc_returned: string; tx_hash: string; price: string }>(
      "SELECT kind, collateral_delta, realised_pnl, usdc_returned, tx_hash, price FROM desk_event WHERE trade_id = $1 ORDER BY block_number, id",
      [tradeIdA()],
    );
    expect(events.map((e) => e.kind)).toEqual(["desk-opened", "desk-increased", "desk-decreased", "desk-increased", "desk-closed", "desk-closed"]);
    expect(events.map((e) => e.tx_hash)).toEqual(s.a.steps.map((x) => x.tx));
    // The indexed collateral after each event is gTrade's own after each fill.
    let collateral = 0n;
    const after: bigint[] = [];
    for (const e of events) {
      collateral += BigInt(e.collateral_delta);
      after.push(collateral);
    }
    expect(after).toEqual(s.a.steps.map((x) => x.collateral));
    expect(events[0]!.collateral_delta).toBe(String(USDC(100n)));
    expect(events[1]!.collateral_delta).toBe(String(s.increase.delta));
    expect(events[2]).toMatchObject({ collateral_delta: String(-s.refused.fee), realised_pnl: String(-s.refused.fee), usdc_returned: "0" });
    expect(events[3]!.collateral_delta).toBe(String(s.margin.delta));
    expect(events[4]).toMatchObject({
      collateral_delta: String(-s.decrease.removed),
      usdc_returned: String(s.decrease.sent),
      realised_pnl: String(s.decrease.sent - s.decrease.removed),
    });
    const rest = s.a.steps.at(-2)!.collateral;
    expect(events[5]).toMatchObject({
      collateral_delta: String(-rest),
      usdc_returned: String(s.close.sent),
      realised_pnl: String(s.close.sent - rest),
      price: String(s.close.price),
    });
    expect(events.reduce((sum, e) => sum + BigInt(e.realised_pnl), 0n)).toBe(s.a.returned - s.a.collateralIn);
  });

  it("records each order by its pending-order index, the open's with gTrade's units converted", async () => {
    const orders = await q<{
      order_id: string;
      status: string;
      open: boolean;
      collateral: string;
      leverage: string;
      usdc_returned: string | null;
      buy: boolean;
    }>("SELECT order_id, status, open, collateral, leverage, usdc_returned, buy FROM desk_order ORDER BY order_id");
    const byId = new Map(orders.map((o) => [Number(o.order_id), o]));
    expect(byId.get(s.a.order)).toMatchObject({ status: "executed", open: true, buy: true, collateral: String(USDC(100n)), leverage: String(lev(5000)) });
    expect(byId.get(s.increase.order)).toMatchObject({ status: "executed", open: true, collateral: String(USDC(50n)), leverage: String(lev(5000)) });
    expect(byId.get(s.refused.order)).toMatchObject({ status: "canceled", open: true, usdc_returned: String(s.refused.delta) });
    expect(byId.get(s.margin.order)).toMatchObject({ status: "executed", open: true, collateral: String(s.margin.delta), leverage: String(lev(4000)) });
    expect(byId.get(s.decrease.order)).toMatchObject({ status: "executed", open: false, collateral: String(USDC(40n)) });
    expect(byId.get(s.refusedClose.order)).toMatchObject({
      status: "canceled",
      open: false,
      collateral: String(s.a.steps.at(-2)!.collateral),
      usdc_returned: "0",
    });
    expect(byId.get(s.close.order)).toMatchObject({ status: "executed", open: false, collateral: String(s.a.steps.at(-2)!.collateral) });
    expect(await q("SELECT id FROM desk_event WHERE tx_hash = $1", [s.refusedClose.tx])).toEqual([]);
    expect(byId.get(s.liq.order)).toMatchObject({ status: "executed", open: true, collateral: String(USDC(40n)), leverage: String(lev(10_000)) });
  });

  it("an open cancelled for slippage returns its collateral less gTrade's fee; one reclaimed after the timeout, all of it; a close timed out is cancelled", async () => {
    const [slip] = await q("SELECT status, collateral, usdc_returned FROM desk_order WHERE order_id = $1", [s.slippage.order]);
    expect(s.slippage.returned).toBe(s.slippage.balanceDelta + USDC(50n));
    expect(s.slippage.returned).toBeLessThan(USDC(50n));
    expect(slip).toEqual({ status: "canceled", collateral: String(USDC(50n)), usdc_returned: String(s.slippage.returned) });
    const [timedOut] = await q("SELECT status, collateral, usdc_returned FROM desk_order WHERE order_id = $1", [s.timeout.order]);
    expect(s.timeout.returned).toBe(USDC(20n));
    expect(s.timeout.balanceDelta).toBe(0n);
    expect(timedOut).toEqual({ status: "canceled", collateral: String(USDC(20n)), usdc_returned: String(USDC(20n)) });
    // Neither opened a trade.
    expect(await q("SELECT id FROM desk_trade WHERE open_order_id = ANY($1)", [[s.slippage.order, s.timeout.order]])).toEqual([]);
    // A close timed out: cancelled, nothing returned (it held nothing), the trade left open for its liquidation.
    const [closeTimedOut] = await q("SELECT status, open, usdc_returned FROM desk_order WHERE order_id = $1", [s.closeTimeout.order]);
    expect(closeTimedOut).toEqual({ status: "canceled", open: false, usdc_returned: "0" });
  });

  it("a keeper liquidation (order type 6) closes trade B as liquidated, its whole collateral lost", async () => {
    const id = `${ETH}-${s.liq.index}-${s.liq.order}`;
    const [trade] = await q("SELECT status, collateral, usdc_returned, realised_pnl FROM desk_trade WHERE id = $1", [id]);
    expect(s.liq.sent).toBe(0n);
    expect(trade).toEqual({ status: "liquidated", collateral: "0", usdc_returned: "0", realised_pnl: String(-s.liq.collateral) });
    const [event] = await q("SELECT kind, tx_hash, collateral_delta FROM desk_event WHERE trade_id = $1 AND kind = 'desk-liquidated'", [id]);
    expect(event).toEqual({ kind: "desk-liquidated", tx_hash: s.liq.tx, collateral_delta: String(-s.liq.collateral) });
    expect(await q("SELECT 1 FROM desk_slot WHERE trade_id = $1", [id])).toEqual([]);
  });

  it("writes only the operator's trades, one activity row per desk event, and totals equal to the rows", async () => {
    const trades = await q<{ id: string }>("SELECT id FROM desk_trade ORDER BY id");
    expect(trades.map((t) => t.id).sort()).toEqual([tradeIdA(), `${ETH}-${s.liq.index}-${s.liq.order}`].sort());
    const events = await q<{ tx_hash: string; kind: string }>("SELECT tx_hash, kind FROM desk_event");
    const activity = await q<{ tx_hash: string; kind: string }>("SELECT tx_hash, kind FROM activity WHERE kind LIKE 'desk-%'");
    expect(activity.map((a) => `${a.kind} ${a.tx_hash}`).sort()).toEqual(events.map((e) => `${e.kind} ${e.tx_hash}`).sort());
    // gTrade's facts (refused orders' fees, margin fees, cancel reasons) as the desk kinds' schema declares them.
    expect(activitySchemaProblems(await q<{ kind: string; data: unknown }>("SELECT kind, data FROM activity WHERE kind LIKE 'desk-%'"), c.usdc!)).toEqual([]);
    const [totals] = await q("SELECT desks_opened, desks_open, desk_realised_pnl FROM protocol_totals");
    expect(totals).toEqual({
      desks_opened: 2,
      desks_open: 0,
      desk_realised_pnl: String(s.a.returned - s.a.collateralIn - s.liq.collateral),
    });
  });
});
