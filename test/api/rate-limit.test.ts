/**
 * Rate limits kept in PostgreSQL: two stores on one database (two API replicas) take from the
 * same token bucket, with the in-memory bucket's exact behaviour (burst, refill, Retry-After,
 * per client and per limiter), under concurrency; the buckets live in the engine's table
 * (made by its migrations); without the database the in-memory insurance still limits.
 */
import { Hono } from "hono";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RateLimiter, rateLimit, useRateLimitStore } from "../../api/http/rate-limit.js";
import { PostgresRateLimitStore, RATE_LIMIT_SCHEMA, RATE_LIMIT_TABLE, rateLimitPool } from "../../api/http/rate-limit-postgres.js";
import { errorResponse, toHttpError } from "../../api/http/errors.js";
import { migrate } from "../../core/db/migrations.js";
import { createDatabase } from "../helpers/env.js";

let databaseUrl: string;
const pools: pg.Pool[] = [];
const stores: PostgresRateLimitStore[] = [];

/** A store as an API replica makes it: its own pool, the table made once the schema exists. */
async function replicaStore(url = databaseUrl): Promise<PostgresRateLimitStore> {
  const pool = rateLimitPool(url);
  pools.push(pool);
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  pools.push(admin);
  const store = new PostgresRateLimitStore({ pool, ready: async () => void (await migrate(admin)) });
  stores.push(store);
  for (let i = 0; i < 100 && !store.shared; i++) await new Promise((r) => setTimeout(r, 50));
  return store;
}

beforeAll(async () => {
  databaseUrl = await createDatabase("limits");
});

afterAll(async () => {
  for (const s of stores) s.close();
  for (const p of pools) await p.end();
});

