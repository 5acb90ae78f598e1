/**
 * `npm start`: the whole service on embedded defaults.
 *   PostgreSQL (embedded, data in .data/postgres) unless DATABASE_URL is set;
 *   the anvil devnet (state in .data/anvil), deployed on first start, unless RPC_URL is set;
 *   ponder (indexer + API) and the engine as child processes.
 * API_REPLICAS=N (default 1) adds N−1 API replicas (`ponder serve` on the indexed schema) on
 * the ports after PORT. MARKET_AUCTION_BID_WETH (default 0.001; 0 turns it off) is what the
 * devnet's market simulator bids in every new launch's sniper auction.
 * Ctrl-C stops everything; the next start resumes on the same data. Where the database, chain
 * and deployments are (and the devnet's secrets) goes to .data/connection.json for the engine CLI.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import pg from "pg";
import { parseEther } from "viem";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY, DEPLOYMENTS_PATH, loadConfigOrExit, readDeployments } from "../common/config.js";
import { dataDir, writeConnectionFile } from "../common/connection-file.js";
import { diskFull } from "../common/disk.js";
import { createLogger, lineRelay, resolveLogFormat } from "../common/logger.js";
import { type AnvilHandle, startAnvil, stateHistoryBlocksFromEnv } from "../devnet/anvil.js";
import { type MemoryBound, boundAnvilMemory } from "../devnet/memory-bound.js";
import { ROOT } from "../devnet/compile.js";
import { createDevnetContext } from "../devnet/context.js";
import { deployDevnet, writeDeployments } from "../devnet/deploy.js";
import { ensureDemoAgent } from "../devnet/demo-agent.js";
import { type Market, startMarket } from "../devnet/market.js";
import { dropIndex, findIndexRollback } from "../devnet/index-rollback.js";
import { watchIndexer } from "../devnet/indexer-watchdog.js";
import { EXIT_WITH_PARENT, type PonderHandle, ponderSchemaName, publishedSchema, startApiReplica, startPonder, waitForReady } from "../devnet/ponder.js";
import { type PostgresHandle, startPostgres } from "../devnet/postgres.js";

const DATA = dataDir(process.env);
/** Ports of the embedded PostgreSQL and the devnet (settable, e.g. to run a second stack beside the first). */
const POSTGRES_PORT = portFromEnv("EMBEDDED_POSTGRES_PORT", 54329);
const ANVIL_PORT = portFromEnv("ANVIL_PORT", 8545);
/** Where the devnet's addresses are written and read. */
const DEPLOYMENTS = process.env.DEPLOYMENTS_FILE || DEPLOYMENTS_PATH;

/** API processes to run: the indexer's own and API_REPLICAS − 1 replicas on the next ports. */
const API_REPLICAS = integerFromEnv("API_REPLICAS", 1, 1, 16);
/** The market simulator's WETH bid in each launch's auction block (undefined: its default). */
const AUCTION_BID_WEI = wethFromEnv("MARKET_AUCTION_BID_WETH");

function wethFromEnv(name: string): bigint | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  if (!/^\d{1,9}(\.\d{1,18})?$/.test(raw)) {
    process.stderr.write(`configuration error: ${name}: expected a WETH amount such as 0.001, or 0 (got "${raw}")\n`);
    process.exit(1);
  }
  return parseEther(raw);
}

function integerFromEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    process.stderr.write(`configuration error: ${name}: expected an integer from ${min} to ${max} (got "${raw}")\n`);
    process.exit(1);
  }
  return Number(raw);
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) {
    process.stderr.write(`configuration error: ${name}: expected an integer from 1 to 65535 (got "${raw}")\n`);
    process.exit(1);
  }
  return Number(raw);
}
const BLOCK_TIME_SECONDS = 1;
/** Past blocks whose state the devnet keeps for calls at a block number (docs/operations.md, "The devnet's memory"). */
const STATE_HISTORY_BLOCKS = stateHistoryBlocksOrExit();

