/**
 * A few hundred enrolled tokens (issue 29): every worker still converges, the fee claimer
 * collects exactly the pools with fees waiting within ⌈waiting / CLAIM_BATCH_SIZE⌉ cycles,
 * its RPC requests per cycle do not grow with the enrolled tokens, and the audit is clean.
 */
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rpcRequestCounts } from "../../core/chain/client.js";
import { WORKER_NAMES } from "../../engine/workers/index.js";
import { launchEnrolledTokens } from "../../bench/tokens-launch.js";
import { type Scenario, expectConverged, startScenario } from "./scenario.js";

const ENROLLED = 300;
const TRADED = 25;
const TRADER = 5;
const USDC = 1_000_000n;

let sc: Scenario;
let tokens: Address[];

beforeAll(async () => {
  sc = await startScenario();
  const { d } = sc;
  const launched = await launchEnrolledTokens({ rpcUrl: d.rpcUrl, c: d.c, operator: d.as(0), launchers: [d.as(1), d.as(2), d.as(3)] }, ENROLLED, {
    seed: "scale-test",
  });
  tokens = launched.tokens;
}, 240_000);

afterAll(async () => {
  await sc?.stop();
});

/** The RPC requests and the result of one worker cycle. */
async function measured(name: (typeof WORKER_NAMES)[number]) {
  const before = rpcRequestCounts().total;
  const result = await sc.run(name);
  return { result, rpc: rpcRequestCounts().total - before };
}

describe(`${ENROLLED} enrolled tokens`, () => {
  it("collects exactly the pools with fees waiting, within ⌈waiting / CLAIM_BATCH_SIZE⌉ cycles, with RPC requests that do not grow with the tokens", async () => {
    const { d, engine } = sc;
    const batch = engine.ctx.config.claimBatchSize;
    // Nothing traded yet: the first cycle fills the cache (every enrolled token) and collects nothing.
    const first = await measured("fee-claimer");
    expect((await engine.ctx.pool.query("SELECT COUNT(*)::int AS n FROM engine.tokens WHERE enrolled")).rows[0].n).toBe(ENROLLED + 2);
    expect(first.result.batch).toEqual([]);
    // Three multicalls of the cache, one of the routing, one fee-growth read, a few more: not one per token.
    expect(first.rpc).toBeLessThan(40);

    // One buy in each of a spread sample of pools: their fees wait in the pool (the hook collects one swap late).
    const traded = tokens.filter((_, i) => i % Math.floor(ENROLLED / TRADED) === 0).slice(0, TRADED);
    for (const token of traded) await d.buy(TRADER, token, 50n * USDC);

    const collected = new Set<string>();
    const cycles = Math.ceil(TRADED / batch);
    for (let i = 0; i < cycles; i++) {
      const { result, rpc } = await measured("fee-claimer");
      expect((result.batch as string[]).length).toBeLessThanOrEqual(batch);
      for (const t of result.collected as string[]) collected.add(getAddress(t));
      // Per cycle: the batch's collects and their receipts, the claims, attribution; never per enrolled token.
      expect(rpc).toBeLessThan(40 + 12 * batch);
    }
    // Every traded pool collected, and no other.
    expect([...collected].sort()).toEqual(traded.map((t) => getAddress(t)).sort());
    const { rows } = await engine.ctx.pool.query<{ token: string }>("SELECT DISTINCT token FROM engine.ledger WHERE kind = 'fee-claimed' AND leg = 'claimed'");
    const booked = new Set(rows.map((r) => getAddress(r.token)));
    for (const t of traded) expect(booked.has(getAddress(t))).toBe(true);
    // Then nothing is waiting: the next cycle collects nothing, and the cache refresh writes no row (nothing changed).
    const written = async () => (await engine.ctx.pool.query("SELECT MAX(updated_at)::text AS at FROM engine.tokens")).rows[0].at as string;
    const before = await written();
    const idle = await measured("fee-claimer");
    expect(idle.result.batch).toEqual([]);
    expect(idle.rpc).toBeLessThan(40);
    expect(await written()).toBe(before);
  }, 180_000);

  it("every worker's cycle succeeds, and the engine converges with the chain: the audit is clean", async () => {
    for (const name of WORKER_NAMES) {
      const { rpc } = await measured(name);
      // No worker reads the chain once per enrolled token.
      expect(rpc, name).toBeLessThan(ENROLLED / 3);
    }
    await expectConverged(sc);
  }, 180_000);
});
