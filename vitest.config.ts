import { defineConfig } from "vitest/config";
import GroupAwareSequencer from "./test/sequencer.js";

/**
 * Files that run one at a time, in a lane of their own beside the rest (`npm test`,
 * scripts/test.ts): the whole-stack fault suites (their outage windows are sized to what a
 * machine this busy proves, docs/testing.md) and the benchmark harness (bench smoke, history
 * cache, noise twins: whole histories and many ponder starts, no timing asserted).
 */
const SERIAL = ["test/stack/**/*.test.ts", "test/bench/**/*.test.ts"];
/** Files whose property is a timing, run alone after both lanes: the hostile clients' latency bound and the leadership lease. */
const TIMING = ["test/api/hostile.test.ts", "test/engine/failover.test.ts"];

/** What the projects share; the global setup is the root's alone, run once per vitest run. */
const shared = {
  // Each file reverts its worker's shared devnet to where it found it (snapshot before, revert after).
  setupFiles: ["test/helpers/isolate-chain.ts"],
  pool: "forks" as const,
  testTimeout: 120_000,
  hookTimeout: 240_000,
};

export default defineConfig({
  test: {
    // One PostgreSQL server and one anvil per worker for the whole run; projects inherit what it provides.
    globalSetup: ["test/global-setup.ts"],
    // Two files at a time (`npm run test:fast`, one project alone), each in its own process with
    // its own anvil (test/global-setup.ts) and its own databases on the one PostgreSQL server.
    // `npm test` (scripts/test.ts) runs `parallel` and `serial` side by side, one file at a time
    // each, then `timing` alone.
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    minWorkers: 1,
    // The default report, then the ten slowest files and the total (test/reporters/slowest.ts).
    reporters: ["default", "./test/reporters/slowest.ts"],
    // Longest first, a group file weighed with its suites when no earlier run's durations are cached (test/sequencer.ts).
    sequence: { sequencer: GroupAwareSequencer },
    projects: [
      { test: { ...shared, name: "parallel", include: ["test/**/*.test.ts"], exclude: [...SERIAL, ...TIMING] } },
      { test: { ...shared, name: "serial", include: SERIAL } },
      { test: { ...shared, name: "timing", include: TIMING } },
    ],
  },
});
