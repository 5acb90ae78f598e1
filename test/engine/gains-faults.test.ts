/**
 * Faults between a gTrade order and its oracle fill, on a private devnet with PERPS_VENUE=gains-v10:
 * - a reorg that removes the oracle's fill (of an open, then of a close): the engine undoes what it
 *   applied from the lost fill (the trade pending again, a profit taken back from the creator's
 *   buyback queue), and applies the fill the canonical branch holds, at that branch's price;
 * - the engine SIGKILLed after its open order was mined and before it recorded the order, the
 *   oracle filling the order while the engine is down: the restart records the order from its
 *   receipt, applies the fill once, and opens nothing twice.
 * Each ends with the ledger equal to the chain to the base unit (the three-way audit) and every
 * operator transaction one mined intent.
 */
import { type Address, type Hex, getAddress, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gainsViewsAbi } from "../../common/abis/gains.js";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { auditFromConfig, auditUntilSettled } from "../../core/audit.js";
import { peekPerpUsdc } from "../../core/ledger/accumulators.js";
import { Legs } from "../../core/ledger/legs.js";
import { legBalance } from "../../core/ledger/reads.js";
import { setTokenMandate } from "../../core/token-mandate.js";
import { tradeById, tradesWithStatus } from "../../engine/desks/trades.js";
import { KEEPER, type PrivateDevnet, startPrivateDevnet } from "./devnet.js";
import { type ChildResult, rpc, runTs, warmPriceWindow } from "./helpers.js";
import { type Scenario, expectConverged, startScenario } from "./scenario.js";

const USDC = 1_000_000n;
const TRADER = 5;
/** gTrade's ETH/USD. */
const ETH = 1;
const GAINS = { PERPS_VENUE: "gains-v10" };
const fillAbi = parseAbi(["function executePendingOrder(address trader, uint32 index)"]);

type Pending = { index: number; orderType: number };
const pendingOf = (d: PrivateDevnet, trader: Address) => d.as(1).read<Pending[]>(getAddress(d.c.gainsDiamond!), gainsViewsAbi, "getPendingOrders", [trader]);
/** The oracle's transaction: the devnet keeper fills the trader's pending order `index` at the feed's price. */
const fill = (d: PrivateDevnet, trader: Address, index: bigint) =>
  d.as(KEEPER).write(getAddress(d.c.gainsDiamond!), fillAbi, "executePendingOrder", [trader, Number(index)]);

