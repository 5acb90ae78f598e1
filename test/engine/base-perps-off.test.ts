/**
 * The engine configured for Base with PERPS_VENUE=avantis-v1 (Base's default is gains-v10), against
 * an anvil that reports chain id 8453 (the devnet's contracts deployed on it): Avantis on Base is
 * v2, which the avantis-v1 adapter does not declare, so desks are off. The desk workers and the startup reconciliation send no perps
 * transaction and read no exchange; fees still flow and each token's perp leg keeps
 * accumulating in the ledger; `/health` and the prospectus page say desks are off and why.
 */
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { perpsTradingAbi } from "../../common/abis/perps.js";
import { createLogger } from "../../common/logger.js";
import { peekPerpUsdc } from "../../core/ledger/accumulators.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { Legs } from "../../core/ledger/legs.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { desksOffReason } from "../../engine/perps/venue.js";
import { type Engine, createEngine } from "../../engine/runtime/engine.js";
import type { WorkerName } from "../../engine/workers/index.js";
import { startTestPonder } from "../helpers/env.js";
import { type PrivateDevnet, startPrivateDevnet } from "./devnet.js";

const BASE = 8453;
const USDC = 1_000_000n;
const TRADER = 5;

let d: PrivateDevnet;
let engine: Engine;
let operator: Address;
let usdcToken: Address;
let reason: string;
let startup: Record<string, unknown>;
let ponder: Awaited<ReturnType<typeof startTestPonder>> | undefined;

async function run(name: WorkerName): Promise<Record<string, unknown>> {
  const outcome = await engine.runOnce(name);
  if (!outcome.ok) throw new Error(`${name} failed: ${outcome.error}`);
  return outcome.result as Record<string, unknown>;
}

/** Every intent the engine recorded that calls the exchange or approves USDC to it. */
async function perpsIntents(): Promise<unknown[]> {
  const exchange = [d.c.perpsTrading!, d.c.perpsStorage!, d.c.perpsCallbacks!].map((a) => a.toLowerCase());
  const { rows } = await engine.ctx.pool.query<{ key: string; kind: string; to: string; data: string }>('SELECT key, kind, "to", data FROM engine.tx_intents');
  return rows.filter(
    (r) =>
      r.kind.startsWith("perps") ||
      r.key.startsWith("desk-trade:") ||
      exchange.includes(r.to.toLowerCase()) ||
      // approve(spender = an exchange contract)
      (r.data.startsWith("0x095ea7b3") && exchange.some((a) => r.data.toLowerCase().includes(a.slice(2)))),
  );
}

/** The operator's market orders on the exchange, from the chain's logs. */
async function operatorOrdersOnchain(): Promise<number> {
  const logs = await d.as(1).publicClient.getLogs({
    address: d.c.perpsTrading,
    event: perpsTradingAbi.find((e) => e.type === "event" && e.name === "MarketOrderInitiated") as never,
    args: { trader: operator } as never,
    fromBlock: 0n,
    toBlock: "latest",
  });
  return logs.length;
}

const nonce = () => d.as(1).publicClient.getTransactionCount({ address: operator, blockTag: "latest" });

beforeAll(async () => {
  d = await startPrivateDevnet({ chainId: BASE });
  const config = d.config({ PERPS_VENUE: "avantis-v1" });
  operator = config.operator!;
  usdcToken = getAddress(d.c.usdcPairedToken!);
  reason = desksOffReason(config)!;
  engine = await createEngine({ config, log: createLogger("engine", "warn"), pipeline: { pollMs: 50, maxWaitMs: 30_000 } });
  startup = await engine.reconcile();
}, 300_000);

afterAll(async () => {
  await ponder?.stop();
  await engine?.stop();
  await d?.stop();
});

