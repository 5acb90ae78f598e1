/**
 * Every REST route's answers against the OpenAPI document the service serves, checked by
 * openapi-backend's response validator: the happy path and the route's refusals (bad input,
 * not found, the operator key, a body too large or not JSON, the rate limit, the database busy
 * or unreachable, missing configuration, a reverted deploy). For each answer: its status is
 * documented for the route, its content type is the documented one, its body matches the
 * documented schema (an error is `{ error, code }` with one of the codes the document lists
 * for that route and status) and so do its documented headers. On real PostgreSQL and the devnet.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import type { Hono } from "hono";
import OpenAPIBackend, { type Document, type Operation } from "openapi-backend";
import pg from "pg";
import { getAddress, parseAbi } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import type { ReadDb } from "../../../api/deps.js";
import { REST_ROUTES } from "../../../api/create-app.js";
import { EXPORT_ROUTES } from "../../../api/rest/export.js";
import * as act from "../../helpers/actions.js";
import { type Answer, answer } from "../../helpers/http.js";
import { type Harness, OPERATOR_API_KEY, actors } from "../harness.js";
import type { Scenario } from "../scenario.js";
import { seededWorld } from "./world.js";

let h: Harness;
let s: Scenario;
let api: OpenAPIBackend;
const { operator, trader } = actors();
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
/** `operationId status` of every answer checked. */
const checked = new Set<string>();

