/**
 * Thousands of generated malformed requests to REST and GraphQL, in memory and over HTTP
 * through ponder's server, on real indexed data: never a 5xx, always a JSON error. And GraphQL
 * documents generated from the served schema (its introspection): fields with arguments of
 * their types and selections of their own, valid and mangled — never a 5xx nor an internal error.
 */
import fc from "fast-check";
import {
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isUnionType,
} from "graphql";
import { getAddress } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { ERROR_STATUS, conflict } from "../../../api/http/errors.js";
import type { LaunchPort } from "../../../core/launch/deploy-and-enroll.js";
import { type Harness, OPERATOR_API_KEY } from "../harness.js";
import { seededWorld } from "./world.js";

let h: Harness;
/** Valid launches and registrations are answered without sending: this suite is about input. */
const refusingLauncher: LaunchPort = {
  launch: async () => {
    throw conflict("fuzz: not launched");
  },
  register: async () => {
    throw conflict("fuzz: not registered");
  },
};
let memory: (request: Request) => Promise<Response>;

/** Registers the suite; its hooks and tests run inside the describe that calls it (test/api/seeded.test.ts). */
export function fuzzSuite(): void {
  beforeAll(async () => {
    ({ h } = seededWorld());
    const app = h.appWith({ launcher: refusingLauncher });
    memory = async (request) => app.request(request);
  }, 300_000);

  // ------------------------------------------------------------------ generators

  const hex = (min: number, max: number) =>
    fc.array(fc.constantFrom(..."0123456789abcdefABCDEF"), { minLength: min, maxLength: max }).map((c) => `0x${c.join("")}`);
  const address = fc.oneof(
    hex(40, 40),
    hex(0, 45),
    fc.constant("0x000000000000000000000000000000000000dEaD"),
    fc.constant(getAddress("0x5fbdb2315678afecb367f032d93f642f64180aa3")),
    fc.string({ maxLength: 50 }),
  );
  const weird = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.fullUnicodeString({ maxLength: 20 }),
    fc.integer().map(String),
    fc.double().map(String),
    fc.constantFrom("", "-1", "0", "201", "1e3", "NaN", "Infinity", "null", "true", "%00", "../..", "' OR 1=1 --", "\u0000", "9".repeat(400)),
    fc.base64String({ maxLength: 80 }),
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? "").toString("base64url")),
  );
  const percent = fc.oneof(
    fc.double({ noNaN: false }),
    fc.integer({ min: -200, max: 200 }),
    fc.constantFrom(28.5, 57, 9.5, 95, 0.001, -0, 1e308),
    weird,
    fc.constant(null),
    fc.array(fc.integer(), { maxLength: 3 }),
  );
  const launchish = fc.record(
    {
      name: fc.oneof(fc.string({ maxLength: 80 }), fc.integer(), fc.constant(null)),
      symbol: fc.oneof(fc.string({ maxLength: 40 }), fc.boolean()),
      image: fc.oneof(fc.webUrl(), fc.string({ maxLength: 30 })),
      description: fc.oneof(fc.string({ maxLength: 50 }), fc.object()),
      creator: address,
      token: address,
      assetPct: percent,
      perpPct: percent,
      creatorPct: percent,
      extra: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  const jsonText = fc.oneof(
    launchish.map((v) => JSON.stringify(v)),
    fc.jsonValue().map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 200 }),
    launchish.map((v) => JSON.stringify(v).slice(0, -1)),
    fc.constantFrom('{"a":1,"a":2}', "[".repeat(100), '{"assetPct":28.5e9999}', '{"__proto__":{"x":1}}', "\uFEFF{}", "{} {}"),
  );
  const body = fc.oneof(
    fc.constant(undefined),
    jsonText,
    fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
    fc.integer({ min: 16_000, max: 40_000 }).map((n) => JSON.stringify({ name: "x".repeat(n) })),
  );
  const restPath = fc.oneof(
    fc.constantFrom(
      "/api/v1/health",
      "/api/v1/stats",
      "/api/v1/activity",
      "/api/v1/buybacks",
      "/api/v1/tokens",
      "/api/v1/tokens/launch",
      "/api/v1/tokens/register",
      "/api/v1/openapi.json",
      "/api/v1/agents",
      "/api/v1/auth/nonce",
      "/api/v1/auth/verify",
      "/api/v1",
      "/api/v1/",
    ),
    address.map((a) => `/api/v1/buybacks/${encodeURIComponent(a)}`),
    address.map((a) => `/api/v1/agents/${encodeURIComponent(a)}`),
    address.map((a) => `/api/v1/tokens/${encodeURIComponent(a)}/flow`),
    address.map((a) => `/api/v1/tokens/${encodeURIComponent(a)}/audit`),
    fc.tuple(weird, weird).map(([tx, log]) => `/api/v1/burns/${encodeURIComponent(tx)}/${encodeURIComponent(log)}`),
    fc.array(weird, { minLength: 1, maxLength: 4 }).map((parts) => `/api/v1/${parts.map(encodeURIComponent).join("/")}`),
  );
  const query = fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom("limit", "cursor", "kind", "token"), fc.string({ maxLength: 8 })),
        fc.oneof(weird, address, fc.constantFrom("burn", "burn,rugpull", "protocol-buyback,")),
      ),
      {
        maxLength: 4,
      },
    )
    .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")}` : ""));
  const restRequest = fc.record({
    method: fc.constantFrom("GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"),
    path: restPath,
    query,
    contentType: fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "text/plain",
      "",
      "multipart/form-data; boundary=x",
      "APPLICATION/JSON",
    ),
    authorization: fc.oneof(
      fc.constant(undefined),
      fc.constant(`Bearer ${OPERATOR_API_KEY}`),
      fc.constantFrom("Bearer", "Bearer wrong", "Basic abc"),
      fc.string({ maxLength: 40 }),
    ),
    body,
  });

  const gqlValue: fc.Arbitrary<string> = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string({ maxLength: 30 }).map((s) => JSON.stringify(s)),
      address.map((a) => JSON.stringify(a)),
      fc.integer().map(String),
      fc.bigInt({ min: -(2n ** 100n), max: 2n ** 100n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
      fc.constantFrom("null", "true", "NEWEST", "LARGEST", "DAY", "YEAR", "OPEN", "ORGANIC", "$v", '"2025-01-01T00:00:00Z"', '"-1"', '"1.5"'),
      fc.array(tie("value"), { maxLength: 3 }).map((xs) => `[${xs.join(", ")}]`),
      fc.dictionary(fc.constantFrom("token", "kinds", "fromBlock", "toBlock", "from", "to", "x"), tie("value"), { maxKeys: 3 }).map(
        (o) =>
          `{ ${Object.entries(o)
            .map(([k, v]) => `${k}: ${v}`)
            .join(", ")} }`,
      ),
    ),
  })).value;
  const gqlQuery = fc.oneof(
    fc
      .tuple(gqlValue, gqlValue, gqlValue)
      .map(([a, b, c]) => `{ burns(first: ${a}, after: ${b}, filter: ${c}) { edges { node { id amount token { symbol } } } pageInfo { endCursor } } }`),
    fc.tuple(gqlValue, gqlValue).map(([a, b]) => `{ buybacks(filter: ${a}, orderBy: ${b}) { edges { node { usdcIn pairedIn } } } }`),
    fc.tuple(gqlValue, gqlValue, gqlValue).map(([a, b, c]) => `{ burnTotals(token: ${a}, groupBy: ${b}, from: ${c}) { start burned } }`),
    gqlValue.map((a) => `{ token(address: ${a}) { name desk { status } burns(first: 3) { edges { node { id } } } } }`),
    fc.tuple(gqlValue, gqlValue).map(([a, b]) => `{ desks(status: ${a}, token: ${b}) { edges { node { id unrealisedPnl } } } }`),
    fc.tuple(gqlValue, gqlValue).map(([a, b]) => `{ activity(kinds: ${a}, first: ${b}) { edges { node { kind data } } } }`),
    fc.tuple(gqlValue, gqlValue).map(([a, b]) => `{ tokens(first: ${a}, enrolled: ${b}) { edges { node { address } } } }`),
    fc.tuple(gqlValue, gqlValue).map(([a, b]) => `{ burnProof(txHash: ${a}, logIndex: ${b}) }`),
    gqlValue.map((a) => `{ token(address: ${a}) { feeFlow audit } }`),
    fc.constantFrom(
      "{ stats { feesToOperatorUsdc openDesks { id } } health { status } }",
      "{ __schema { types { name } } }",
      "subscription { burnCreated { id } }",
    ),
    fc.string({ maxLength: 120 }),
    fc
      .integer({ min: 1, max: 60 })
      .map((n) => `{ ${'token(address: "0x0") { burns { edges { node { token { '.repeat(n % 8)} id ${"} } } } }".repeat(n % 8)} }`),
  );
  const gqlRequest = fc.record({
    method: fc.constantFrom("POST", "POST", "GET"),
    query: gqlQuery,
    variables: fc.oneof(fc.constant(undefined), fc.jsonValue(), fc.dictionary(fc.constantFrom("v", "after", "a"), fc.jsonValue(), { maxKeys: 2 })),
    raw: fc.oneof(
      fc.constant(undefined),
      fc.string({ maxLength: 80 }),
      fc.jsonValue().map((v) => JSON.stringify(v)),
    ),
  });

  // ------------------------------------------------------------------ requests and checks

  const BASE = "http://api.test";

  type RestRequest = typeof restRequest extends fc.Arbitrary<infer T> ? T : never;
  type GraphqlRequest = typeof gqlRequest extends fc.Arbitrary<infer T> ? T : never;

  function restFetch(r: RestRequest, base: string, client: string): Request {
    const headers = new Headers({ "x-forwarded-for": client });
    if (r.contentType) headers.set("content-type", r.contentType);
    if (r.authorization !== undefined) headers.set("authorization", r.authorization);
    const hasBody = !["GET", "HEAD"].includes(r.method) && r.body !== undefined;
    return new Request(`${base}${r.path}${r.query}`, { method: r.method, headers, body: hasBody ? r.body : undefined });
  }

  function gqlFetch(r: GraphqlRequest, base: string, client: string): Request {
    const headers = { "x-forwarded-for": client, accept: "application/json", "content-type": "application/json" };
    if (r.method === "GET") {
      const params = new URLSearchParams({ query: r.query });
      if (r.variables !== undefined) params.set("variables", JSON.stringify(r.variables));
      return new Request(`${base}/graphql?${params}`, { method: "GET", headers });
    }
    const text = r.raw ?? JSON.stringify({ query: r.query, variables: r.variables });
    return new Request(`${base}/graphql`, { method: "POST", headers, body: text });
  }

  /** No 5xx; a JSON answer; a REST error is exactly `{ error: string }`; no stack trace anywhere. */
  async function checkRest(res: Response, method: string, where: string) {
    const text = await res.text();
    expect(res.status, `${where} → ${res.status} ${text}`).toBeLessThan(500);
    expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
    if (method === "HEAD" || res.status === 204) return;
    if (method === "OPTIONS" && res.status < 300) return;
    const type = res.headers.get("content-type") ?? "";
    if (/^text\/html/.test(type)) return; // prospectus-style pages are not under /api/v1
    expect(type, `${where} → ${res.status} ${text}`).toMatch(/^application\/json/);
    const json = JSON.parse(text);
    if (res.status >= 400) {
      expect(Object.keys(json), `${where} → ${text}`).toEqual(["error", "code"]);
      expect(typeof json.error).toBe("string");
      // The code is one of the service's, and its status is the one answered.
      expect(ERROR_STATUS[json.code as keyof typeof ERROR_STATUS], `${where} → ${res.status} ${text}`).toBe(res.status);
      expect(json.error.length).toBeGreaterThan(0);
    }
  }

  async function checkGraphql(res: Response, where: string) {
    const text = await res.text();
    expect(res.status, `${where} → ${res.status} ${text}`).toBeLessThan(500);
    expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);
    const json = JSON.parse(text);
    if (res.status >= 400 || !("data" in json) || json.data === null) {
      if (res.status === 429 || res.status === 413) expect(typeof json.error).toBe("string");
      else expect(Array.isArray(json.errors), `${where} → ${text}`).toBe(true);
    }
    for (const e of json.errors ?? []) {
      expect(typeof e.message).toBe("string");
      expect(e.message, `${where} → ${text}`).not.toBe("Unexpected error.");
    }
  }

  let clients = 0;
  const nextClient = () => `198.18.${(clients >> 8) & 255}.${clients++ & 255}`;

  describe("fuzz", () => {
    it("REST in memory: 3000 malformed requests, no 5xx, always a JSON error", async () => {
      await fc.assert(
        fc.asyncProperty(restRequest, async (r) => {
          await checkRest(await memory(restFetch(r, BASE, "fuzz")), r.method, `${r.method} ${r.path}${r.query}`);
        }),
        { numRuns: 3000 },
      );
    });

    it("GraphQL in memory: 2000 malformed requests, no 5xx, always GraphQL errors", async () => {
      await fc.assert(
        fc.asyncProperty(gqlRequest, async (r) => {
          await checkGraphql(await memory(gqlFetch(r, BASE, "fuzz")), `${r.method} ${r.raw ?? r.query}`);
        }),
        { numRuns: 2000 },
      );
    });

    it("over HTTP through ponder's server: 400 REST and 300 GraphQL requests", async () => {
      // Without the operator key: ponder's API really launches, so its POSTs stop at auth here.
      const noKey = restRequest.map((r) => ({ ...r, authorization: r.authorization === `Bearer ${OPERATOR_API_KEY}` ? "Bearer wrong" : r.authorization }));
      await fc.assert(
        fc.asyncProperty(noKey, async (r) => {
          await checkRest(await fetch(restFetch(r, h.url, nextClient())), r.method, `HTTP ${r.method} ${r.path}${r.query}`);
        }),
        { numRuns: 400 },
      );
      await fc.assert(
        fc.asyncProperty(gqlRequest, async (r) => {
          await checkGraphql(await fetch(gqlFetch(r, h.url, nextClient())), `HTTP ${r.method} ${r.raw ?? r.query}`);
        }),
        { numRuns: 300 },
      );
    });
  });

  // ------------------------------------------------------------------ documents from the served schema

  /** A literal for an input type: mostly well-typed, sometimes not (null, a wrong scalar). */
  function inputValue(type: GraphQLInputType, depth: number): fc.Arbitrary<string> {
    const wrong = fc.constantFrom("null", "1", '"x"', "[]", "{}", "true", "-1", '"0x0"');
    const inner = getNullableType(type) as GraphQLInputType;
    let good: fc.Arbitrary<string>;
    if (isListType(inner))
      good = depth > 2 ? fc.constant("[]") : fc.array(inputValue(inner.ofType, depth + 1), { maxLength: 3 }).map((xs) => `[${xs.join(", ")}]`);
    else if (isEnumType(inner)) good = fc.constantFrom(...inner.getValues().map((v) => v.name));
    else if (isInputObjectType(inner)) {
      const fields = Object.values(inner.getFields());
      good =
        depth > 2 || fields.length === 0
          ? fc.constant("{}")
          : fc.tuple(...fields.map((f) => fc.option(inputValue(f.type, depth + 1), { nil: undefined }))).map(
              (vs) =>
                `{ ${vs
                  .map((v, i) => (v === undefined ? "" : `${fields[i]!.name}: ${v}`))
                  .filter(Boolean)
                  .join(", ")} }`,
            );
    } else if (isScalarType(inner) && inner.name === "Int") good = fc.oneof(fc.integer({ min: -5, max: 300 }), fc.integer()).map(String);
    else if (isScalarType(inner) && inner.name === "Boolean") good = fc.boolean().map(String);
    else if (isScalarType(inner) && inner.name === "Float") good = fc.double({ noNaN: true, noDefaultInfinity: true }).map(String);
    else
      good = fc
        .oneof(
          address,
          fc.string({ maxLength: 12 }),
          fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
          fc.constantFrom("2025-01-01T00:00:00Z", ""),
        )
        .map((v) => JSON.stringify(v));
    return fc.oneof({ weight: 4, arbitrary: good }, { weight: 1, arbitrary: wrong });
  }

  /**
   * A selection of `type`'s fields, each with arguments and, for objects, a selection of their own. Plain selections
   * give no arguments and leave out the fields that require one: documents that should be answered.
   */
  function selection(schema: GraphQLSchema, type: GraphQLOutputType, depth: number, plain = false): fc.Arbitrary<string> {
    const named = getNamedType(type);
    if (isUnionType(named) || isInterfaceType(named)) {
      const members = isUnionType(named) ? named.getTypes() : schema.getPossibleTypes(named);
      if (members.length === 0 || depth > 3) return fc.constant("{ __typename }");
      return fc
        .subarray([...members], { minLength: 1, maxLength: Math.min(2, members.length) })
        .chain((ms) => fc.tuple(...ms.map((m) => selection(schema, m, depth + 1, plain).map((sel) => `... on ${m.name} ${sel}`))))
        .map((parts) => `{ __typename ${parts.join(" ")} }`);
    }
    if (!isObjectType(named)) return fc.constant("");
    const fields = (Object.values(named.getFields()) as GraphQLField<unknown, unknown>[]).filter((f) => !plain || f.args.every((a) => !isNonNullType(a.type)));
    if (depth > 3 || fields.length === 0) return fc.constant("{ __typename }");
    return fc
      .subarray(fields, { minLength: 1, maxLength: Math.min(4, fields.length) })
      .chain((fs) => fc.tuple(...fs.map((f) => field(schema, f, depth, plain))))
      .map((parts) => `{ ${parts.join(" ")} }`);
  }

  function field(schema: GraphQLSchema, f: GraphQLField<unknown, unknown>, depth: number, plain: boolean): fc.Arbitrary<string> {
    const args =
      f.args.length === 0 || plain
        ? fc.constant("")
        : fc.tuple(...f.args.map((a) => fc.option(inputValue(a.type, 0), { nil: undefined, freq: 2 }))).map((vs) => {
            const given = vs.map((v, i) => (v === undefined ? "" : `${f.args[i]!.name}: ${v}`)).filter(Boolean);
            return given.length ? `(${given.join(", ")})` : "";
          });
    const named = getNamedType(f.type);
    const sub = isObjectType(named) || isInterfaceType(named) || isUnionType(named) ? selection(schema, f.type, depth + 1, plain) : fc.constant("");
    return fc.tuple(args, sub).map(([a, s2]) => `${f.name}${a} ${s2}`.trim());
  }

  /** A valid-looking document, or the same mangled: a span cut out, a character inserted, a brace dropped. */
  function documents(schema: GraphQLSchema): fc.Arbitrary<string> {
    const valid = selection(schema, schema.getQueryType()!, 0);
    const mangled = fc
      .tuple(valid, fc.nat(), fc.nat({ max: 8 }), fc.constantFrom("{", "}", "(", ")", ":", "$", "@", "...", '"', "#", "\\u0000", "query", "fragment"))
      .map(([d, at, len, ins]) => {
        const i = at % Math.max(1, d.length);
        return `${d.slice(0, i)}${ins}${d.slice(i + len)}`;
      });
    const plain = selection(schema, schema.getQueryType()!, 0, true);
    return fc.oneof({ weight: 2, arbitrary: valid }, { weight: 1, arbitrary: plain }, { weight: 1, arbitrary: mangled });
  }

  describe("documents generated from the served schema", () => {
    it("valid and mangled, in memory: never a 5xx nor an internal error", async () => {
      const intro = await memory(
        new Request(`${BASE}/graphql`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({ query: getIntrospectionQuery() }),
        }),
      );
      const schema = buildClientSchema(((await intro.json()) as { data: never }).data);
      const send = async (query: string) => {
        const res = await memory(
          new Request(`${BASE}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json", "x-forwarded-for": "fuzz" },
            body: JSON.stringify({ query }),
          }),
        );
        return { status: res.status, text: await res.text() };
      };
      await fc.assert(
        fc.asyncProperty(documents(schema), async (query) => {
          const { status, text } = await send(query);
          expect(status, `${query} → ${status} ${text}`).toBeLessThan(500);
          expect(text, query).not.toMatch(/INTERNAL_SERVER_ERROR|Unexpected error/);
        }),
        { numRuns: 300 },
      );
      // The generator reaches real answers, not only refusals: every plain document (no arguments) is answered without
      // errors. Checked on a fixed sample, so the outcome depends on the schema and the seeded data, never on the seed.
      const refused: string[] = [];
      const sample = fc.sample(selection(schema, schema.getQueryType()!, 0, true), { numRuns: 100, seed: 38 });
      for (const query of sample) {
        const { status, text } = await send(query);
        if (status !== 200 || text.includes('"errors"')) refused.push(`${query} → ${status} ${text.slice(0, 300)}`);
      }
      expect(refused).toEqual([]);
    }, 120_000);
  });
}
