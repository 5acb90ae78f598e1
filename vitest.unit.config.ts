import { defineConfig } from "vitest/config";

/**
 * `npm run test:unit`: the pure tests only — no PostgreSQL, no anvil, no global setup — in
 * seconds. The whole suite (`npm test`) runs these too, under `vitest.config.ts`.
 */
export default defineConfig({
  test: {
    include: ["test/unit/**/*.test.ts", "test/api/unit.test.ts", "test/api/schema.test.ts", "test/api/coalesce.test.ts", "test/agents/charter.test.ts"],
    // These two also hold a test against the devnet or PostgreSQL of the global setup.
    exclude: ["test/unit/connection-file.test.ts", "test/unit/log-lines.test.ts"],
    pool: "forks",
    testTimeout: 30_000,
    reporters: ["default"],
  },
});
