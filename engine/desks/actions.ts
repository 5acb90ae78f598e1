/**
 * Desk actions, each resumable from its rows: open a trade (perp USDC spent with the trade
 * row, then the market order), close or reduce one (market close order), top up its margin.
 * Market orders are two-step: the exchange's keeper executes them later, and
 * `syncDeskTrades` applies the execution (or cancellation) to the rows and the ledger.
 */
import { and, desc, eq, isNotNull, like, or, sql } from "drizzle-orm";
import type { Address } from "viem";
import { logDecision } from "../../core/agent-log.js";
import { ensureAllowance } from "../../core/chain/erc20.js";
import type { EngineContext } from "../../core/context.js";
import { type Tx, tables } from "../../core/db/client.js";
import type { DeskOpen } from "../decisions/desk-entry.js";
import { consumePerpUsdc } from "../../core/ledger/accumulators.js";
import { refundSpend } from "../../core/ledger/spend.js";
import { requirePerpsVenue } from "../perps/venue.js";
import { type DeskTrade, nextTopUp, tradeById, tradesWithStatus, updateTrade } from "./trades.js";

const openKey = (id: number) => `desk-trade:${id}:open`;

/** Runs `fn` unless this engine is already sending an order of the trade (then the trade as it is). */
async function exclusive(ctx: EngineContext, trade: DeskTrade, fn: () => Promise<DeskTrade>): Promise<DeskTrade> {
  const set = ctx.local.deskTradesSending;
  if (set.has(trade.id)) return trade;
  set.add(trade.id);
  try {
    return await fn();
  } finally {
    set.delete(trade.id);
  }
}
const spendKey = (id: number) => `spend:desk-trade:${id}`;

/**
 * Opens a desk trade: records the trade and spends its collateral from the token's perp
 * leg in one transaction, then sends the market order. `finalBlock`: the newest final block;
 * the collateral comes only from perp USDC at or below it.
 */
export async function openDeskTrade(
  ctx: EngineContext,
  p: { token: Address; pairIndex: number; decision: DeskOpen; worker: string; finalBlock: number },
): Promise<DeskTrade> {
  const { token, pairIndex, decision } = p;
  const id = await ctx.db.transaction(async (tx) => {
    await tx
      .insert(tables.desks)
      .values({ token, pairIndex, side: decision.side })
      .onConflictDoUpdate({ target: tables.desks.token, set: { pairIndex, side: decision.side, updatedAt: new Date() } });
    const [row] = await tx
      .insert(tables.deskTrades)
      .values({ token, pairIndex, side: decision.side, leverage: decision.leverage.toString(), basisUsdc: decision.collateral.toString(), status: "opening" })
      .returning({ id: tables.deskTrades.id });
    await consumePerpUsdc(tx, token, decision.collateral, spendKey(row!.id), p.finalBlock, { tradeId: row!.id });
    return row!.id;
  });
  await logDecision(ctx, { worker: p.worker, token, decision: "desk-open", reason: decision.reason, data: { tradeId: id, ...decision } });
  return progressOpening(ctx, await tradeById(ctx.db, id), p.worker);
}

/** Sends (or resumes) a trade's open order and records its order id; refunds when it cannot be sent. */
export function progressOpening(ctx: EngineContext, trade: DeskTrade, worker: string): Promise<DeskTrade> {
  return exclusive(ctx, trade, () => sendOpen(ctx, trade, worker));
}

