/**
 * API replicas on one PostgreSQL: `ponder start` indexes the shared devnet (and serves the
 * API) while `ponder serve` on the same schema serves it again. Both answer alike; a client's
 * rate limit is one bucket whichever replica it asks; a burn indexed once is pushed to the
 * subscribers of every replica, each process holding one listening connection whatever its
 * subscriber count; and a burn a reorg rolls back reaches each subscriber as a correction,
 * followed by the new branch's burn.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { type Address, type Hex, erc20Abi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReadDb } from "../../api/deps.js";
import { createLiveFeed } from "../../api/push/live-feed.js";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { type PonderHandle, startApiReplica, waitForIndexed, waitForReady } from "../../devnet/ponder.js";
import * as act from "../helpers/actions.js";
import { createDatabase, devnetAs, serviceEnv, startTestPonder, testEnv } from "../helpers/env.js";
import { sseEvents } from "../helpers/http.js";
import { freePort } from "../helpers/ports.js";

const SCHEMA = "app";
/** A tenth of the default limits: the read limit is a burst of 12, then one request per 5 s. */
const ENV = { RATE_LIMIT_SCALE: "0.1" };
const READ_BURST = 12;
const USDC = (n: bigint) => n * 1_000_000n;

let databaseUrl: string;
let indexer: PonderHandle & { logs: string[] };
let replica: PonderHandle;
const replicaLogs: string[] = [];
let admin: pg.Pool;
let token: Address;
const trader = devnetAs(1);
let clients = 0;
/** A client of its own for each request group, so the tight limits of this suite never mix. */
const client = () => ({ "x-forwarded-for": `198.51.100.${++clients}` });

beforeAll(async () => {
  databaseUrl = await createDatabase("replicas");
  indexer = await startTestPonder(databaseUrl, ENV);
  const head = await trader.publicClient.getBlockNumber();
  await waitForIndexed(indexer, head).catch((error) => {
    throw new Error(`${error.message}\n${indexer.logs.slice(-30).join("\n")}`);
  });
  replica = startApiReplica({ port: await freePort(), env: serviceEnv(databaseUrl, ENV), schema: SCHEMA, logLevel: "warn", onLog: (l) => replicaLogs.push(l) });
  await waitForReady(replica).catch((error) => {
    throw new Error(`${error.message}\n${replicaLogs.slice(-30).join("\n")}`);
  });
  admin = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const c = testEnv().deployments.contracts as Record<string, Address>;
  token = c.usdcPairedToken!;
  await act.swapInPool(trader, c, token, c.usdc!, USDC(200n)); // tokens to burn
});

afterAll(async () => {
  await replica?.stop();
  await indexer?.stop();
  await admin?.end();
});

const replicas = () => [indexer.url, replica.url];