/** Registers the suite; its hooks and tests run inside the describe that calls it (test/api/seeded.test.ts). */
export function openapiContractSuite(): void {
  beforeAll(async () => {
    ({ h, s } = seededWorld());
    const served = await h.call("GET", "/api/v1/openapi.json");
    expect(served.status).toBe(200);
    // Strict: a document openapi-backend finds invalid fails here.
    api = new OpenAPIBackend({
      definition: structuredClone(served.json) as Document,
      apiRoot: "/api/v1",
      strict: true,
      quick: false,
      // The formats the document uses (ajv knows none by default): RFC 3339 timestamps, UUIDs, URIs.
      ajvOpts: {
        formats: { "date-time": RFC3339, uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, uri: (v: string) => URL.canParse(v) },
      },
    });
    await api.init();
  }, 300_000);

  /** Checks one answer of `method path` against the document; returns it for further checks. */
  function conforms(method: string, path: string, a: Answer): Answer {
    const where = `${method} ${path} → ${a.status} ${a.text.slice(0, 300)}`;
    const url = new URL(path, "http://api.test");
    const operation = api.matchOperation({ method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: {} }) as Operation | undefined;
    expect(operation, `${method} ${url.pathname} is a documented route`).toBeDefined();
    const documented = operation!.responses?.[String(a.status)] as { content?: Record<string, unknown> } | undefined;
    expect(documented, `${where}: status documented`).toBeDefined();
    const type = (a.headers.get("content-type") ?? "").split(";")[0]!.trim();
    expect(Object.keys(documented!.content ?? {}), `${where}: content type`).toContain(type);
    if (type === "application/x-ndjson") {
      // A stream of records: each line matches the documented record.
      const lines = a.text.split("\n").filter(Boolean);
      for (const line of lines) expect(api.validateResponse(JSON.parse(line), operation!, a.status).errors, `${where}: line ${line.slice(0, 200)}`).toBeNull();
    } else if (type === "text/csv") {
      // A header row, then rows, each CRLF-terminated.
      expect(a.text, `${where}: CSV`).toMatch(/^id,[^\r\n]*,cursor\r\n/);
      expect(a.text.endsWith("\r\n"), `${where}: CSV ends with a line end`).toBe(true);
    } else {
      expect(a.json, `${where}: a JSON body`).toBeDefined();
      const body = api.validateResponse(a.json, operation!, a.status);
      expect(body.errors, `${where}: body`).toBeNull();
    }
    const headers = api.validateResponseHeaders(Object.fromEntries(a.headers), operation!, { statusCode: a.status });
    expect(headers.errors, `${where}: headers`).toBeNull();
    checked.add(`${operation!.operationId} ${a.status}`);
    return a;
  }

  const v1 = (path: string) => `/api/v1${path}`;
  /** Calls `app` (the harness's own by default) and checks the answer. */
  async function call(
    method: string,
    path: string,
    p: { json?: unknown; body?: string; key?: string; headers?: Record<string, string>; app?: Hono } = {},
  ): Promise<Answer> {
    const headers = new Headers(p.headers);
    if (p.json !== undefined) headers.set("content-type", "application/json");
    if (p.key) headers.set("authorization", `Bearer ${p.key}`);
    const init = { method, headers, body: p.json !== undefined ? JSON.stringify(p.json) : p.body };
    const a = p.app ? await answer(await p.app.request(`http://api.test${v1(path)}`, init)) : await h.call(method, v1(path), init);
    return conforms(method, v1(path), a);
  }
  const get = (path: string, p?: Parameters<typeof call>[2]) => call("GET", path, p);
  const post = (path: string, json: unknown, p: Parameters<typeof call>[2] = {}) => call("POST", path, { json, key: OPERATOR_API_KEY, ...p });

  function expectCode(a: Answer, status: number, code: string) {
    expect(a.status, a.text).toBe(status);
    expect(a.json.code, a.text).toBe(code);
  }

  const unknownToken = getAddress("0x000000000000000000000000000000000000beef");
  const launchBody = { name: "Contract Cat", symbol: "CCAT", assetPct: 28.5, perpPct: 57, creatorPct: 9.5 };
  const split = { assetPct: 40, perpPct: 45.5, creatorPct: 9.5 };

  describe("reads", () => {
    it("GET /health and /ready", async () => {
      expect((await get("/health")).status).toBe(200);
      expect([200, 503]).toContain((await get("/ready")).status);
    });

    it("GET /stats", async () => {
      expect((await get("/stats")).status).toBe(200);
    });

    it("GET /activity: a page, and bad filters, cursors and repeated parameters", async () => {
      expect((await get(`/activity?token=${s.token}&limit=5`)).status).toBe(200);
      expectCode(await get("/activity?kind=rugpull"), 400, "BAD_REQUEST");
      expectCode(await get("/activity?cursor=!!!"), 400, "BAD_REQUEST");
      expectCode(await get("/activity?limit=1&limit=2"), 400, "BAD_REQUEST");
      expectCode(await get("/activity?token=0xzz"), 400, "BAD_REQUEST");
    });

    it("GET /buybacks and /buybacks/:token: pages, a malformed address, an unknown token", async () => {
      expect((await get("/buybacks")).status).toBe(200);
      expectCode(await get("/buybacks?limit=201"), 400, "BAD_REQUEST");
      expect((await get(`/buybacks/${s.token}`)).status).toBe(200);
      expectCode(await get("/buybacks/0x1234"), 400, "BAD_REQUEST");
      expectCode(await get(`/buybacks/${unknownToken}`), 404, "NOT_FOUND");
    });

    it("GET /tokens: a page, each filter and bad input", async () => {
      expect((await get("/tokens?limit=5")).status).toBe(200);
      expect((await get("/tokens?limit=200&enrolled=true")).status).toBe(200);
      expect((await get("/tokens?limit=200&enrolled=false")).status).toBe(200);
      expectCode(await get("/tokens?cursor=eyJhIjoxfQ"), 400, "BAD_REQUEST");
      expectCode(await get("/tokens?enrolled=maybe"), 400, "BAD_REQUEST");
    });

    it("GET /desks: pages, each filter and bad filters", async () => {
      expect((await get("/desks?limit=1")).status).toBe(200);
      expect((await get(`/desks?status=open,closed&token=${s.token}&halted=false`)).status).toBe(200);
      expect((await get("/desks?halted=true")).status).toBe(200);
      expectCode(await get("/desks?status=rekt"), 400, "BAD_REQUEST");
      expectCode(await get("/desks?token=0x1234"), 400, "BAD_REQUEST");
      expectCode(await get("/desks?halted=1"), 400, "BAD_REQUEST");
      expectCode(await get("/desks?cursor=!!!"), 400, "BAD_REQUEST");
    });

    it("GET /tokens/:token/candles, /tokens/:token/market and /burns/:token: answers, bad input, unknown tokens", async () => {
      expect((await get(`/tokens/${s.token}/candles?period=hour&limit=10`)).status).toBe(200);
      expectCode(await get(`/tokens/${s.token}/candles?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z`), 400, "BAD_REQUEST");
      expectCode(await get(`/tokens/${s.token}/candles?period=minute`), 400, "BAD_REQUEST");
      expectCode(await get(`/tokens/${unknownToken}/candles`), 404, "NOT_FOUND");
      expect((await get(`/tokens/${s.token}/market`)).status).toBe(200);
      expectCode(await get("/tokens/not-an-address/market"), 400, "BAD_REQUEST");
      expectCode(await get(`/tokens/${unknownToken}/market`), 404, "NOT_FOUND");
      expect((await get(`/burns/${s.token}?limit=5`)).status).toBe(200);
      expectCode(await get("/burns/0x12"), 400, "BAD_REQUEST");
      expectCode(await get(`/burns/${unknownToken}`), 404, "NOT_FOUND");
    });

    it("GET /burns/:txHash/:logIndex, /tokens/:token/flow, /tokens/:token/audit and /tokens/:token/desk-statement: answers, bad input, unknown ones", async () => {
      const burns = (await get(`/burns/${s.token}?limit=5`)).json as { items: { txHash: string; id: string }[] };
      const burn = burns.items[0];
      if (burn) expect((await get(`/burns/${burn.txHash}/${burn.id.split("-")[1]}`)).status).toBe(200);
      expectCode(await get("/burns/0x12/0"), 400, "BAD_REQUEST");
      expectCode(await get(`/burns/0x${"ab".repeat(32)}/x`), 400, "BAD_REQUEST");
      expectCode(await get(`/burns/0x${"ab".repeat(32)}/0`), 404, "NOT_FOUND");
      expect((await get(`/tokens/${s.token}/flow`)).status).toBe(200);
      expectCode(await get("/tokens/0x12/flow"), 400, "BAD_REQUEST");
      expectCode(await get(`/tokens/${unknownToken}/flow`), 404, "NOT_FOUND");
      expect((await get(`/tokens/${s.token}/audit`)).status).toBe(200);
      expectCode(await get("/tokens/0x12/audit"), 400, "BAD_REQUEST");
      expectCode(await get(`/tokens/${unknownToken}/audit`), 404, "NOT_FOUND");
      expect((await get(`/tokens/${s.token}/desk-statement`)).status).toBe(200);
      expectCode(await get("/tokens/0x12/desk-statement"), 400, "BAD_REQUEST");
      expectCode(await get(`/tokens/${unknownToken}/desk-statement`), 404, "NOT_FOUND");
    });

    it("GET /export/*: every dataset in both formats, with filters, and their refusals", async () => {
      for (const route of EXPORT_ROUTES) {
        const a = await get(route.path);
        expect(a.status, `${route.path}: ${a.text.slice(0, 200)}`).toBe(200);
        expect(a.text.length).toBeGreaterThan(0);
        expect((await get(`${route.path}?token=${s.token}&from=2020-01-01T00:00:00Z&fromBlock=0&order=newest&limit=3`)).status).toBe(200);
        expectCode(await get(`${route.path}?colour=blue`), 400, "BAD_REQUEST");
        expectCode(await get(`${route.path}?after=!!!`), 400, "BAD_REQUEST");
      }
      expectCode(await get("/export/burns.ndjson?kind=rugpull"), 400, "BAD_REQUEST");
    });

    it("GET /audit: the report with the operator key, 401 without, 403 with a wrong one", async () => {
      expect((await get("/audit", { key: OPERATOR_API_KEY })).status).toBe(200);
      expectCode(await get("/audit"), 401, "UNAUTHORIZED");
      expectCode(await get("/audit", { key: "wrong-key-wrong-key-wrong" }), 403, "FORBIDDEN");
    });
  });

  describe("writes", () => {
    it("POST /tokens/launch: the launch, then every refusal of its input and key", async () => {
      // The scenario's launch (over HTTP, as a client would).
      expect(conforms("POST", v1("/tokens/launch"), s.launch as Answer).status).toBe(201);
      expectCode(await post("/tokens/launch", { ...launchBody, name: 5 }), 400, "BAD_REQUEST");
      expectCode(await post("/tokens/launch", { ...launchBody, creatorPct: 10 }), 400, "BAD_REQUEST");
      expectCode(
        await call("POST", "/tokens/launch", { body: '{"name":', key: OPERATOR_API_KEY, headers: { "content-type": "application/json" } }),
        400,
        "BAD_REQUEST",
      );
      expectCode(await post("/tokens/launch", launchBody, { headers: { "idempotency-key": "no spaces allowed" } }), 400, "BAD_REQUEST");
      expectCode(await post("/tokens/launch", launchBody, { key: "" }), 401, "UNAUTHORIZED");
      expectCode(await post("/tokens/launch", launchBody, { key: "wrong-key-wrong-key-wrong" }), 403, "FORBIDDEN");
      const big = JSON.stringify({ ...launchBody, description: "x".repeat(20_000) });
      expectCode(
        await call("POST", "/tokens/launch", { body: big, key: OPERATOR_API_KEY, headers: { "content-type": "application/json" } }),
        413,
        "PAYLOAD_TOO_LARGE",
      );
      expectCode(
        await call("POST", "/tokens/launch", { body: JSON.stringify(launchBody), key: OPERATOR_API_KEY, headers: { "content-type": "text/plain" } }),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      );
    });

    it("POST /tokens/launch: 502 with the revert reason when the deploy reverts", async () => {
      const clanker = parseAbi(["function setDeprecated(bool deprecated_)"]);
      await operator.write(h.contracts.launcher!, clanker, "setDeprecated", [true]);
      try {
        const a = await post("/tokens/launch", { name: "Nope", symbol: "NOPE" });
        expectCode(a, 502, "CHAIN_REFUSED");
        expect(a.json.error).toBe("deploy reverted: Deprecated()");
      } finally {
        await operator.write(h.contracts.launcher!, clanker, "setDeprecated", [false]);
      }
    });

    it("POST /tokens/register: enrols, then refuses it again, an unknown token, one that does not pay the operator", async () => {
      const launched = await act.launchToken(trader, h.contracts, {
        name: "Contract Later",
        symbol: "CLATE",
        operator: operator.account.address,
        creator: trader.account.address,
      });
      expect((await post("/tokens/register", { token: launched.token, creator: trader.account.address, ...split })).status).toBe(201);
      expectCode(await post("/tokens/register", { token: launched.token, ...split }), 409, "CONFLICT");
      expectCode(await post("/tokens/register", { token: getAddress("0x00000000000000000000000000000000000c0ffe"), ...split }), 404, "NOT_FOUND");
      expectCode(await post("/tokens/register", { token: launched.token }), 400, "BAD_REQUEST");
      const unpaid = await act.launchToken(trader, h.contracts, {
        name: "Contract Unpaid",
        symbol: "CUNPD",
        operator: trader.account.address,
        creator: trader.account.address,
      });
      expectCode(await post("/tokens/register", { token: unpaid.token, ...split }), 422, "UNPROCESSABLE");
      expectCode(await post("/tokens/register", { token: unpaid.token, ...split }, { key: "" }), 401, "UNAUTHORIZED");
    });
  });

  describe("the service's own limits and outages", () => {
    it("429 RATE_LIMITED with Retry-After on reads and writes", async () => {
      const app = h.appWith({ rateLimits: { read: { capacity: 1, refillPerSecond: 0.01 }, write: { capacity: 1, refillPerSecond: 0.01 } } });
      const client = { "x-forwarded-for": "203.0.113.77" };
      expect((await get("/stats", { app, headers: client })).status).toBe(200);
      const refused = await get("/stats", { app, headers: client });
      expectCode(refused, 429, "RATE_LIMITED");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expectCode(await get(`/buybacks/${s.token}`, { app, headers: client }), 429, "RATE_LIMITED");
      expectCode(await post("/tokens/launch", {}, { app, headers: client }), 400, "BAD_REQUEST");
      expectCode(await post("/tokens/launch", {}, { app, headers: client }), 429, "RATE_LIMITED");
    });

    it("503 NOT_CONFIGURED naming the variable when the operator key is not set", async () => {
      const app = h.appWith({ config: { ...h.deps.config, operatorApiKey: undefined } });
      const launch = await post("/tokens/launch", launchBody, { app });
      expectCode(launch, 503, "NOT_CONFIGURED");
      expect(launch.json.error).toBe("missing configuration: OPERATOR_API_KEY is not set");
      expectCode(await get("/audit", { app, key: OPERATOR_API_KEY }), 503, "NOT_CONFIGURED");
      expectCode(await post("/tokens/register", { token: s.token, ...split }, { app }), 503, "NOT_CONFIGURED");
    });

    it("503 DATABASE_UNAVAILABLE (never a 500) when PostgreSQL cannot be reached; /health and /ready say why", async () => {
      const down = new pg.Pool({ connectionString: "postgres://nobody@127.0.0.1:1/nothing", max: 1, connectionTimeoutMillis: 2_000 });
      down.on("error", () => {});
      try {
        const app = h.appWith({ db: drizzle(down, { casing: "snake_case" }) as unknown as ReadDb });
        for (const path of [
          "/stats",
          "/desks",
          "/activity",
          "/buybacks",
          `/buybacks/${s.token}`,
          "/tokens",
          `/tokens/${s.token}/market`,
          `/tokens/${s.token}/candles`,
          `/burns/${s.token}`,
          ...EXPORT_ROUTES.map((r) => r.path),
        ]) {
          const a = await get(path, { app });
          expectCode(a, 503, "DATABASE_UNAVAILABLE");
          expect(a.headers.get("retry-after")).toBe("5");
        }
        for (const path of ["/health", "/ready"]) {
          const a = await get(path, { app });
          expect(a.status).toBe(503);
          expect(a.json.status).toBe("unavailable");
        }
      } finally {
        await down.end();
      }
    });

    it("503 DATABASE_BUSY when a read meets a lock timeout twice", async () => {
      const pool = new pg.Pool({ connectionString: h.databaseUrl, max: 2, options: "-c search_path=app -c lock_timeout=200" });
      const holder = new pg.Client({ connectionString: h.databaseUrl });
      await holder.connect();
      try {
        const app = h.appWith({ db: drizzle(pool, { casing: "snake_case" }) as unknown as ReadDb });
        await holder.query("BEGIN");
        await holder.query("LOCK TABLE app.token IN ACCESS EXCLUSIVE MODE");
        const a = await get("/tokens?limit=3", { app });
        expectCode(a, 503, "DATABASE_BUSY");
        expect(a.headers.get("retry-after")).toBe("1");
      } finally {
        await holder.query("ROLLBACK").catch(() => {});
        await holder.end();
        await pool.end();
      }
    });
  });

  describe("webhooks", () => {
    it("POST, GET and DELETE /webhooks, the dead letters and their retry: answers and refusals", async () => {
      const key = OPERATOR_API_KEY;
      const body = { url: "https://hooks.example/launchpad", events: ["burn", "protocol-buyback"], token: s.token, pending: true };
      const created = await post("/webhooks", body);
      expect(created.status, created.text).toBe(201);
      expectCode(await post("/webhooks", { ...body, url: "nope" }), 400, "BAD_REQUEST");
      expectCode(await post("/webhooks", { ...body, events: ["rugpull"] }), 400, "BAD_REQUEST");
      expectCode(await post("/webhooks", body, { key: "" }), 401, "UNAUTHORIZED");
      expectCode(await post("/webhooks", body, { key: "wrong-key-wrong-key-wrong" }), 403, "FORBIDDEN");
      expect((await get("/webhooks", { key })).status).toBe(200);
      expectCode(await get("/webhooks"), 401, "UNAUTHORIZED");

      // A dead letter, as the engine leaves one after 24 h of failures.
      const pool = new pg.Pool({ connectionString: h.databaseUrl, max: 1 });
      let dead: string;
      try {
        const { rows } = await pool.query(
          `INSERT INTO engine.webhook_deliveries (endpoint_id, fact_key, kind, block_number, phase, body, status, attempts, last_status, last_error, expires_at, dead_at)
         VALUES ($1, 'x:0x00', 'burn', 1, 'final', '{"id":"0","event":"burn.final"}', 'dead', 40, 500, 'HTTP 500', now(), now()) RETURNING id::text`,
          [created.json.id],
        );
        dead = rows[0].id;
      } finally {
        await pool.end();
      }
      const letters = await get(`/webhooks/dead-letters?endpoint=${created.json.id}&limit=1`, { key });
      expect(letters.status).toBe(200);
      expect(letters.json.items).toHaveLength(1);
      expectCode(await get("/webhooks/dead-letters?cursor=abc", { key }), 400, "BAD_REQUEST");
      expect((await call("POST", `/webhooks/dead-letters/${dead}/retry`, { key })).status).toBe(200);
      expectCode(await call("POST", `/webhooks/dead-letters/${dead}/retry`, { key }), 404, "NOT_FOUND");

      expect((await call("DELETE", `/webhooks/${created.json.id}`, { key })).status).toBe(200);
      expectCode(await call("DELETE", `/webhooks/${created.json.id}`, { key }), 404, "NOT_FOUND");
      expectCode(await call("DELETE", "/webhooks/not-an-id", { key }), 400, "BAD_REQUEST");

      // Without the engine's database: 503 naming it.
      const idle = h.appWith({ engine: { ...h.deps.engine, webhooks: undefined } });
      expectCode(await post("/webhooks", body, { app: idle }), 503, "NOT_CONFIGURED");
    });
  });

  describe("the validator", () => {
    it("refuses what the document does not allow: another code, a missing one, a status not listed", () => {
      const audit = api.getOperations().find((o) => o.method === "get" && o.path === "/audit")!;
      expect(api.validateResponse({ error: "missing Authorization", code: "UNAUTHORIZED" }, audit, 401).valid).toBe(true);
      expect(api.validateResponse({ error: "missing Authorization", code: "NOT_FOUND" }, audit, 401).valid).toBe(false);
      expect(api.validateResponse({ error: "missing Authorization" }, audit, 401).valid).toBe(false);
      expect(api.validateResponse({ error: "x", code: "UNAUTHORIZED", stack: "at x" }, audit, 401).valid).toBe(false);
      expect(audit.responses?.["404"]).toBeUndefined();
      const stats = api.getOperations().find((o) => o.method === "get" && o.path === "/stats")!;
      expect(api.validateResponse({ updatedAt: "yesterday" }, stats, 200).valid).toBe(false);
    });
  });

  describe("coverage", () => {
    it("answers every operation of the served document at the server URL joined with its path (where a generated client sends it)", async () => {
      const served = (await h.call("GET", v1("/openapi.json"))).json as { servers: { url: string }[]; paths: Record<string, Record<string, unknown>> };
      expect(served.servers).toEqual([{ url: "/api/v1" }]);
      const base = served.servers[0]!.url;
      const example: Record<string, string> = { token: s.token, txHash: `0x${"ab".repeat(32)}`, logIndex: "0", id: "00000000-0000-4000-8000-000000000000" };
      const unrouted: string[] = [];
      for (const [path, item] of Object.entries(served.paths)) {
        for (const method of Object.keys(item)) {
          expect(item[method], `${method} ${path}: no server of its own`).not.toHaveProperty("servers");
          const url = base + path.replace(/\{(\w+)\}/g, (_m, name: string) => example[name] ?? name);
          // Bad input, a missing key or an unknown id are the route's own answers; only the catch-all says "no route".
          const a = await h.call(method.toUpperCase(), url);
          if (a.status === 404 && String(a.json?.error).startsWith("no route")) unrouted.push(`${method.toUpperCase()} ${path} (${url})`);
        }
      }
      expect(unrouted).toEqual([]);
      // The prospectus page lives outside /api/v1 (docs/api.md): were it listed, a generated client would send it here.
      const page = await h.call("GET", `${base}/p/${s.token}`);
      expect([page.status, page.json?.error]).toEqual([404, `no route GET ${base}/p/${s.token}`]);
    });

    it("checked every REST route's success and its refusals", () => {
      const id = (method: string, path: string) =>
        api.getOperations().find((o) => o.method === method && o.path === path.replace(/:(\w+)/g, "{$1}"))!.operationId!;
      const expected: Record<string, number[]> = {
        "get /health": [200, 503],
        "get /ready": [503],
        "get /stats": [200, 429, 503],
        "get /desks": [200, 400, 503],
        "get /activity": [200, 400, 503],
        "get /buybacks": [200, 400, 503],
        "get /buybacks/:token": [200, 400, 404, 429, 503],
        "get /tokens": [200, 400, 503],
        "get /tokens/:token/candles": [200, 400, 404, 503],
        "get /tokens/:token/market": [200, 400, 404, 503],
        "get /burns/:token": [200, 400, 404, 503],
        "post /tokens/launch": [201, 400, 401, 403, 413, 415, 429, 502, 503],
        "post /tokens/register": [201, 400, 401, 404, 409, 422, 503],
        "get /audit": [200, 401, 403, 503],
        "get /burns/:txHash/:logIndex": [400, 404],
        "get /tokens/:token/flow": [200, 400, 404],
        "get /tokens/:token/audit": [200, 400, 404],
        "get /tokens/:token/desk-statement": [200, 400, 404],
        ...Object.fromEntries(EXPORT_ROUTES.map((r) => [`get ${r.path}`, [200, 400, 503]])),
        "post /webhooks": [201, 400, 401, 403, 503],
        "get /webhooks": [200, 401],
        "get /webhooks/dead-letters": [200, 400],
        "delete /webhooks/:id": [200, 400, 404],
        "post /webhooks/dead-letters/:id/retry": [200, 404],
      };
      expect(Object.keys(expected).sort()).toEqual(REST_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
      for (const [route, statuses] of Object.entries(expected)) {
        const [method, path] = route.split(" ") as [string, string];
        for (const status of statuses) expect(checked, `${route} → ${status}`).toContain(`${id(method, path)} ${status}`);
      }
    });
  });
}
