/**
 * Answers while PostgreSQL cannot be reached. The API (built in memory over pools on a real
 * PostgreSQL server of its own) answers normally; the server is stopped with a fast shutdown
 * (every session terminated: 57P01, then refused connections). Every answer is then a 503 that
 * says so — REST `{ "error": ... }` with Retry-After, GraphQL SERVICE_UNAVAILABLE with status
 * 503, `/health` and `/ready` 503 with the reason and since when, the metrics say the database
 * is down — never a 500 nor "Unexpected error.". Started again, the same app answers again.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../api/create-app.js";
import type { ApiDeps, ReadDb } from "../../api/deps.js";
import { createEnginePort } from "../../api/engine-port.js";
import { createChainLauncher } from "../../core/launch/deploy-and-enroll.js";
import { type PostgresHandle, startPostgres } from "../../devnet/postgres.js";
import { answer } from "../helpers/http.js";
import { testConfig } from "../helpers/env.js";
import { freePort } from "../helpers/ports.js";
import { createPublicClient, http, type PublicClient } from "viem";
import { testEnv } from "../helpers/env.js";
import { migrate } from "../../core/db/migrations.js";

const dir = mkdtempSync(join(tmpdir(), "api-db-outage-"));
chmodSync(dir, 0o755); // PostgreSQL runs as the `postgres` user when we are root
let postgres: PostgresHandle;
let port: number;
let readPool: pg.Pool;
let enginePool: pg.Pool;
let call: (method: string, path: string, body?: unknown) => ReturnType<typeof answer>;

beforeAll(async () => {
  port = await freePort();
  postgres = await startPostgres({ dataDir: join(dir, "pg"), port });
  // The tables health reads: ponder's meta and checkpoint (as ponder makes them), the engine's.
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA app;
    CREATE TABLE app._ponder_meta (key text PRIMARY KEY, value jsonb);
    CREATE TABLE app._ponder_checkpoint (chain_name text, chain_id bigint, latest_checkpoint varchar(75));
    INSERT INTO app._ponder_meta VALUES ('app', '{"is_ready": 1}');`);
  await admin.end();
  readPool = new pg.Pool({ connectionString: postgres.url, max: 4, options: "-c search_path=app" });
  enginePool = new pg.Pool({ connectionString: postgres.url, max: 4 });
  for (const p of [readPool, enginePool]) p.on("error", () => {});
  await migrate(enginePool);
  const config = testConfig(postgres.url);
  const deps: ApiDeps = {
    db: drizzle(readPool, { casing: "snake_case" }) as unknown as ReadDb,
    config,
    engine: createEnginePort(enginePool),
    launcher: createChainLauncher({
      config,
      publicClient: createPublicClient({ transport: http(testEnv().rpcUrl) }) as PublicClient,
      sender: undefined as never,
    }),
    startedAt: Date.now(),
    pollIntervalMs: 0,
    logError: (error, where) => console.error("unexpected error", where, error),
  };
  const app = createApp(deps);
  call = async (method, path, body) =>
    answer(
      await app.request(`http://api.test${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
}, 120_000);

afterAll(async () => {
  await readPool?.end().catch(() => {});
  await enginePool?.end().catch(() => {});
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("PostgreSQL unreachable", () => {
  it("REST, GraphQL, /health, /ready and the metrics answer 503 with the reason, then recover", async () => {
    const before = await call("GET", "/api/v1/health");
    expect(before.status, before.text).toBe(200);
    expect((await call("GET", "/api/v1/metrics")).text).toMatch(/^launchpad_database_up 1$/m);

    await postgres.stop();
    const downAt = Date.now();
    for (const path of ["/api/v1/health", "/api/v1/ready"]) {
      const res = await call("GET", path);
      expect(res.status, `${path}: ${res.text}`).toBe(503);
      expect(res.json.status).toBe("unavailable");
      expect(res.json.reasons[0]).toMatch(/^database unreachable since \d{4}-\d\d-\d\dT/);
      expect(Date.parse(res.json.since)).toBeGreaterThanOrEqual(downAt - 1_000);
    }
    for (const path of ["/api/v1/tokens", "/api/v1/stats", "/api/v1/activity", "/api/v1/buybacks"]) {
      const res = await call("GET", path);
      expect(res.status, `${path}: ${res.text}`).toBe(503);
      expect(res.json).toEqual({ error: "database unavailable; retry later", code: "DATABASE_UNAVAILABLE" });
      expect(res.headers.get("retry-after")).toBe("5");
    }
    for (const query of ["{ health { status } }", "{ stats { openDesks { __typename } } }", "{ tokens(first: 1) { edges { node { __typename } } } }"]) {
      const res = await call("POST", "/graphql", { query });
      expect(res.status, `${query}: ${res.text}`).toBe(503);
      expect(res.text).not.toMatch(/Unexpected error/);
      expect(res.json.errors[0].extensions.code).toBe("SERVICE_UNAVAILABLE");
    }
    const metrics = await call("GET", "/api/v1/metrics");
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^launchpad_database_up 0$/m);
    expect(metrics.text).toMatch(/^launchpad_health_degraded 1$/m);

    postgres = await startPostgres({ dataDir: join(dir, "pg"), port });
    let after = await call("GET", "/api/v1/health");
    for (let i = 0; i < 20 && after.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250));
      after = await call("GET", "/api/v1/health");
    }
    expect(after.status, after.text).toBe(200);
    expect((await call("GET", "/api/v1/metrics")).text).toMatch(/^launchpad_database_up 1$/m);
  });
});
