/**
 * `npm start` as a process for the stack suites: started with an environment of the test's own
 * (its ports, data directory, database and RPC), its output kept, its health polled, its
 * process tree listed and killed. Every suite that drives the whole stack starts it here.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { ROOT } from "../../devnet/compile.js";
import { freePort } from "./ports.js";

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

/** A process's environment variable, or undefined (the process is gone, or the variable unset). */
export function envOf(pid: number, name: string): string | undefined {
  try {
    const prefix = `${name}=`;
    return readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .find((entry) => entry.startsWith(prefix))
      ?.slice(prefix.length);
  } catch {
    return undefined;
  }
}

/** Every process below `pid` (the children `npm start` spawned in their own process groups included). */
export function descendants(pid: number, table = processes()): Proc[] {
  const out: Proc[] = [];
  const walk = (p: number) => {
    for (const c of table) {
      if (c.ppid !== p) continue;
      out.push(c);
      walk(c.pid);
    }
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

/**
 * The environment of an `npm start` on embedded defaults in `dir` (its own anvil, PostgreSQL
 * and ports; workers at a hundredth of their intervals), with the test harness's own
 * `DATABASE_URL` and `RPC_URL` removed so they cannot leak into the stack.
 */
export async function embeddedStackEnv(dir: string): Promise<Record<string, string>> {
  for (const name of ["DATABASE_URL", "RPC_URL"]) delete process.env[name];
  return {
    DATA_DIR: dir,
    PORT: String(await freePort()),
    ANVIL_PORT: String(await freePort()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    DEPLOYMENTS_FILE: join(dir, "deployments.json"),
    WORKER_INTERVAL_SCALE: "0.01",
    LOG_LEVEL: "warn",
    LOG_FORMAT: "json",
  };
}

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
      throw new Error(
        `${what} not reached in ${ms / 1000} s\n--- last /health ---\n${lastHealth.slice(0, 2_000)}\n--- npm start output ---\n${output.slice(-8_000)}`,
      );
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
      const status = (await fetch(`${api}/status`, { signal: AbortSignal.timeout(3_000) }).then((r) => r.json())) as Record<
        string,
        { block: { number: number } }
      >;
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

/** What the engine's CLI audit (`engine/cli.ts audit --json`) reported, with its exit code. */
export type AuditRun = { code: number; out: string; report?: { ok: boolean; settled: boolean; pending: unknown[]; checks: string[]; differences?: unknown[] } };

/** How long one audit run waits for a moment with nothing in flight (`audit --settle`). */
export const AUDIT_SETTLE_SECONDS = 20;

/**
 * Runs the three-way audit through the engine CLI, which finds the stack in DATA_DIR's
 * connection file (`env` overrides its variables), with `--settle`: the stack's workers run at
 * a hundredth of their intervals beside a trading market, so the engine is idle only between
 * cycles. Asynchronous: a fault proxy in this process keeps forwarding while the CLI runs.
 */
export async function cliAudit(dataDir: string, env: Record<string, string> = {}): Promise<AuditRun> {
  const args = ["--import", "tsx/esm", join(ROOT, "engine", "cli.ts"), "audit", "--json", "--settle", String(AUDIT_SETTLE_SECONDS)];
  const run = await new Promise<{ code: number; out: string }>((resolve) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: "error", DATABASE_URL: "", RPC_URL: "", ...env },
        encoding: "utf8",
        maxBuffer: 64 << 20,
      },
      (error, stdout) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout ?? "" });
      },
    );
  });
  let report: AuditRun["report"];
  try {
    report = run.out ? JSON.parse(run.out) : undefined;
  } catch {
    report = undefined;
  }
  return { ...run, report };
}

/**
 * Every operator transaction is one mined intent: the operator's nonce on chain equals its
 * deployment (the transactions it sent in the blocks before the engine's first intent) plus the intents mined or
 * reverted, whose nonces run without gap or repeat from there, and no intent still holding a
 * nonce below it. Read while the stack runs, so a transaction mined between the two reads
 * makes it wrong for a moment: call it until it holds (`ok`), `detail` says why not.
 */
export async function operatorNonceAccounting(
  databaseUrl: string,
  rpcUrl: string,
  operator: string,
): Promise<{ ok: boolean; detail: string; deployment?: number; chainNonce?: number; mined?: number }> {
  const call = async <T>(method: string, params: unknown[]): Promise<T> => {
    const res = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(5_000),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => {});
  await client.connect();
  try {
    const mine = "lower(coalesce(signer, $1)) = lower($1)";
    const { rows } = await client.query(
      `SELECT nonce, status, block_number::text AS block FROM engine.tx_intents WHERE ${mine} AND nonce IS NOT NULL AND status IN ('mined', 'reverted', 'signed', 'broadcast') ORDER BY nonce`,
      [operator],
    );
    const chainNonce = Number(BigInt(await call<string>("eth_getTransactionCount", [operator, "latest"])));
    const done = rows.filter((r) => r.status === "mined" || r.status === "reverted");
    if (!done.length) return { ok: false, detail: "no operator intent mined yet", chainNonce };
    const first = done.reduce((a, r) => (Number(r.block) < Number(a.block) ? r : a));
    // The operator's transactions in the blocks before it (a devnet loaded from its saved state
    // keeps its blocks, not the state at each: no eth_getTransactionCount at an old block).
    let deployment = 0;
    for (let b = 0; b < Number(first.block); b += 20) {
      const blocks = await Promise.all(
        Array.from({ length: Math.min(20, Number(first.block) - b) }, (_, i) =>
          call<{ transactions: { from: string }[] } | null>("eth_getBlockByNumber", [`0x${(b + i).toString(16)}`, true]),
        ),
      );
      for (const block of blocks) deployment += (block?.transactions ?? []).filter((t) => t.from.toLowerCase() === operator.toLowerCase()).length;
    }
    const nonces = done.map((r) => Number(r.nonce));
    const expected = Array.from({ length: chainNonce - deployment }, (_, i) => deployment + i);
    const inFlightBelow = rows.filter((r) => (r.status === "signed" || r.status === "broadcast") && Number(r.nonce) < chainNonce);
    const ok = JSON.stringify(nonces) === JSON.stringify(expected) && inFlightBelow.length === 0;
    const detail = ok
      ? `operator nonce ${chainNonce} = deployment ${deployment} + ${done.length} mined intents`
      : `operator nonce ${chainNonce}, deployment ${deployment}, ${done.length} mined or reverted intents (nonces ${nonces.slice(0, 3).join(",")}…${nonces.slice(-5).join(",")}; missing ${
          expected
            .filter((n) => !nonces.includes(n))
            .slice(0, 10)
            .join(",") || "none"
        }; repeated ${
          nonces
            .filter((n, i) => nonces.indexOf(n) !== i)
            .slice(0, 10)
            .join(",") || "none"
        }; beyond the chain ${
          nonces
            .filter((n) => n >= chainNonce)
            .slice(0, 10)
            .join(",") || "none"
        }); in flight below it: ${inFlightBelow.map((r) => `${r.nonce}:${r.status}`).join(",") || "none"}`;
    return { ok, detail, deployment, chainNonce, mined: done.length };
  } finally {
    await client.end().catch(() => {});
  }
}
