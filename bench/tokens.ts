/**
 * The `tokens` part (`npm run bench -- --part tokens`): the engine with 10, 1,000 and 10,000
 * enrolled tokens (`BENCH_TOKEN_SIZES` overrides, e.g. `10,1000`), each size on its own fresh
 * devnet. Fees flow on a sample of pools (one buy each through a BenchBatcher, so each sample
 * pool holds the fees of its last swap, which only a collect moves into the fee locker); the
 * engine runs in this process, its RPC behind a counting proxy and its database pool counted.
 *
 * Per size: how long launching and enrolling took; each worker's cycle (duration, RPC
 * requests by method, database queries), the fee-claimer's first cycle (the cache filled)
 * apart from its steady one; how many fee-claimer cycles until every sample token's fees are
 * claimed and attributed (and the bound that implies at the worker's interval); rows per
 * engine table.
 */
import { rmSync } from "node:fs";
import { type IncomingMessage, createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type pg from "pg";
import { type Address, getAddress, parseAbi } from "viem";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY, loadConfig } from "../common/config.js";
import { createLogger } from "../common/logger.js";
import { clankerLpLockerAbi } from "../common/abis/clanker.js";
import { startAnvil } from "../devnet/anvil.js";
import { compileProject } from "../devnet/compile.js";
import { createDevnetContext } from "../devnet/context.js";
import { deployDevnet, writeDeployments } from "../devnet/deploy.js";
import { devnetPrivateKey } from "../devnet/protocol.js";
import { freePort } from "../devnet/ports.js";
import { createEngine } from "../engine/runtime/engine.js";
import type { WorkerName } from "../engine/workers/index.js";
import { startPonder, waitForIndexed } from "../devnet/ponder.js";
import { BENCH_RATE_LIMIT_SCALE, type Bench, INDEXER_ENDPOINTS, endpointList } from "./lib.js";
import { launchEnrolledTokens } from "./tokens-launch.js";

export const TOKEN_SIZES = [10, 1_000, 10_000];
/** Pools that trade (and so hold fees waiting) at each size. */
export const FEE_SAMPLE = 100;
/** The workers measured, fee-claimer first (it fills the token cache the others read). */
const MEASURED: WorkerName[] = [
  "fee-claimer",
  "desk-manager",
  "desk-risk",
  "profit-checker",
  "price-sampler",
  "creator-buyback",
  "buyback-engine",
  "asset-engine",
  "auditor",
  "webhooks",
];
/** Requests per API read (after two warm-ups); the median is reported. */
const API_SAMPLES = 15;
/** At most this many fee-claimer cycles while waiting for the sample's fees to be booked. */
const MAX_CLAIM_CYCLES = Number(process.env.BENCH_TOKEN_MAX_CLAIM_CYCLES ?? 40);

export type WorkerCycle = { worker: string; ms: number; rpc: number; rpcByMethod: Record<string, number>; queries: number; ok: boolean; error?: string };
export type TokensSize = {
  tokens: number;
  batchSize: number;
  deploySeconds: number;
  launchSeconds: number;
  enrolSeconds: number;
  sample: number;
  firstClaimCycle: WorkerCycle;
  cycles: WorkerCycle[];
  claimCycles: number;
  claimSeconds: number;
  booked: number;
  rows: Record<string, number>;
  /** The API's answers at this size (ponder indexing the devnet, serving beside the engine's database). */
  api: ApiAnswer[];
};
/** One read of the API: its median and slowest latency over `API_SAMPLES` requests, and its size. */
export type ApiAnswer = { name: string; p50Ms: number; maxMs: number; bytes: number };
export type TokensResult = { sizes: TokensSize[]; batchSize: number };

const batcherAbi = parseAbi([
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "function addPools(PoolKey[] keys)",
  "function act(uint256[] swaps, address[] targets, bytes[] data)",
]);
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