function stateHistoryBlocksOrExit(): number | undefined {
  try {
    return stateHistoryBlocksFromEnv(process.env);
  } catch (error) {
    process.stderr.write(`configuration error: ${(error as Error).message}\n`);
    process.exit(1);
  }
}
const MARKET_INTERVAL_MS = 2_000;
/** Seconds between the devnet's state saves (a crash rolls the devnet back to its last save). */
const DEVNET_SAVE_SECONDS = integerFromEnv("DEVNET_SAVE_SECONDS", 5, 1, 3_600);
/** anvil's resident memory (MB) past which it is restarted without its call traces (devnet/memory-bound.ts); 0: never for memory. */
const ANVIL_MEMORY_MB = integerFromEnv("DEVNET_ANVIL_MEMORY_MB", 1024, 0, 1_000_000);

// Validate the user's environment before starting anything: a bad value stops here.
const initial = loadConfigOrExit();
const log = createLogger("start", initial.logLevel, initial.logFormat);
// The children (engine, ponder's API) write through this terminal or pipe: they log as this process does.
const env: Record<string, string> = { LOG_FORMAT: resolveLogFormat(initial.logFormat) };

let postgres: PostgresHandle | undefined;
let anvil: AnvilHandle | undefined;
let anvilBound: MemoryBound | undefined;
let ponder: PonderHandle | undefined;
const replicas: PonderHandle[] = [];
let engine: ChildProcess | undefined;
let market: Market | undefined;
let stopping = false;
/** An embedded PostgreSQL being started again after it exited (stopAll waits for it, then stops it). */
let postgresStarting: Promise<unknown> | undefined;

async function stopAll(code: number): Promise<never> {
  // Ctrl-C reaches this process more than once (terminal and tsx both forward it).
  if (stopping) return new Promise<never>(() => {});
  stopping = true;
  log.info("stopping");
  await market?.stop().catch(() => {});
  await stopProcess(engine, 30_000);
  // On Ctrl-C the terminal signals every child too; stopping one already gone is fine.
  await Promise.all(replicas.map((r) => r.stop().catch(() => {})));
  await ponder?.stop().catch(() => {});
  await (anvilBound ?? anvil)?.stop().catch(() => {});
  await postgresStarting?.catch(() => {});
  await postgres?.stop().catch(() => {});
  log.info("stopped");
  process.exit(code);
}
process.on("SIGINT", () => void stopAll(0));
process.on("SIGTERM", () => void stopAll(0));

/** Restarts: backoff doubling from 1 s to 30 s; a component that ran this long starts again from 1 s. */
const RESTART_MAX_MS = 30_000;
const RESTART_RESET_AFTER_MS = 60_000;
/** This many exits within a minute, with its dependencies reachable, is a crash loop: told loudly, restarted at the slowest pace. */
const FAST_FAILURES = 5;
/** The environment that makes a child stop when this supervisor dies. */
const supervisedEnv = { LAUNCHPAD_SUPERVISOR_PID: String(process.pid) };

/** Whether PostgreSQL and the RPC answer now (a component that exited while one was down is not a crash loop). */
async function dependenciesUp(childEnv: NodeJS.ProcessEnv): Promise<{ up: boolean; down: string[] }> {
  const down: string[] = [];
  const client = new pg.Client({ connectionString: childEnv.DATABASE_URL, connectionTimeoutMillis: 3_000 });
  client.on("error", () => {});
  const dbUp = await client.connect().then(
    () => client.query("SELECT 1").then(() => true),
    () => false,
  );
  await client.end().catch(() => {});
  if (!dbUp) down.push("PostgreSQL");
  const rpcUp = await fetch(childEnv.RPC_URL ?? "", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
    signal: AbortSignal.timeout(3_000),
  }).then(
    (r) => r.ok,
    () => false,
  );
  if (!rpcUp && childEnv.RPC_URL) down.push("the RPC");
  return { up: down.length === 0, down };
}

/** "; disk full: … on the filesystem of DATA_DIR" while that disk is full (PostgreSQL and the devnet write there), else "". */
const diskNote = () => {
  const full = diskFull(DATA);
  return full ? `; ${full}` : "";
};

/** Components waiting out their restart backoff: started at once when the embedded PostgreSQL is back. */
const waitingRestarts = new Set<() => void>();

