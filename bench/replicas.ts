/**
 * API replicas on one PostgreSQL, on an indexed history:
 *
 *   - throughput and latency of one API replica against two (`ponder serve` on the schema the
 *     indexer wrote), the same total connections split across them, for the hot reads and the
 *     GraphQL burn page — every request also takes from the rate limits kept in PostgreSQL;
 *   - subscriber fan-out: N SSE subscribers of `burnCreated`, half on each replica, and burns
 *     sent one at a time; each delivery is timed from the burn's indexing (ponder's NOTIFY,
 *     heard by the bench on its own LISTEN) and from the transaction's receipt.
 *
 * Part of `npm run bench` (`--part replicas`); alone, on a cached history:
 *
 *   npx tsx bench/replicas.ts --events 20000 [--subscribers 1000] [--burns 5] [--seconds 10] [--connections 16]
 */
import { type IncomingMessage, Agent, request } from "node:http";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { type Abi, type Address, erc20Abi, parseAbi } from "viem";
import { clankerLpLockerAbi } from "../common/abis/clanker.js";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY } from "../common/config.js";
import { DEAD_ADDRESS } from "../common/constants.js";
import type { PoolKey } from "../common/uniswap.js";
import { createDevnetContext } from "../devnet/context.js";
import { buyToken } from "../devnet/market.js";
import { type PonderHandle, startApiReplica, waitForReady } from "../devnet/ponder.js";
import { freePort } from "../devnet/ports.js";
import { devnetPrivateKey } from "../devnet/protocol.js";
import { RateLimiter } from "../api/http/rate-limit.js";
import { PostgresRateLimitStore, rateLimitPool } from "../api/http/rate-limit-postgres.js";
import { OURS_BURNS, STATS, TOKENS, apiTarget } from "./api.js";
import type { History } from "./history.js";
import { oursEnv, percentile } from "./lib.js";
import { type LoadResult, load } from "./load.js";

/** The requests compared on one replica and on two. */
export const REQUESTS = [STATS, TOKENS, OURS_BURNS];
/** The account that buys and burns during the fan-out (anvil account 2). */
const BURNER = 2;
const USDC = (n: bigint) => n * 1_000_000n;
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

export type ReplicaLoadRow = { name: string; replicas: number } & Pick<LoadResult, "p50" | "p99" | "requestsPerSecond" | "non2xx" | "server5xx">;
export type Latency = { p50: number; p99: number; max: number };
export type FanoutResult = {
  subscribers: number;
  replicas: number;
  burns: number;
  /** Deliveries received of those expected (subscribers × burns). */
  delivered: number;
  expected: number;
  /** ms from the burn's block committed (NOTIFY heard) to each subscriber's event. */
  indexedToDelivery: Latency;
  /** ms from the burn's receipt to each subscriber's event (includes ponder's block polling). */
  minedToDelivery: Latency;
  /** LISTEN connections of the API processes while every subscriber was connected. */
  listeningConnections: number;
};
/** Takes from the PostgreSQL rate limits alone (this process's pool, as a replica's). */
export type LimiterRow = { clients: string; concurrency: number; takes: number; takesPerSecond: number; p50: number; p99: number };
export type ReplicasResult = { load: ReplicaLoadRow[]; limiter: LimiterRow[]; fanout: FanoutResult };

export type ReplicasOptions = {
  load: { seconds: number; connections: number };
  /** The requests compared (default: /stats, /tokens and the GraphQL burn page). */
  requests?: string[];
  subscribers: number;
  burns: number;
  log: (message: string) => void;
};

/**
 * Runs both measurements against the history indexed into `databaseUrl` (schema `app`) and
 * served by anvil at `rpcUrl`; two replicas are started and stopped here.
 */
