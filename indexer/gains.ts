/**
 * The operator's desks on gTrade v10 (common/abis/gains.ts): its market orders and the oracle's
 * fills or cancels, resizes, leverage updates, keeper liquidations and orders reclaimed after the
 * timeout, written to the same desk tables, with the same meaning, as Avantis v1's
 * (indexer/perps.ts), through the shared bookkeeping of indexer/desks.ts.
 *
 * Units are the tables': USDC base units, prices at 1e10 (gTrade's own precision) and leverage at
 * 1e10 (gTrade's 1e3 × 1e7). Pair indices are gTrade's (BTC/USD 0, ETH/USD 1). An order id is
 * gTrade's `(trader, pending-order index)`; the trader is always the operator, so the index alone
 * keys `desk_order` and a trade's `openOrderId`, as the engine binds a desk to its token.
 * Other traders' events are never fetched (ponder.config.ts filters on the operator) nor written.
 */
import { type Context, ponder } from "ponder:registry";
import { deskOrder } from "ponder:schema";
import { type Hex, decodeFunctionData } from "viem";
import { GAINS_LEVERAGE_PRECISION, GainsCancelReason, GainsOrderType, gainsTradingAbi, gainsViewsAbi } from "../common/abis/gains.js";
import { PERPS_PRECISION } from "../common/abis/perps.js";
import { isOperator } from "./config.js";
import { closeTradeAt, openTrade, settleTrade, tradeAt, updateMargin } from "./desks.js";

type Db = Context["db"];

/** The tables' leverage (1e10) of a gTrade leverage (1e3). */
const leverageOf = (l: number | bigint) => BigInt(l) * (PERPS_PRECISION / GAINS_LEVERAGE_PRECISION);

/** The execution price: after gTrade's spread and impact when it reports one, else the oracle's. */
const executionPrice = (oraclePrice: bigint, impact: { priceAfterImpact: bigint }) => (impact.priceAfterImpact > 0n ? impact.priceAfterImpact : oraclePrice);

/** The trader's call to the diamond that placed an order, when the transaction is that call (not a wallet's batch). */
function traderCall(event: { transaction: { to: Hex | null; input: Hex }; log: { address: Hex } }) {
  if (event.transaction.to?.toLowerCase() !== event.log.address.toLowerCase()) return undefined;
  try {
    return decodeFunctionData({ abi: gainsTradingAbi, data: event.transaction.input });
  } catch {
    return undefined;
  }
}

async function placeOrder(
  db: Db,
  event: { transaction: { hash: Hex }; block: { timestamp: bigint } },
  o: { orderId: bigint; pairIndex: bigint; open: boolean; buy: boolean; collateral: bigint; leverage: bigint },
): Promise<void> {
  const row = { ...o, status: "pending", usdcReturned: null, txHash: event.transaction.hash, timestamp: event.block.timestamp };
  await db.insert(deskOrder).values(row).onConflictDoUpdate(row);
}

/** An order filled or canceled; a cancel records the USDC gTrade sent back. */
async function settleOrder(db: Db, orderId: bigint, status: "executed" | "canceled", usdcReturned?: bigint): Promise<void> {
  if (!(await db.find(deskOrder, { orderId }))) return;
  await db.update(deskOrder, { orderId }).set({ status, ...(usdcReturned !== undefined ? { usdcReturned } : {}) });
}

ponder.on("GainsDiamond:MarketOrderInitiated", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  const pairIndex = BigInt(a.pairIndex);
  const call = traderCall(event);
  let order = { buy: false, collateral: 0n, leverage: 0n };
  if (a.open && call?.functionName === "openTrade") {
    const t = call.args[0];
    order = { buy: t.long, collateral: t.collateralAmount, leverage: leverageOf(t.leverage) };
  } else if (!a.open && call?.functionName === "closeTradeMarket") {
    // A market close closes the whole trade.
    const trade = await tradeAt(context.db, pairIndex, BigInt(call.args[0]));
    if (trade) order = { buy: trade.buy, collateral: trade.collateral, leverage: trade.leverage };
  }
  await placeOrder(context.db, event, { orderId: BigInt(a.orderId.index), pairIndex, open: a.open, ...order });
});

