/**
 * The gTrade v10 preflight on an anvil that reports chain id 8453, the engine configured with
 * PERPS_VENUE=gains-v10 against the devnet's twin of the diamond. The engine runs the preflight at
 * start and before each desk cycle: a removed facet, USDC moved off collateral index 1 and paused
 * trading each keep the desks off (desk-manager, profit-checker and desk-risk send nothing: no
 * intent, no new nonce of the operator), with the failed check named in the engine's health, on
 * the API's `/health` and token page, and by `npm run engine -- preflight` (exit 1). With every
 * check passing, the same engine trades.
 */
import { type Address, getAddress, parseAbi, toFunctionSelector } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../common/logger.js";
import { peekPerpUsdc } from "../../core/ledger/accumulators.js";
import { type DesksHealth, desksOffLine, readWorkerHealth } from "../../core/health.js";
import { type Engine, createEngine } from "../../engine/runtime/engine.js";
import type { WorkerName } from "../../engine/workers/index.js";
import { type PrivateDevnet, startPrivateDevnet } from "./devnet.js";
import { runTs } from "./helpers.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { startTestPonder } from "../helpers/env.js";

const BASE = 8453;
const USDC = 1_000_000n;
const TRADER = 5;
/** Not the operator: the diamond's ownership moves here before the engine starts, so the engine's nonces stay its own. */
const ADMIN = 2;

const adminAbi = parseAbi([
  "function transferOwnership(address newOwner)",
  "function devnetSetFacet(bytes4 selector, bool present)",
  "function devnetSetTradingActivated(uint8 activated)",
  "function devnetSetCollateralIndex(uint8 index)",
]);

let d: PrivateDevnet;
let engine: Engine;
let env: Record<string, string>;
let operator: Address;
let diamond: Address;
let usdcToken: Address;
let startup: Record<string, unknown>;
let ponder: Awaited<ReturnType<typeof startTestPonder>> | undefined;

async function run(name: WorkerName): Promise<Record<string, unknown>> {
  const outcome = await engine.runOnce(name);
  if (!outcome.ok) throw new Error(`${name} failed: ${outcome.error}`);
  return outcome.result as Record<string, unknown>;
}

const admin = (functionName: string, args: readonly unknown[]) => d.as(ADMIN).write(diamond, adminAbi, functionName, args);
const nonce = () => d.as(1).publicClient.getTransactionCount({ address: operator, blockTag: "latest" });
const intentCount = async () => (await engine.ctx.pool.query("SELECT count(*)::int AS n FROM engine.tx_intents")).rows[0].n as number;
/** Intents that call the diamond or approve USDC to it. */
async function diamondIntents(): Promise<unknown[]> {
  const { rows } = await engine.ctx.pool.query<{ key: string; to: string; data: string }>('SELECT key, "to", data FROM engine.tx_intents');
  const target = diamond.toLowerCase();
  return rows.filter((r) => r.to.toLowerCase() === target || (r.data.startsWith("0x095ea7b3") && r.data.toLowerCase().includes(target.slice(2))));
}
const preflightCli = (json = false) => runTs("engine/cli.ts", { ...env, ARGS: json ? "preflight --json" : "preflight" }, { timeoutMs: 120_000 });

beforeAll(async () => {
  d = await startPrivateDevnet({ chainId: BASE });
  diamond = getAddress(d.c.gainsDiamond!);
  usdcToken = getAddress(d.c.usdcPairedToken!);
  env = d.env({ PERPS_VENUE: "gains-v10" });
  const config = d.config({ PERPS_VENUE: "gains-v10" });
  operator = config.operator!;
  // The deployer (the operator) hands the twin's devnet-only setters to another account before the engine runs.
  await d.as(0).write(diamond, adminAbi, "transferOwnership", [d.as(ADMIN).account.address]);
  engine = await createEngine({ config, log: createLogger("engine", "warn"), pipeline: { pollMs: 50, maxWaitMs: 30_000 } });
  startup = await engine.reconcile();
  // Fees for the perp leg: on the devnet this much opens a desk.
  await d.buy(TRADER, usdcToken, 6_000n * USDC);
  await d.sell(TRADER, usdcToken, (await d.balance(usdcToken, d.as(TRADER).account.address)) / 3n);
  // A full price window, so the desk-manager's decision rests on the preflight alone.
  for (let i = 0; i < 5; i++) await run("price-sampler");
  await run("fee-claimer");
}, 300_000);