/** An HTTP JSON-RPC proxy that counts requests by method (a batch counts each of its calls). */
async function startCountingProxy(target: string) {
  const counts = new Map<string, number>();
  let total = 0;
  const body = (req: IncomingMessage) =>
    new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => resolve(Buffer.concat(chunks)));
      req.on("error", reject);
    });
  const server = createServer(async (req, res) => {
    try {
      const raw = await body(req);
      const parsed = JSON.parse(raw.toString()) as { method: string } | { method: string }[];
      for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
        total++;
        counts.set(call.method, (counts.get(call.method) ?? 0) + 1);
      }
      const upstream = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body: raw.toString() });
      res.writeHead(upstream.status, { "content-type": "application/json" });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    } catch (error) {
      res.writeHead(502);
      res.end(String(error));
    }
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    snapshot: () => ({ total, byMethod: Object.fromEntries(counts) }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Counts the queries sent through `pool` (directly, and by clients it hands out for transactions). */
function countQueries(pool: pg.Pool): { count: () => number } {
  let n = 0;
  const wrap = <T extends { query: (...args: never[]) => unknown }>(target: T) => {
    const original = target.query.bind(target) as (...args: unknown[]) => unknown;
    (target as { query: unknown }).query = (...args: unknown[]) => {
      n++;
      return original(...args);
    };
  };
  wrap(pool);
  const wrapped = new WeakSet<object>();
  pool.on("connect", (client) => {
    if (!wrapped.has(client)) {
      wrapped.add(client);
      wrap(client);
    }
  });
  return { count: () => n };
}

const diffCounts = (a: Record<string, number>, b: Record<string, number>) =>
  Object.fromEntries(Object.entries(b).flatMap(([k, v]) => (v - (a[k] ?? 0) > 0 ? [[k, v - (a[k] ?? 0)]] : [])));

/** Block gas limit and state history of the part's devnets (see benchTokensSize). */
const TOKENS_BLOCK_GAS = 600_000_000;
const TOKENS_STATE_HISTORY = 128;

/** One size: a fresh devnet with `n` enrolled tokens, the engine measured on it. */
export async function benchTokensSize(bench: Bench, n: number, log: (m: string) => void): Promise<TokensSize> {
  // anvil keeps a full copy of the chain's state per recent block, and 10,000 tokens make that
  // state large: blocks of 600M gas (about 170 launches each) and 128 blocks of state history
  // keep it to a few GB (at 60M gas and anvil's default history, 10,000 launches passed 18 GB).
  // ponder's handlers read at the block of each event, all within those 128 blocks here.
  const anvil = await startAnvil({ port: await freePort(), chainId: DEVNET_CHAIN_ID, gasLimit: TOKENS_BLOCK_GAS, stateHistoryBlocks: TOKENS_STATE_HISTORY });
  const proxy = await startCountingProxy(anvil.rpcUrl);
  let stopEngine: (() => Promise<void>) | undefined;
  const deploymentsFile = join(tmpdir(), `bench-tokens-${process.pid}-${n}.json`);
  try {
    const t0 = performance.now();
    const operator = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
    const deployments = await deployDevnet(operator);
    const deploySeconds = (performance.now() - t0) / 1000;
    const { priceFeeds: _feeds, ...rest } = deployments.contracts;
    const c = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, getAddress(v as string)])) as Record<string, Address>;
    const launchers = [1, 2, 3, 4].map((i) => createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(i)));
    log(`  ${n} tokens: devnet deployed in ${deploySeconds.toFixed(0)} s; launching`);
    const launched = await launchEnrolledTokens({ rpcUrl: anvil.rpcUrl, c, operator, launchers }, n, { progress: (m) => log(`  ${m}`) });

    // Fees on a sample: one buy per sample pool, all through one BenchBatcher (50 swaps a transaction).
    const sample = launched.tokens.filter((_, i) => i % Math.max(1, Math.floor(n / FEE_SAMPLE)) === 0).slice(0, FEE_SAMPLE);
    const trader = createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(5));
    const batcher = await trader.deploy(compileProject().BenchBatcher!, [c.v4PoolManager!]);
    await operator.write(c.usdc!, mintAbi, "mint", [batcher, 1_000_000_000_000n]);
    // The batch's swaps share one unlock, settled at its end: from the second swap on, the hook pays
    // out the protocol fee the earlier ones minted (`take` of USDC) before any of the batch's USDC is
    // in. On Base the PoolManager holds every pool's USDC; a fresh devnet's holds none, so it is given some.
    await operator.write(c.usdc!, mintAbi, "mint", [c.v4PoolManager!, 1_000_000_000n]);
    const keys = [];
    for (const token of sample) {
      const info = await operator.read<{ poolKey: { currency0: Address; currency1: Address; fee: number; tickSpacing: number; hooks: Address } }>(
        c.lpLocker!,
        clankerLpLockerAbi as never,
        "tokenRewards",
        [token],
      );
      keys.push(info.poolKey);
    }
    for (let i = 0; i < keys.length; i += 50) await trader.write(batcher, batcherAbi, "addPools", [keys.slice(i, i + 50)]);
    for (let i = 0; i < keys.length; i += 50) {
      const swaps = keys.slice(i, i + 50).map((k, j) => (BigInt(i + j) << 129n) | (getAddress(k.currency0) === c.usdc ? 1n << 128n : 0n) | 100_000_000n);
      // A fixed gas limit: `act` skips a failed unlock, so an estimate would stop where the swaps run out of gas.
      const hash = await trader.walletClient.writeContract({
        address: batcher,
        abi: batcherAbi,
        functionName: "act",
        args: [swaps, [], []],
        gas: 500_000n + 400_000n * BigInt(swaps.length),
        account: trader.account,
        chain: trader.walletClient.chain,
      });
      const receipt = await trader.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.logs.length < swaps.length) throw new Error(`the sample's swaps did not run (tx ${hash}: ${receipt.logs.length} logs)`);
    }
    log(`  ${sample.length} sample pools traded`);

    writeDeployments(deploymentsFile, deployments);
    const databaseUrl = await bench.createDatabase("tokens");
    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      RPC_URL: proxy.url,
      CHAIN_ID: String(DEVNET_CHAIN_ID),
      DEPLOYMENTS_FILE: deploymentsFile,
      LOG_LEVEL: "warn",
    });
    const engine = await createEngine({ config, log: createLogger("engine", "warn"), pipeline: { pollMs: 50, maxWaitMs: 60_000 } });
    stopEngine = () => engine.stop();
    await engine.reconcile();
    const queries = countQueries(engine.ctx.pool);
    const cycle = async (worker: WorkerName): Promise<WorkerCycle> => {
      const rpc0 = proxy.snapshot();
      const q0 = queries.count();
      const started = performance.now();
      const outcome = await engine.runOnce(worker);
      const ms = performance.now() - started;
      const rpc1 = proxy.snapshot();
      return {
        worker,
        ms,
        rpc: rpc1.total - rpc0.total,
        rpcByMethod: diffCounts(rpc0.byMethod, rpc1.byMethod),
        queries: queries.count() - q0,
        ok: outcome.ok,
        ...(outcome.ok ? {} : { error: String(outcome.error) }),
      };
    };

    // Claims: fee-claimer cycles until every sample token has its fees booked.
    const booked = async () =>
      Number(
        (
          await engine.ctx.pool.query<{ n: string }>(
            "SELECT COUNT(DISTINCT token)::text AS n FROM engine.ledger WHERE kind = 'fee-claimed' AND token = ANY($1)",
            [sample.map((t) => getAddress(t))],
          )
        ).rows[0]!.n,
      );
    const claimStarted = performance.now();
    const firstClaimCycle = await cycle("fee-claimer");
    let claimCycles = 1;
    while ((await booked()) < sample.length && claimCycles < MAX_CLAIM_CYCLES) {
      const r = await cycle("fee-claimer");
      if (!r.ok) log(`  fee-claimer failed: ${r.error}`);
      claimCycles++;
    }
    const claimSeconds = (performance.now() - claimStarted) / 1000;
    const bookedTokens = await booked();
    log(`  ${bookedTokens}/${sample.length} sample tokens claimed and attributed after ${claimCycles} fee-claimer cycles (${claimSeconds.toFixed(1)} s)`);

    // A steady cycle of every worker (the fee-claimer's with nothing waiting).
    const cycles: WorkerCycle[] = [];
    for (const worker of MEASURED) {
      const r = await cycle(worker);
      if (!r.ok) log(`  ${worker} failed: ${r.error}`);
      cycles.push(r);
      log(`  ${worker}: ${r.ms.toFixed(0)} ms, ${r.rpc} RPC, ${r.queries} queries`);
    }
    const { rows: tables } = await engine.ctx.pool.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'engine' AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    const rows: Record<string, number> = {};
    for (const t of tables) {
      const { rows: r } = await engine.ctx.pool.query<{ n: string }>(`SELECT COUNT(*)::text AS n FROM engine."${t.name}"`);
      if (Number(r[0]!.n) > 0) rows[t.name] = Number(r[0]!.n);
    }
    const api = await measureApi({ rpcUrl: anvil.rpcUrl, databaseUrl, deploymentsFile, token: sample[0]!, log });
    return {
      tokens: n,
      batchSize: config.claimBatchSize,
      deploySeconds,
      launchSeconds: launched.launchSeconds,
      enrolSeconds: launched.enrolSeconds,
      sample: sample.length,
      firstClaimCycle,
      cycles,
      claimCycles,
      claimSeconds,
      booked: bookedTokens,
      rows,
      api,
    };
  } finally {
    await stopEngine?.().catch(() => {});
    await proxy.close();
    await anvil.stop();
    rmSync(deploymentsFile, { force: true });
  }
}

