/** Shared helpers of the engine suites: child processes, private anvils, raw RPC calls. */
import { type ChildProcess, spawn } from "node:child_process";
import type pg from "pg";
import type { Address } from "viem";
import { clankerFeeLockerAbi } from "../../common/abis/clanker.js";
import { type Server, type Socket, connect, createServer } from "node:net";
import { join } from "node:path";
import { ROOT } from "../../devnet/compile.js";
import { forEachLine } from "../../common/async.js";
import { freePort } from "../helpers/ports.js";
import type { PrivateDevnet } from "./devnet.js";

export type ChildResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs a TypeScript file in a child node process (tsx loader, one process) and resolves when it exits. */
export function runTs(
  file: string,
  env: Record<string, string>,
  options: { timeoutMs?: number; onStdout?: (line: string) => void } = {},
): Promise<ChildResult> & { child: ChildProcess } {
  const child = spawn(process.execPath, ["--import", "tsx", join(ROOT, file), ...(env.ARGS ? env.ARGS.split(" ") : [])], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
  if (options.onStdout) forEachLine(child.stdout!, options.onStdout);
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
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export const lines = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));

export type Proxy = {
  /** `target` with the proxy's host and port (an RPC or a PostgreSQL URL). */
  url: string;
  /** Drops every open connection and refuses new ones (an outage the client sees at once). */
  pause: () => void;
  /** Keeps every connection open but forwards nothing, and holds new ones unanswered (a partition). */
  freeze: () => void;
  resume: () => void;
  close: () => Promise<void>;
};

/** A TCP proxy to the host and port of `target` (any URL), which the test can pause or freeze. */
export async function startProxy(target: string): Promise<Proxy> {
  const url = new URL(target);
  const sockets = new Set<Socket>();
  let refusing = false;
  let frozen = false;
  const server: Server = createServer((client) => {
    if (refusing) return void client.destroy();
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    if (frozen) return void client.on("error", () => client.destroy());
    const upstream = connect(Number(url.port), url.hostname);
    sockets.add(upstream);
    upstream.on("close", () => sockets.delete(upstream));
    for (const s of [client, upstream]) {
      s.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on("data", (b) => void (frozen || upstream.write(b)));
    upstream.on("data", (b) => void (frozen || client.write(b)));
    client.on("end", () => upstream.end());
    upstream.on("end", () => client.end());
  });
  const listenPort = await freePort();
  await new Promise<void>((resolve) => server.listen(listenPort, "127.0.0.1", resolve));
  const proxied = new URL(target);
  proxied.hostname = "127.0.0.1";
  proxied.port = String(listenPort);
  return {
    url: proxied.toString().replace(/\/$/, ""),
    pause: () => {
      refusing = true;
      for (const s of sockets) s.destroy();
    },
    freeze: () => {
      frozen = true;
    },
    resume: () => {
      refusing = false;
      frozen = false;
    },
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Everything the fee locker paid `operator` in `currency` (USDC by default), from the chain's ClaimTokens logs. */
export async function claimedOnchain(d: PrivateDevnet, operator: Address, currency: Address = d.c.usdc!): Promise<bigint> {
  const logs = await d.as(1).publicClient.getLogs({
    address: d.c.feeLocker,
    event: clankerFeeLockerAbi.find((e) => e.type === "event" && e.name === "ClaimTokens") as never,
    args: { feeOwner: operator, token: currency } as never,
    fromBlock: 0n,
  });
  return (logs as unknown as { args: { amountClaimed: bigint } }[]).reduce((s, l) => s + l.args.amountClaimed, 0n);
}

/** What the ledger attributed of the fees claimed in `currency` (attributions plus unattributed revenue). */
export async function attributed(pool: pg.Pool, currency: "USDC" | "WETH" = "USDC"): Promise<bigint> {
  const { rows } = await pool.query(
    "SELECT COALESCE(SUM(amount), 0)::text AS s FROM engine.ledger WHERE currency = $1 AND kind IN ('fee-claimed', 'unattributed')",
    [currency],
  );
  return BigInt(rows[0].s);
}

/** A warm price window for `feed`: the samples `cycles` price-sampler cycles would record at `price` (8 decimals). */
export async function warmPriceWindow(pool: pg.Pool, feed: string, price: bigint, cycles: number): Promise<void> {
  for (let i = 0; i < cycles; i++) {
    await pool.query("INSERT INTO engine.price_samples (feed, price, decimals, round_id, updated_at) VALUES ($1, $2, 8, $3, 0)", [
      feed,
      price.toString(),
      String(i),
    ]);
  }
}
