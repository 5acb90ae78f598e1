/**
 * One seeded world for the API suites that read the scenario (test/api/seeded.test.ts): one
 * database, one ponder over the shared devnet, one `seedScenario`. Started by the group file's
 * `beforeAll` before any suite's hooks, stopped by its `afterAll`; each suite reads it with
 * `seededWorld()`. The suites run one after another in the group file's order, and each sees
 * what the ones before it wrote (a suite asserts on its own writes, or relative to the API's
 * own answers, never on a count the others could change).
 */
import { afterAll, beforeAll } from "vitest";
import { type Harness, startHarness } from "../harness.js";
import { type Scenario, seedScenario } from "../scenario.js";

let world: { h: Harness; s: Scenario } | undefined;

/** The group's world; only inside a suite's hooks and tests, after the group file started it. */
export function seededWorld(): { h: Harness; s: Scenario } {
  if (!world) throw new Error("the seeded world is not started: suites of test/api/seeded/ run from test/api/seeded.test.ts");
  return world;
}

/** Registers the group's hooks: the world started before every suite, stopped after the last. */
export function withSeededWorld(): void {
  let h: Harness | undefined;
  let s: Scenario | undefined;
  beforeAll(async () => {
    h = await startHarness();
    s = await seedScenario(h);
    await h.synced();
    world = { h, s };
  }, 300_000);
  afterAll(async () => {
    world = undefined;
    await s?.cleanup();
    await h?.stop();
  });
}