/**
 * The API at this size: ponder indexes the devnet (every launch and enrolment) on the engine's
 * database, then each read is timed: `/stats`, a `/tokens` page, a GraphQL `tokens` page and
 * the prospectus page of a traded token. Pages of 10: as many items at every size (the smallest
 * has 10 enrolled tokens and the protocol token), so the sizes compare like for like.
 */
async function measureApi(p: { rpcUrl: string; databaseUrl: string; deploymentsFile: string; token: Address; log: (m: string) => void }): Promise<ApiAnswer[]> {
  const started = performance.now();
  const head = await createDevnetContext(p.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY).publicClient.getBlockNumber();
  const ponder = startPonder({
    port: await freePort(),
    env: {
      DATABASE_URL: p.databaseUrl,
      RPC_URL: p.rpcUrl,
      // The indexing runs' endpoints: one would hold this reindex to ponder's 20 requests/s.
      INDEXER_RPC_URLS: endpointList(p.rpcUrl, INDEXER_ENDPOINTS),
      CHAIN_ID: String(DEVNET_CHAIN_ID),
      DEPLOYMENTS_FILE: p.deploymentsFile,
      RATE_LIMIT_SCALE: BENCH_RATE_LIMIT_SCALE,
    },
    schema: "app",
    logLevel: "warn",
  });
  try {
    await waitForIndexed(ponder, head, 1_800_000);
    p.log(`  indexed ${head} blocks in ${((performance.now() - started) / 1000).toFixed(0)} s; timing the API`);
    const gql = JSON.stringify({
      query:
        "{ tokens(first: 10) { totalCount edges { node { address symbol enrollment { creator } totals { feesToOperatorUsdc legs { protocolUsdc assetUsdc perpUsdc creatorUsdc operatorUsdc } } } } pageInfo { hasNextPage endCursor } } }",
    });
    const reads: { name: string; path: string; body?: string }[] = [
      { name: "GET /api/v1/stats", path: "/api/v1/stats" },
      { name: "GET /api/v1/tokens?limit=10", path: "/api/v1/tokens?limit=10" },
      { name: "GraphQL tokens(first: 10)", path: "/graphql", body: gql },
      { name: "GET /p/<token> (prospectus)", path: `/p/${p.token}` },
    ];
    const answers: ApiAnswer[] = [];
    for (const read of reads) {
      const once = async () => {
        const t0 = performance.now();
        const res = await fetch(
          `${ponder.url}${read.path}`,
          read.body ? { method: "POST", headers: { "content-type": "application/json" }, body: read.body } : {},
        );
        const text = await res.text();
        if (res.status !== 200 || (read.body && text.includes('"errors"'))) throw new Error(`${read.name}: ${res.status} ${text.slice(0, 300)}`);
        return { ms: performance.now() - t0, bytes: Buffer.byteLength(text) };
      };
      await once();
      await once();
      const samples = [];
      for (let i = 0; i < API_SAMPLES; i++) samples.push(await once());
      const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
      answers.push({ name: read.name, p50Ms: ms[Math.floor(ms.length / 2)]!, maxMs: ms[ms.length - 1]!, bytes: samples[samples.length - 1]!.bytes });
      p.log(`  ${read.name}: ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms median, ${samples[samples.length - 1]!.bytes} bytes`);
    }
    return answers;
  } finally {
    await ponder.stop();
  }
}

