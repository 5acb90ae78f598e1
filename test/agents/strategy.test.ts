/**
 * Charters obeyed by the workers, on a private devnet and real PostgreSQL: two agents are
 * launched through the agent flow (sign in, charter, fund, launch), one `momentum`, one
 * `hold`; trades generate fees, the fee-claimer splits them, the price-sampler sees the
 * desk market falling, and desk-manager opens a short for the momentum agent and a long for
 * the hold agent. Profit-checker leaves the hold desk's profit alone until the mandate's
 * take-profit threshold (even with momentum against it), then takes it. Every worker line
 * for an agent's token speaks with its persona.
 */
import { type Address, getAddress, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { createLogger } from "../../common/logger.js";
import { type Charter, charterSchema } from "../../core/agents/charter.js";
import { decideTakeProfit } from "../../engine/decisions/profit.js";
import { defaultMandate } from "../../core/mandate.js";
import { tradesOf, tradesWithStatus } from "../../engine/desks/trades.js";
import { type Engine, createEngine } from "../../engine/runtime/engine.js";
import { peekPerpUsdc } from "../../core/ledger/accumulators.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import type { WorkerName } from "../../engine/workers/index.js";
import { type PrivateDevnet, startPrivateDevnet } from "../engine/devnet.js";
import { ANVIL_KEYS } from "../helpers/env.js";
import { AGENT_KEY_SECRET, type TestApi, signIn, testApi } from "./helpers.js";

/** These desks trade on the Avantis v1 simulator (the harness's keeper, `d.execute`, fills Avantis orders); the devnet's default venue is gains-v10. */
const AVANTIS = { PERPS_VENUE: "avantis-v1" };

const USDC = 1_000_000n;
const TRADER = 5;
let d: PrivateDevnet;
let api: TestApi;
let engine: Engine;
let session: string;
const tokens: Record<"momentum" | "hold", Address> = {} as never;

const charter = (strategy: "momentum" | "hold", name: string, voice: string): Charter =>
  charterSchema.parse({
    engine: { strategy },
    persona: { name, voice },
    mandate: {
      split: { assetPct: 5, perpPct: 85, creatorPct: 5 },
      desk: { market: "ETH/USD", maxLeverage: 5, maxDrawdownPct: 50, takeProfitPct: 10 },
      buybackMinUsdc: "5",
    },
  });

async function run(name: WorkerName) {
  const outcome = await engine.runOnce(name);
  if (!outcome.ok) throw new Error(`${name} failed: ${JSON.stringify(outcome)}`);
  return outcome.result as Record<string, unknown>;
}

/** An agent launched through the API: created, chartered, funded by the creator, launched. */
async function launchAgent(c: Charter, symbol: string): Promise<Address> {
  const created = await api.call("POST", "/api/v1/agents", { token: session });
  expect(created.status, created.text).toBe(201);
  const { id, wallet } = created.json as { id: string; wallet: Address };
  const submitted = await api.call("POST", `/api/v1/agents/${id}/charter/submit`, { token: session, body: c });
  expect(submitted.status, submitted.text).toBe(200);
  const funder = d.as(1);
  await funder.publicClient.waitForTransactionReceipt({
    hash: await funder.walletClient.sendTransaction({ to: wallet, value: parseEther("0.05"), account: funder.account, chain: funder.walletClient.chain }),
  });
  const launched = await api.call("POST", `/api/v1/agents/${id}/charter/launch`, { token: session, body: { name: `${c.persona.name} Coin`, symbol } });
  expect(launched.status, launched.text).toBe(201);
  return getAddress(launched.json.token);
}

async function agentLog(token: Address, decision?: string): Promise<{ worker: string; decision: string; reason: string }[]> {
  const { rows } = await engine.ctx.pool.query(
    "SELECT worker, decision, reason FROM engine.agent_log WHERE token = $1 AND ($2::text IS NULL OR decision = $2) ORDER BY id",
    [token, decision ?? null],
  );
  return rows;
}

beforeAll(async () => {
  d = await startPrivateDevnet();
  const env = { AGENT_KEY_SECRET, PERPS_MIN_NOTIONAL_USDC: "100", ...AVANTIS };
  engine = await createEngine({ config: d.config(env), log: createLogger("engine", "error"), pipeline: { pollMs: 50, maxWaitMs: 30_000 } });
  api = testApi(d.databaseUrl, { RPC_URL: d.rpcUrl, DEPLOYMENTS_FILE: d.deploymentsFile, ...env });
  session = await signIn(api, ANVIL_KEYS[1]);
  tokens.momentum = await launchAgent(charter("momentum", "Ada", "dry and patient"), "ADA");
  tokens.hold = await launchAgent(charter("hold", "Bo", "calm, long-sighted"), "BO");
  await d.passAuction();
}, 240_000);

afterAll(async () => {
  await api?.close();
  await engine?.stop();
  await d?.stop();
});

describe("charters obeyed", () => {
  it("with ETH/USD falling, the momentum agent opens a short and the hold agent a long", async () => {
    for (const token of Object.values(tokens)) {
      await d.buy(TRADER, token, 6_000n * USDC);
      await d.sell(TRADER, token, (await d.balance(token, d.as(TRADER).account.address)) / 3n);
    }
    await run("fee-claimer");
    for (const token of Object.values(tokens)) expect(await peekPerpUsdc(engine.ctx.db, token, Infinity)).toBeGreaterThan(20n * USDC); // 5x → ≥ 100 notional

    // The desk market falls 0.5% per sample.
    let eth = await d.price("ETH_USD");
    for (let i = 0; i < 8; i++) {
      eth = (eth * 995n) / 1_000n;
      await d.setPrice("ETH_USD", eth);
      await run("price-sampler");
    }
    const result = await run("desk-manager");
    const actions = result.actions as { token: string; action: string; reason: string }[];
    expect(actions).toContainEqual(expect.objectContaining({ token: tokens.momentum, action: "open" }));
    expect(actions).toContainEqual(expect.objectContaining({ token: tokens.hold, action: "open" }));

    const [short] = await tradesOf(engine.ctx.db, tokens.momentum);
    const [long] = await tradesOf(engine.ctx.db, tokens.hold);
    expect(short!.side).toBe("short");
    expect(long!.side).toBe("long");
    expect((await tradesOf(engine.ctx.db, tokens.hold, ["opening", "open", "closing", "closed", "failed", "canceled"])).every((t) => t.side === "long")).toBe(
      true,
    );

    // The agents speak in their own voices, and say which mandate decided.
    const [ada] = await agentLog(tokens.momentum, "desk-open");
    const [bo] = await agentLog(tokens.hold, "desk-open");
    expect(ada!.reason).toMatch(/^Ada \(dry and patient\): short: momentum mandate: short on momentum -\d/);
    expect(bo!.reason).toMatch(/^Bo \(calm, long-sighted\): long: hold mandate: long whatever the momentum \(momentum -\d/);
    for (const token of Object.values(tokens)) {
      const lines = await agentLog(token);
      const workerLines = lines.filter((l) => l.worker !== "agent-launch");
      expect(workerLines.length).toBeGreaterThan(0);
      for (const l of workerLines) expect(l.reason).toMatch(token === tokens.momentum ? /^Ada \(dry and patient\): / : /^Bo \(calm, long-sighted\): /);
    }
    // The launch log claims only what is true of the activation credit.
    const [activated] = await agentLog(tokens.hold, "activated");
    expect(activated!.reason).toMatch(
      /platform fee of 0\.002 ETH is recorded as the activation credit \(it pays for the launch and funds no leg\); Bo runs the hold mandate on ETH\/USD: the desk only goes long/,
    );

    // A second cycle with more perp USDC and the market still falling: the hold desk still never shorts.
    await d.buy(TRADER, tokens.hold, 3_000n * USDC);
    await run("fee-claimer");
    eth = (eth * 990n) / 1_000n;
    await d.setPrice("ETH_USD", eth);
    await run("price-sampler");
    await run("desk-manager");
    expect((await tradesOf(engine.ctx.db, tokens.hold, ["opening", "open", "closing", "closed", "failed", "canceled"])).every((t) => t.side === "long")).toBe(
      true,
    );
    expect(await checkLedgerInvariants(engine.ctx.db)).toEqual({ ok: true, violations: [] });
  });

  it("profit-checker leaves a hold desk's profit until the take-profit threshold, even with momentum against it, then takes it", async () => {
    const opening = await tradesWithStatus(engine.ctx.db, ["opening"]);
    await d.execute(opening.map((t) => t.orderId).filter((x): x is bigint => x !== null));
    await run("profit-checker"); // applies the executions
    const [held] = (await tradesWithStatus(engine.ctx.db, ["open"])).filter((t) => t.token === tokens.hold);
    expect(held!.side).toBe("long");
    expect(held!.leverage).toBeGreaterThanOrEqual(2n * PERPS_PRECISION);

    // +1% on a long of ≥2x: in profit, below the 10% threshold; the sampled window still falls.
    const eth = await d.price("ETH_USD");
    await d.setPrice("ETH_USD", (eth * 101n) / 100n);
    const mark = await run("profit-checker");
    expect((mark.closes as { tradeId: number }[]).map((c) => c.tradeId)).not.toContain(held!.id);
    expect((await tradesOf(engine.ctx.db, tokens.hold)).find((t) => t.id === held!.id)!.status).toBe("open");
    // The same trade under a momentum mandate would have been closed early: the rule differs by strategy alone.
    const window = { samples: 10, momentum: -0.04, volatility: 0.0001, last: 0 };
    const input = {
      trade: { side: held!.side, leverage: held!.leverage, collateral: held!.collateral!, basisUsdc: held!.basisUsdc, openPrice: held!.openPrice! },
      price: (held!.openPrice! * 101n) / 100n, // the exchange's 1e10 precision
      mandate: { ...defaultMandate(5n * USDC), takeProfitBps: 1_000 },
      minProfitUsdc: 100_000n,
      window,
    };
    expect(decideTakeProfit({ ...input, strategy: "hold" }).action).toBe("hold");
    expect(decideTakeProfit({ ...input, strategy: "momentum" })).toMatchObject({
      action: "close",
      reason: expect.stringMatching(/turned against the long; taking profit [\d,.]+ USDC early \(threshold [\d,.]+ USDC\)$/),
    });

    // +6% more: past the threshold, the hold desk takes its profit.
    await d.setPrice("ETH_USD", (eth * 107n) / 100n);
    const take = await run("profit-checker");
    expect((take.closes as { tradeId: number }[]).map((c) => c.tradeId)).toContain(held!.id);
    const [close] = await agentLog(tokens.hold, "desk-close");
    expect(close!.reason).toMatch(/^Bo \(calm, long-sighted\): take profit: unrealised profit [\d,.]+ USDC ≥ [\d,.]+ USDC \(1000 bps/);
    expect(await checkLedgerInvariants(engine.ctx.db)).toEqual({ ok: true, violations: [] });
  });
});