ponder.on("GainsDiamond:PositionSizeUpdateInitiated", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  const trade = await tradeAt(context.db, a.pairIndex, a.index);
  await placeOrder(context.db, event, {
    orderId: BigInt(a.orderId.index),
    pairIndex: a.pairIndex,
    open: a.isIncrease,
    buy: trade?.buy ?? false,
    collateral: a.collateralDelta,
    leverage: leverageOf(a.leverageDelta),
  });
});

ponder.on("GainsDiamond:LeverageUpdateInitiated", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  const trade = await tradeAt(context.db, a.pairIndex, a.index);
  const leverage = leverageOf(a.newLeverage);
  // The same position size at the new leverage: lowering it pulls margin in, raising it sends some back.
  const after = trade && leverage > 0n ? (trade.collateral * trade.leverage) / leverage : 0n;
  const moved = trade ? (after > trade.collateral ? after - trade.collateral : trade.collateral - after) : 0n;
  await placeOrder(context.db, event, {
    orderId: BigInt(a.orderId.index),
    pairIndex: a.pairIndex,
    open: !a.isIncrease,
    buy: trade?.buy ?? false,
    collateral: moved,
    leverage,
  });
});

ponder.on("GainsDiamond:MarketExecuted", async ({ event, context }) => {
  const { t, open, orderId, oraclePrice, priceImpact, amountSentToTrader } = event.args;
  if (!isOperator(t.user)) return;
  const id = BigInt(orderId.index);
  const pairIndex = BigInt(t.pairIndex);
  const tradeIndex = BigInt(t.index);
  const price = executionPrice(oraclePrice, priceImpact);
  const order = await context.db.find(deskOrder, { orderId: id });
  if (!open) {
    await settleOrder(context.db, id, "executed");
    // A market close is always of the whole trade.
    await closeTradeAt(context.db, event, { pairIndex, index: tradeIndex }, 0n, amountSentToTrader, price, false);
    return;
  }
  const leverage = leverageOf(t.leverage);
  if (order) await context.db.update(deskOrder, { orderId: id }).set({ status: "executed", buy: t.long, collateral: t.collateralAmount, leverage });
  await openTrade(
    context.db,
    event,
    {
      openOrderId: id,
      pairIndex,
      tradeIndex,
      buy: t.long,
      collateral: t.collateralAmount,
      leverage,
      openPrice: t.openPrice,
      openTx: order?.txHash ?? event.transaction.hash,
    },
    price,
  );
});

ponder.on("GainsDiamond:MarketOpenCanceled", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  // The collateral comes back less gTrade's fee for the oracle; no trade was opened.
  await settleOrder(context.db, BigInt(a.orderId.index), "canceled", a.collateralReturned);
});

ponder.on("GainsDiamond:MarketCloseCanceled", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  // The trade stays open as it was; nothing moved.
  await settleOrder(context.db, BigInt(a.orderId.index), "canceled", 0n);
});

ponder.on("GainsDiamond:ChainlinkCallbackTimeout", async ({ event, context }) => {
  const id = event.args.pendingOrderId;
  if (!isOperator(id.user)) return;
  // Any order the oracle never answered, cancelled after the timeout. One that held collateral (an
  // open, an increase, a lower leverage) is paid back in the same transaction
  // (CollateralReturnedAfterTimeout, which sets what came back); a close, a decrease or a higher
  // leverage held none.
  const orderId = BigInt(id.index);
  const order = await context.db.find(deskOrder, { orderId });
  if (order?.status === "pending") await context.db.update(deskOrder, { orderId }).set({ status: "canceled", usdcReturned: 0n });
});

ponder.on("GainsDiamond:CollateralReturnedAfterTimeout", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  // An order the oracle never answered, reclaimed after the timeout: all its collateral back.
  await settleOrder(context.db, BigInt(a.pendingOrderId.index), "canceled", a.collateralAmount);
});

