/**
 * One real PostgreSQL server and one real anvil (with the devnet deployed) for the whole
 * run; suites read where they are through `inject()`.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../common/config.js";
import { startAnvil } from "../devnet/anvil.js";
import { createDevnetContext } from "../devnet/context.js";
import { deployDevnet, writeDeployments } from "../devnet/deploy.js";
import { startPostgres } from "../devnet/postgres.js";
import { freePort } from "./helpers/ports.js";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    rpcUrl: string;
    deploymentsFile: string;
    workDir: string;
  }
}

export default async function setup(project: TestProject) {
  const workDir = mkdtempSync(join(tmpdir(), "launchpad-test-"));
  chmodSync(workDir, 0o755); // the server runs as the `postgres` user when we are root
  const postgres = await startPostgres({ dataDir: join(workDir, "postgres"), port: await freePort() });
  const anvil = await startAnvil({ port: await freePort() });
  const ctx = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
  const deployments = await deployDevnet(ctx);
  const deploymentsFile = join(workDir, "deployments.json");
  writeDeployments(deploymentsFile, deployments);

  project.provide("databaseUrl", postgres.url);
  project.provide("rpcUrl", anvil.rpcUrl);
  project.provide("deploymentsFile", deploymentsFile);
  project.provide("workDir", workDir);

  return async () => {
    await anvil.stop();
    await postgres.stop();
    rmSync(workDir, { recursive: true, force: true });
  };
}
