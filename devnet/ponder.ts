/**
 * Runs ponder (indexer + API on one port) as a child process. Ponder's build id hashes
 * only its config, `ponder.schema.ts` and `src/`, so the database schema is named after a
 * content hash of everything the indexer's output depends on: its code and the configuration
 * it indexes (chain, start block, operator, protocol token, contract addresses). A change of
 * either means a fresh schema and a full reindex, never tables computed by older code or for
 * other addresses; ponder publishes the views schema onto the new tables only once they are
 * indexed to the head, so readers keep the old index until then.
 */
import { forEachLine, settlesWithin } from "../common/async.js";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "./compile.js";
import { VIEWS_SCHEMA } from "../common/constants.js";
import { type Config, loadConfig } from "../common/config.js";
import pg from "pg";
import { pathToFileURL } from "node:url";

/** Preloaded into a process that must stop when whoever started it dies (scripts/exit-with-parent.mjs), with `LAUNCHPAD_SUPERVISOR_PID` set to that parent. */
export const EXIT_WITH_PARENT = pathToFileURL(join(ROOT, "scripts", "exit-with-parent.mjs")).href;

const HASHED = ["indexer", "schema", "src", "common", "ponder.config.ts", "ponder.schema.ts", "package-lock.json"];

function filesUnder(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full).flatMap((name) => filesUnder(join(path, name)));
}

/** The configuration an index is computed from (what `ponder.config.ts` and `indexer/config.ts` read). */
export type IndexedConfig = Pick<Config, "chainId" | "startBlock" | "operator" | "protocolToken" | "contracts"> & Partial<Pick<Config, "gainsDiamond">>;

/** The indexed configuration as canonical text: keys sorted, addresses lower-case, absent values left out. */
export function indexedConfigText(config: IndexedConfig): string {
  const canonical = (value: unknown): unknown => {
    if (typeof value === "string") return value.toLowerCase();
    if (value && typeof value === "object")
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>)
          .filter(([, v]) => v !== undefined)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, v]) => [k, canonical(v)]),
      );
    return value;
  };
  return JSON.stringify(
    canonical({
      chainId: config.chainId,
      startBlock: config.startBlock ?? 0,
      operator: config.operator,
      protocolToken: config.protocolToken,
      contracts: config.contracts,
      // The gTrade diamond the index follows (on Base, Base's own: not among the deployments).
      gainsDiamond: config.gainsDiamond,
    }),
  );
}

/**
 * `lp_<12 hex>`: stable for the same indexer code and indexed configuration, new when either
 * changes (a new `PROTOCOL_TOKEN_ADDRESS`, `START_BLOCK`, chain or contract address included).
 */
export function ponderSchemaName(config: IndexedConfig): string {
  const hash = createHash("sha256");
  for (const file of HASHED.flatMap(filesUnder).sort()) {
    hash.update(relative(ROOT, file));
    hash.update(readFileSync(file));
  }
  hash.update("\0config\0");
  hash.update(indexedConfigText(config));
  return `lp_${hash.digest("hex").slice(0, 12)}`;
}

/**
 * The schema the views schema's tables currently read from (ponder points every view at the
 * index it publishes, in one transaction, once that index is ready), or `undefined` before any
 * index was published.
 */
export async function publishedSchema(databaseUrl: string, viewsSchema = VIEWS_SCHEMA): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ schema: string }>(
      `SELECT DISTINCT n.nspname AS schema
         FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid JOIN pg_class v ON v.oid = r.ev_class
         JOIN pg_namespace vn ON vn.oid = v.relnamespace JOIN pg_class t ON t.oid = d.refobjid
         JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE vn.nspname = $1 AND v.relname = '_ponder_meta' AND t.oid <> v.oid`,
      [viewsSchema],
    );
    return rows[0]?.schema;
  } finally {
    await client.end();
  }
}

export type PonderHandle = { url: string; process: ChildProcess; stop: () => Promise<void> };

export function startPonder(options: {
  port: number;
  env: Record<string, string>;
  /** The database schema to index into or serve; default `ponderSchemaName` of the configuration ponder will load. */
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
    // It stops when this process dies, even by SIGKILL (scripts/exit-with-parent.mjs): no ponder outlives whoever started it.
    "--import",
    EXIT_WITH_PARENT,
    join(ROOT, "node_modules", "ponder", "dist", "esm", "bin", "ponder.js"),
    ...(options.root ? ["--root", options.root] : []),
    options.command ?? "start",
    "--schema",
    options.schema ?? ponderSchemaName(loadConfig({ ...process.env, ...options.env })),
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
    env: { ...process.env, ...options.env, PORT: String(options.port), PONDER_TELEMETRY_DISABLED: "true", LAUNCHPAD_SUPERVISOR_PID: String(process.pid) },
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
 * handle, fails at once if the process exits; a failure says the last block reached and, for a
 * handle that keeps its log lines (`logs`), the last of them.
 */
export async function waitForIndexed(target: string | (PonderHandle & { logs?: string[] }), block: bigint | number, timeoutMs = 120_000): Promise<void> {
  const url = typeof target === "string" ? target : target.url;
  const child = typeof target === "string" ? undefined : target.process;
  const tail = () => (typeof target !== "string" && target.logs?.length ? `\nlast log lines:\n${target.logs.slice(-30).join("\n")}` : "");
  const deadline = Date.now() + timeoutMs;
  let reached = -1;
  for (;;) {
    if (child && (child.exitCode !== null || child.signalCode !== null)) {
      throw new Error(`ponder at ${url} exited (${child.exitCode ?? child.signalCode}) before reaching block ${block}${tail()}`);
    }
    try {
      const res = await fetch(`${url}/status`);
      if (res.ok) {
        const status = (await res.json()) as Record<string, { block?: { number: number } }>;
        reached = Object.values(status)[0]?.block?.number ?? -1;
        if (reached >= Number(block)) return;
      }
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      const at = reached < 0 ? "not serving /status" : `at block ${reached}`;
      throw new Error(`ponder at ${url} did not reach block ${block} within ${timeoutMs} ms (${at})${tail()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
