/**
 * Starts the real anvil binary that `@foundry-rs/anvil` ships as a platform package.
 * Automine by default (tests); `blockTime` for the live devnet of `npm start`.
 */
import { settlesWithin } from "../common/async.js";
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { DEVNET_CHAIN_ID } from "../common/config.js";

const require = createRequire(import.meta.url);

const ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

export function anvilBinary(): string {
  const pkg = `@foundry-rs/anvil-${process.platform}-${ARCH[process.arch] ?? process.arch}`;
  return join(dirname(require.resolve(`${pkg}/package.json`)), "bin", "anvil");
}

export type AnvilHandle = { rpcUrl: string; process: ChildProcess; stop: () => Promise<void> };

export type AnvilOptions = {
  port: number;
  chainId?: number;
  /** Seconds between blocks; omit for automine. */
  blockTime?: number;
  /** Load the chain from this file at start and dump it there periodically and at exit. */
  stateFile?: string;
  /** Load the chain from this file at start, without ever writing it back. */
  loadStateFile?: string;
  onLog?: (line: string) => void;
  /** Block gas limit (default 60M). */
  gasLimit?: number;
  /** Run in its own process group, so a terminal's Ctrl-C reaches only the parent. */
  detached?: boolean;
};

/** Polls `eth_chainId` until the node answers. */
export async function waitForRpc(rpcUrl: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`RPC at ${rpcUrl} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function startAnvil(options: AnvilOptions): Promise<AnvilHandle> {
  const args = [
    "--port", String(options.port),
    "--host", "127.0.0.1",
    "--chain-id", String(options.chainId ?? DEVNET_CHAIN_ID),
    "--disable-code-size-limit",
    "--gas-limit", String(options.gasLimit ?? 60_000_000),
    "--accounts", "10",
    "--balance", "1000000",
  ];
  if (options.blockTime) args.push("--block-time", String(options.blockTime));
  if (options.stateFile) args.push("--state", options.stateFile, "--state-interval", "5");
  if (options.loadStateFile) args.push("--load-state", options.loadStateFile);
  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"], detached: options.detached ?? false });
  const forward = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) options.onLog?.(line);
  };
  child.stdout.on("data", forward);
  child.stderr.on("data", forward);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const rpcUrl = `http://127.0.0.1:${options.port}`;
  try {
    await Promise.race([
      waitForRpc(rpcUrl),
      exited.then(() => {
        throw new Error(`anvil exited during start (port ${options.port} in use?)`);
      }),
    ]);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }

  return {
    rpcUrl,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      if (!(await settlesWithin(exited, 5_000))) child.kill("SIGKILL");
    },
  };
}