describe("a reorg that removes an oracle fill", () => {
  let sc: Scenario;
  let token: Address;
  const run = (name: Parameters<Scenario["run"]>[0]) => sc.run(name);
  const snapshot = () => rpc<Hex>(sc.d.rpcUrl, "evm_snapshot");
  /** Back to `id`, and one block further: the new branch grows past the old heights, as a competing chain would. */
  async function revertTo(id: Hex) {
    expect(await rpc<boolean>(sc.d.rpcUrl, "evm_revert", [id])).toBe(true);
    await rpc(sc.d.rpcUrl, "anvil_mine", ["0x1"]);
  }

  beforeAll(async () => {
    sc = await startScenario({ env: GAINS, logLevel: "error" });
    token = sc.usdcToken;
    await sc.d.buy(TRADER, token, 6_000n * USDC);
    await sc.d.sell(TRADER, token, (await sc.d.balance(token, sc.d.as(TRADER).account.address)) / 3n);
    for (let i = 0; i < 6; i++) await run("price-sampler");
    await run("fee-claimer");
    await setTokenMandate(sc.engine.ctx.db, token, { deskPairIndex: ETH, maxDeskUsdc: 20n * USDC });
  }, 300_000);

  afterAll(async () => {
    await sc?.stop();
  });

  it("of an open: the trade is pending again, then open at the price of the fill the chain kept", async () => {
    const db = sc.engine.ctx.db;
    expect((await run("desk-manager")).actions).toContainEqual(expect.objectContaining({ token, action: "open" }));
    const [opening] = (await tradesWithStatus(db, ["opening"])).filter((t) => t.token === token);
    expect(opening?.orderId).not.toBeNull();
    const before = await snapshot();
    const eth = await sc.d.price("ETH_USD");
    await fill(sc.d, sc.operator, opening!.orderId!);
    await run("profit-checker");
    expect(await tradeById(db, opening!.id)).toMatchObject({ status: "open", openPrice: eth * 100n });

    // The fill's block is forgotten: the order is pending on the chain again, and so is the desk.
    await revertTo(before);
    const report = await sc.engine.checkFinality();
    expect(report.lost.length).toBeGreaterThan(0);
    expect(await tradeById(db, opening!.id)).toMatchObject({ status: "opening", orderId: opening!.orderId });
    expect((await pendingOf(sc.d, sc.operator)).map((o) => BigInt(o.index))).toEqual([opening!.orderId]);

    // The canonical branch's oracle fills it at another price; that one is applied, once.
    await sc.d.setPrice("ETH_USD", (eth * 101n) / 100n);
    await fill(sc.d, sc.operator, opening!.orderId!);
    await run("profit-checker");
    await run("profit-checker");
    expect(await tradeById(db, opening!.id)).toMatchObject({ status: "open", openPrice: ((eth * 101n) / 100n) * 100n, collateral: 20n * USDC });
    const { rows } = await sc.engine.ctx.pool.query("SELECT COUNT(*)::int AS n FROM engine.tx_intents WHERE kind = 'perps-open'");
    expect(rows[0].n).toBe(1);
    await expectConverged(sc);
  });

  it("of a close: the profit leaves the creator's buyback queue, and comes back as the kept fill pays it", async () => {
    const db = sc.engine.ctx.db;
    const [open] = (await tradesWithStatus(db, ["open"])).filter((t) => t.token === token);
    const eth = await sc.d.price("ETH_USD");
    await sc.d.setPrice("ETH_USD", (eth * 110n) / 100n);
    await run("profit-checker"); // the take-profit's close order
    const closing = await tradeById(db, open!.id);
    expect(closing).toMatchObject({ status: "closing" });
    const before = await snapshot();
    await fill(sc.d, sc.operator, closing.closeOrderId!);
    await run("profit-checker");
    const closed = await tradeById(db, open!.id);
    expect(closed.status).toBe("closed");
    const profit = closed.usdcReturned - closed.basisUsdc;
    expect(profit).toBeGreaterThan(0n);
    expect(await legBalance(db, Legs.creatorBuyback, token)).toBe(profit);

    await revertTo(before);
    expect((await sc.engine.checkFinality()).reversed).toBeGreaterThan(0);
    expect(await tradeById(db, open!.id)).toMatchObject({ status: "closing", closeOrderId: closing.closeOrderId });
    expect(await legBalance(db, Legs.creatorBuyback, token)).toBe(0n);

    // Filled again on the canonical branch at a slightly lower price, within the order's slippage
    // bound: a smaller profit, booked once.
    await sc.d.setPrice("ETH_USD", (eth * 1_095n) / 1_000n);
    await fill(sc.d, sc.operator, closing.closeOrderId!);
    await run("profit-checker");
    const reclosed = await tradeById(db, open!.id);
    expect(reclosed.status).toBe("closed");
    expect(reclosed.usdcReturned).toBeLessThan(closed.usdcReturned);
    expect(await legBalance(db, Legs.creatorBuyback, token)).toBe(reclosed.usdcReturned - reclosed.basisUsdc);
    await expectConverged(sc);
  });

  it("of a margin top-up, after the next top-up was decided: the first is pending again and fills once, the next waits its turn", async () => {
    const db = sc.engine.ctx.db;
    await setTokenMandate(db, token, { deskPairIndex: ETH, maxDeskUsdc: 20n * USDC });
    expect((await run("desk-manager")).actions).toContainEqual(expect.objectContaining({ token, action: "open" }));
    await fillPending();
    await run("profit-checker");
    const [trade] = (await tradesWithStatus(db, ["open"])).filter((t) => t.token === token);
    // Top-up 1 (3 USDC, below a new trade's minimum), placed; the fill the reorg will take back.
    await setTokenMandate(db, token, { deskPairIndex: ETH, maxDeskUsdc: 23n * USDC });
    expect((await run("desk-manager")).actions).toContainEqual(expect.objectContaining({ token, action: "top-up" }));
    const before = await snapshot();
    await fillPending();
    await run("profit-checker");
    expect(await tradeById(db, trade!.id)).toMatchObject({ pendingTopup: null, topups: 1 });
    // Top-up 2 is decided and placed on top of that fill.
    const perp = await peekPerpUsdc(db, token, Infinity);
    await setTokenMandate(db, token, { deskPairIndex: ETH, maxDeskUsdc: 26n * USDC });
    expect((await run("desk-manager")).actions).toContainEqual(expect.objectContaining({ token, action: "top-up" }));
    const second = (await tradeById(db, trade!.id)).pendingTopup!;
    expect(second).toBeGreaterThan(0n);
    expect(await tradeById(db, trade!.id)).toMatchObject({ topups: 1 });

    // The fill of top-up 1 and the order of top-up 2 are forgotten: top-up 1 is pending again, top-up 2 queued behind it.
    await revertTo(before);
    expect((await sc.engine.checkFinality()).lost.length).toBeGreaterThan(0);
    expect(await tradeById(db, trade!.id)).toMatchObject({ pendingTopup: 3n * USDC, queuedTopups: [second], topups: 0 });
    // The finality check sent top-up 2's order again, and gTrade refused it: one pending order per trade.
    const intent = async (n: number) =>
      (await sc.engine.ctx.pool.query("SELECT status FROM engine.tx_intents WHERE key = $1", [`desk-trade:${trade!.id}:topup:${n}`])).rows[0]?.status;
    expect(await intent(2)).toBe("reverted");
    expect(await pendingOf(sc.d, sc.operator)).toHaveLength(1);

    // Top-up 1 fills again, once; then top-up 2's turn: refused, its USDC back to the perp leg for a later cycle.
    await fillPending();
    await run("profit-checker");
    await run("profit-checker");
    expect(await tradeById(db, trade!.id)).toMatchObject({ pendingTopup: null, queuedTopups: [], topups: 2 });
    expect(await peekPerpUsdc(db, token, Infinity)).toBe(perp);
    const { rows } = await sc.engine.ctx.pool.query("SELECT name FROM engine.perps_events WHERE trade_id IS NULL");
    expect(rows).toEqual([]);
    await expectConverged(sc);
  });

  /** The oracle fills every pending order of the operator, oldest first. */
  async function fillPending() {
    for (const o of await pendingOf(sc.d, sc.operator)) await fill(sc.d, sc.operator, BigInt(o.index));
  }
});

