/**
 * One real PostgreSQL server for the whole run, and one real anvil per test worker (files run
 * two at a time, each on its worker's anvil; test/helpers/env.ts `testEnv()` picks it). Every
 * anvil loads the prepared devnet (devnet/prepared.ts: deployed once, cached across runs under
 * .cache/devnet); private devnets of suites load the same state file (test/engine/devnet.ts).
 * Suites read where everything is through `testEnv()`.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startAnvil } from "../devnet/anvil.js";
import { writeDeployments } from "../devnet/deploy.js";
import { DISPOSABLE_SETTINGS, startPostgres } from "../devnet/postgres.js";
import { deploymentsAt, preparedDevnet } from "../devnet/prepared.js";
import { freePort } from "./helpers/ports.js";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    /** One shared anvil per test worker (index = VITEST_POOL_ID − 1), with its deployments file. */
    rpcUrls: string[];
    deploymentsFiles: string[];
    workDir: string;
    /** The prepared devnet's state file (chain 31337), for private anvils to load. */
    preparedStateFile: string;
  }
}

export default async function setup(project: TestProject) {
  const workDir = mkdtempSync(join(tmpdir(), "launchpad-test-"));
  chmodSync(workDir, 0o755); // the server runs as the `postgres` user when we are root
  const [postgres, prepared] = await Promise.all([
    freePort().then((port) => startPostgres({ dataDir: join(workDir, "postgres"), port, settings: DISPOSABLE_SETTINGS })),
    preparedDevnet({ progress: (line) => console.log(`[global setup] ${line}`) }),
  ]);
  const workers = testWorkers(project.vitest.config.maxWorkers);
  const anvils = await Promise.all(Array.from({ length: workers }, async () => startAnvil({ port: await freePort(), loadStateFile: prepared.stateFile })));
  const deploymentsFiles = anvils.map((anvil, i) => {
    const file = join(workDir, `deployments-${i + 1}.json`);
    writeDeployments(file, deploymentsAt(prepared.deployments, anvil.rpcUrl));
    return file;
  });

  project.provide("databaseUrl", postgres.url);
  project.provide(
    "rpcUrls",
    anvils.map((anvil) => anvil.rpcUrl),
  );
  project.provide("deploymentsFiles", deploymentsFiles);
  project.provide("workDir", workDir);
  project.provide("preparedStateFile", prepared.stateFile);

  return async () => {
    await Promise.all(anvils.map((anvil) => anvil.stop()));
    await postgres.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
}

/** How many workers this run has: vitest's resolved `maxWorkers` (1 under --no-file-parallelism). */
function testWorkers(maxWorkers: number | string | undefined): number {
  const n = Number(maxWorkers);
  return Number.isInteger(n) && n > 0 ? n : 1;
}