describe("the engine on Base (chain 8453), where the perps exchange is Avantis v2", () => {
  it("runs on a chain that reports 8453, and knows desks are off there", async () => {
    expect(await d.as(1).publicClient.getChainId()).toBe(BASE);
    expect(engine.ctx.config).toMatchObject({ chainId: BASE, isDevnet: false, perpsVenue: "avantis-v1" });
    expect(reason).toContain("not chain 8453");
    expect(reason).toContain("Avantis v2");
    // The startup reconciliation read no exchange and sent nothing.
    expect(startup.desks).toEqual({ skipped: reason });
  });

  it("sends no perps transaction, while the perp leg keeps accumulating", async () => {
    await d.buy(TRADER, usdcToken, 6_000n * USDC);
    await d.sell(TRADER, usdcToken, (await d.balance(usdcToken, d.as(TRADER).account.address)) / 3n);
    for (let i = 0; i < 3; i++) await run("price-sampler");
    await run("fee-claimer");
    const perp = await peekPerpUsdc(engine.ctx.db, usdcToken, Infinity);
    // On the devnet this much perp USDC opens a desk (5x → at least 100 USDC notional).
    expect(perp).toBeGreaterThan(20n * USDC);

    const nonceBefore = await nonce();
    const intentsBefore = (await engine.ctx.pool.query("SELECT count(*)::int AS n FROM engine.tx_intents")).rows[0].n as number;
    for (const worker of ["desk-manager", "profit-checker", "desk-risk"] as const) {
      const result = await run(worker);
      expect(result.off, worker).toBe(reason);
    }
    expect((await run("desk-manager")).actions).toEqual([]);
    // Nothing sent: no new transaction of the operator, no new intent, none ever to the exchange.
    expect(await nonce()).toBe(nonceBefore);
    expect((await engine.ctx.pool.query("SELECT count(*)::int AS n FROM engine.tx_intents")).rows[0].n).toBe(intentsBefore);
    expect(await perpsIntents()).toEqual([]);
    expect(await operatorOrdersOnchain()).toBe(0);
    expect((await engine.ctx.pool.query("SELECT count(*)::int AS n FROM engine.desk_trades")).rows[0].n).toBe(0);
    expect((await engine.ctx.pool.query("SELECT count(*)::int AS n FROM engine.desks")).rows[0].n).toBe(0);
    // Nothing lost: the perp leg holds what it did, and grows with the next fees.
    expect(await peekPerpUsdc(engine.ctx.db, usdcToken, Infinity)).toBe(perp);
    await d.buy(TRADER, usdcToken, 2_000n * USDC);
    await run("fee-claimer");
    await run("desk-manager");
    const grown = await peekPerpUsdc(engine.ctx.db, usdcToken, Infinity);
    expect(grown).toBeGreaterThan(perp);
    const { rows } = await engine.ctx.pool.query("SELECT COALESCE(SUM(amount), 0)::text AS s FROM engine.ledger WHERE leg = $1 AND token = $2", [
      Legs.perp,
      usdcToken,
    ]);
    expect(BigInt(rows[0].s)).toBe(grown);
    expect(await perpsIntents()).toEqual([]);
    expect(await operatorOrdersOnchain()).toBe(0);
    expect(await checkLedgerInvariants(engine.ctx.db)).toEqual({ ok: true, violations: [] });
  });

  it("/health says desks are off and why; the prospectus page says so in one line", async () => {
    ponder = await startTestPonder(d.databaseUrl, d.env({ PERPS_VENUE: "avantis-v1" }));
    const head = await d.as(1).publicClient.getBlockNumber({ cacheTime: 0 });
    await waitForIndexed(ponder, head, 180_000).catch((error) => {
      throw new Error(`${error.message}\n${ponder!.logs.slice(-30).join("\n")}`);
    });
    const res = await fetch(`${ponder.url}/api/v1/health`);
    expect(res.status).toBe(200);
    const health = (await res.json()) as { desks: unknown };
    expect(health.desks).toEqual({ enabled: false, venue: "avantis-v1", protocol: "Avantis v1", chainId: BASE, reason });

    const page = await fetch(`${ponder.url}/p/${usdcToken}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-field="desks-off"');
    expect(html).toContain(
      "Desks are off on chain 8453: the perps adapter avantis-v1 (Avantis v1) does not support it, so nothing is traded; the perp leg keeps accumulating.",
    );
  });
});