/**
 * Runs a component and restarts it whenever it exits (a crash, an OOM kill, ponder giving up
 * after its database retries, exit 75), with backoff, while the rest of the stack stays up.
 * The stack is never stopped because one component exited: while its dependency (PostgreSQL,
 * the RPC) is down it is simply started again until the dependency is back; repeated fast
 * exits with every dependency up are logged as a crash loop and retried at the slowest pace.
 */
function supervise<T extends { process: ChildProcess }>(name: string, start: () => T, onStart: (handle: T) => void, childEnv: NodeJS.ProcessEnv): void {
  const exits: number[] = [];
  let failures = 0;
  const run = () => {
    const handle = start();
    const startedAt = Date.now();
    onStart(handle);
    handle.process.once("exit", (code, signal) => {
      if (stopping) return;
      const now = Date.now();
      if (now - startedAt > RESTART_RESET_AFTER_MS) failures = 0;
      failures++;
      exits.push(now);
      while (exits.length && exits[0]! < now - 60_000) exits.shift();
      void dependenciesUp(childEnv).then(({ down }) => {
        if (stopping) return;
        let delay = Math.min(RESTART_MAX_MS, 1_000 * 2 ** (failures - 1));
        if (down.length) {
          log.error(
            { code, signal, down, restartInMs: delay },
            `${name} exited while ${down.join(" and ")} ${down.length > 1 ? "are" : "is"} unreachable${diskNote()}; restarting it in ${delay / 1000} s (the rest of the stack stays up)`,
          );
        } else if (exits.length >= FAST_FAILURES) {
          delay = RESTART_MAX_MS;
          log.error(
            { code, signal, exits: exits.length, restartInMs: delay },
            `${name} exited ${exits.length} times within a minute with its dependencies up (a crash loop: see its last lines above); restarting it in ${delay / 1000} s`,
          );
        } else {
          log.error({ code, signal, restartInMs: delay }, `${name} exited; restarting it in ${delay / 1000} s (the rest of the stack stays up)`);
        }
        // Started after the backoff, or as soon as the embedded PostgreSQL is back (whichever is first).
        const restart = () => {
          if (!waitingRestarts.delete(restart)) return;
          clearTimeout(timer);
          if (!stopping) run();
        };
        const timer = setTimeout(restart, delay);
        waitingRestarts.add(restart);
      });
    });
  };
  run();
}

/** The embedded PostgreSQL's restarts: backoff doubling from 1 s to 10 s (it cannot start again while its disk is full). */
const POSTGRES_RESTART_MAX_MS = 10_000;

/** The embedded PostgreSQL's own lines worth the operator's eye: a PANIC, and a crash recovery that could not finish. */
const postgresLog = (line: string) => {
  if (/\bPANIC:|shutting down due to startup process failure|startup process .* exited with exit code/.test(line))
    log.warn({ line }, `postgres: ${line.replace(/^\S+ \S+ \S+ \[\d+\] /, "")}`);
};

/**
 * Keeps the embedded PostgreSQL running. PostgreSQL restarts its own backends after a crash,
 * but when its crash recovery cannot finish (on a full disk it PANICs as soon as it cannot add
 * a WAL segment, and its recovery cannot write either) the postmaster exits. It is started
 * again, with backoff, until it starts (once space is freed); the components then restart at
 * once rather than at the end of their own backoff. Meanwhile the API answers 503 with the
 * reason, and the engine waits in the same process (docs/operations.md, "Full disk").
 */
function superviseEmbeddedPostgres(first: PostgresHandle, start: () => Promise<PostgresHandle>): void {
  const watch = (handle: PostgresHandle) => {
    void handle.exited.then(async () => {
      if (stopping || postgres !== handle) return;
      const stoppedAt = Date.now();
      log.error(
        { code: handle.process.exitCode, signal: handle.process.signalCode },
        `embedded PostgreSQL exited${diskNote()}; starting it again (the rest of the stack waits for it)`,
      );
      for (let attempt = 1; !stopping; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(POSTGRES_RESTART_MAX_MS, 1_000 * 2 ** (attempt - 1))));
        if (stopping) return;
        const starting = start();
        postgresStarting = starting;
        try {
          const next = await starting;
          postgres = next;
          log.warn(
            { attempts: attempt, downSeconds: Math.round((Date.now() - stoppedAt) / 1000) },
            `embedded PostgreSQL is back after ${Math.round((Date.now() - stoppedAt) / 1000)} s; restarting the components that wait for it`,
          );
          for (const restart of [...waitingRestarts]) restart();
          watch(next);
          return;
        } catch (error) {
          // Told at the first failure and every minute or so after it, not at every try.
          if (attempt === 1 || attempt % 6 === 0) {
            log.error(
              { attempt, err: error instanceof Error ? error.message : String(error) },
              `embedded PostgreSQL could not start again${diskNote()}; retrying every ${POSTGRES_RESTART_MAX_MS / 1000} s`,
            );
          }
        } finally {
          if (postgresStarting === starting) postgresStarting = undefined;
        }
      }
    });
  };
  watch(first);
}