async function sendOpen(ctx: EngineContext, trade: DeskTrade, worker: string): Promise<DeskTrade> {
  trade = await tradeById(ctx.db, trade.id);
  if (trade.status !== "opening" || trade.orderId !== null) return trade;
  const venue = requirePerpsVenue(ctx);
  const existing = await ctx.pipeline.get(openKey(trade.id));
  let request = existing && { key: existing.key, kind: existing.kind, worker, to: existing.to, data: existing.data, value: existing.value };
  if (!request) {
    await ensureAllowance(ctx, ctx.contract("usdc"), venue.collateralSpender(ctx), worker);
    const call = await venue.open(ctx, { pairIndex: trade.pairIndex, collateral: trade.basisUsdc, side: trade.side, leverage: trade.leverage });
    request = { key: openKey(trade.id), kind: "perps-open", worker, ...call };
  }
  const outcome = await ctx.pipeline.send(request);
  if (outcome.status === "mined") {
    const orderId = venue.orderIdOf(outcome.receipt);
    ctx.faults.hit("after-open-order");
    await updateTrade(ctx.db, trade.id, { orderId: orderId?.toString() ?? null, openIntentId: outcome.intent.id });
    ctx.log.info({ token: trade.token, tradeId: trade.id, orderId: String(orderId) }, "desk open order placed");
  } else {
    await ctx.db.transaction(async (tx) => {
      await refundSpend(tx, spendKey(trade.id), outcome.reason);
      await updateTrade(tx, trade.id, { status: "failed", closeReason: outcome.reason, openIntentId: outcome.intent.id });
    });
    await logDecision(ctx, { worker, token: trade.token, decision: "desk-open-failed", reason: outcome.reason, data: { tradeId: trade.id } });
  }
  return tradeById(ctx.db, trade.id);
}

/** Requests a market close of `amount` collateral (all of it closes the trade). */
export async function closeDeskTrade(ctx: EngineContext, p: { trade: DeskTrade; amount: bigint; reason: string; worker: string }): Promise<DeskTrade> {
  const { trade } = p;
  if (trade.status !== "open" || trade.tradeIndex === null) return trade;
  const amount = trade.collateral !== null && p.amount > trade.collateral ? trade.collateral : p.amount;
  await updateTrade(ctx.db, trade.id, { status: "closing", closeAmount: amount.toString(), closeReason: p.reason, closeOrderId: null });
  await logDecision(ctx, {
    worker: p.worker,
    token: trade.token,
    decision: amount === trade.collateral ? "desk-close" : "desk-reduce",
    reason: p.reason,
    data: { tradeId: trade.id, amount },
  });
  return progressClosing(ctx, await tradeById(ctx.db, trade.id), p.worker);
}

/** Sends (or resumes) a trade's close order. A close the exchange refuses puts the trade back to open. */
export function progressClosing(ctx: EngineContext, trade: DeskTrade, worker: string): Promise<DeskTrade> {
  return exclusive(ctx, trade, () => sendClose(ctx, trade, worker));
}

async function sendClose(ctx: EngineContext, trade: DeskTrade, worker: string): Promise<DeskTrade> {
  trade = await tradeById(ctx.db, trade.id);
  if (trade.status !== "closing" || trade.closeOrderId !== null) return trade;
  const venue = requirePerpsVenue(ctx);
  const prefix = `desk-trade:${trade.id}:close:`;
  const { txIntents } = tables;
  const rows = await ctx.db
    .select({ id: txIntents.id, key: txIntents.key, status: txIntents.status })
    .from(txIntents)
    .where(like(txIntents.key, `${prefix}%`))
    .orderBy(desc(txIntents.id));
  const latest = rows[0];
  const [{ consumed } = { consumed: null }] = await ctx.db
    .select({ consumed: tables.deskTrades.closeIntentId })
    .from(tables.deskTrades)
    .where(eq(tables.deskTrades.id, trade.id));
  // The latest close intent is resumed (after a crash before its order id was recorded), unless it failed or its
  // order was already recorded and settled (a reduce filled, a close refused or cancelled after the timeout): then
  // this close is a new order under a new key.
  const reuse = latest && latest.status !== "failed" && latest.status !== "reverted" && latest.id !== consumed;
  const key = reuse ? latest.key : `${prefix}${rows.length + 1}`;
  const outcome = await ctx.pipeline.send({
    key,
    kind: "perps-close",
    worker,
    ...(await venue.close(ctx, { pairIndex: trade.pairIndex, index: trade.tradeIndex!, amount: trade.closeAmount! })),
  });
  if (outcome.status === "mined") {
    await updateTrade(ctx.db, trade.id, { closeOrderId: venue.orderIdOf(outcome.receipt)?.toString() ?? null, closeIntentId: outcome.intent.id });
  } else {
    // e.g. NO_TRADE after a liquidation: the event sync settles the trade.
    await updateTrade(ctx.db, trade.id, { status: "open", closeAmount: null, closeOrderId: null });
    await logDecision(ctx, { worker, token: trade.token, decision: "desk-close-failed", reason: outcome.reason, data: { tradeId: trade.id } });
  }
  return tradeById(ctx.db, trade.id);
}