async function get(base: string, path: string, headers: Record<string, string> = client()) {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Where two answers first differ, with some context on each side, or null when equal. */
function firstDifference(a: string, b: string): { at: number; a: string; b: string } | null {
  if (a === b) return null;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return { at: i, a: a.slice(Math.max(0, i - 120), i + 120), b: b.slice(Math.max(0, i - 120), i + 120) };
}

describe("two API replicas on one database", () => {
  it("answer the same: REST, GraphQL and a page", async () => {
    await waitForIndexed(replica, await trader.publicClient.getBlockNumber());
    for (const path of ["/api/v1/stats", "/api/v1/tokens?limit=50", `/p/${token}`]) {
      // The shared devnet may still be moving (blocks mined by an earlier suite's settings):
      // two answers taken while the index advances may differ, so compare at rest, a few times.
      let difference: ReturnType<typeof firstDifference> = null;
      for (let attempt = 0; attempt < 5; attempt++) {
        await waitForIndexed(replica, await trader.publicClient.getBlockNumber());
        const [a, b] = await Promise.all(replicas().map((base) => get(base, path)));
        expect({ path, status: a.status }).toEqual({ path, status: 200 });
        expect(b.status).toBe(200);
        difference = firstDifference(b.text, a.text);
        if (!difference) break;
        await new Promise((r) => setTimeout(r, 1_000));
      }
      expect(difference, path).toBeNull();
    }
    expect(JSON.parse((await get(replica.url, "/api/v1/tokens?limit=50")).text).items.length).toBeGreaterThan(0);
    const query = `{ stats { feesToOperatorUsdc protocolLegUsdc creatorBuybacks } tokens(first: 20) { edges { node { address symbol } } } burns(first: 5) { edges { node { id amount kind txHash } } } }`;
    const [a, b] = await Promise.all(
      replicas().map(async (base) => {
        const res = await fetch(`${base}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", ...client() },
          body: JSON.stringify({ query }),
        });
        return { status: res.status, body: await res.json() };
      }),
    );
    expect(a.status).toBe(200);
    expect(a.body.errors).toBeUndefined();
    expect(b).toEqual(a);
  });

  it("limit a client as one across both replicas", async () => {
    // Both replicas take from PostgreSQL once the limiter's table is there.
    for (let i = 0; i < 50; i++) {
      const { rows } = await admin.query("SELECT to_regclass('engine.api_rate_limits')::text AS t");
      if (rows[0].t) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const headers = client();
    const answers: { replica: number; status: number; retryAfter: string | null; text: string }[] = [];
    for (let i = 0; i < READ_BURST + 1; i++) {
      const r = await get(replicas()[i % 2]!, "/api/v1/stats", headers);
      answers.push({ replica: i % 2, status: r.status, retryAfter: r.headers.get("retry-after"), text: r.text });
    }
    // The burst is spent half on each replica; the next request, on the other replica, is refused.
    expect(answers.slice(0, READ_BURST).map((a) => a.status)).toEqual(Array(READ_BURST).fill(200));
    const refused = answers[READ_BURST]!;
    expect(refused.replica).not.toBe(answers[READ_BURST - 1]!.replica);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.text)).toEqual({ error: expect.stringMatching(/^rate limit exceeded: retry in \d+ s$/), code: "RATE_LIMITED" });
    // And on the first replica too; another client is not affected.
    expect((await get(replicas()[READ_BURST % 2 ? 0 : 1]!, "/api/v1/stats", headers)).status).toBe(429);
    expect((await get(replica.url, "/api/v1/stats")).status).toBe(200);
  });
});

async function subscribe(base: string, signal: AbortSignal) {
  const res = await fetch(`${base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...client() },
    body: JSON.stringify({ query: `subscription { burnCreated(filter: { token: "${token}" }) { id txHash amount kind blockNumber } }` }),
    signal,
  });
  expect(res.status).toBe(200);
  return sseEvents(res);
}

/** The stream's next event, or a failure naming what did not come. */
async function next(stream: AsyncGenerator<any>, what: string, ms = 30_000): Promise<any> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  try {
    return (await Promise.race([stream.next(), timeout])).value;
  } finally {
    clearTimeout(timer);
  }
}

const rpc = <T>(method: string, params: unknown[] = []) => trader.publicClient.request({ method: method as never, params: params as never }) as Promise<T>;
const burn = (amount: bigint) => trader.write(token, erc20Abi, "transfer", [DEAD_ADDRESS, amount]);

describe("subscriptions pushed to every replica", () => {
  it("deliver a burn indexed once to subscribers of both replicas, one listening connection each", async () => {
    const abort = new AbortController();
    // One process's feed with no polling at all: only PostgreSQL's notification can wake it.
    const readPool = new pg.Pool({ connectionString: databaseUrl, max: 2, options: `-c search_path=${SCHEMA}` });
    const pushOnly = createLiveFeed({ db: drizzle(readPool, { casing: "snake_case" }) as unknown as ReadDb, databaseUrl, pollIntervalMs: 0 });
    try {
      const streams = [await subscribe(indexer.url, abort.signal), await subscribe(indexer.url, abort.signal), await subscribe(replica.url, abort.signal)];
      const firsts = streams.map((s, i) => next(s, `burn on stream ${i}`));
      const direct = await pushOnly.burns.subscribe({ signal: abort.signal });
      const firstDirect = direct.next();
      await new Promise((r) => setTimeout(r, 300)); // the subscriptions have taken their starting point
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'launchpad-api-listen'",
      );
      expect(rows[0].n).toBe(3); // the indexer's process, the replica, and this test's feed

      const hash = await burn(10n ** 17n);
      const mined = Date.now();
      for (const value of await Promise.all(firsts)) {
        expect(value.errors).toBeUndefined();
        expect(value.data.burnCreated).toMatchObject({ txHash: hash, amount: "0.1", kind: "ORGANIC" });
      }
      const delivered = (await firstDirect).value!;
      expect(delivered).toMatchObject({ type: "created", row: { txHash: hash } });
      expect(pushOnly.stats()).toMatchObject({ listening: true, channel: `${SCHEMA}_live_query` });
      expect(pushOnly.stats().notifications).toBeGreaterThan(0);
      expect(Date.now() - mined).toBeLessThan(5_000);
    } finally {
      abort.abort();
      await pushOnly.close();
      await readPool.end();
    }
  });

  it("tell each subscriber of a burn a reorg rolled back, then of the new branch's burn", async () => {
    const abort = new AbortController();
    try {
      const streams = [await subscribe(indexer.url, abort.signal), await subscribe(replica.url, abort.signal)];
      await new Promise((r) => setTimeout(r, 300));
      const snapshot = await rpc<Hex>("evm_snapshot");
      const lost = await burn(2n * 10n ** 17n);
      for (const [i, s] of streams.entries()) expect((await next(s, `burn on stream ${i}`)).data.burnCreated).toMatchObject({ txHash: lost, amount: "0.2" });

      // The chain forgets the burn and grows another branch past it.
      expect(await rpc<boolean>("evm_revert", [snapshot])).toBe(true);
      const kept = await burn(3n * 10n ** 17n);
      await rpc("anvil_mine", ["0x2"]);
      for (const [i, s] of streams.entries()) {
        const correction = await next(s, `rollback on stream ${i}`);
        expect(correction.data).toBeNull();
        expect(correction.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: "ROLLED_BACK", txHash: lost }) })]);
        expect(correction.errors[0].extensions.tokenAddress.toLowerCase()).toBe(token.toLowerCase());
        expect((await next(s, `new branch's burn on stream ${i}`)).data.burnCreated).toMatchObject({ txHash: kept, amount: "0.3" });
      }
      // Both replicas now read the new branch.
      await waitForIndexed(replica, await trader.publicClient.getBlockNumber());
      const query = JSON.stringify({ query: `{ burns(first: 3, filter: { token: "${token}" }) { edges { node { txHash } } } }` });
      for (const base of replicas()) {
        const res = await fetch(`${base}/graphql`, { method: "POST", headers: { "content-type": "application/json", ...client() }, body: query });
        const hashes = (await res.json()).data.burns.edges.map((e: { node: { txHash: string } }) => e.node.txHash);
        expect(hashes).toContain(kept);
        expect(hashes).not.toContain(lost);
      }
    } finally {
      abort.abort();
    }
  });
});
