/**
 * SQL over HTTP (/sql/*) with `@ponder/client` itself as the client, against the ponder
 * process (as analysts reach it) on the views schema: a typed read works and equals the
 * indexed tables; a write (direct, or hidden in a WITH), a function outside the allowlist,
 * another schema, a system table, a query past the statement timeout and a result past the
 * row limit are each refused with a clear error; the endpoint has its own rate limit.
 */
import { count, createClient, desc, eq, sql } from "@ponder/client";
import superjson from "superjson";
import { beforeAll, describe, expect, it } from "vitest";
import * as schema from "../../../schema/ponder.js";
import { SQL_MAX_ROWS, SQL_STATEMENT_TIMEOUT_MS } from "../../../api/sql/index.js";
import type { Harness } from "../harness.js";
import { seededWorld } from "./world.js";

let h: Harness;
let client: ReturnType<typeof createClient<typeof schema>>;
let activityRows: number;

/** Registers the suite; its hooks and tests run inside the describe that calls it (test/api/seeded.test.ts). */
export function sqlSuite(): void {
  beforeAll(async () => {
    ({ h } = seededWorld());
    client = createClient(`${h.url}/sql`, { schema });
    [{ n: activityRows }] = await h.query<{ n: number }>("SELECT count(*)::int AS n FROM activity");
  }, 300_000);

  /** The error `@ponder/client` throws: the answer's text, `{ error, code }`. */
  async function refusal(query: Promise<unknown>): Promise<{ error: string; code: string }> {
    const error = await query.then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error, "the query was refused").toBeInstanceOf(Error);
    return JSON.parse(error!.message);
  }

  /** `activity` joined with itself `k` times: at least `rows` rows (the devnet's activity has a few). */
  function crossJoin(rows: number): string {
    expect(activityRows).toBeGreaterThanOrEqual(2);
    const k = Math.min(40, Math.ceil(Math.log(rows) / Math.log(activityRows)));
    return Array.from({ length: k }, (_, i) => `activity a${i}`).join(", ");
  }

  describe("reads", () => {
    it("a typed select over the views equals the indexed tables", async () => {
      const tokens = await client.db.select().from(schema.token).orderBy(schema.token.address);
      const indexed = await h.query<{ address: string; created_block: string }>("SELECT address, created_block::text FROM token ORDER BY address");
      expect(tokens.map((t) => t.address)).toEqual(indexed.map((t) => t.address));
      expect(tokens.length).toBeGreaterThan(0);
      // bigint columns come back as bigints, exact.
      expect(typeof tokens[0]!.createdBlock).toBe("bigint");
      expect(tokens.map((t) => t.createdBlock.toString())).toEqual(indexed.map((t) => t.created_block));
    });

    it("filters, aggregates and joins, with parameters", async () => {
      const [first] = await client.db.select().from(schema.token).limit(1);
      const byAddress = await client.db.select({ symbol: schema.token.symbol }).from(schema.token).where(eq(schema.token.address, first!.address));
      expect(byAddress).toEqual([{ symbol: first!.symbol }]);
      const [{ n }] = (await client.db.select({ n: count() }).from(schema.activity)) as [{ n: number }];
      expect(n).toBe(activityRows);
      const kinds = await client.db
        .select({ kind: schema.activity.kind, n: count() })
        .from(schema.activity)
        .groupBy(schema.activity.kind)
        .orderBy(desc(count()), schema.activity.kind);
      const indexed = await h.query<{ kind: string; n: number }>("SELECT kind, count(*)::int AS n FROM activity GROUP BY kind ORDER BY n DESC, kind");
      expect(kinds).toEqual(indexed);
      const withCte = await client.db.execute(sql`WITH recent AS (SELECT id FROM activity ORDER BY id DESC LIMIT 2) SELECT count(*) AS n FROM recent`);
      expect(Number((withCte[0] as { n: string }).n)).toBe(Math.min(2, activityRows));
    });

    it("reads the views schema (launchpad), not the build's tables directly", async () => {
      const [{ n }] = await h.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM information_schema.views WHERE table_schema = 'launchpad' AND table_name = 'token'",
      );
      expect(n).toBe(1);
    });
  });

  describe("refusals, each with a clear error", () => {
    it("a write", async () => {
      const del = await refusal(client.db.execute(sql`DELETE FROM token`));
      expect(del.code).toBe("BAD_REQUEST");
      expect(del.error).toMatch(/^query refused: DeleteStmt not supported \(SQL over HTTP reads only/);
      const update = await refusal(client.db.execute(sql`UPDATE token SET name = 'x'`));
      expect(update.error).toMatch(/UpdateStmt not supported/);
      const hidden = await refusal(client.db.execute(sql`WITH gone AS (DELETE FROM burn RETURNING id) SELECT * FROM gone`));
      expect(hidden.code).toBe("BAD_REQUEST");
      const twice = await refusal(client.db.execute(sql.raw("SELECT 1; DELETE FROM token")));
      expect(twice.error).toMatch(/query refused/);
      // Nothing was written.
      const [{ n }] = await h.query<{ n: number }>("SELECT count(*)::int AS n FROM token");
      expect(n).toBeGreaterThan(0);
    });

    it("functions outside the allowlist, other schemas, system tables, unknown tables", async () => {
      expect((await refusal(client.db.execute(sql`SELECT set_config('statement_timeout', '0', false)`))).error).toMatch(/Function call not supported/);
      expect((await refusal(client.db.execute(sql`SELECT pg_sleep(1)`))).error).toMatch(/Function call not supported/);
      expect((await refusal(client.db.execute(sql`SELECT * FROM engine.ledger`))).error).toMatch(/Schema name not supported/);
      expect((await refusal(client.db.execute(sql`SELECT * FROM pg_authid`))).error).toMatch(/System tables not supported/);
      const unknown = await refusal(client.db.execute(sql`SELECT * FROM api_rate_limits`));
      expect(unknown.error).toMatch(/unknown table "api_rate_limits"; the tables are activity, /);
    });

    it(`a query past the statement timeout (${SQL_STATEMENT_TIMEOUT_MS} ms)`, async () => {
      const started = Date.now();
      const slow = await refusal(client.db.execute(sql.raw(`SELECT count(*) FROM ${crossJoin(1e10)}`)));
      expect(slow).toEqual({
        error: `query ran past the ${SQL_STATEMENT_TIMEOUT_MS} ms statement timeout: narrow it (a WHERE on indexed columns, a LIMIT) or use the exports`,
        code: "BAD_REQUEST",
      });
      expect(Date.now() - started).toBeLessThan(SQL_STATEMENT_TIMEOUT_MS + 5_000);
      // The connection is fine afterwards.
      expect((await client.db.select({ n: count() }).from(schema.token)).length).toBe(1);
    }, 60_000);

    it(`a result past the row limit (${SQL_MAX_ROWS} rows), and the same query with a LIMIT`, async () => {
      const from = crossJoin(SQL_MAX_ROWS + 1);
      const huge = await refusal(client.db.execute(sql.raw(`SELECT a0.id FROM ${from}`)));
      expect(huge).toEqual({
        error: `result larger than ${SQL_MAX_ROWS} rows: add a LIMIT (at most ${SQL_MAX_ROWS}) or aggregate (the exports at /api/v1/export/* stream whole tables)`,
        code: "BAD_REQUEST",
      });
      const limited = await client.db.execute(sql.raw(`SELECT a0.id FROM ${from} LIMIT ${SQL_MAX_ROWS}`));
      expect(limited.length).toBe(SQL_MAX_ROWS);
    }, 60_000);

    it("a malformed request, and live queries", async () => {
      const bad = await fetch(`${h.url}/sql/db?sql=nope`);
      expect(bad.status).toBe(400);
      expect((await bad.json()).code).toBe("BAD_REQUEST");
      const missing = await fetch(`${h.url}/sql/db`);
      expect(missing.status).toBe(400);
      const live = await fetch(`${h.url}/sql/live?sql=${encodeURIComponent(superjson.stringify({ sql: "select 1", params: [] }))}`);
      expect(live.status).toBe(404);
      expect((await live.json()).error).toMatch(/live queries are not served/);
    });
  });

  describe("rate limit", () => {
    it("SQL over HTTP has its own bucket: past it, 429 RATE_LIMITED with Retry-After", async () => {
      const app = h.appWith({ rateLimits: { sql: { capacity: 1, refillPerSecond: 0.01 } } });
      const url = `http://api.test/sql/db?sql=${encodeURIComponent(superjson.stringify({ sql: 'select "address" from "token" limit 1', params: [] }))}`;
      const headers = { "x-forwarded-for": "203.0.113.9" };
      const first = await app.request(url, { headers });
      expect(first.status, await first.clone().text()).toBe(200);
      expect(((await first.json()) as { rows: unknown[] }).rows.length).toBe(1);
      const second = await app.request(url, { headers });
      expect(second.status).toBe(429);
      expect(((await second.json()) as { code: string }).code).toBe("RATE_LIMITED");
      expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
      // Reads elsewhere are not in that bucket.
      expect((await app.request("http://api.test/api/v1/stats", { headers })).status).toBe(200);
    });
  });
}