/** The engine as one node process (tsx as a loader, no wrapper process), which stops if this supervisor dies. */
function startEngineProcess(childEnv: NodeJS.ProcessEnv): { process: ChildProcess } {
  const child = spawn(process.execPath, ["--import", "tsx", "--import", EXIT_WITH_PARENT, join(ROOT, "engine", "main.ts")], {
    cwd: ROOT,
    env: { ...childEnv, ...supervisedEnv },
    stdio: ["ignore", "inherit", "inherit"],
    // Its own process group: Ctrl-C reaches only this process, which stops children in order.
    detached: true,
  });
  return { process: child };
}

/** Stops a supervised process: SIGTERM, then SIGKILL to its whole process group after `graceMs`. */
async function stopProcess(child: ChildProcess | undefined, graceMs: number): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  }, graceMs);
  await exited;
  clearTimeout(timer);
}

/**
 * On the local devnet, the secrets production sets by hand (the agent-key encryption secret and
 * the operator API key) are made once, kept in .data/secrets.json, and reused on every start.
 */
function devnetSecrets(): Record<string, string> {
  const file = join(DATA, "secrets.json");
  if (!existsSync(file)) {
    const secrets = { AGENT_KEY_SECRET: randomBytes(32).toString("hex"), OPERATOR_API_KEY: randomBytes(24).toString("base64url") };
    writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  }
  const stored = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
  return Object.fromEntries(Object.entries(stored).filter(([name]) => !process.env[name]));
}