ponder.on("GainsDiamond:LimitExecuted", async ({ event, context }) => {
  const { t, orderType, oraclePrice, priceImpact, amountSentToTrader } = event.args;
  if (!isOperator(t.user)) return;
  // Take-profit, stop-loss and liquidation close the trade; a limit or stop open (the desks place none) is not a desk.
  if (orderType !== GainsOrderType.TP_CLOSE && orderType !== GainsOrderType.SL_CLOSE && orderType !== GainsOrderType.LIQ_CLOSE) return;
  await closeTradeAt(
    context.db,
    event,
    { pairIndex: BigInt(t.pairIndex), index: BigInt(t.index) },
    0n,
    amountSentToTrader,
    executionPrice(oraclePrice, priceImpact),
    orderType === GainsOrderType.LIQ_CLOSE,
  );
});

ponder.on("GainsDiamond:PositionSizeIncreaseExecuted", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  const id = BigInt(a.orderId.index);
  const trade = await tradeAt(context.db, a.pairIndex, a.index);
  if (a.cancelReason !== GainsCancelReason.NONE) {
    // Refused: the added collateral comes back; gTrade charges the oracle's cost to the trade's collateral.
    await settleOrder(context.db, id, "canceled", a.collateralDelta);
    if (!trade || a.cancelReason === GainsCancelReason.NO_TRADE) return;
    const onchain = await context.client.readContract({
      abi: gainsViewsAbi,
      address: event.log.address,
      functionName: "getTrade",
      args: [a.trader, Number(a.index)],
    });
    const fee = trade.collateral - onchain.collateralAmount;
    if (fee > 0n) {
      await settleTrade(context.db, event, trade, {
        removed: fee,
        returned: 0n,
        price: a.oraclePrice,
        full: false,
        kind: "desk-decreased",
        data: { cancelReason: a.cancelReason, fee },
      });
    }
    return;
  }
  await settleOrder(context.db, id, "executed");
  if (!trade) return;
  const v = a.values;
  await updateMargin(context.db, event, trade, {
    collateral: v.newCollateralAmount,
    leverage: leverageOf(v.newLeverage),
    openPrice: v.newOpenPrice,
    price: executionPrice(a.oraclePrice, v.priceImpact),
    data: { leverage: leverageOf(v.newLeverage), openingFees: v.openingFeesCollateral },
  });
});

ponder.on("GainsDiamond:PositionSizeDecreaseExecuted", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  const id = BigInt(a.orderId.index);
  if (a.cancelReason !== GainsCancelReason.NONE) {
    // Refused: a decrease holds no USDC, and the trade stays as it was.
    await settleOrder(context.db, id, "canceled", 0n);
    return;
  }
  await settleOrder(context.db, id, "executed");
  const trade = await tradeAt(context.db, a.pairIndex, a.index);
  if (!trade) return;
  const v = a.values;
  // What left the trade's collateral (the part closed, and any loss beyond it) against what was paid out.
  const returned = v.collateralSentToTrader > 0n ? v.collateralSentToTrader : 0n;
  await settleTrade(context.db, event, trade, {
    removed: trade.collateral - v.newCollateralAmount,
    returned,
    price: executionPrice(a.oraclePrice, v.priceImpact),
    full: false,
    leverage: leverageOf(v.newLeverage),
    data: { leverage: leverageOf(v.newLeverage), closingFee: v.closingFeeCollateral },
  });
});

ponder.on("GainsDiamond:LeverageUpdateExecuted", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  const id = BigInt(a.orderId.index);
  if (a.cancelReason !== GainsCancelReason.NONE) {
    // Refused: margin pulled in for a lower leverage goes back; nothing else moved.
    await settleOrder(context.db, id, "canceled", a.isIncrease ? 0n : a.collateralDelta);
    return;
  }
  await settleOrder(context.db, id, "executed");
  const trade = await tradeAt(context.db, a.pairIndex, a.index);
  if (!trade) return;
  const v = a.values;
  const leverage = leverageOf(v.newLeverage);
  if (!a.isIncrease) {
    // A lower leverage at the same size: margin added.
    await updateMargin(context.db, event, trade, { collateral: v.newCollateralAmount, leverage, price: a.oraclePrice, data: { leverage } });
    return;
  }
  // A higher leverage at the same size: margin sent back, at no PnL.
  const moved = trade.collateral - v.newCollateralAmount;
  await settleTrade(context.db, event, trade, {
    removed: moved,
    returned: a.collateralDelta,
    price: a.oraclePrice,
    full: false,
    leverage,
    kind: "desk-decreased",
    data: { leverage },
  });
});
