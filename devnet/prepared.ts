/**
 * The prepared devnet: the whole protocol deployed once, saved as anvil's state, and loaded by
 * every later anvil that needs it (`startAnvil({ loadStateFile })`) instead of deploying again.
 *
 * The cache (`.cache/devnet/devnet-<chainId>-<key>/`) holds `state.json` (anvil's JSON state
 * without call traces, see devnet/traces.ts) and `deployments.json`, then `meta.json` last: a
 * folder without meta is unfinished and rebuilt. The key is a hash of everything a deployment
 * depends on: the Solidity under `contracts/`, the devnet's and the common code it runs
 * (`devnet/`, `common/`), and `package-lock.json` (anvil, solc, Uniswap's bytecode). Change any
 * of them and the next run deploys afresh; a stale folder is removed then.
 *
 * A folder is written under a temporary name and renamed into place, so two processes that
 * prepare at once both end with a complete one (the second rename loses, harmlessly).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Deployments } from "../common/config.js";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../common/config.js";
import { startAnvil } from "./anvil.js";
import { ROOT } from "./compile.js";
import { createDevnetContext } from "./context.js";
import { type DeployProgress, deployDevnet, writeDeployments } from "./deploy.js";
import { freePort } from "./ports.js";
import { writeFileAtomic } from "./state.js";
import { stripTraces } from "./traces.js";

export const PREPARED_DIR = join(ROOT, ".cache", "devnet");

export type PreparedDevnet = {
  /** anvil's JSON state of the deployed devnet (load it with `startAnvil({ loadStateFile })`). */
  stateFile: string;
  /** The deployment as `deployDevnet` returned it (its `rpcUrl` is the preparing anvil's: see `deploymentsAt`). */
  deployments: Deployments;
  /** Whether this call deployed (false: loaded from the cache). */
  deployed: boolean;
};

const SOURCES = ["contracts", "devnet", "common"];
const SOURCE_FILE = /\.(sol|ts)$/;

function listFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((name) => {
    const full = join(folder, name);
    if (statSync(full).isDirectory()) return listFiles(full);
    return SOURCE_FILE.test(name) ? [full] : [];
  });
}

/** The hash of everything a deployment depends on (see above), 16 hex digits. */
export function preparedKey(root = ROOT): string {
  const hash = createHash("sha256");
  const files = [...SOURCES.flatMap((s) => listFiles(join(root, s))), join(root, "package-lock.json")].sort();
  for (const file of files) {
    hash.update(relative(root, file));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/** The deployment with the `rpcUrl` of the anvil that serves it now. */
export function deploymentsAt(deployments: Deployments, rpcUrl: string): Deployments {
  return { ...deployments, rpcUrl };
}

/**
 * The deployed devnet for `chainId`: from the cache when it holds this key's, otherwise
 * deployed on a fresh anvil now (a few seconds with the compiler's cache) and saved.
 */
export async function preparedDevnet(options: { chainId?: number; progress?: DeployProgress } = {}): Promise<PreparedDevnet> {
  const chainId = options.chainId ?? DEVNET_CHAIN_ID;
  const progress = options.progress ?? (() => {});
  const name = `devnet-${chainId}-${preparedKey()}`;
  const dir = join(PREPARED_DIR, name);
  const stateFile = join(dir, "state.json");
  const deploymentsFile = join(dir, "deployments.json");
  if (existsSync(join(dir, "meta.json"))) {
    return { stateFile, deployments: JSON.parse(readFileSync(deploymentsFile, "utf8")) as Deployments, deployed: false };
  }

  progress(`preparing the devnet (chain ${chainId}): deploying once, saved to ${relative(ROOT, dir)}`);
  const started = Date.now();
  mkdirSync(PREPARED_DIR, { recursive: true });
  // Stale folders (another key, same chain) are of no use again; another process's unfinished
  // one is left alone unless it is old enough to be a dead process's.
  for (const old of readdirSync(PREPARED_DIR)) {
    if (!old.startsWith(`devnet-${chainId}-`) || old === name) continue;
    const full = join(PREPARED_DIR, old);
    if (old.endsWith(".tmp") && Date.now() - statSync(full).mtimeMs < 10 * 60_000) continue;
    rmSync(full, { recursive: true, force: true });
  }
  const tmp = join(PREPARED_DIR, `${name}.${process.pid}.tmp`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const anvil = await startAnvil({ port: await freePort(), chainId });
  try {
    const ctx = createDevnetContext(anvil.rpcUrl, chainId, DEVNET_OPERATOR_KEY);
    const deployments = await deployDevnet(ctx, progress);
    const saved = await writeFileAtomic(join(tmp, "state.json"), await anvil.dumpState(), { gunzip: true, tag: "prepare", transform: stripTraces });
    writeDeployments(join(tmp, "deployments.json"), deployments);
    writeFileSync(
      join(tmp, "meta.json"),
      `${JSON.stringify({ chainId, key: name, stateBytes: saved.bytes, sha256: saved.sha256, seconds: (Date.now() - started) / 1000 }, null, 2)}\n`,
    );
    try {
      renameSync(tmp, dir);
    } catch (error) {
      // Another process prepared the same key first: its folder is as good as ours.
      if (!existsSync(join(dir, "meta.json"))) throw error;
      rmSync(tmp, { recursive: true, force: true });
    }
    progress(`prepared the devnet in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { stateFile, deployments, deployed: true };
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  } finally {
    await anvil.stop();
  }
}