describe("SIGKILL between a gTrade order and its fill", () => {
  let d: PrivateDevnet;
  let db: EngineDb;
  let operator: Address;
  let baseNonce: number;
  const cli = (args: string, extra: Record<string, string> = {}): Promise<ChildResult> =>
    runTs("engine/cli.ts", d.env({ ARGS: args, ...GAINS, ...extra }), { timeoutMs: 90_000 });
  const nonce = async () => Number(await rpc<Hex>(d.rpcUrl, "eth_getTransactionCount", [operator, "latest"]));

  beforeAll(async () => {
    d = await startPrivateDevnet();
    operator = d.config().operator!;
    db = openEngineDb(d.databaseUrl);
    await migrate(db.pool);
    baseNonce = await nonce();
  }, 240_000);

  afterAll(async () => {
    await db?.close();
    await d?.stop();
  });

  it("the restart records the order from its receipt, applies the fill made while it was down, and opens nothing twice", async () => {
    const token = getAddress(d.c.usdcPairedToken!);
    await d.buy(TRADER, token, 6_000n * USDC);
    await d.buy(TRADER, token, 1n * USDC); // the hook collects the first buy's fees in the next swap
    const claimed = await cli("run fee-claimer");
    expect(claimed.code, claimed.stderr.slice(-2000)).toBe(0);
    expect(await peekPerpUsdc(db.db, token, Infinity)).toBeGreaterThan(20n * USDC);
    // A warm price window (what six price-sampler cycles would record) and a desk of 20 USDC on ETH.
    await warmPriceWindow(db.pool, "ETH_USD", await d.price("ETH_USD"), 6);
    await setTokenMandate(db.db, token, { deskPairIndex: ETH, maxDeskUsdc: 20n * USDC });

    const killed = await cli("run desk-manager", { ENGINE_CRASH_AT: "after-open-order" });
    expect(killed.signal, `expected a crash; exit ${killed.code}\n${killed.stderr.slice(-2000)}`).toBe("SIGKILL");
    const { rows: unrecorded } = await db.pool.query("SELECT id FROM engine.desk_trades WHERE status = 'opening' AND order_id IS NULL");
    expect(unrecorded).toHaveLength(1);
    // While the engine is down, the oracle fills the order.
    const [pending] = await pendingOf(d, operator);
    expect(pending).toBeDefined();
    await fill(d, operator, BigInt(pending!.index));
    expect(await pendingOf(d, operator)).toEqual([]);

    const restarted = await cli("run desk-manager");
    expect(restarted.code, restarted.stderr.slice(-3000)).toBe(0);
    const synced = await cli("run profit-checker");
    expect(synced.code, synced.stderr.slice(-3000)).toBe(0);
    const { rows: trades } = await db.pool.query("SELECT id, status, order_id::text, basis_usdc::text FROM engine.desk_trades WHERE token = $1", [token]);
    expect(trades).toEqual([{ id: unrecorded[0].id, status: "open", order_id: String(pending!.index), basis_usdc: String(20n * USDC) }]);
    const { rows: opens } = await db.pool.query("SELECT status FROM engine.tx_intents WHERE kind = 'perps-open'");
    expect(opens).toEqual([{ status: "mined" }]);
    // Every operator transaction since the start is one mined intent, at its own nonce.
    const { rows: mined } = await db.pool.query("SELECT nonce FROM engine.tx_intents WHERE status IN ('mined', 'reverted') ORDER BY nonce");
    expect(await nonce()).toBe(baseNonce + mined.length);
    const audit = await auditUntilSettled(() => auditFromConfig(d.config(GAINS), db), 30);
    expect(audit, JSON.stringify(audit.differences)).toMatchObject({ ok: true, settled: true, differences: [] });
  });
});
