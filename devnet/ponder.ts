/**
 * Runs ponder (indexer + API on one port) as a child process. Ponder's build id hashes
 * only its config, `ponder.schema.ts` and `src/`, so the database schema is named after a
 * content hash of everything the indexer's output depends on: a code change means a fresh
 * schema and a full reindex, never tables computed by older code.
 */
import { forEachLine, settlesWithin } from "../common/async.js";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "./compile.js";
import { VIEWS_SCHEMA } from "../common/constants.js";

const HASHED = ["indexer", "schema", "src", "common", "ponder.config.ts", "ponder.schema.ts", "package-lock.json"];

function filesUnder(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full).flatMap((name) => filesUnder(join(path, name)));
}

/** `lp_<12 hex>`: stable for the same indexer code, new for any change. */
export function ponderSchemaName(): string {
  const hash = createHash("sha256");
  for (const file of HASHED.flatMap(filesUnder).sort()) {
    hash.update(relative(ROOT, file));
    hash.update(readFileSync(file));
  }
  return `lp_${hash.digest("hex").slice(0, 12)}`;
}

export type PonderHandle = { url: string; process: ChildProcess; stop: () => Promise<void> };

export function startPonder(options: {
  port: number;
  env: Record<string, string>;
  schema?: string;
  viewsSchema?: string;
  logLevel?: string;
  /** Ponder's own log lines: json (default) or pretty. */
  logFormat?: "pretty" | "json";
  /** Another ponder project (e.g. the bench's bare app); defaults to this one. */
  root?: string;
  /** `start` (index and serve) or `serve` (serve an already indexed schema). */
  command?: "start" | "serve";
  onLog?: (line: string) => void;
}): PonderHandle {
  const args = [
    join(ROOT, "node_modules", "ponder", "dist", "esm", "bin", "ponder.js"),
    ...(options.root ? ["--root", options.root] : []),
    options.command ?? "start",
    "--schema",
    options.schema ?? ponderSchemaName(),
    ...(options.command === "serve" ? [] : ["--views-schema", options.viewsSchema ?? VIEWS_SCHEMA]),
    "--port",
    String(options.port),
    "--hostname",
    "127.0.0.1",
    "--log-format",
    options.logFormat ?? "json",
    "--log-level",
    options.logLevel ?? "warn",
  ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...options.env, PORT: String(options.port), PONDER_TELEMETRY_DISABLED: "true" },
    stdio: ["ignore", "pipe", "pipe"],
    // Own process group: Ctrl-C reaches only the parent, which stops children in order.
    detached: true,
  });
  forEachLine(child.stdout!, (line) => options.onLog?.(line));
  forEachLine(child.stderr!, (line) => options.onLog?.(line));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url: `http://127.0.0.1:${options.port}`,
    process: child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      if (!(await settlesWithin(exited, 10_000))) child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * An API replica: `ponder serve` on the schema a `ponder start` indexes (same code, same
 * `DATABASE_URL`), answering REST, GraphQL and pages from the same tables without indexing.
 * Replicas share their rate limits and hear of new blocks through PostgreSQL (README, "API
 * replicas"); run as many as the database's connections allow.
 */
export function startApiReplica(options: Omit<Parameters<typeof startPonder>[0], "command" | "viewsSchema" | "root">): PonderHandle {
  return startPonder({ ...options, command: "serve" });
}

/**
 * Waits until a ponder process (indexer or replica) answers `/ready` with 200: its schema
 * indexed to the chain's head once. Given the handle, fails at once if the process exits.
 */
export async function waitForReady(target: string | PonderHandle, timeoutMs = 120_000): Promise<void> {
  const url = typeof target === "string" ? target : target.url;
  const child = typeof target === "string" ? undefined : target.process;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null))
      throw new Error(`ponder at ${url} exited (${child.exitCode ?? child.signalCode}) before it was ready`);
    if (
      await fetch(`${url}/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (Date.now() > deadline) throw new Error(`ponder at ${url} was not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Waits until ponder's /status shows the chain indexed to at least `block`. Given the
 * handle, fails at once if the process exits.
 */
export async function waitForIndexed(target: string | PonderHandle, block: bigint | number, timeoutMs = 120_000): Promise<void> {
  const url = typeof target === "string" ? target : target.url;
  const child = typeof target === "string" ? undefined : target.process;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`ponder at ${url} exited (${child.exitCode ?? child.signalCode}) before reaching block ${block}`);
    }
    try {
      const res = await fetch(`${url}/status`);
      if (res.ok) {
        const status = (await res.json()) as Record<string, { block?: { number: number } }>;
        const reached = Object.values(status)[0]?.block?.number ?? -1;
        if (reached >= Number(block)) return;
      }
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`ponder at ${url} did not reach block ${block} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
