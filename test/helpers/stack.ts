/**
 * `npm start` as a process for the stack suites: started with an environment of the test's own
 * (its ports, data directory, database and RPC), its output kept, its health polled, its
 * process tree listed and killed. Every suite that drives the whole stack starts it here.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "../../devnet/compile.js";

export const ENGINE_MAIN = join(ROOT, "engine", "main.ts");
export const PONDER_BIN = join(ROOT, "node_modules", "ponder", "dist", "esm", "bin", "ponder.js");

export type Proc = { pid: number; ppid: number; args: string };

/** Every process of the machine, with its parent and command line. */
export function processes(): Proc[] {
  return execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" })
    .trim()
    .split("\n")
    .map((l) => {
      const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l)!;
      return { pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! };
    });
}

/** Every process below `pid` (the children `npm start` spawned in their own process groups included). */
export function descendants(pid: number, table = processes()): Proc[] {
  const out: Proc[] = [];
  const walk = (p: number) => {
    for (const c of table) if (c.ppid === p) (out.push(c), walk(c.pid));
  };
  walk(pid);
  return out;
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export type StackHealth = { status: string; reasons: string[]; since?: string; leader: { holder: string; epoch: string; since: string } | null };

export type Stack = {
  child: ChildProcess;
  env: Record<string, string>;
  /** The last `keep` characters of npm start's stdout and stderr (its children's lines included). */
  output: () => string;
  /** GET /api/v1/health: its status code and body, undefined while nothing answers. */
  health: () => Promise<{ code: number; body: StackHealth } | undefined>;
  /** Polls `probe` every second until it returns a value; fails at once if npm start exits. */
  waitFor: <T>(what: string, ms: number, probe: () => Promise<T | undefined>) => Promise<T>;
  /** The indexer's lag: the chain's head (from `rpcUrl`) minus the block ponder's /status reports. */
  indexerLag: (rpcUrl: string) => Promise<number>;
  /** SIGKILL to the whole tree at once (no process gets to clean up); resolves when every one is gone. */
  killAll: () => Promise<void>;
};

/** Starts `npm start` (scripts/start.ts) with `env` over this process's environment. */
export function startStack(env: Record<string, string>, options: { keep?: number } = {}): Stack {
  const keep = options.keep ?? 40_000;
  let output = "";
  const child = spawn(process.execPath, ["--import", "tsx/esm", join(ROOT, "scripts", "start.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-keep)));
  child.stderr!.on("data", (d: Buffer) => (output = (output + d.toString()).slice(-keep)));
  const api = `http://127.0.0.1:${env.PORT}`;
  /** The last answer of /health, whatever its status: named when a wait fails. */
  let lastHealth = "";
  return {
    child,
    env,
    output: () => output,
    async health() {
      let text: string;
      let code: number;
      try {
        const res = await fetch(`${api}/api/v1/health`, { signal: AbortSignal.timeout(5_000) });
        code = res.status;
        text = await res.text();
      } catch (error) {
        lastHealth = `unreachable: ${(error as Error).message}`;
        return undefined;
      }
      lastHealth = `${code} ${text}`;
      try {
        return { code, body: JSON.parse(text) as StackHealth };
      } catch {
        return undefined;
      }
    },
    async waitFor(what, ms, probe) {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        if (child.exitCode !== null) throw new Error(`npm start exited (${child.exitCode}) while waiting for ${what}\n${output.slice(-6_000)}`);
        const v = await probe();
        if (v) return v;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      throw new Error(`${what} not reached in ${ms / 1000} s\n--- last /health ---\n${lastHealth.slice(0, 2_000)}\n--- npm start output ---\n${output.slice(-8_000)}`);
    },
    async indexerLag(rpcUrl) {
      const head = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
        signal: AbortSignal.timeout(3_000),
      })
        .then((r) => r.json() as Promise<{ result: string }>)
        .then((b) => Number(BigInt(b.result)));
      const status = (await fetch(`${api}/status`, { signal: AbortSignal.timeout(3_000) }).then((r) => r.json())) as Record<string, { block: { number: number } }>;
      return head - Object.values(status)[0]!.block.number;
    },
    async killAll() {
      if (!child.pid) return;
      const all = [child.pid, ...descendants(child.pid).map((p) => p.pid)];
      for (const pid of all) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      // As after a power cut, the next start finds no process of the old one.
      for (let i = 0; i < 100 && all.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    },
  };
}
