/**
 * Requests an attacker would send: GraphQL documents made to be expensive (thousands of
 * repeated fields, nesting thousands of levels deep), on real indexed data. Each is refused
 * quickly as a 400 GraphQL error, and the event loop keeps answering `/health` meanwhile.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { getIntrospectionQuery } from "graphql";
import type { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_BREADTH } from "../../api/graphql/builder.js";
import { type Harness, startHarness } from "./harness.js";

let h: Harness;
/** What the app logged as unexpected (nothing here may be). */
const logged: unknown[] = [];
let app: Hono;

beforeAll(async () => {
  h = await startHarness();
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
  repeated: (n: number) => `# ${n}\n{ ${"stats { enrolledTokens } ".repeat(1_100)} }`,
  /** Distinct fields, each once, beyond the breadth limit. */
  broad: (n: number) => `# ${n}\n{ ${Array.from({ length: 450 }, (_, i) => `a${i}: health { status }`).join(" ")} }`,
  /** ~2,300 levels of list nesting in an argument. */
  deepList: (n: number) => `# ${n}\n{ token(address: ${"[".repeat(2_300)}"0x0"${"]".repeat(2_300)}) { name } }`,
  /** ~6,000 levels of selections. */
  deepSelections: (n: number) => `# ${n}\n${"{a".repeat(6_000)}${"}".repeat(6_000)}`,
  /** Beyond the token limit, in a few characters per token. */
  tokens: (n: number) => `# ${n}\n{ health(${"a:1 ".repeat(3_000)}) { status } }`,
  /** Fragments spread into each other: each fragment doubles the fields. */
  fragments: (n: number) =>
    `# ${n}\n{ ...F0 } fragment F0 on Query { ...F1 ...F1 } ${Array.from({ length: 20 }, (_, i) => `fragment F${i + 1} on Query { ...F${i + 2} ...F${i + 2} }`).join(" ")} fragment F21 on Query { stats { enrolledTokens } }`,
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
    expect((await post(hostile.broad(1))).json.errors?.[0]).toMatchObject({ message: `query breadth ${MAX_BREADTH + 1} exceeds the limit of ${MAX_BREADTH}`, extensions: { kind: "breadth" } });
    expect((await post(hostile.deepList(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "nesting" });
    expect((await post(hostile.deepSelections(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "nesting" });
    expect((await post(hostile.tokens(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "tokens" });
    expect((await post(hostile.fragments(1))).json.errors?.[0]?.extensions).toMatchObject({ kind: "breadth" });
    // Depth beyond the limit, spread over fragments, is refused before validation with the limit's words.
    const deepFragments = `{ ...A } fragment A on Query { burns { edges { node { ...B } } } } fragment B on Burn { token { burns { edges { node { ...C } } } } } fragment C on Burn { token { burns { edges { node { id } } } } }`;
    const deep = await post(deepFragments);
    expect(deep.status).toBe(400);
    expect(deep.json.errors?.[0]?.message).toMatch(/depth limit of 10 exceeded/i);
  });

  it("still answers what a client really asks: GraphiQL's introspection, a wide page, a few repeats", async () => {
    const intro = await post(getIntrospectionQuery());
    expect(intro.status).toBe(200);
    expect(intro.json.errors).toBeUndefined();
    const ok = await post(`{ stats { enrolledTokens } stats { enrolledTokens } health { status } burns(first: 5) { edges { node { id amount token { symbol } } } } }`);
    expect(ok.status).toBe(200);
    expect(ok.json.errors).toBeUndefined();
  });

  it("never blocks the event loop: /health answers while hostile documents are processed", async () => {
    const health = async () => {
      const t = performance.now();
      const res = await app.request("http://api.test/api/v1/health", { headers: { "x-forwarded-for": "198.51.100.8" } });
      expect(res.status).toBe(200);
      await res.text();
      return performance.now() - t;
    };
    // Unloaded baseline, after a warm-up.
    for (let i = 0; i < 5; i++) await health();
    const baseline: number[] = [];
    for (let i = 0; i < 20; i++) baseline.push(await health());
    const baselineMedian = baseline.sort((a, b) => a - b)[10]!;

    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const loaded: number[] = [];
    let n = 100;
    let stop = false;
    // Three attackers, each sending a fresh hostile document as soon as the last is answered.
    const attackers = Array.from({ length: 3 }, async () => {
      const kinds = Object.values(hostile);
      let sent = 0;
      while (!stop) {
        const a = await post(kinds[n % kinds.length]!(n++));
        expect(a.status).toBe(400);
        sent++;
      }
      return sent;
    });
    const started = performance.now();
    while (performance.now() - started < 3_000) {
      loaded.push(await health());
      await new Promise((r) => setTimeout(r, 10));
    }
    stop = true;
    const sent = (await Promise.all(attackers)).reduce((a, b) => a + b, 0);
    delay.disable();

    const worst = Math.max(...loaded);
    // The machine's own speed, from the unloaded baseline: a slow machine gets a proportionally wider bound.
    const slowness = Math.max(1, baselineMedian / 20);
    expect(sent).toBeGreaterThan(30);
    expect(worst, `health under attack: worst ${worst.toFixed(1)} ms, baseline median ${baselineMedian.toFixed(1)} ms, ${sent} hostile documents`).toBeLessThan(100 * slowness);
    expect(worst / baselineMedian).toBeLessThan(100);
    // Longest stall of the event loop while under attack (ns → ms).
    expect(delay.max / 1e6, "event loop stall").toBeLessThan(50 * slowness);
    expect(logged).toEqual([]);
  }, 60_000);
});