afterAll(async () => {
  await ponder?.stop();
  await engine?.stop();
  await d?.stop();
});

describe("the gTrade preflight on chain 8453 (PERPS_VENUE=gains-v10, the devnet's twin)", () => {
  it("runs at start: every check passes, and health records it with desks on", async () => {
    expect(await d.as(1).publicClient.getChainId()).toBe(BASE);
    expect(engine.ctx.config).toMatchObject({ chainId: BASE, isDevnet: false, perpsVenue: "gains-v10", gainsDiamond: diamond });
    // The startup reconciliation read the exchange (desks are not skipped).
    expect(startup.desks).toMatchObject({ onchain: 0, orphans: [] });
    const desks = (await readWorkerHealth(engine.ctx.pool)).desks!;
    expect(desks).toMatchObject({ enabled: true, venue: "gains-v10", protocol: "Gains Network gTrade v10", chainId: BASE, reason: null });
    expect(desks.preflight!.ok).toBe(true);
    expect(desks.preflight!.checks.map((c) => c.id)).toEqual(
      expect.arrayContaining(["facet:openTrade", "collateral-index", "collateral-active", "trading-activated", "pair:0", "pair:1"]),
    );
    expect(desks.preflight!.checks.filter((c) => c.verdict === "fail")).toEqual([]);
    expect(desksOffLine(desks)).toBeUndefined();
    expect(await peekPerpUsdc(engine.ctx.db, usdcToken, Infinity)).toBeGreaterThan(20n * USDC);
  });

  const breaks = [
    {
      name: "a selector the venue sends has no facet",
      id: "facet:openTrade",
      says: "openTrade (0x5bfcc4f8), which the venue sends, has no facet on the diamond: facetAddress answers the zero address",
      apply: () =>
        admin("devnetSetFacet", [
          toFunctionSelector("openTrade((address,uint32,uint16,uint24,bool,bool,uint8,uint8,uint120,uint64,uint64,uint64,bool,uint160,uint24),uint16,address)"),
          false,
        ]),
      undo: () => admin("devnetSetFacet", ["0x5bfcc4f8", true]),
    },
    {
      name: "USDC is not collateral index 1",
      id: "collateral-index",
      says: () => `USDC (${d.c.usdc}) is collateral index 3 on the diamond, not 1, the index the venue opens trades with`,
      // Collateral 1 is then no longer USDC either.
      also: () => [
        { id: "collateral-active", verdict: "fail", says: `collateral 1 on the diamond is 0x0000000000000000000000000000000000000000, not USDC (${d.c.usdc})` },
      ],
      apply: () => admin("devnetSetCollateralIndex", [3]),
      undo: () => admin("devnetSetCollateralIndex", [1]),
    },
    {
      name: "trading is paused",
      id: "trading-activated",
      says: "trading is PAUSED (getTradingActivated() = 2), not ACTIVATED: the diamond refuses new orders",
      apply: () => admin("devnetSetTradingActivated", [2]),
      undo: () => admin("devnetSetTradingActivated", [0]),
    },
  ];

  for (const b of breaks) {
    it(`${b.name}: desks stay off, nothing is sent, and health, the page and the CLI name the check`, async () => {
      const says = typeof b.says === "function" ? b.says() : b.says;
      const failed = [{ id: b.id, verdict: "fail", says }, ...(b.also?.() ?? [])];
      const n = failed.length;
      await b.apply();
      try {
        const nonceBefore = await nonce();
        const intentsBefore = await intentCount();
        for (const worker of ["desk-manager", "profit-checker", "desk-risk"] as const) {
          const result = await run(worker);
          expect(result.off, worker).toContain(`${b.id}: ${says}`);
          expect(result.off, worker).toMatch(new RegExp(`^desks are off: the gTrade preflight failed ${n} checks? on the diamond ${diamond}: `));
        }
        expect((await run("desk-manager")).actions).toEqual([]);
        // Nothing sent: no new transaction of the operator, no new intent, none ever to the diamond.
        expect(await nonce()).toBe(nonceBefore);
        expect(await intentCount()).toBe(intentsBefore);
        expect(await diamondIntents()).toEqual([]);
        expect((await engine.ctx.pool.query("SELECT count(*)::int AS n FROM engine.desk_trades")).rows[0].n).toBe(0);

        const health = await readWorkerHealth(engine.ctx.pool);
        const desks = health.desks as DesksHealth;
        expect(desks).toMatchObject({ enabled: false, venue: "gains-v10", chainId: BASE });
        expect(desks.reason).toContain(`${b.id}: ${says}`);
        expect(desks.preflight!.ok).toBe(false);
        expect(desks.preflight!.checks.filter((c) => c.verdict === "fail")).toEqual(failed);
        expect(desksOffLine(desks)).toBe(
          `Desks are off on chain ${BASE}: the Gains Network gTrade v10 preflight failed (${failed.map((c) => c.says).join("; ")}), so nothing is traded; the perp leg keeps accumulating.`,
        );

        const cli = await preflightCli();
        expect(cli.code, cli.stderr).toBe(1);
        expect(cli.stdout).toContain(`  FAIL  ${b.id}: ${says}\n`);
        for (const c of failed) expect(cli.stdout).toContain(`  FAIL  ${c.id}: ${c.says}\n`);
        expect(cli.stdout).toMatch(new RegExp(`\n${n} of \\d+ checks failed: desks stay off on this diamond, and no perps call is sent\n$`));
      } finally {
        await b.undo();
      }
    }, 180_000);
  }

  it("with every check passing again, the same engine's desk cycle trades on the diamond", async () => {
    const cli = await preflightCli(true);
    expect(cli.code, cli.stderr).toBe(0);
    const report = JSON.parse(cli.stdout) as { ok: boolean; chainId: number; venue: string; diamond: string; checks: { verdict: string }[] };
    expect(report).toMatchObject({ ok: true, chainId: BASE, venue: "gains-v10", diamond });
    expect(report.checks.every((c) => c.verdict === "pass")).toBe(true);

    const result = await run("desk-manager");
    expect(result.off).toBeUndefined();
    expect(result.actions).not.toEqual([]);
    expect(await diamondIntents()).not.toEqual([]);
    expect((await readWorkerHealth(engine.ctx.pool)).desks).toMatchObject({ enabled: true, reason: null, preflight: { ok: true } });
  }, 180_000);

  it("/health and the token page, served by the API, say which check failed", async () => {
    await admin("devnetSetTradingActivated", [2]);
    try {
      const says = "trading is PAUSED (getTradingActivated() = 2), not ACTIVATED: the diamond refuses new orders";
      const off = (await run("desk-manager")).off as string;
      expect(off).toContain(`trading-activated: ${says}`);
      ponder = await startTestPonder(d.databaseUrl, d.env());
      const head = await d.as(1).publicClient.getBlockNumber({ cacheTime: 0 });
      await waitForIndexed(ponder, head, 180_000).catch((error) => {
        throw new Error(`${error.message}\n${ponder!.logs.slice(-30).join("\n")}`);
      });
      const res = await fetch(`${ponder.url}/api/v1/health`);
      expect(res.status).toBe(200);
      const health = (await res.json()) as { desks: DesksHealth };
      expect(health.desks).toMatchObject({ enabled: false, venue: "gains-v10", protocol: "Gains Network gTrade v10", chainId: BASE, reason: off });
      expect(health.desks.preflight!.checks.filter((c) => c.verdict === "fail")).toEqual([{ id: "trading-activated", verdict: "fail", says }]);

      const page = await fetch(`${ponder.url}/p/${usdcToken}`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('data-field="desks-off"');
      expect(html).toContain(
        `Desks are off on chain ${BASE}: the Gains Network gTrade v10 preflight failed (${says}), so nothing is traded; the perp leg keeps accumulating.`,
      );
    } finally {
      await admin("devnetSetTradingActivated", [0]);
    }
  }, 240_000);
});
