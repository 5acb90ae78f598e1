/**
 * An operator reward slot switched away from `FeeIn.Paired` after enrolment, on a private
 * devnet with the engine in process: the fee-claimer stops collecting the token and `/health`
 * says why; fees the locker pays the operator in the token itself are never booked; what the
 * ledger books for the token equals, to the base unit, the operator's USDC in the locker's
 * `ClaimedRewards`; once the slot returns to Paired the token is collected again.
 */
import { type Abi, type Address, decodeEventLog, getAddress } from "viem";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FeeIn, clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { readWorkerHealth } from "../../core/health.js";
import * as act from "../helpers/actions.js";
import { type Scenario, launchEnrolledToken, startScenario } from "./scenario.js";

const USDC = 1_000_000n;
const TRADER = 5;
let sc: Scenario;

beforeAll(async () => {
  sc = await startScenario();
}, 240_000);
afterAll(async () => {
  await sc?.stop();
});

it("stops routing a token whose operator slot leaves Paired, says why on /health, never books the other currency, and resumes", async () => {
  const { d, engine, operator } = sc;
  const admin = d.as(1);
  const locker = d.c.lpLocker!;
  const { token } = await launchEnrolledToken(sc, { name: "Preference", symbol: "PREF" });
  const collects = async () => (await engine.ctx.pool.query("SELECT key FROM engine.tx_intents WHERE key LIKE $1", [`%:collect:${token}`])).rows.length;

  await d.buy(TRADER, token, 1_000n * USDC);
  await sc.run("fee-claimer");
  expect(await collects()).toBe(1);

  // The slot's admin asks for the token itself: the engine stops collecting it and says why.
  await act.receipt(admin, await admin.write(locker, clankerLpLockerAbi as Abi, "updateFeePreference", [token, 0n, FeeIn.Clanker]));
  await d.buy(TRADER, token, 1_000n * USDC);
  const stopped = await sc.run("fee-claimer");
  expect(stopped.batch as Address[]).not.toContain(token);
  expect(await collects()).toBe(1);
  const reason = `token ${token}: the locker pays the operator's reward slot 0 in Clanker, not Paired; its fees are not routed until the slot returns to Paired`;
  const health = await readWorkerHealth(engine.ctx.pool);
  expect(health.reasons).toContain(reason);
  expect(health.status).toBe("degraded");

  // Someone else collects meanwhile: the locker pays the operator in the token, which stays in the fee locker, unbooked.
  await act.collectRewards(d.as(TRADER), d.c, token);
  const inToken = await admin.read<bigint>(d.c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [operator, token]);
  expect(inToken).toBeGreaterThan(0n);
  await sc.run("fee-claimer");
  expect(await sc.sumRows("lower(token) = lower($1) AND currency NOT IN ('USDC', 'WETH')", [token])).toBe(0n);

  // Back to Paired: collected again, and the reason is gone.
  await act.receipt(admin, await admin.write(locker, clankerLpLockerAbi as Abi, "updateFeePreference", [token, 0n, FeeIn.Paired]));
  await d.buy(TRADER, token, 1_000n * USDC);
  const resumed = await sc.run("fee-claimer");
  expect(resumed.batch as Address[]).toContain(token);
  expect(await collects()).toBe(2);
  expect((await readWorkerHealth(engine.ctx.pool)).reasons).not.toContain(reason);

  // What the ledger booked for the token is exactly the operator's USDC in the locker's logs.
  const info = await admin.read<{ poolKey: { currency0: Address } }>(locker, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
  const usdcSide = getAddress(info.poolKey.currency0) === getAddress(d.c.usdc!) ? "rewards0" : "rewards1";
  let operatorUsdc = 0n;
  for (const log of await admin.publicClient.getLogs({ address: locker, fromBlock: 0n, toBlock: "latest" })) {
    let decoded;
    try {
      decoded = decodeEventLog({ abi: clankerLpLockerAbi, data: log.data, topics: log.topics });
    } catch {
      continue;
    }
    if (decoded.eventName !== "ClaimedRewards" || getAddress(decoded.args.token) !== token) continue;
    operatorUsdc += decoded.args[usdcSide][0] ?? 0n;
  }
  expect(operatorUsdc).toBeGreaterThan(0n);
  expect(await sc.sumRows("lower(token) = lower($1) AND leg = 'claimed'", [token])).toBe(operatorUsdc);
}, 240_000);
