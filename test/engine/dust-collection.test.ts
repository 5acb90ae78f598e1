/**
 * A collection with only dust to convert, on a private devnet with the engine in process. As
 * on Base, the LP locker converts what its recipients want in the other currency with a minimum
 * output of 1, and the hook collects on every swap: after a small sell the pool holds only
 * that sell's fee in the token, worth less than a USDC base unit, so `collectRewards` would
 * revert `V4TooLittleReceived(1, 0)`. The fee-claimer does not send it (no intent, nothing
 * failed), still claims what the fee locker holds, and says so in its log and on `/health`;
 * once more fees accrue, the token is collected and the deferral is gone.
 */
import pino from "pino";
import { type Abi, type Address, encodeFunctionData, erc20Abi } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createEnginePort } from "../../api/engine-port.js";
import { healthResponse } from "../../api/views/health.js";
import { clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { decodeRevert } from "../../core/errors.js";
import { readWorkerHealth } from "../../core/health.js";
import { type Scenario, launchEnrolledToken, startScenario } from "./scenario.js";

const USDC = 1_000_000n;
const TOKEN = 10n ** 18n;
const TRADER = 5;
let sc: Scenario;
const lines: string[] = [];

beforeAll(async () => {
  // The engine's own lines, kept to check what it said.
  const log = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  sc = await startScenario({ log: log as never });
}, 240_000);
afterAll(async () => {
  await sc?.stop();
});

it("defers a collect whose conversion would yield nothing, claims what the fee locker holds, says so, and collects once more fees accrue", async () => {
  const { d, engine, operator } = sc;
  const admin = d.as(1);
  const { token } = await launchEnrolledToken(sc, { name: "Dust", symbol: "DUST" });
  const collects = async () =>
    (await engine.ctx.pool.query("SELECT key, status FROM engine.tx_intents WHERE key LIKE $1", [`%:collect:${token}`])).rows as {
      key: string;
      status: string;
    }[];

  // A buy pays its fee in USDC; a small sell then collects it into the fee locker (the hook, one
  // swap late) and leaves only its own fee in the token: 1% of 10 tokens, far below a USDC unit.
  await d.buy(TRADER, token, 1_000n * USDC);
  await d.sell(TRADER, token, 10n * TOKEN);
  const held = await admin.read<bigint>(d.c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [operator, d.c.usdc!]);
  expect(held).toBeGreaterThan(0n);
  // The chain refuses that collect as Base does.
  const refused = await admin.publicClient
    .call({
      account: operator,
      to: d.c.lpLocker!,
      data: encodeFunctionData({ abi: clankerLpLockerAbi, functionName: "collectRewards", args: [token] }),
    })
    .then(
      () => "went through",
      (e: { walk: (f: (x: unknown) => boolean) => { data?: `0x${string}` } | null }) => decodeRevert(e.walk((x) => !!(x as { data?: unknown }).data)?.data),
    );
  expect(refused).toMatch(/V4TooLittleReceived\(1, 0\)/);
  const usdcBefore = await admin.read<bigint>(d.c.usdc!, erc20Abi as Abi, "balanceOf", [operator]);

  const deferredRun = await sc.run("fee-claimer");
  expect(deferredRun.batch as Address[]).toContain(token);
  expect(deferredRun.deferred).toEqual([token]);
  expect(deferredRun.collected as Address[]).not.toContain(token);
  // Not sent, not failed: no intent at all for that collect.
  expect(await collects()).toEqual([]);
  expect((await engine.ctx.pool.query("SELECT key FROM engine.tx_intents WHERE status = 'failed'")).rows).toEqual([]);
  // What the fee locker already held is claimed all the same.
  expect(deferredRun.claimed).toContain("usdc");
  expect((await admin.read<bigint>(d.c.usdc!, erc20Abi as Abi, "balanceOf", [operator])) - usdcBefore).toBe(held);
  expect(await sc.sumRows("currency = 'USDC' AND kind IN ('fee-claimed', 'unattributed')")).toBe(await sc.claimedOnchain(d.c.usdc!));
  // The log and /health say what happened; not a degradation.
  expect(lines.some((l) => l.includes(token) && l.includes("collection deferred") && l.includes("V4TooLittleReceived(1, 0)"))).toBe(true);
  const health = await readWorkerHealth(engine.ctx.pool);
  expect(health.deferredCollections).toEqual([
    expect.objectContaining({ token, attempts: 1, reason: expect.stringMatching(/^collection deferred: .*V4TooLittleReceived\(1, 0\)/) }),
  ]);
  expect(health.reasons.join("\n")).not.toContain("deferred");
  expect(health.workers.find((w) => w.name === "fee-claimer")?.healthy).toBe(true);
  // As the API reads it for GET /health, in the documented shape.
  const view = await createEnginePort(engine.ctx.pool).health();
  expect(view.degraded.join("\n")).not.toContain("deferred");
  expect(healthResponse.shape.deferredCollections.parse(view.deferredCollections)).toEqual([expect.objectContaining({ token, attempts: 1 })]);

  // Still dust on the next cycle: deferred again, counted.
  await sc.run("fee-claimer");
  expect((await readWorkerHealth(engine.ctx.pool)).deferredCollections).toEqual([expect.objectContaining({ token, attempts: 2 })]);
  expect(await collects()).toEqual([]);

  // More fees accrue (a larger sell: its hook sweeps the dust, and its own fee is worth converting).
  const tokens = await admin.read<bigint>(token, erc20Abi as Abi, "balanceOf", [d.as(TRADER).account.address]);
  await d.sell(TRADER, token, tokens / 2n);
  const collected = await sc.run("fee-claimer");
  expect(collected.collected as Address[]).toContain(token);
  expect((await collects()).map((r) => r.status)).toEqual(["mined"]);
  expect((await readWorkerHealth(engine.ctx.pool)).deferredCollections).toEqual([]);
  expect(await sc.sumRows("currency = 'USDC' AND kind IN ('fee-claimed', 'unattributed')")).toBe(await sc.claimedOnchain(d.c.usdc!));
}, 240_000);