describe("rate limits in PostgreSQL", () => {
  it("keep their buckets in the engine's table made by its migrations", async () => {
    const store = await replicaStore();
    expect(store.shared).toBe(true);
    const { rows } = await pools[0]!.query("SELECT table_schema, table_name FROM information_schema.tables WHERE table_name = $1", [RATE_LIMIT_TABLE]);
    expect(rows).toEqual([{ table_schema: RATE_LIMIT_SCHEMA, table_name: RATE_LIMIT_TABLE }]);
    // Takes commit without waiting for the disk, and give way to the insurance after a second.
    const settings = await pools[0]!.query("SELECT current_setting('synchronous_commit') AS sync, current_setting('statement_timeout') AS timeout");
    expect(settings.rows[0]).toEqual({ sync: "off", timeout: "1s" });
  });

  it("count a token bucket exactly as the in-memory limiter does", async () => {
    const store = await replicaStore();
    const limiter = new RateLimiter({ capacity: 3, refillPerSecond: 0.5 }, { name: "exact" });
    const takes = [await store.take(limiter, "a"), await store.take(limiter, "a"), await store.take(limiter, "a")];
    expect(takes).toEqual([
      { ok: true, remaining: 2 },
      { ok: true, remaining: 1 },
      { ok: true, remaining: 0 },
    ]);
    expect(await store.take(limiter, "a")).toEqual({ ok: false, retryAfterSeconds: 2 });
    // Per client, and per limiter.
    expect(await store.take(limiter, "b")).toEqual({ ok: true, remaining: 2 });
    expect(await store.take(new RateLimiter({ capacity: 3, refillPerSecond: 0.5 }, { name: "other" }), "a")).toEqual({ ok: true, remaining: 2 });
  });

  it("refill at the sustained rate, not at a window's end", async () => {
    const store = await replicaStore();
    const limiter = new RateLimiter({ capacity: 1, refillPerSecond: 10 }, { name: "refill" });
    expect((await store.take(limiter, "c")).ok).toBe(true);
    expect(await store.take(limiter, "c")).toEqual({ ok: false, retryAfterSeconds: 1 });
    await new Promise((r) => setTimeout(r, 150)); // 1.5 tokens' worth: one is back
    expect((await store.take(limiter, "c")).ok).toBe(true);
  });

  it("are one bucket for a client split across two replicas, under concurrency", async () => {
    const [a, b] = [await replicaStore(), await replicaStore()];
    const limiter = new RateLimiter({ capacity: 20, refillPerSecond: 0.01 }, { name: "shared" });
    const takes = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).take(limiter, "203.0.113.9")));
    // Each replica alone would have allowed 20: together, 20 in all. Which replica got them is
    // timing (each batches its own takes: one whose first take lands first may get all 20).
    expect(takes.filter((t) => t.ok)).toHaveLength(20);
    expect(takes.filter((t) => !t.ok).every((t) => !t.ok && t.retryAfterSeconds >= 1)).toBe(true);
    expect((await a.take(limiter, "203.0.113.9")).ok).toBe(false);
    expect((await b.take(limiter, "203.0.113.9")).ok).toBe(false);
    expect((await b.take(limiter, "203.0.113.10")).ok).toBe(true);
  });

  it("batch concurrent takes from one bucket, each answered as if it had taken alone, in order", async () => {
    const store = await replicaStore();
    const limiter = new RateLimiter({ capacity: 5, refillPerSecond: 0.01 }, { name: "batched" });
    const takes = await Promise.all(Array.from({ length: 12 }, () => store.take(limiter, "e")));
    expect(takes.slice(0, 5)).toEqual([4, 3, 2, 1, 0].map((remaining) => ({ ok: true, remaining })));
    // The rest refused, each with the Retry-After of the bucket the granted ones left.
    const retries = takes.slice(5).map((t) => (t.ok ? 0 : t.retryAfterSeconds));
    expect(new Set(retries).size).toBe(1);
    expect(retries[0]).toBeGreaterThanOrEqual(1);
    // The bucket moved by exactly the five granted takes.
    expect(await store.take(limiter, "f")).toEqual({ ok: true, remaining: 4 });
    expect((await store.take(limiter, "e")).ok).toBe(false);
  });

  it("answer 429 with Retry-After and a JSON error from the middleware, across apps", async () => {
    const [a, b] = [await replicaStore(), await replicaStore()];
    const app = (store: PostgresRateLimitStore) => {
      const hono = new Hono().onError((e, c) => errorResponse(c, toHttpError(e)));
      hono.use("*", useRateLimitStore(store));
      hono.get("/x", rateLimit(new RateLimiter({ capacity: 2, refillPerSecond: 0.1 }, { name: "middleware" })), (c) => c.json({ ok: true }));
      return hono;
    };
    const [one, two] = [app(a), app(b)];
    const ask = (hono: Hono) => hono.request("/x", { headers: { "x-forwarded-for": "198.51.100.7" } });
    expect((await ask(one)).status).toBe(200);
    const second = await ask(two);
    expect(second.status).toBe(200);
    expect(second.headers.get("ratelimit-limit")).toBe("2");
    expect(second.headers.get("ratelimit-remaining")).toBe("0");
    const refused = await ask(one);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(await refused.json()).toEqual({ error: "rate limit exceeded: retry in 10 s", code: "RATE_LIMITED" });
  });

  it("overlap a read's take with its handler, and give a refused read's answer up for the 429", async () => {
    const [store, other] = [await replicaStore(), await replicaStore()];
    let handled = 0;
    const appOn = (on: PostgresRateLimitStore) => {
      const app = new Hono().onError((e, c) => errorResponse(c, toHttpError(e)));
      app.use("*", useRateLimitStore(on));
      app.get("/x", rateLimit(new RateLimiter({ capacity: 2, refillPerSecond: 0.1 }, { name: "overlap", overlap: true })), (c) => {
        handled++;
        return c.json({ ok: true }, 200, { "Cache-Control": "public, max-age=60", "X-Handler": "1" });
      });
      return app;
    };
    const [hono, otherApp] = [appOn(store), appOn(other)];
    const limiter = new RateLimiter({ capacity: 2, refillPerSecond: 0.1 }, { name: "overlap" });
    const ask = (app = hono, accept = "application/json") => app.request("/x", { headers: { "x-forwarded-for": "198.51.100.8", accept } });
    const first = await ask();
    expect(first.status).toBe(200);
    expect(first.headers.get("x-handler")).toBe("1");
    expect(first.headers.get("ratelimit-remaining")).toBe("1");
    expect((await ask()).status).toBe(200);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: "rate limit exceeded: retry in 10 s", code: "RATE_LIMITED" });
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(refused.headers.get("cache-control")).toBeNull();
    expect(refused.headers.get("x-handler")).toBeNull();
    expect(handled).toBe(3); // the refused read ran alongside its take
    // This process now knows the client is refused: no handler, no round trip, until Retry-After.
    expect(store.refusedFor(limiter, "198.51.100.8")).toBeGreaterThan(0);
    expect((await ask()).status).toBe(429);
    expect(handled).toBe(3);
    // Another replica learns it from the shared bucket; a stream waits for its take, so nothing runs.
    expect(other.refusedFor(limiter, "198.51.100.8")).toBe(0);
    expect((await ask(otherApp, "text/event-stream")).status).toBe(429);
    expect(handled).toBe(3);
  });

  it("keep limiting in memory when the database cannot be reached", async () => {
    const store = new PostgresRateLimitStore({ pool: rateLimitPool("postgres://postgres:postgres@127.0.0.1:1/none") });
    stores.push(store);
    const limiter = new RateLimiter({ capacity: 2, refillPerSecond: 0.01 }, { name: "insured" });
    const started = Date.now();
    const takes = [await store.take(limiter, "d"), await store.take(limiter, "d"), await store.take(limiter, "d")];
    expect(store.shared).toBe(false);
    expect(takes.map((t) => t.ok)).toEqual([true, true, false]);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it("hand out connections with their session settings applied, never two queries at once on one connection", async () => {
    const pool = rateLimitPool(databaseUrl);
    // What a connection is busy with when the pool hands it out (pg's own fields): a session
    // SET still running or queued there would make the pool's query a second one at once.
    const busyAtHandout: number[] = [];
    pool.on("acquire", (client) => {
      const c = client as unknown as { _queryQueue: unknown[]; _activeQuery: unknown };
      busyAtHandout.push(c._queryQueue.length + (c._activeQuery ? 1 : 0));
    });
    try {
      // Every connection is new: each first query comes right after its session is set up.
      const rows = await Promise.all(Array.from({ length: 4 }, () => pool.query("SHOW statement_timeout").then((r) => r.rows[0].statement_timeout)));
      const commit = await pool.query("SHOW synchronous_commit");
      expect(rows).toEqual(["1s", "1s", "1s", "1s"]);
      expect(commit.rows[0].synchronous_commit).toBe("off");
      expect(busyAtHandout).toEqual([0, 0, 0, 0, 0]);
    } finally {
      await pool.end();
    }
  });

  it("fall back to memory for a take the database refuses, and never throw", async () => {
    const store = await replicaStore();
    const limiter = new RateLimiter({ capacity: 1, refillPerSecond: 0.01 }, { name: "fallback" });
    // A client key PostgreSQL cannot store is hashed; a weird one still works.
    expect((await store.take(limiter, "x".repeat(5_000))).ok).toBe(true);
    expect((await store.take(limiter, "x".repeat(5_000))).ok).toBe(false);
    expect((await store.take(limiter, "\u0000\u00ff")).ok).toBe(true);
  });
});
