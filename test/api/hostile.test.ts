/**
 * Requests an attacker would send: GraphQL documents made to be expensive (thousands of
 * repeated fields, directly or through inline fragments and fragments, hundreds of fragments,
 * nesting thousands of levels deep), on real indexed data. Each is refused as a 400 GraphQL
 * error within a few milliseconds of CPU, and `/health` keeps answering meanwhile.
 */
import { connect } from "node:net";
import { drizzle } from "drizzle-orm/node-postgres";
import { getIntrospectionQuery } from "graphql";
import pg from "pg";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BREADTH } from "../../api/graphql/builder.js";
import { MAX_FRAGMENTS, MAX_TOKENS } from "../../api/graphql/limits.js";
import type { ReadDb } from "../../api/deps.js";
import { type Harness, OPERATOR_API_KEY, startHarness } from "./harness.js";

let h: Harness;
/** What the app logged as unexpected (nothing here may be). */
const logged: unknown[] = [];
let app: Hono;

beforeAll(async () => {
  // A short body deadline, so a slow body is answered within the test.
  h = await startHarness({ BODY_TIMEOUT_SECONDS: "2" });
  app = h.appWith({ logError: (error) => logged.push(error) });
}, 300_000);
afterAll(async () => {
  await h?.stop();
});

/** The hostile documents of the report, each made unique by `n` (so no answer comes from a cache). */
const hostile = {
  /** 61 KB: one field repeated 3,400 times, no aliases. */
  repeated61k: (n: number) => `# ${n}\n{ ${"health { status } ".repeat(3_400)} }`,
  /** Under the size limit: one field repeated 1,600 times. */
  repeated: (n: number) => `# ${n}\n{ ${"stats { tokensEnrolled } ".repeat(1_100)} }`,
  /** Distinct fields, each once, beyond the breadth limit. */
  broad: (n: number) => `# ${n}\n{ ${Array.from({ length: 450 }, (_, i) => `a${i}: health { status }`).join(" ")} }`,
  /** ~2,300 levels of list nesting in an argument. */
  deepList: (n: number) => `# ${n}\n{ token(address: ${"[".repeat(2_300)}"0x0"${"]".repeat(2_300)}) { name } }`,
  /** ~6,000 levels of selections. */
  deepSelections: (n: number) => `# ${n}\n${"{a".repeat(6_000)}${"}".repeat(6_000)}`,
  /** Beyond the token limit, in a few characters per token. */
  tokens: (n: number) => `# ${n}\n{ health(${"a:1 ".repeat(MAX_TOKENS)}) { status } }`,
  /** Fragments spread into each other: each fragment doubles the fields. */
  fragments: (n: number) =>
    `# ${n}\n{ ...F0 } fragment F0 on Query { ...F1 ...F1 } ${Array.from({ length: 20 }, (_, i) => `fragment F${i + 1} on Query { ...F${i + 2} ...F${i + 2} }`).join(" ")} fragment F21 on Query { stats { tokensEnrolled } }`,
  /** One field repeated through inline fragments, each once: validation compares them all pairwise. */
  inlineFragments: (n: number) => `# ${n}\n{ ${"... on Query { stats { tokensEnrolled } } ".repeat(190)} }`,
  /** One field repeated through fragments spread once each. */
  spreadFragments: (n: number) =>
    `# ${n}\n{ ${Array.from({ length: 30 }, (_, i) => `...F${i}`).join(" ")} } ${Array.from({ length: 30 }, (_, i) => `fragment F${i} on Query { stats { tokensEnrolled } }`).join(" ")}`,
  /** Hundreds of fragments, each with a field of its own: validation compares every two. */
  manyFragments: (n: number) =>
    `# ${n}\n{ ${Array.from({ length: 250 }, (_, i) => `...F${i}`).join(" ")} } ${Array.from({ length: 250 }, (_, i) => `fragment F${i} on Query { a${i}: __typename }`).join(" ")}`,
  /** A field repeated inside introspection (whose fields do not count toward breadth). */
  introspection: (n: number) => `# ${n}\n{ __schema { types { ${"name ".repeat(2_500)} } } }`,
};

async function post(query: string, accept = "application/json") {
  const res = await app.request("http://api.test/graphql", {
    method: "POST",
    headers: { "content-type": "application/json", accept, "x-forwarded-for": "198.51.100.7" },
    body: JSON.stringify({ query }),
  });
  return { status: res.status, json: (await res.json()) as { errors?: { message: string; extensions?: Record<string, unknown> }[] } };
}