/** Adds margin from the perp leg to an open trade (applied immediately by the exchange). */
export async function topUpDeskTrade(
  ctx: EngineContext,
  p: { trade: DeskTrade; amount: bigint; reason: string; worker: string; finalBlock: number },
): Promise<DeskTrade> {
  const { trade } = p;
  if (trade.status !== "open" || trade.pendingTopup !== null) return trade;
  const n = trade.topups + 1;
  await ctx.db.transaction(async (tx) => {
    await consumePerpUsdc(tx, trade.token, p.amount, `spend:desk-topup:${trade.id}:${n}`, p.finalBlock, { tradeId: trade.id });
    await updateTrade(tx, trade.id, { pendingTopup: p.amount.toString() });
  });
  await logDecision(ctx, { worker: p.worker, token: trade.token, decision: "desk-increase", reason: p.reason, data: { tradeId: trade.id, amount: p.amount } });
  return progressTopUp(ctx, await tradeById(ctx.db, trade.id), p.worker);
}

export function progressTopUp(ctx: EngineContext, trade: DeskTrade, worker: string): Promise<DeskTrade> {
  return exclusive(ctx, trade, () => sendTopUp(ctx, trade, worker));
}

async function sendTopUp(ctx: EngineContext, trade: DeskTrade, worker: string): Promise<DeskTrade> {
  trade = await tradeById(ctx.db, trade.id);
  if (trade.pendingTopup === null) return trade;
  const n = trade.topups + 1;
  const spend = `spend:desk-topup:${trade.id}:${n}`;
  const { deskTrades } = tables;
  // Clears the pending top-up once: only while the row still counts the previous top-ups.
  const clearTopUp = (tx: Tx) =>
    tx
      .update(deskTrades)
      .set({ ...nextTopUp(n), updatedAt: sql`now()` })
      .where(and(eq(deskTrades.id, trade.id), eq(deskTrades.topups, n - 1)));
  const venue = requirePerpsVenue(ctx);
  const key = `desk-trade:${trade.id}:topup:${n}`;
  // A two-step top-up whose order is on the exchange waits for its fill (or refusal): the event sync settles it.
  const sent = venue.twoStepMargin ? await ctx.pipeline.get(key) : undefined;
  if (sent?.status === "mined") return trade;
  if (!sent && (trade.status !== "open" || trade.tradeIndex === null)) {
    await ctx.db.transaction(async (tx) => {
      await refundSpend(tx, spend, `trade ${trade.status}`);
      await clearTopUp(tx);
    });
    return tradeById(ctx.db, trade.id);
  }
  let request = sent && { key: sent.key, kind: sent.kind, worker, to: sent.to, data: sent.data, value: sent.value };
  if (!request) {
    await ensureAllowance(ctx, ctx.contract("usdc"), venue.collateralSpender(ctx), worker);
    const call = await venue.updateMargin(ctx, { pairIndex: trade.pairIndex, index: trade.tradeIndex!, amount: trade.pendingTopup });
    request = { key, kind: "perps-margin", worker, ...call };
  }
  const outcome = await ctx.pipeline.send(request);
  if (outcome.status === "mined" && venue.twoStepMargin) {
    ctx.log.info({ token: trade.token, tradeId: trade.id, orderId: String(venue.orderIdOf(outcome.receipt)) }, "desk margin order placed");
    return tradeById(ctx.db, trade.id);
  }
  await ctx.db.transaction(async (tx) => {
    // Applied once: only while the top-up is still pending on the row.
    if (outcome.status === "mined") {
      const updated = venue.marginUpdateOf(outcome.receipt);
      const collateral = (updated?.collateral ?? (trade.collateral ?? 0n) + trade.pendingTopup!).toString();
      const leverage = (updated?.leverage ?? trade.leverage).toString();
      await tx
        .update(deskTrades)
        .set({
          basisUsdc: sql`${deskTrades.basisUsdc} + ${deskTrades.pendingTopup}`,
          ...nextTopUp(n),
          collateral,
          leverage,
          updatedAt: sql`now()`,
        })
        .where(and(eq(deskTrades.id, trade.id), isNotNull(deskTrades.pendingTopup), eq(deskTrades.topups, n - 1)));
    } else {
      await refundSpend(tx, spend, outcome.reason);
      await clearTopUp(tx);
    }
  });
  return tradeById(ctx.db, trade.id);
}

