import { defineConfig } from "vitest/config";

/**
 * Files that run one at a time, after the rest: the whole-stack fault suites (their outage
 * windows are sized to what a lightly loaded machine proves, docs/testing.md), the benchmark
 * harness (bench smoke, history cache, noise twins: whole histories and many ponder starts, no
 * timing asserted), the latency bound of the hostile-client suite and the leader-lease timings.
 * `npm run test:fast` is everything else.
 */
const SERIAL = ["test/stack/**/*.test.ts", "test/bench/**/*.test.ts", "test/api/hostile.test.ts", "test/engine/failover.test.ts"];

/** What both projects share; the global setup is the root's alone, run once for both. */
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
    // Two files at a time, each in its own process with its own anvil (test/global-setup.ts) and
    // its own databases on the one PostgreSQL server. `npm test` runs the `parallel` project,
    // then the `serial` one with --no-file-parallelism (package.json).
    maxWorkers: Number(process.env.TEST_WORKERS ?? 2),
    minWorkers: 1,
    // The default report, then the ten slowest files and the total (test/reporters/slowest.ts).
    reporters: ["default", "./test/reporters/slowest.ts"],
    projects: [
      { test: { ...shared, name: "parallel", include: ["test/**/*.test.ts"], exclude: SERIAL } },
      { test: { ...shared, name: "serial", include: SERIAL } },
    ],
  },
});
