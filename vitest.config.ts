import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/global-setup.ts"],
    // Each file reverts the shared devnet to where it found it (snapshot before, revert after).
    setupFiles: ["test/helpers/isolate-chain.ts"],
    include: ["test/**/*.test.ts"],
    // Suites share one PostgreSQL server and one anvil; files run one after another.
    fileParallelism: false,
    pool: "forks",
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // The default report, then the ten slowest files and the total (test/reporters/slowest.ts).
    reporters: ["default", "./test/reporters/slowest.ts"],
  },
});