/**
 * Cancels every desk order the exchange left unfilled past its timeout (gains-v10: `cancelOrderAfterTimeout`
 * after `getMarketOrdersTimeoutBlocks()` blocks): an open, a close or reduce, a margin top-up. Each cancel is an
 * intent keyed by the trade and the order, so a restart resumes it and never sends it twice. The cancel's events
 * settle the trade through the event sync: an open's collateral (`CollateralReturnedAfterTimeout`) back to the
 * token's perp leg, a close's trade open again. Orders of no desk are left alone; a venue without such a cancel
 * (Avantis v1) reports none.
 */
export async function cancelTimedOutOrders(ctx: EngineContext, worker: string): Promise<{ tradeId: number; orderId: string; kind: string; status: string }[]> {
  const venue = requirePerpsVenue(ctx);
  const late = await venue.timedOutOrders(ctx);
  if (!late.length) return [];
  const trades = await tradesWithStatus(ctx.db, ["opening", "open", "closing"]);
  const out: { tradeId: number; orderId: string; kind: string; status: string }[] = [];
  for (const order of late) {
    const trade = trades.find((t) =>
      order.kind === "open"
        ? t.status === "opening" && t.orderId === order.orderId
        : t.pairIndex === order.pairIndex &&
          t.tradeIndex === order.index &&
          (order.kind === "close" ? t.status === "closing" && t.closeOrderId === order.orderId : order.kind === "margin" && t.pendingTopup !== null),
    );
    const call = trade && venue.cancelAfterTimeout(ctx, order.orderId);
    if (!trade || !call) continue;
    const reason = `${order.kind} order ${order.orderId} unfilled since block ${order.createdBlock}, past the exchange's timeout: cancelled`;
    // One intent per order; a cancel refused or dropped (the order still pending) is planned again under the next key.
    const prefix = `desk-trade:${trade.id}:timeout:${order.orderId}`;
    const { txIntents } = tables;
    const tries = await ctx.db
      .select({ key: txIntents.key, status: txIntents.status })
      .from(txIntents)
      .where(or(eq(txIntents.key, prefix), like(txIntents.key, `${prefix}:%`)))
      .orderBy(desc(txIntents.id));
    const last = tries[0];
    const retry = last && (last.status === "failed" || last.status === "reverted" || last.status === "dropped");
    const key = !last ? prefix : retry ? `${prefix}:${tries.length + 1}` : last.key;
    const outcome = await ctx.pipeline.send({ key, kind: "perps-cancel-timeout", worker, ...call });
    await logDecision(ctx, {
      worker,
      token: trade.token,
      decision: outcome.status === "mined" ? "desk-order-timed-out" : "desk-timeout-cancel-failed",
      reason: outcome.status === "mined" ? reason : `${reason}, but the cancel failed: ${outcome.reason}`,
      data: { tradeId: trade.id, orderId: order.orderId, kind: order.kind },
    });
    out.push({ tradeId: trade.id, orderId: order.orderId.toString(), kind: order.kind, status: outcome.status });
  }
  return out;
}
