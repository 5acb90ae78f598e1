/**
 * Compiles Solidity with solc-js (no network, no native toolchain) and caches the output
 * under `.cache/solc/`, keyed by a hash of every source, the compiler version and settings.
 *
 * Two builds exist: the project's own contracts under `contracts/` (solc 0.8.26, cancun),
 * and Permit2 from the source `@uniswap/v4-periphery` ships (solc 0.8.17, as deployed).
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Abi, Hex } from "viem";

const require = createRequire(import.meta.url);

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const NODE_MODULES = join(ROOT, "node_modules");
const CACHE_DIR = join(ROOT, ".cache", "solc");

export type Artifact = { abi: Abi; bytecode: Hex; deployedBytecode: Hex };
export type Artifacts = Record<string, Artifact>;

type Solc = { version(): string; compile(input: string, options?: { import: (path: string) => unknown }): string };

/** Import prefixes → folders on disk (the remappings of the upstream foundry projects). */
const REMAPPINGS: [string, string][] = [
  ["@openzeppelin/contracts/", join(NODE_MODULES, "@openzeppelin/contracts/")],
  ["@uniswap/v4-core/", join(NODE_MODULES, "@uniswap/v4-core/")],
  ["@uniswap/v4-periphery/", join(NODE_MODULES, "@uniswap/v4-periphery/")],
  ["solmate/", join(NODE_MODULES, "@uniswap/v4-periphery/lib/permit2/lib/solmate/")],
];

function resolveImport(path: string, base: string): string | undefined {
  for (const [prefix, folder] of REMAPPINGS) {
    if (path.startsWith(prefix)) return join(folder, path.slice(prefix.length));
  }
  const local = join(base, path);
  return existsSync(local) ? local : undefined;
}

function listSolidity(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const full = join(folder, name);
    if (statSync(full).isDirectory()) return listSolidity(full);
    return name.endsWith(".sol") ? [full] : [];
  });
}

/** Collects the sources reachable from the entry files, following imports, for a stable cache key. */
function collectSources(entries: string[], base: string): Record<string, string> {
  const sources: Record<string, string> = {};
  const queue = [...entries];
  while (queue.length) {
    const unit = queue.pop()!;
    if (sources[unit] !== undefined) continue;
    const file = resolveImport(unit, base);
    if (!file) throw new Error(`solidity import not found: ${unit}`);
    const content = readFileSync(file, "utf8");
    sources[unit] = content;
    for (const match of content.matchAll(/^\s*import\s+(?:[^"']*from\s+)?["']([^"']+)["']/gm)) {
      const target = match[1]!;
      const resolved = target.startsWith(".") ? join(dirname(unit), target).replaceAll("\\", "/") : target;
      queue.push(resolved);
    }
  }
  return sources;
}

/** Where a build's output is cached: named by a hash of the compiler, settings and sources. */
function cacheFileOf(solc: Solc, sources: Record<string, string>, settings: object, label: string): string {
  const key = createHash("sha256")
    .update(solc.version())
    .update(JSON.stringify(settings))
    .update(JSON.stringify(Object.entries(sources).sort(([a], [b]) => a.localeCompare(b))))
    .digest("hex")
    .slice(0, 24);
  return join(CACHE_DIR, `${label}-${key}.json`);
}

function compile(solc: Solc, sources: Record<string, string>, settings: object, label: string): Artifacts {
  const cacheFile = cacheFileOf(solc, sources, settings, label);
  if (existsSync(cacheFile)) return JSON.parse(readFileSync(cacheFile, "utf8")) as Artifacts;

  const input = {
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([unit, content]) => [unit, { content }])),
    settings: {
      ...settings,
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(`solc (${label}) failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);

  const artifacts: Artifacts = {};
  for (const [unit, contracts] of Object.entries(output.contracts)) {
    for (const [name, c] of Object.entries(contracts)) {
      const artifact = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex, deployedBytecode: `0x${c.evm.deployedBytecode.object}` as Hex };
      // Project contracts are addressed by name; a clash would be ambiguous, so keep the unit too.
      artifacts[`${unit}:${name}`] = artifact;
      if (unit.startsWith("contracts/") || !artifacts[name]) artifacts[name] = artifact;
    }
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(artifacts));
  return artifacts;
}

/** The project's own contracts (simulators, registry, devnet tokens, feeds). */
export function compileProject(): Artifacts {
  const entries = listSolidity(join(ROOT, "contracts")).map((f) => relative(ROOT, f).replaceAll("\\", "/"));
  const sources = collectSources(entries, ROOT);
  return compile(require("solc") as Solc, sources, { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", viaIR: false }, "project");
}

/** Permit2's build: the source v4-periphery vendors, with the settings of its own foundry.toml. */
function permit2Build(): [Solc, Record<string, string>, object, string] {
  const base = join(NODE_MODULES, "@uniswap/v4-periphery/lib/permit2");
  return [
    require("solc-0.8.17") as Solc,
    collectSources(["src/Permit2.sol"], base),
    { optimizer: { enabled: true, runs: 1_000_000 }, viaIR: true, evmVersion: "london" },
    "permit2",
  ];
}

/** Permit2, compiled from the source v4-periphery vendors, with the settings of its own foundry.toml. */
export function compilePermit2(): Artifact {
  return compile(...permit2Build()).Permit2!;
}

/**
 * Both builds, side by side when neither is cached (a fresh clone): Permit2 (via IR, about as
 * long as the whole project) in a child process while this one compiles the project, so a
 * first deployment waits for the slower of the two rather than both. Each lands in the cache
 * that `compileProject()` and `compilePermit2()` read; the project's artifacts are returned.
 */
export async function compileAll(): Promise<Artifacts> {
  const permit2Cached = existsSync(cacheFileOf(...permit2Build()));
  const child = permit2Cached
    ? undefined
    : spawn(process.execPath, ["--import", "tsx/esm", fileURLToPath(import.meta.url), "permit2"], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child?.stderr?.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4_000)));
  const exited = child && new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  // The child is waited for either way: never left compiling behind a failure here.
  let failure: unknown;
  let project: Artifacts | undefined;
  try {
    project = compileProject();
  } catch (error) {
    failure = error;
  }
  const code = await exited;
  if (failure || !project) throw failure;
  if (child && code !== 0) throw new Error(`compiling Permit2 failed (exit ${code}):\n${stderr}`);
  return project;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  if (process.argv[2] === "permit2") compilePermit2();
  else {
    const names = Object.keys(await compileAll()).filter((k) => !k.includes(":"));
    compilePermit2();
    console.log(`compiled ${names.length} contracts and Permit2 in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  }
}
