/**
 * The scheduler on a real PostgreSQL with stand-in workers: jittered scaled intervals, one
 * run of a worker at a time, health rows, backoff after failures, run requests.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../common/logger.js";
import { type EngineContext, newEngineLocal } from "../../core/context.js";
import { ReorgGate } from "../../core/reorg-gate.js";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { readWorkerHealth } from "../../core/health.js";
import { awaitWorkerRun, requestWorkerRun } from "../../engine/runtime/run-once.js";
import { Scheduler, jitteredDelayMs, nextDelayMs } from "../../engine/runtime/scheduler.js";
import { setState } from "../../engine/runtime/state.js";
import type { Worker } from "../../engine/workers/types.js";
import { createDatabase } from "../helpers/env.js";

let e: EngineDb;
let ctx: EngineContext;

beforeAll(async () => {
  e = openEngineDb(await createDatabase("scheduler"));
  await migrate(e.pool);
  ctx = { db: e.db, pool: e.pool, log: createLogger("test", "silent" as never), gate: new ReorgGate(), local: newEngineLocal() } as unknown as EngineContext;
});
afterAll(async () => {
  await e?.close();
});

describe("intervals", () => {
  it("jitters within the spec's bounds, scaled", () => {
    const w = { minSeconds: 900, maxSeconds: 1800 };
    expect(jitteredDelayMs(w, 1, () => 0)).toBe(900_000);
    expect(jitteredDelayMs(w, 1, () => 0.999999)).toBeCloseTo(1_800_000, -2);
    expect(jitteredDelayMs(w, 0.05, () => 0.5)).toBe(67_500);
    for (let i = 0; i < 100; i++) {
      const d = jitteredDelayMs({ minSeconds: 40, maxSeconds: 70 }, 0.01);
      expect(d >= 400 && d <= 700).toBe(true);
    }
  });
  it("backs off after failures, never beyond the worker's own interval", () => {
    const w = { minSeconds: 180, maxSeconds: 300 };
    expect(nextDelayMs(w, 1, 0, () => 0)).toBe(180_000);
    const first = nextDelayMs(w, 1, 1, () => 1);
    const third = nextDelayMs(w, 1, 3, () => 1);
    expect(first).toBe(5_000);
    expect(third).toBe(20_000);
    expect(nextDelayMs(w, 1, 12, () => 1)).toBe(300_000);
  });
});

describe("Scheduler", () => {
  it("runs each worker on its schedule, one run at a time, and records health", async () => {
    let concurrent = 0;
    let maxConcurrent = 0;
    let runs = 0;
    let flaky = 0;
    const slow: Worker = {
      name: "price-sampler",
      minSeconds: 1,
      maxSeconds: 2,
      run: async () => {
        concurrent++;
        maxConcurrent = Math.max(maxConcurrent, concurrent);
        await new Promise((r) => setTimeout(r, 80));
        concurrent--;
        return { n: ++runs };
      },
    };
    const failing: Worker = {
      name: "fee-claimer",
      minSeconds: 1,
      maxSeconds: 2,
      run: async () => {
        flaky++;
        if (flaky <= 2) throw new Error("connect ECONNREFUSED 127.0.0.1:1");
        return { recovered: true };
      },
    };
    await setState(e.db, "engine", { heartbeatAt: new Date().toISOString(), pid: 1, startedAt: new Date().toISOString() });
    const scheduler = new Scheduler(ctx, [slow, failing], { scale: 0.05 });
    await scheduler.start();
    // Asking while a run is in progress joins it instead of starting a second one.
    await Promise.all([scheduler.runNow("price-sampler"), scheduler.runNow("price-sampler"), scheduler.runNow("price-sampler")]);
    await new Promise((r) => setTimeout(r, 1_500));
    const health = await readWorkerHealth(e.pool);
    await scheduler.stop();
    expect(maxConcurrent).toBe(1);
    const sampler = health.workers.find((w) => w.name === "price-sampler")!;
    expect(sampler.runs).toBeGreaterThanOrEqual(3);
    expect(sampler).toMatchObject({ minIntervalSeconds: 1, maxIntervalSeconds: 2, lastError: null, failures: 0, healthy: true });
    expect(sampler.nextRunAt).not.toBeNull();
    const claimer = health.workers.find((w) => w.name === "fee-claimer")!;
    expect(claimer.failures).toBe(2);
    expect(claimer.healthy).toBe(true); // it recovered after backing off
    expect(claimer.lastErrorAt).not.toBeNull();
  });

  it("reports a worker whose last run failed as degraded", async () => {
    const broken: Worker = {
      name: "desk-risk",
      minSeconds: 300,
      maxSeconds: 600,
      run: async () => {
        throw new Error("execution reverted: NOT_LIQUIDATABLE");
      },
    };
    const scheduler = new Scheduler(ctx, [broken], { scale: 1 });
    await scheduler.start();
    const outcome = await scheduler.runNow("desk-risk");
    await scheduler.stop();
    expect(outcome).toMatchObject({ ok: false, error: "revert: reverted: NOT_LIQUIDATABLE" });
    const health = await readWorkerHealth(e.pool);
    expect(health.status).toBe("degraded");
    expect(health.reasons.join("\n")).toMatch(/desk-risk: revert/);
  });

  it("runs a requested cycle within a second", async () => {
    let ran = 0;
    const w: Worker = { name: "asset-engine", minSeconds: 900, maxSeconds: 1800, run: async () => ({ ran: ++ran }) };
    const scheduler = new Scheduler(ctx, [w], { scale: 1 });
    await scheduler.start();
    const id = await requestWorkerRun(e.pool, "asset-engine");
    const state = await awaitWorkerRun(e.pool, id, 5_000);
    await scheduler.stop();
    expect(state).toMatchObject({ ok: true, result: { ran: 1 } });
    await expect(requestWorkerRun(e.pool, "nope")).rejects.toThrow(/unknown worker/);
  });
});