export async function benchTokens(bench: Bench, sizes: number[], log: (m: string) => void): Promise<TokensResult> {
  const measured: TokensSize[] = [];
  for (const n of sizes) {
    log(`tokens: ${n} enrolled`);
    measured.push(await benchTokensSize(bench, n, log));
  }
  return { sizes: measured, batchSize: measured[0]?.batchSize ?? 0 };
}

type Fmt = (n: number, digits?: number) => string;
type Table = (headers: string[], rows: (string | number)[][]) => string;

/** The section of bench/results/latest.md. */
export function tokensSection(r: TokensResult, table: Table, fmt: Fmt): string[] {
  const lines = ["", `## Enrolled tokens (CLAIM_BATCH_SIZE ${r.batchSize}; fees waiting in ${FEE_SAMPLE} sample pools, or every pool below that)`, ""];
  lines.push(
    table(
      [
        "tokens",
        "devnet deployed (s)",
        "launched (s)",
        "enrolled (s)",
        "sample with fees",
        "claimed and attributed",
        "fee-claimer cycles",
        "bound at 300 s a cycle",
      ],
      r.sizes.map((s) => [
        s.tokens,
        fmt(s.deploySeconds, 0),
        fmt(s.launchSeconds, 1),
        fmt(s.enrolSeconds, 1),
        s.sample,
        `${s.booked} / ${s.sample}`,
        s.claimCycles,
        `${fmt((s.claimCycles * 300) / 60, 0)} min`,
      ]),
    ),
  );
  const workers = [r.sizes[0]!.firstClaimCycle, ...r.sizes[0]!.cycles].map((c, i) => (i === 0 ? "fee-claimer (first: cache filled)" : c.worker));
  const at = (s: TokensSize, i: number) => (i === 0 ? s.firstClaimCycle : s.cycles[i - 1]!);
  lines.push(
    "",
    "Per worker cycle: RPC requests / database queries / milliseconds.",
    "",
    table(
      ["worker", ...r.sizes.map((s) => `${s.tokens.toLocaleString("en")} tokens`)],
      workers.map((w, i) => [
        w,
        ...r.sizes.map((s) => {
          const c = at(s, i);
          return `${c.rpc} / ${c.queries} / ${fmt(c.ms, 0)}${c.ok ? "" : " (failed)"}`;
        }),
      ]),
    ),
  );
  const base = r.sizes[0]!;
  lines.push(
    "",
    `The API at each size: median latency over ${API_SAMPLES} requests (ms), × its latency at ${base.tokens} tokens, and the answer's size (bytes).`,
    "",
    table(
      ["read", ...r.sizes.map((s) => `${s.tokens.toLocaleString("en")} tokens`)],
      base.api.map((a, i) => [
        a.name,
        ...r.sizes.map((s) => {
          const x = s.api[i];
          return x ? `${fmt(x.p50Ms, 1)} ms (×${fmt(x.p50Ms / a.p50Ms, 2)}) · ${x.bytes.toLocaleString("en")} B` : "—";
        }),
      ]),
    ),
  );
  const tables = [...new Set(r.sizes.flatMap((s) => Object.keys(s.rows)))].sort();
  lines.push(
    "",
    "Rows per engine table after the measured cycles.",
    "",
    table(
      ["table", ...r.sizes.map((s) => `${s.tokens.toLocaleString("en")} tokens`)],
      tables.map((t) => [t, ...r.sizes.map((s) => s.rows[t] ?? 0)]),
    ),
  );
  return lines;
}
