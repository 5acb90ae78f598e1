/** Shared helpers of the engine suites: child processes, private anvils, raw RPC calls. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../../devnet/compile.js";


export type ChildResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs a TypeScript file in a child node process (tsx loader, one process) and resolves when it exits. */
export function runTs(file: string, env: Record<string, string>, options: { timeoutMs?: number; onStdout?: (line: string) => void } = {}): Promise<ChildResult> & { child: ChildProcess } {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, file), ...(env.ARGS ? env.ARGS.split(" ") : [])], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (options.onStdout) for (const line of d.toString().split("\n")) if (line.trim()) options.onStdout(line);
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  const done = new Promise<ChildResult>((resolve) => {
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return Object.assign(done, { child });
}

/** One JSON-RPC call. */
export async function rpc<T = unknown>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export const lines = (out: string) => out.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