async function main(): Promise<void> {
  mkdirSync(DATA, { recursive: true });

  if (initial.databaseUrl) {
    env.DATABASE_URL = initial.databaseUrl;
  } else {
    log.info("starting embedded PostgreSQL");
    const startEmbedded = () => startPostgres({ dataDir: join(DATA, "postgres"), port: POSTGRES_PORT, onLog: postgresLog });
    postgres = await startEmbedded();
    env.DATABASE_URL = postgres.url;
    superviseEmbeddedPostgres(postgres, startEmbedded);
  }

  if (!process.env.RPC_URL) {
    const stateDir = join(DATA, "anvil");
    mkdirSync(stateDir, { recursive: true });
    const stateFile = join(stateDir, "state.json");
    // The deployments file is written only once the deployed chain is saved (below): a state
    // without it was saved while the deployment ran, and the process died before it finished.
    // Nothing was built on it; it is kept aside and the devnet is deployed afresh.
    if (existsSync(stateFile) && !readDeployments(DEPLOYMENTS, DEVNET_CHAIN_ID)) {
      const aside = `${stateFile}.unfinished-${Date.now()}`;
      renameSync(stateFile, aside);
      log.warn(`the devnet in ${stateDir} was saved before its deployment finished: kept as ${aside}; deploying a fresh devnet`);
    }
    log.info("starting anvil devnet");
    // Saved every few seconds (longer as the state grows: a save pauses anvil), so a crash rolls
    // the devnet back by a few blocks only — within the indexer's own finality window.
    const anvilOptions = {
      port: ANVIL_PORT,
      stateFile,
      detached: true,
      saveIntervalSeconds: DEVNET_SAVE_SECONDS,
      stateHistoryBlocks: STATE_HISTORY_BLOCKS,
      onProgress: (message: string) => log.info(message),
    };
    anvil = await startAnvil(anvilOptions);
    const ctx = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
    const fresh = (await ctx.publicClient.getTransactionCount({ address: ctx.account.address })) === 0;
    if (!fresh && !readDeployments(DEPLOYMENTS, DEVNET_CHAIN_ID)) {
      throw new Error(`the devnet in ${stateDir} has no deployments file; remove ${stateDir} to start a fresh devnet`);
    }
    if (fresh) {
      // Deploy on automine (fast and deterministic: same addresses every run).
      const deployments = await deployDevnet(ctx, (step) => log.info(step));
      // Saved before anything is built on it: a crash from here on rolls the devnet back to a
      // deployed chain at worst, never into the middle of its deployment (whose operator
      // transactions no engine intent would send again: the operator's nonces would keep a gap).
      await anvil.saveState();
      writeDeployments(DEPLOYMENTS, { ...deployments, rpcUrl: anvil.rpcUrl });
      log.info("devnet deployed");
    }
    // From now on a block every second, like a live chain (mined by startAnvil's timer: anvil's
    // own interval mining would lift the state-history bound).
    await anvil.setBlockTime(BLOCK_TIME_SECONDS);
    // Restarted past its memory bound, or when it exits (devnet/memory-bound.ts).
    anvilBound = boundAnvilMemory(anvil, {
      limitBytes: ANVIL_MEMORY_MB > 0 ? ANVIL_MEMORY_MB * 1e6 : Number.POSITIVE_INFINITY,
      restart: async () => {
        const next = await startAnvil(anvilOptions);
        await next.setBlockTime(BLOCK_TIME_SECONDS);
        return next;
      },
      onRestarted: (next) => (anvil = next),
      log: (message) => log.warn(message),
    });
    env.RPC_URL = anvil.rpcUrl;
    env.WORKER_INTERVAL_SCALE = process.env.WORKER_INTERVAL_SCALE ?? "0.05";
    Object.assign(env, devnetSecrets());
  }

  // Re-validate with the devnet's addresses now on disk.
  const config = loadConfigOrExit({ ...process.env, ...env });
  const connectionFile = writeConnectionFile(DATA, {
    DATABASE_URL: env.DATABASE_URL,
    RPC_URL: env.RPC_URL ?? config.rpcUrl,
    CHAIN_ID: String(config.chainId),
    DEPLOYMENTS_FILE: DEPLOYMENTS,
    AGENT_KEY_SECRET: env.AGENT_KEY_SECRET ?? config.agentKeySecret,
    OPERATOR_API_KEY: env.OPERATOR_API_KEY ?? config.operatorApiKey,
  });
  log.info({ file: connectionFile }, "connection details written for the engine CLI");
  // Named after the indexer's code and the configuration it indexes: a change of either indexes
  // into a fresh schema, while the views keep reading the previous index until the new one is ready.
  const schema = ponderSchemaName(config);
  if (anvil) {
    // A crash rolled the devnet back: deeper than ponder's finality window, the index is rebuilt.
    const rollback = await findIndexRollback({ databaseUrl: env.DATABASE_URL!, schema, rpcUrl: env.RPC_URL!, chainId: config.chainId });
    if (rollback) {
      log.warn(
        { ...rollback, finalizedBlock: String(rollback.finalizedBlock), head: String(rollback.head) },
        `the devnet rolled back past the index's finalized block (${rollback.reason}): rebuilding the index from the devnet`,
      );
      await dropIndex({ databaseUrl: env.DATABASE_URL!, schema });
    }
  }
  const published = await publishedSchema(env.DATABASE_URL!).catch(() => undefined);
  if (published && published !== schema)
    log.warn(
      { schema, published },
      "the indexer's code or indexed configuration changed: indexing into a fresh schema; readers of the views keep the previous index until it is ready",
    );
  log.info({ schema }, "starting ponder (indexer + API)");
  const childEnv = { ...process.env, ...env };
  // ponder stops itself too if this supervisor dies (startPonder preloads EXIT_WITH_PARENT).
  // ponder and the API inside it write JSON; this process relays each line in its own format,
  // with an ISO time and the name of the process that wrote it (lineRelay).
  const ponderEnv = { ...env, LOG_FORMAT: "json" };
  const relayFormat = resolveLogFormat(config.logFormat);
  supervise(
    "ponder (indexer + API)",
    () =>
      startPonder({
        port: config.port,
        env: ponderEnv,
        schema,
        logLevel: config.logLevel === "info" ? "warn" : config.logLevel,
        logFormat: "json",
        onLog: lineRelay("ponder", relayFormat),
      }),
    (handle) => (ponder = handle),
    childEnv,
  );
  supervise(
    "the engine",
    () => startEngineProcess(childEnv),
    (handle) => (engine = handle.process),
    childEnv,
  );
  watchIndexer({
    apiUrl: `http://127.0.0.1:${config.port}`,
    rpcUrl: env.RPC_URL ?? config.rpcUrl,
    maxLagBlocks: config.indexerMaxLagBlocks,
    ponder: () => ponder,
    stopping: () => stopping,
    log,
  });

  if (anvil) {
    // The local devnet gets traders, fee collections, oracle moves and a perps keeper.
    const seed = Date.now() % 2 ** 31;
    log.info({ seed }, "starting the market simulator");
    market = startMarket({
      rpcUrl: anvil.rpcUrl,
      deployments: readDeployments(DEPLOYMENTS, DEVNET_CHAIN_ID)!,
      seed,
      intervalMs: MARKET_INTERVAL_MS,
      auctionBidWei: AUCTION_BID_WEI,
      log: createLogger("market", config.logLevel === "info" ? "warn" : config.logLevel, config.logFormat),
    });
  }

  const base = `http://127.0.0.1:${config.port}`;
  let prospectus: string | undefined = anvil ? (readDeployments(DEPLOYMENTS, DEVNET_CHAIN_ID)?.contracts.usdcPairedToken as string | undefined) : undefined;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`${base}/api/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  for (let i = 1; i < API_REPLICAS; i++) {
    const port = config.port + i;
    log.info({ port }, `starting API replica ${i + 1} of ${API_REPLICAS} (ponder serve)`);
    const replica = startApiReplica({
      port,
      env: { ...env, LOG_FORMAT: "json" },
      schema,
      logLevel: config.logLevel === "info" ? "warn" : config.logLevel,
      logFormat: "json",
      onLog: lineRelay(`api-${i + 1}`, relayFormat),
    });
    replica.process.once("exit", (code) => {
      if (!stopping) log.error({ code, port }, `API replica ${i + 1} exited; the other API processes keep serving`);
    });
    replicas.push(replica);
  }
  await Promise.all(replicas.map((r) => waitForReady(r).catch((error) => log.error({ err: (error as Error).message }, "an API replica did not start"))));
  if (anvil) {
    // The demo token of the agent flow, launched once per devnet through the API itself.
    try {
      const demo = await ensureDemoAgent({ apiBase: base, rpcUrl: anvil.rpcUrl, chainId: DEVNET_CHAIN_ID, dataDir: DATA, log: (line) => log.info(line) });
      prospectus = demo.agentId;
    } catch (error) {
      log.warn(
        { err: error instanceof Error ? error.message : String(error) },
        "the demo agent could not be launched; the page link shows a creator token instead",
      );
    }
  }
  process.stdout.write(
    [
      "",
      "launchpad is running",
      `  REST      ${base}/api/v1/health  (stats, activity, buybacks, tokens)`,
      `  GraphQL   ${base}/graphql  (GraphiQL in a browser)`,
      ...replicas.map((r, i) => `  Replica   ${r.url}  (API ${i + 2} of ${API_REPLICAS}: the same REST, GraphQL and pages)`),
      ...(prospectus ? [`  Page      ${base}/p/${prospectus}  (the demo agent's prospectus)`] : []),
      ...(anvil ? ["  Keys      .data/secrets.json  (OPERATOR_API_KEY for POST /api/v1/tokens/launch)"] : []),
      `  RPC       ${env.RPC_URL ?? config.rpcUrl}  (chain ${config.chainId})`,
      `  Postgres  ${env.DATABASE_URL.replace(/:[^:@/]+@/, ":***@")}`,
      `  Engine    npm run engine -- health | ledger  (finds everything in ${relative(process.cwd(), connectionFile) || connectionFile})`,
      "Ctrl-C stops everything.",
      "",
    ].join("\n"),
  );
}

main().catch((error) => {
  log.error({ err: error instanceof Error ? error.message : String(error) }, "start failed");
  void stopAll(1);
});
