/**
 * One real PostgreSQL server and one real anvil for the whole run. The anvil loads the
 * prepared devnet (devnet/prepared.ts: deployed once, cached across runs under .cache/devnet);
 * private devnets of suites load the same state file (test/engine/devnet.ts). Suites read
 * where everything is through `inject()`.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startAnvil } from "../devnet/anvil.js";
import { writeDeployments } from "../devnet/deploy.js";
import { startPostgres } from "../devnet/postgres.js";
import { deploymentsAt, preparedDevnet } from "../devnet/prepared.js";
import { freePort } from "./helpers/ports.js";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    rpcUrl: string;
    deploymentsFile: string;
    workDir: string;
    /** The prepared devnet's state file (chain 31337), for private anvils to load. */
    preparedStateFile: string;
  }
}

export default async function setup(project: TestProject) {
  const workDir = mkdtempSync(join(tmpdir(), "launchpad-test-"));
  chmodSync(workDir, 0o755); // the server runs as the `postgres` user when we are root
  const [postgres, prepared] = await Promise.all([
    freePort().then((port) => startPostgres({ dataDir: join(workDir, "postgres"), port })),
    preparedDevnet({ progress: (line) => console.log(`[global setup] ${line}`) }),
  ]);
  const anvil = await startAnvil({ port: await freePort(), loadStateFile: prepared.stateFile });
  const deploymentsFile = join(workDir, "deployments.json");
  writeDeployments(deploymentsFile, deploymentsAt(prepared.deployments, anvil.rpcUrl));

  project.provide("databaseUrl", postgres.url);
  project.provide("rpcUrl", anvil.rpcUrl);
  project.provide("deploymentsFile", deploymentsFile);
  project.provide("workDir", workDir);
  project.provide("preparedStateFile", prepared.stateFile);

  return async () => {
    await anvil.stop();
    await postgres.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
}