describe("hostile GraphQL documents", () => {
  it("each is refused as a 400 QUERY_TOO_COMPLEX error, never an internal error", async () => {
    for (const [name, make] of Object.entries(hostile)) {
      for (const accept of ["application/json", "application/graphql-response+json"]) {
        const a = await post(make(0), accept);
        expect(a.status, `${name}: ${JSON.stringify(a.json)}`).toBe(400);
        expect(a.json.errors?.[0]?.extensions?.code, name).toBe("QUERY_TOO_COMPLEX");
        expect(a.json.errors?.[0]?.message).not.toMatch(/Unexpected error/);
      }
    }
    expect(logged).toEqual([]);
  });

  it("names the limit each one broke", async () => {
    expect((await post(hostile.repeated61k(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "size" });
    expect((await post(hostile.repeated(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "repeated" });
    expect((await post(hostile.broad(1))).json.errors?.[0]).toMatchObject({
      message: `query breadth ${MAX_BREADTH + 1} exceeds the limit of ${MAX_BREADTH}`,
      extensions: { kind: "breadth" },
    });
    expect((await post(hostile.deepList(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "nesting" });
    expect((await post(hostile.deepSelections(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "nesting" });
    expect((await post(hostile.tokens(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "tokens" });
    // Each fragment doubles its name's count in the set it is spread into: refused at the 11th.
    expect((await post(hostile.fragments(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "repeated", value: 16 });
    expect((await post(hostile.inlineFragments(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "repeated", value: 11 });
    expect((await post(hostile.spreadFragments(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "repeated", value: 11 });
    expect((await post(hostile.manyFragments(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "fragments", max: MAX_FRAGMENTS });
    expect((await post(hostile.introspection(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "repeated" });
    // Depth beyond the limit, spread over fragments, is refused before validation with the limit's words.
    const deepFragments = `{ ...A } fragment A on Query { burns { edges { node { ...B } } } } fragment B on Burn { token { burns { edges { node { ...C } } } } } fragment C on Burn { token { burns { edges { node { id } } } } }`;
    const deep = await post(deepFragments);
    expect(deep.status).toBe(400);
    expect(deep.json.errors?.[0]?.message).toMatch(/depth limit of 10 exceeded/i);
  });

  it("answers a syntax error, from the lexer or the parser, as the client's: 400", async () => {
    for (const query of ["'", " ", "{ health {", '{ health(a: "x) { status } }']) {
      const a = await post(query);
      expect(a.status, `${JSON.stringify(query)}: ${JSON.stringify(a.json)}`).toBe(400);
      expect(a.json.errors?.[0]?.message).toMatch(/^Syntax Error/);
    }
    expect(logged).toEqual([]);
  });

  it("still answers what a client really asks: GraphiQL's introspection, a wide page, a few repeats", async () => {
    const intro = await post(getIntrospectionQuery());
    expect(intro.status).toBe(200);
    expect(intro.json.errors).toBeUndefined();
    const ok = await post(
      `{ stats { tokensEnrolled } stats { tokensEnrolled } health { status } burns(first: 5) { edges { node { id amount token { symbol } } } } }`,
    );
    expect(ok.status).toBe(200);
    expect(ok.json.errors).toBeUndefined();
  });
});

/** One `/health` from the ponder process, in milliseconds (the body read). */
async function healthTook(): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${h.url}/api/v1/health`, { headers: { "x-forwarded-for": nextClient() } });
  await res.text();
  if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
  return performance.now() - started;
}
/** A client address per request, so no rate limit answers in place of the work measured. */
let clients = 0;
const nextClient = () => `198.18.${(clients >> 8) & 255}.${clients++ & 255}`;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const ms = (x: number) => `${x.toFixed(1)} ms`;

describe("the event loop while hostile documents are processed", () => {
  it("each hostile document is refused within 50 ms of CPU (in memory, the costliest of every kind)", async () => {
    const took: Record<string, number> = {};
    let n = 100;
    for (const [name, make] of Object.entries(hostile)) {
      await post(make(n++)); // code warm
      // CPU time, not wall time: the machine's other work does not count, all of ours does.
      // The least of three: a garbage collection of earlier work may land in any one.
      const runs: number[] = [];
      for (let i = 0; i < 3; i++) {
        const before = process.cpuUsage();
        const a = await post(make(n++));
        const cpu = process.cpuUsage(before);
        expect(a.status).toBe(400);
        runs.push((cpu.user + cpu.system) / 1000);
      }
      took[name] = Math.min(...runs);
    }
    console.log("CPU per hostile document (ms):", JSON.stringify(Object.fromEntries(Object.entries(took).map(([k, v]) => [k, Number(v.toFixed(2))]))));
    for (const [name, cpu] of Object.entries(took)) expect(cpu, name).toBeLessThan(50);
  });

  it("/health keeps answering over HTTP while three clients send them, against an unloaded baseline measured here", async () => {
    for (let i = 0; i < 5; i++) await healthTook(); // connections and code warm
    const baseline: number[] = [];
    for (let i = 0; i < 30; i++) baseline.push(await healthTook());

    // Three clients at once, each sending every hostile document in turn, to the same process.
    let stop = false;
    let refused = 0;
    let n = 1_000;
    const sender = async () => {
      while (!stop) {
        for (const make of Object.values(hostile)) {
          const res = await fetch(`${h.url}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json", "x-forwarded-for": nextClient() },
            body: JSON.stringify({ query: make(n++) }),
          });
          const json = (await res.json()) as { errors?: { extensions?: { code?: string } }[] };
          expect(res.status).toBe(400);
          expect(json.errors?.[0]?.extensions?.code).toBe("QUERY_TOO_COMPLEX");
          refused++;
          // Each client sends again 20 ms after its answer: documents are in flight nearly all the
          // time, without the flood's own queueing (the rate limits' business) hiding the measure.
          await new Promise((r) => setTimeout(r, 20));
        }
      }
    };
    const senders = [1, 2, 3].map(sender);
    await new Promise((r) => setTimeout(r, 200));
    const loaded: number[] = [];
    const until = Date.now() + 5_000;
    while (Date.now() < until) loaded.push(await healthTook());
    stop = true;
    await Promise.all(senders);

    const [b50, b90, l50, l90] = [quantile(baseline, 0.5), quantile(baseline, 0.9), quantile(loaded, 0.5), quantile(loaded, 0.9)];
    const report =
      `/health unloaded: median ${ms(b50)}, p90 ${ms(b90)}, max ${ms(Math.max(...baseline))}; ` +
      `with hostile documents in flight: median ${ms(l50)}, p90 ${ms(l90)}, max ${ms(Math.max(...loaded))} over ${loaded.length} answers; ` +
      `ratio of medians ${(l50 / b50).toFixed(2)}; ${refused} hostile documents refused meanwhile`;
    console.log(report);
    expect(refused, report).toBeGreaterThan(3 * Object.keys(hostile).length);
    // The loop keeps turning: /health's p90 stays under 250 ms, or within four times its own
    // unloaded p90 on a machine so busy that /health alone takes near that. A document that
    // held the loop for hundreds of milliseconds would break either; the CPU each document
    // costs is bounded exactly by the test above (wall time on a shared machine cannot be).
    expect(l90, report).toBeLessThan(Math.max(250, 4 * b90));
    // Three clients sending as fast as they are answered queue some work ahead of /health.
    expect(l50 / b50, report).toBeLessThan(10);
  }, 60_000);
});

/** Sends `head` and `body` on a raw connection to the ponder process; `then` decides what happens next. */
function raw(head: string, body: string, then: "close" | "wait"): Promise<string> {
  const url = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(`${head}\r\n\r\n${body}`);
      if (then === "close") setTimeout(() => socket.destroy(), 100);
    });
    let answer = "";
    socket.on("data", (d) => (answer += d.toString()));
    socket.on("close", () => resolve(answer));
    socket.on("error", (e) => (then === "close" ? resolve(answer) : reject(e)));
    setTimeout(() => socket.destroy(), 15_000);
  });
}

/** Samples of ponder's request-duration histogram, by `path|status`. */
async function requestSamples(): Promise<Map<string, number>> {
  const text = await (await fetch(`${h.url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^ponder_http_server_request_duration_ms_count\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    const key = `${labels.method} ${labels.path}|${labels.status}`;
    out.set(key, (out.get(key) ?? 0) + Number(m[2]));
  }
  return out;
}
const delta = (after: Map<string, number>, before: Map<string, number>) =>
  Object.fromEntries([...after].filter(([k, v]) => v !== (before.get(k) ?? 0)).map(([k, v]) => [k, v - (before.get(k) ?? 0)]));

describe("client faults over HTTP, through ponder's server", () => {
  it("counts each request once, under the route that answered it", async () => {
    const before = await requestSamples();
    for (let i = 0; i < 10; i++) expect((await fetch(`${h.url}/api/v1/health`)).status).toBe(200);
    expect((await fetch(`${h.url}/api/v1/no-such-route`)).status).toBe(404);
    const changed = delta(await requestSamples(), before);
    delete changed["GET /metrics|2XX"];
    expect(changed).toEqual({ "GET /api/v1/health|2XX": 10 });
  });

  it("an aborted upload is a client error: never a 5xx, never an error with a stack in the log", async () => {
    const before = await requestSamples();
    const logsBefore = h.logs.length;
    const head = `POST /graphql HTTP/1.1\r\nHost: ${new URL(h.url).host}\r\nContent-Type: application/json\r\nContent-Length: 100`;
    await raw(head, `{"query":`, "close");
    await new Promise((r) => setTimeout(r, 500));
    const changed = delta(await requestSamples(), before);
    expect(Object.keys(changed).filter((k) => k.endsWith("5XX"))).toEqual([]);
    expect(changed["POST /graphql|4XX"]).toBe(1);
    const logs = h.logs.slice(logsBefore).join("\n");
    expect(logs).not.toMatch(/unexpected error|\n\s+at .+:\d+:\d+/i);
  });

  it("a body shorter than its Content-Length is answered 408 at the deadline, not held for minutes", async () => {
    const started = Date.now();
    const head = `POST /api/v1/tokens/register HTTP/1.1\r\nHost: ${new URL(h.url).host}\r\nAuthorization: Bearer ${OPERATOR_API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100`;
    const answer = await raw(head, `{"token":`, "wait");
    const took = Date.now() - started;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(answer).toContain('{"error":"request body not received within 2 s","code":"REQUEST_TIMEOUT"}');
    expect(took).toBeGreaterThanOrEqual(1_900);
    expect(took).toBeLessThan(10_000);
  }, 30_000);
});

describe("a read that hits a lock timeout", () => {
  it('is retried once, then answered 503 with a code (REST and GraphQL), never a 500 nor "Unexpected error."', async () => {
    // The API's reads with a short lock timeout (ponder's own is 500 ms), counting the lock timeouts they hit.
    const pool = new pg.Pool({ connectionString: h.databaseUrl, max: 4, options: "-c search_path=app -c lock_timeout=300" });
    let lockTimeouts = 0;
    const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
    pool.query = (async (...args: unknown[]) => {
      try {
        return await query(...args);
      } catch (error) {
        if ((error as { code?: string }).code === "55P03") lockTimeouts++;
        throw error;
      }
    }) as typeof pool.query;
    const unexpected: unknown[] = [];
    const warned: string[] = [];
    const busyApp = h.appWith({
      db: drizzle(pool, { casing: "snake_case" }) as unknown as ReadDb,
      logError: (error) => unexpected.push(error),
      logWarn: (message, context) => warned.push(`${context}: ${message}`),
    });
    const call = (path: string, init?: RequestInit) => busyApp.request(`http://api.test${path}`, init);
    const gql = (query: string) =>
      call("/graphql", { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify({ query }) });
    const tokensQuery = "{ tokens(first: 2) { edges { node { address name } } } }";

    // Another session holds the token table exclusively, as a migration or a long writer would.
    const holder = new pg.Client({ connectionString: h.databaseUrl });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("LOCK TABLE app.token IN ACCESS EXCLUSIVE MODE");

      const rest = await call("/api/v1/tokens?limit=2");
      const restText = await rest.text();
      expect(rest.status, restText).toBe(503);
      expect(JSON.parse(restText)).toEqual({ error: "DATABASE_BUSY: the database is busy (lock timeout); retry", code: "DATABASE_BUSY" });
      expect(rest.headers.get("retry-after")).toBe("1");
      expect(lockTimeouts, "the REST read and its one retry").toBe(2);

      const graphql = await gql(tokensQuery);
      const graphqlText = await graphql.text();
      expect(graphql.status, graphqlText).toBe(503);
      expect(graphqlText).not.toMatch(/Unexpected error/);
      const errors = (JSON.parse(graphqlText) as { errors: { message: string; extensions?: { code?: string } }[] }).errors;
      expect(errors[0]).toMatchObject({ message: "the database is busy (lock timeout); retry", extensions: { code: "DATABASE_BUSY" } });
      expect(lockTimeouts, "the GraphQL read and its one retry").toBe(4);
      // An expected, handled condition: one line at warn, no stack, never an error.
      expect(warned).toEqual(["graphql: the database is busy (lock timeout): answered 503 DATABASE_BUSY"]);

      // Released just after a read's first lock timeout: its retry answers.
      const answered = call("/api/v1/tokens?limit=2");
      while (lockTimeouts < 5) await new Promise((r) => setTimeout(r, 5));
      await holder.query("COMMIT");
      const retried = await answered;
      expect(retried.status, await retried.clone().text()).toBe(200);
      expect(Array.isArray(((await retried.json()) as { items: unknown[] }).items)).toBe(true);
      expect(lockTimeouts).toBe(5);
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      await holder.end();
      await pool.end();
    }
    expect(unexpected).toEqual([]);
  });
});