export async function benchReplicas(history: History, rpcUrl: string, databaseUrl: string, o: ReplicasOptions): Promise<ReplicasResult> {
  const env = oursEnv(history, rpcUrl, databaseUrl);
  const started = performance.now();
  const replicas: PonderHandle[] = [];
  try {
    for (let i = 0; i < 2; i++) replicas.push(startApiReplica({ port: await freePort(), env, schema: "app", logLevel: "warn" }));
    await Promise.all(replicas.map((r) => waitForReady(r)));
    const token = history.deployments.contracts.usdcPairedToken as Address;

    const rows: ReplicaLoadRow[] = [];
    for (const name of o.requests ?? REQUESTS) {
      o.log(`  ${name}: one replica, then two`);
      rows.push(row(name, 1, [await load(apiTarget(replicas[0]!.url, token, name), o.load)]));
      const half = { ...o.load, connections: Math.max(1, Math.floor(o.load.connections / 2)) };
      rows.push(row(name, 2, await Promise.all(replicas.map((r) => load(apiTarget(r.url, token, name), half)))));
    }

    o.log("  rate limit takes from PostgreSQL");
    const limiter = await benchLimiter(databaseUrl, o.load.connections);

    o.log(`  fan-out: ${o.subscribers} subscribers on two replicas, ${o.burns} burns`);
    const fanout = await benchFanout(replicas, history, rpcUrl, databaseUrl, token, o);
    o.log(`  replicas measured in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { load: rows, limiter, fanout };
  } finally {
    await Promise.all(replicas.map((r) => r.stop()));
  }
}

/** One row from the loads run at once (one per replica): throughput summed, the worse latency. */
function row(name: string, replicas: number, loads: LoadResult[]): ReplicaLoadRow {
  return {
    name,
    replicas,
    p50: Math.max(...loads.map((l) => l.p50)),
    p99: Math.max(...loads.map((l) => l.p99)),
    requestsPerSecond: loads.reduce((sum, l) => sum + l.requestsPerSecond, 0),
    non2xx: loads.reduce((sum, l) => sum + l.non2xx, 0),
    server5xx: loads.reduce((sum, l) => sum + l.server5xx, 0),
  };
}

/**
 * The cost a limited request pays: takes through the PostgreSQL store at the load's
 * concurrency, all from one client (one bucket row, the contended case) and each from its own.
 */
async function benchLimiter(databaseUrl: string, concurrency: number): Promise<LimiterRow[]> {
  const pool = rateLimitPool(databaseUrl);
  const store = new PostgresRateLimitStore({ pool });
  try {
    for (let i = 0; i < 100 && !store.shared; i++) await new Promise((r) => setTimeout(r, 50));
    if (!store.shared) throw new Error("the rate limit table was not ready");
    const limiter = new RateLimiter({ capacity: 1e9, refillPerSecond: 1e6 }, { name: "bench" });
    const rows: LimiterRow[] = [];
    for (const clients of ["one client", "a client each"]) {
      const takes = 4_000;
      const times: number[] = [];
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < takes) {
            const i = next++;
            const at = performance.now();
            const result = await store.take(limiter, clients === "one client" ? "198.51.100.1" : `c${i}`);
            if (!result.ok) throw new Error("a bench take was refused");
            times.push(performance.now() - at);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      times.sort((a, b) => a - b);
      rows.push({ clients, concurrency, takes, takesPerSecond: takes / seconds, p50: percentile(times, 50), p99: percentile(times, 99) });
    }
    return rows;
  } finally {
    store.close();
    await pool.end();
  }
}

type Stream = { deliveries: Map<string, number>; response: IncomingMessage };

/** Opens one SSE subscription; records when each burn's transaction hash arrives. */
function subscribe(base: string, agent: Agent, token: Address): Promise<Stream> {
  const body = JSON.stringify({ query: `subscription { burnCreated(filter: { token: "${token}" }) { id txHash amount } }` });
  const url = new URL(`${base}/graphql`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent,
        headers: { "content-type": "application/json", accept: "text/event-stream", "content-length": Buffer.byteLength(body) },
      },
      (response) => {
        if (response.statusCode !== 200) return reject(new Error(`subscription answered ${response.statusCode}`));
        const stream: Stream = { deliveries: new Map(), response };
        let buffer = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          const at = performance.now();
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const event = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const hash = /"txHash":"(0x[0-9a-f]{64})"/.exec(event)?.[1];
            if (hash && !stream.deliveries.has(hash)) stream.deliveries.set(hash, at);
          }
        });
        response.on("error", () => {});
        resolve(stream);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function benchFanout(
  replicas: PonderHandle[],
  history: History,
  rpcUrl: string,
  databaseUrl: string,
  token: Address,
  o: ReplicasOptions,
): Promise<FanoutResult> {
  const c = history.deployments.contracts as Record<string, Address>;
  const burner = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(BURNER));
  const operator = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY);
  await operator.write(c.usdc!, mintAbi, "mint", [burner.account.address, USDC(1_000n)]);
  const { poolKey } = await burner.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
  await buyToken(
    burner,
    { usdc: c.usdc!, weth: c.weth!, permit2: c.permit2!, universalRouter: c.universalRouter! },
    { token, pairedToken: c.usdc!, poolKey },
    USDC(100n),
  );

  // The bench hears ponder's per-block notification itself: when a burn's block is committed.
  const listener = new pg.Client({ connectionString: databaseUrl, application_name: "bench-listen" });
  await listener.connect();
  const notified: number[] = [];
  listener.on("notification", (n) => {
    if (n.payload?.includes('"burn"')) notified.push(performance.now());
  });
  await listener.query(`LISTEN "app_live_query"`);

  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const streams: Stream[] = [];
  try {
    for (let i = 0; i < o.subscribers; i += 50) {
      const batch = Array.from({ length: Math.min(50, o.subscribers - i) }, (_, j) => subscribe(replicas[(i + j) % replicas.length]!.url, agent, token));
      streams.push(...(await Promise.all(batch)));
    }
    await new Promise((r) => setTimeout(r, 500));
    const { rows } = await listener.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'launchpad-api-listen'",
    );

    const indexed: number[] = [];
    const mined: number[] = [];
    let delivered = 0;
    for (let b = 0; b < o.burns; b++) {
      const sent = performance.now();
      const hash = await burner.write(token, erc20Abi, "transfer", [DEAD_ADDRESS, 10n ** 15n]);
      const minedAt = performance.now();
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && streams.some((s) => !s.deliveries.has(hash))) await new Promise((r) => setTimeout(r, 20));
      const indexedAt = notified.find((t) => t >= sent) ?? minedAt;
      for (const s of streams) {
        const at = s.deliveries.get(hash);
        if (at === undefined) continue;
        delivered++;
        indexed.push(at - indexedAt);
        mined.push(at - minedAt);
      }
      await new Promise((r) => setTimeout(r, 300));
    }
    const summary = (xs: number[]): Latency => {
      const sorted = [...xs].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
    };
    return {
      subscribers: o.subscribers,
      replicas: replicas.length,
      burns: o.burns,
      delivered,
      expected: o.subscribers * o.burns,
      indexedToDelivery: summary(indexed),
      minedToDelivery: summary(mined),
      listeningConnections: rows[0]!.n,
    };
  } finally {
    for (const s of streams) s.response.destroy();
    agent.destroy();
    await listener.end();
  }
}

/** Markdown of the results (used by bench/run.ts and the command line). */
export function replicasSection(
  r: ReplicasResult,
  load: { seconds: number; connections: number },
  table: (headers: string[], rows: (string | number)[][]) => string,
  fmt: (x: number, d?: number) => string,
): string[] {
  const one = (name: string) => r.load.find((x) => x.name === name && x.replicas === 1);
  const f = r.fanout;
  return [
    "",
    `## API replicas (one \`ponder serve\` against two on the same history and database; ${load.connections} connections in all, split across the replicas; ${load.seconds} s each)`,
    "",
    table(
      ["request", "replicas", "p50 ms", "p99 ms", "req/s", "× one replica", "non-2xx", "5xx"],
      r.load.map((x) => [
        x.name,
        x.replicas,
        x.p50,
        x.p99,
        fmt(x.requestsPerSecond, 0),
        fmt(x.requestsPerSecond / (one(x.name)?.requestsPerSecond ?? Number.NaN), 2),
        x.non2xx,
        x.server5xx,
      ]),
    ),
    "",
    "With two replicas, p50 and p99 are the worse of the two; every request also takes from the rate limits kept in PostgreSQL.",
    "",
    table(
      ["rate limit takes from PostgreSQL", "concurrency", "takes", "takes/s", "p50 ms", "p99 ms"],
      r.limiter.map((x) => [x.clients, x.concurrency, x.takes, fmt(x.takesPerSecond, 0), fmt(x.p50, 2), fmt(x.p99, 2)]),
    ),
    "",
    `## Subscriber fan-out (${f.subscribers} SSE subscribers of \`burnCreated\` on ${f.replicas} replicas, ${f.burns} burns)`,
    "",
    table(
      ["delivered", "indexed → delivery p50 ms", "p99 ms", "max ms", "mined → delivery p50 ms", "p99 ms", "max ms", "LISTEN connections"],
      [
        [
          `${f.delivered} / ${f.expected}`,
          fmt(f.indexedToDelivery.p50),
          fmt(f.indexedToDelivery.p99),
          fmt(f.indexedToDelivery.max),
          fmt(f.minedToDelivery.p50),
          fmt(f.minedToDelivery.p99),
          fmt(f.minedToDelivery.max),
          f.listeningConnections,
        ],
      ],
    ),
  ];
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { ensureHistory } = await import("./history.js");
  const { fmt, indexHistory, log, serveHistory, startBench } = await import("./lib.js");
  const { benchArgs } = await import("./args.js");
  const flags = benchArgs(
    `
Usage: npx tsx bench/replicas.ts [flags]   (part of npm run bench: --part replicas)

  --events <n>        the cached history's events (default 20000)
  --seed <n>          its seed (default 7)
  --subscribers <n>   SSE subscribers, half per replica (default 1000)
  --burns <n>         burns for the fan-out (default 5)
  --seconds <n>       seconds of load (default 10)
  --connections <n>   connections of the load (default 16)
  --help, -h          this text
`,
    {
      events: { type: "string" },
      seed: { type: "string" },
      subscribers: { type: "string" },
      burns: { type: "string" },
      seconds: { type: "string" },
      connections: { type: "string" },
    },
  );
  const arg = (name: "events" | "seed" | "subscribers" | "burns" | "seconds" | "connections", fallback: number) => flags.number(name, fallback, { min: 0 });
  const history = await ensureHistory(arg("events", 20_000), arg("seed", 7), await freePort(), (m) => log(`  ${m}`));
  const bench = await startBench();
  const anvil = await serveHistory(history);
  try {
    log(`indexing ${history.name}`);
    const ours = await indexHistory(history, anvil.rpcUrl, await bench.createDatabase("ours"), "ours");
    try {
      const loadOptions = { seconds: arg("seconds", 10), connections: arg("connections", 16) };
      const result = await benchReplicas(history, anvil.rpcUrl, ours.databaseUrl, {
        load: loadOptions,
        subscribers: arg("subscribers", 1_000),
        burns: arg("burns", 5),
        log,
      });
      const table = (headers: string[], rows: (string | number)[][]) =>
        [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
      process.stdout.write(`${[`# API replicas (${history.name})`, ...replicasSection(result, loadOptions, table, fmt)].join("\n")}\n`);
    } finally {
      await ours.ponder.stop();
    }
  } finally {
    await anvil.stop();
    await bench.stop();
  }
}
