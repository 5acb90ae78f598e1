/**
 * The operator's perps trades (its desks): two-step market orders, executions, margin
 * changes, take-profit/stop-loss/liquidation, with realised PnL. Trades of other traders
 * are ignored. Which token a desk belongs to is the engine's binding (by open order id).
 */
import { ponder } from "ponder:registry";
import { deskOrder } from "ponder:schema";
import { LimitOrder } from "../common/abis/perps.js";
import { isOperator } from "./config.js";
import { closeTradeAt, openTrade, tradeAt, updateMargin } from "./desks.js";

ponder.on("PerpsTrading:MarketOrderInitiated", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  await context.db.insert(deskOrder).values({
    orderId: a.orderId,
    pairIndex: a.pairIndex,
    open: a.open,
    buy: a.isBuy,
    collateral: a.initialPosToken,
    leverage: a.leverage,
    status: "pending",
    txHash: event.transaction.hash,
    timestamp: event.block.timestamp,
  });
});

ponder.on("PerpsTrading:MarketOpenCanceled", async ({ event, context }) => {
  if (!isOperator(event.args.trader)) return;
  await context.db.update(deskOrder, { orderId: event.args.orderId }).set({ status: "canceled" });
});

ponder.on("PerpsCallbacks:MarketExecuted", async ({ event, context }) => {
  const { t, open, orderId, price, usdcSentToTrader } = event.args;
  if (!isOperator(t.trader)) return;
  const order = await context.db.find(deskOrder, { orderId });
  if (order) await context.db.update(deskOrder, { orderId }).set({ status: "executed" });
  if (!open) {
    await closeTradeAt(context.db, event, t, order?.collateral ?? 0n, usdcSentToTrader, price, false);
    return;
  }
  await openTrade(
    context.db,
    event,
    {
      openOrderId: orderId,
      pairIndex: t.pairIndex,
      tradeIndex: t.index,
      buy: t.buy,
      collateral: t.initialPosToken,
      leverage: t.leverage,
      openPrice: t.openPrice,
      openTx: order?.txHash ?? event.transaction.hash,
    },
    price,
  );
});

ponder.on("PerpsCallbacks:LimitExecuted", async ({ event, context }) => {
  const { t, orderType, price, usdcSentToTrader } = event.args;
  if (!isOperator(t.trader) || orderType === LimitOrder.OPEN) return;
  await closeTradeAt(context.db, event, t, 0n, usdcSentToTrader, price, orderType === LimitOrder.LIQ);
});

ponder.on("PerpsTrading:MarginUpdated", async ({ event, context }) => {
  const a = event.args;
  if (!isOperator(a.trader)) return;
  const trade = await tradeAt(context.db, a.pairIndex, a.index);
  if (!trade) return;
  await updateMargin(context.db, event, trade, {
    collateral: a.newTrade.initialPosToken,
    leverage: a.newTrade.leverage,
    price: 0n,
    data: { leverage: a.newTrade.leverage, marginFees: a.marginFees },
  });
});
