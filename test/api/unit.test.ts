/**
 * The HTTP interface's pure parts, in memory: the exact JSON parser, percent → bps, the split
 * rule, cursors, rate limits, the operator key, error mapping, activity formatting, the OpenAPI
 * document generated from the request schemas.
 */
import { getAddress } from "viem";
import fc from "fast-check";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { type ZodError, z } from "zod";
import { ConfigError, MissingConfigError } from "../../common/config.js";
import { LaunchConfigError } from "../../common/deploy-config.js";
import { InferenceError } from "../../core/agents/inference.js";
import { WalletKeyError } from "../../core/agents/keys.js";
import { AgentConflictError } from "../../core/agents/store.js";
import { FencedError } from "../../core/leadership.js";
import { PerpsVenueOffError } from "../../engine/perps/venue.js";
import { UnknownWorkerError } from "../../engine/runtime/run-once.js";
import { HealthUnavailable } from "../../api/read/health.js";
import { DEFAULT_SPLIT } from "../../common/constants.js";
import { keysMatch, requireOperatorKey } from "../../api/auth/operator-key.js";
import { REST_ROUTES } from "../../api/create-app.js";
import { decodeCursor, encodeCursor } from "../../api/http/cursor.js";
import { ApiError, ERROR_STATUS, errorResponse, toHttpError } from "../../api/http/errors.js";
import { EngineError, Refusal, SERVICE_ERROR_CODES, ServiceError, causeChain } from "../../core/errors.js";
import { JsonNumber, JsonSyntaxError, MAX_JSON_DEPTH, parseJson, toScaledInteger } from "../../api/http/json.js";
import { RateLimiter, clientAddress, isTrustedProxy, rateLimit } from "../../api/http/rate-limit.js";
import { BodyError, ValidationError, validate } from "../../api/http/validation.js";
import { openApiDocument } from "../../api/openapi/document.js";
import { formatActivityData } from "../../api/read/activity.js";
import { bucketEnd } from "../../api/read/burn-totals.js";
import { unrealisedPnl } from "../../api/read/desks.js";
import { activityQuery, launchBody, pageQuery, registerBody } from "../../api/rest/schemas.js";

const USDC = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const launch = (text: string) => validate(launchBody, parseJson(text), "body");
const launchError = (text: string) => {
  try {
    launch(text);
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  throw new Error(`accepted: ${text}`);
};

describe("exact JSON", () => {
  it("parses what JSON.parse parses, numbers kept as their text", () => {
    const value = parseJson('{"a":[1,-2.5e3,true,null,"x\\u00e9\\n"],"b":{}}') as Record<string, unknown>;
    expect((value.a as unknown[]).map((v) => (v instanceof JsonNumber ? `#${v.text}` : v))).toEqual(["#1", "#-2.5e3", true, null, "xé\n"]);
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        expect(JSON.parse(JSON.stringify(parseJson(text)))).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it("rejects what is not JSON, duplicate keys and deep nesting, with a position", () => {
    for (const bad of ["", "{", "{'a':1}", "[1,]", '{"a":1,}', "01", "1.", ".5", "NaN", "Infinity", "-", '"\\x"', '{"a" 1}', "[1] x", '"a\nb"']) {
      expect(() => parseJson(bad), bad).toThrow(JsonSyntaxError);
    }
    expect(() => parseJson('{"a":1,"a":2}')).toThrow(/duplicate key "a"/);
    expect(() => parseJson("[".repeat(MAX_JSON_DEPTH + 2) + "]".repeat(MAX_JSON_DEPTH + 2))).toThrow(/nesting deeper/);
    expect(() => parseJson('{"a":}')).toThrow(/position 5/);
  });

  it("keeps __proto__ an own property", () => {
    const value = parseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(value)).toEqual(["__proto__"]);
  });

  it("scales decimals exactly, exponents included", () => {
    expect(toScaledInteger("28.5", 2)).toBe(2850n);
    expect(toScaledInteger("2.85e1", 2)).toBe(2850n);
    expect(toScaledInteger("28.50", 2)).toBe(2850n);
    expect(toScaledInteger("0.0095e3", 2)).toBe(950n);
    expect(toScaledInteger("28.505", 2)).toBeUndefined();
    expect(toScaledInteger("28.499999999999999999", 2)).toBeUndefined();
    expect(toScaledInteger("1e-1000000000", 2)).toBeUndefined();
    expect(toScaledInteger("0e-1000000000", 2)).toBe(0n);
  });
});

describe("launch and register bodies", () => {
  it("turns percents into bps exactly and adds nothing else", () => {
    expect(launch('{"name":"Cat","symbol":"CAT","image":"https://x.test/c.png","assetPct":28.5,"perpPct":57,"creatorPct":9.5}')).toEqual({
      name: "Cat",
      symbol: "CAT",
      image: "https://x.test/c.png",
      description: undefined,
      creator: undefined,
      split: { assetBps: 2850, perpBps: 5700, creatorBps: 950 },
    });
    expect(launch('{"name":"Cat","symbol":"CAT","assetPct":0.01,"perpPct":94.99,"creatorPct":0}').split).toEqual({ assetBps: 1, perpBps: 9499, creatorBps: 0 });
    expect(launch('{"name":"Cat","symbol":"CAT","assetPct":2.85e1,"perpPct":5.7E1,"creatorPct":9.50}').split).toEqual(DEFAULT_SPLIT);
    expect(launch('{"name":"Cat","symbol":"CAT"}').split).toEqual(DEFAULT_SPLIT);
  });

  it("accepts every split of two-decimal percents summing to 95", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9500 }), fc.integer({ min: 0, max: 9500 }), (a, b) => {
        fc.pre(a + b <= 9500);
        const pct = (bps: number) => (bps / 100).toFixed(2);
        const body = `{"name":"T","symbol":"T","assetPct":${pct(a)},"perpPct":${pct(b)},"creatorPct":${pct(9500 - a - b)}}`;
        expect(launch(body).split).toEqual({ assetBps: a, perpBps: b, creatorBps: 9500 - a - b });
      }),
      { numRuns: 500 },
    );
  });

  it("refuses invalid splits with a message naming the rule", () => {
    const base = (a: string, p: string, c: string) => `{"name":"Cat","symbol":"CAT","assetPct":${a},"perpPct":${p},"creatorPct":${c}}`;
    expect(launchError(base("28.5", "57", "9"))).toBe("invalid split: assetPct + perpPct + creatorPct must equal 95 (got 94.5)");
    expect(launchError(base("30", "57", "9.5"))).toMatch(/must equal 95 \(got 96.5\)/);
    expect(launchError(base("28.505", "57", "9.495"))).toBe(
      "assetPct: must have at most two decimal places (0.01%); creatorPct: must have at most two decimal places (0.01%)",
    );
    expect(launchError(base("-1", "57", "39"))).toMatch(/^assetPct: must not be negative/);
    expect(launchError(base("1e999", "0", "0"))).toMatch(/^assetPct: must be at most 95/);
    expect(launchError(base("96", "0", "0"))).toMatch(/^assetPct: must be at most 95/);
    expect(launchError(base('"28.5"', "57", "9.5"))).toBe("assetPct: expected a number, got string");
    expect(launchError(base("null", "57", "9.5"))).toBe("assetPct: expected a number, got null");
    expect(launchError('{"name":"Cat","symbol":"CAT","assetPct":28.5}')).toMatch(/^invalid split: give all of assetPct, perpPct and creatorPct/);
    // A value JSON.parse would round to 28.5 is still three decimals too many.
    expect(launchError(base("28.499999999999999999", "57", "9.5"))).toMatch(/^assetPct: must have at most two decimal places/);
  });

  it("names wrong types, missing and unknown fields, bad addresses", () => {
    expect(launchError('{"symbol":"CAT"}')).toBe("name: is required");
    expect(launchError('{"name":5,"symbol":"CAT"}')).toBe("name: expected a string, got number");
    expect(launchError('{"name":"  ","symbol":"CAT"}')).toBe("name: name must not be empty");
    // Lengths are UTF-8 bytes, as the launcher stores them: "é" is two.
    expect(launch(`{"name":"${"é".repeat(32)}","symbol":"CAT"}`).name).toHaveLength(32);
    expect(launchError(`{"name":"${"é".repeat(33)}","symbol":"CAT"}`)).toBe("name: name must be at most 64 bytes (UTF-8)");
    expect(launch(`{"name":"Cat 🐈","symbol":"${"🐈".repeat(8)}"}`).symbol).toBe("🐈".repeat(8));
    expect(launchError(`{"name":"Cat","symbol":"${"🐈".repeat(9)}"}`)).toBe("symbol: symbol must be at most 32 bytes (UTF-8)");
    // Well-formed Unicode only: a lone surrogate would reach the chain as U+FFFD.
    for (const lone of ["\\ud800", "\\udfff", "a\\ud83dz", "\\udc08\\ud83d"]) {
      expect(launchError(`{"name":"${lone}","symbol":"CAT"}`)).toBe("name: name must be well-formed Unicode (no lone surrogates)");
      expect(launchError(`{"name":"Cat","symbol":"C${lone}"}`)).toBe("symbol: symbol must be well-formed Unicode (no lone surrogates)");
      expect(launchError(`{"name":"Cat","symbol":"CAT","description":"${lone}"}`)).toMatch(/^description: description must be well-formed Unicode/);
    }
    expect(launch(`{"name":"Cat","symbol":"CAT","description":"\\ud83d\\udc08"}`)).toMatchObject({ description: "🐈" });
    // No control characters (C0, DEL, C1); a description may have line breaks.
    for (const control of ["\\u0000", "\\u0007", "\\u001b", "\\u007f", "\\u0085", "\\u009f"]) {
      expect(launchError(`{"name":"Ca${control}t","symbol":"CAT"}`)).toBe("name: name must not contain control characters");
      expect(launchError(`{"name":"Cat","symbol":"CAT","description":"a${control}b"}`)).toBe("description: description must not contain control characters");
    }
    expect(launch(`{"name":"Cat","symbol":"CAT","description":"line one\\nline two\\tend"}`)).toMatchObject({ description: "line one\nline two\tend" });
    expect(launchError(`{"name":"${"x".repeat(65)}","symbol":"CAT"}`)).toBe("name: name must be at most 64 bytes (UTF-8)");
    expect(launchError('{"name":"Cat","symbol":"CAT","color":"red"}')).toBe('body: unknown field "color"');
    expect(launchError('{"name":"Cat","symbol":"CAT","creator":"0x123"}')).toMatch(/^creator: expected a 0x-prefixed 20-byte hex address/);
    // Mixed case with a wrong checksum is a typo, not an address.
    expect(launchError('{"name":"Cat","symbol":"CAT","creator":"0x5fbDB2315678afecb367f032d93F642f64180aa3"}')).toMatch(/^creator: /);
    expect(launchError("[1,2]")).toBe("body: expected an object, got array");
    expect(launchError('{"name":"Cat","symbol":"CAT","image":"not a url"}')).toBe("image: image must be a URL");
    expect(() => validate(registerBody, parseJson('{"token":"0x5FbDB2315678afecb367f032d93F642f64180aa3","assetPct":28.5,"perpPct":57}'), "body")).toThrow(
      "creatorPct: is required",
    );
  });
});

describe("query strings", () => {
  it("defaults and bounds the page size", () => {
    expect(validate(pageQuery, {}, "query")).toEqual({ limit: 50, cursor: undefined });
    expect(validate(pageQuery, { limit: "200" }, "query").limit).toBe(200);
    for (const limit of ["0", "201", "-1", "1.5", "abc", "", "99999999999"]) {
      expect(() => validate(pageQuery, { limit }, "query"), limit).toThrow("limit: expected an integer from 1 to 200");
    }
  });

  it("accepts known activity kinds, comma-separated, and names an unknown one", () => {
    expect(validate(activityQuery, { kind: "burn,protocol-buyback" }, "query").kind).toEqual(["burn", "protocol-buyback"]);
    expect(() => validate(activityQuery, { kind: "burn,rugpull" }, "query")).toThrow(/^kind: unknown kind "rugpull"/);
  });
});

describe("cursors", () => {
  it("round-trip and are bound to their ordering", () => {
    const c = encodeCursor("burn-newest", [123n, 4]);
    expect(decodeCursor(c, "burn-newest", ["int", "int"])).toEqual([123n, 4n]);
    expect(() => decodeCursor(c, "burn-oldest", ["int", "int"])).toThrow("invalid cursor");
    expect(() => decodeCursor(c, "burn-newest", ["int"])).toThrow("invalid cursor");
  });

  it("reject anything else as invalid, never crash", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (s) => {
        try {
          decodeCursor(s, "burn-newest", ["int", "int"]);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
        }
      }),
      { numRuns: 2000 },
    );
    const evil = Buffer.from(JSON.stringify(["burn-newest", "1; drop table burn", "1"])).toString("base64url");
    expect(() => decodeCursor(evil, "burn-newest", ["int", "int"])).toThrow("invalid cursor");
  });
});

describe("rate limits", () => {
  it("refuses past the burst, with the wait until the next token", () => {
    let now = 0;
    const limiter = new RateLimiter({ capacity: 3, refillPerSecond: 0.5 }, () => now);
    expect([limiter.take("a"), limiter.take("a"), limiter.take("a")].every((r) => r.ok)).toBe(true);
    expect(limiter.take("a")).toEqual({ ok: false, retryAfterSeconds: 2 });
    expect(limiter.take("b").ok).toBe(true);
    now = 2_000;
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("a").ok).toBe(false);
  });

  it("answers 429 with Retry-After as JSON", async () => {
    const app = new Hono().onError((e, c) => errorResponse(c, toHttpError(e)));
    app.get("/x", rateLimit(new RateLimiter({ capacity: 1, refillPerSecond: 0.1 })), (c) => c.json({ ok: true }));
    expect((await app.request("/x")).status).toBe(200);
    const refused = await app.request("/x");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(await refused.json()).toEqual({ error: "rate limit exceeded: retry in 10 s", code: "RATE_LIMITED" });
  });

  it("trusts X-Forwarded-For only from a proxy on a private or loopback address", async () => {
    expect(isTrustedProxy("127.0.0.1") && isTrustedProxy("::ffff:10.1.2.3") && isTrustedProxy("::1")).toBe(true);
    expect(isTrustedProxy("8.8.8.8")).toBe(false);
    const app = new Hono();
    app.get("/", (c) => c.text(clientAddress(c)));
    const ask = async (peer: string | undefined, xff?: string) =>
      (await app.request("/", { headers: xff ? { "x-forwarded-for": xff } : {} }, peer ? { incoming: { socket: { remoteAddress: peer } } } : undefined)).text();
    expect(await ask("8.8.8.8", "1.2.3.4")).toBe("8.8.8.8");
    expect(await ask("127.0.0.1", "1.2.3.4")).toBe("1.2.3.4");
    // A client cannot pick its own bucket by prepending: the proxy appends the real address.
    expect(await ask("127.0.0.1", "6.6.6.6, 1.2.3.4")).toBe("1.2.3.4");
    expect(await ask("127.0.0.1", "1.2.3.4, 10.0.0.5")).toBe("1.2.3.4");
    expect(await ask("127.0.0.1")).toBe("127.0.0.1");
  });
});

describe("operator key", () => {
  const KEY = "operator-key-0123456789";
  const appWith = (config: { operatorApiKey: string | undefined; legacyLaunchOpen: boolean }) => {
    const app = new Hono().onError((e, c) => errorResponse(c, toHttpError(e)));
    app.post("/launch", requireOperatorKey(config), (c) => c.json({ ok: true }));
    return (authorization?: string) => app.request("/launch", { method: "POST", headers: authorization ? { authorization } : {} });
  };

  it("is required, checked, and accepted", async () => {
    const call = appWith({ operatorApiKey: KEY, legacyLaunchOpen: false });
    const missing = await call();
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await missing.json()).toEqual({ error: "missing Authorization: Bearer <operator API key>", code: "UNAUTHORIZED" });
    expect((await call(`Basic ${KEY}`)).status).toBe(401);
    const wrong = await call("Bearer operator-key-0123456788");
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toEqual({ error: "invalid operator API key", code: "FORBIDDEN" });
    expect((await call(`Bearer ${KEY}`)).status).toBe(200);
    expect((await call(`bearer   ${KEY}  `)).status).toBe(200);
  });

  it("is a 503 naming OPERATOR_API_KEY when unset, and not needed when the legacy routes are open", async () => {
    const unset = await appWith({ operatorApiKey: undefined, legacyLaunchOpen: false })(`Bearer ${KEY}`);
    expect(unset.status).toBe(503);
    expect(await unset.json()).toEqual({ error: "missing configuration: OPERATOR_API_KEY is not set", code: "NOT_CONFIGURED" });
    expect((await appWith({ operatorApiKey: undefined, legacyLaunchOpen: true })()).status).toBe(200);
  });

  it("compares keys of any length without throwing", () => {
    expect(keysMatch("a", "a")).toBe(true);
    expect(keysMatch("a", "ab")).toBe(false);
    expect(keysMatch("", KEY)).toBe(false);
  });
});

describe("error mapping", () => {
  it("maps each cause to its status, and hides the unknown", () => {
    expect(toHttpError(new MissingConfigError("LAUNCHER_ADDRESS"))).toMatchObject({
      status: 503,
      code: "NOT_CONFIGURED",
      message: "missing configuration: LAUNCHER_ADDRESS is not set",
    });
    expect(toHttpError(new ValidationError("limit: bad"))).toMatchObject({ status: 400, code: "BAD_REQUEST", message: "limit: bad" });
    expect(toHttpError(new ApiError("CONFLICT", "token 0x1 is already enrolled"))).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(toHttpError(new JsonSyntaxError("invalid JSON at position 0"))).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    const zod = z.object({ a: z.string() }).safeParse({});
    expect(toHttpError((zod as { error: ZodError }).error)).toMatchObject({ status: 400, code: "BAD_REQUEST" });
    expect(toHttpError(new Error("connection refused at 10.0.0.1"))).toEqual({
      status: 500,
      code: "INTERNAL_ERROR",
      message: "internal error",
      headers: {},
      unexpected: true,
    });
  });

  it("answers 503 (never 500) when PostgreSQL cannot be reached or is restarting", () => {
    const unavailable = {
      status: 503,
      code: "DATABASE_UNAVAILABLE",
      message: "database unavailable; retry later",
      headers: { "Retry-After": "5" },
      unexpected: false,
    };
    const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    for (const error of [
      refused,
      new AggregateError([refused], ""),
      pgError("57P01", "terminating connection due to administrator command"),
      pgError("57P03", "the database system is starting up"),
      pgError("08006", "connection failure"),
      new Error("Connection terminated unexpectedly"),
      // drizzle wraps the driver's error
      new Error("Failed query: select 1", { cause: pgError("57P01", "terminating connection due to administrator command") }),
    ]) {
      expect(toHttpError(error), String(error)).toEqual(unavailable);
    }
    // Other database errors stay unexpected.
    expect(toHttpError(pgError("42P01", 'relation "x" does not exist'))).toMatchObject({ status: 500, code: "INTERNAL_ERROR", unexpected: true });
  });
});

describe("one error vocabulary", () => {
  it("roots every error class in ServiceError, with a code that has a status", () => {
    const errors = [
      new ApiError("NOT_FOUND", "x"),
      new ValidationError("x"),
      new BodyError(413, "x"),
      new JsonSyntaxError("x"),
      new HealthUnavailable(new Date(0).toISOString(), "x"),
      new ConfigError("PORT", "x"),
      new MissingConfigError("X"),
      new LaunchConfigError("x"),
      new InferenceError("x"),
      new WalletKeyError("x"),
      new AgentConflictError("x"),
      new FencedError("x"),
      new PerpsVenueOffError("x"),
      new UnknownWorkerError("x"),
      new Refusal("underfunded", "x"),
      new EngineError("x", { code: "timeout", retryable: true }),
    ];
    for (const error of errors) {
      expect(error, error.name).toBeInstanceOf(ServiceError);
      expect(typeof error.retryable).toBe("boolean");
      expect(SERVICE_ERROR_CODES, error.name).toContain(toHttpError(error).code);
      expect(toHttpError(error).status).toBe(ERROR_STATUS[toHttpError(error).code]);
    }
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...SERVICE_ERROR_CODES].sort());
  });

  it("answers each refusal, engine error and outage with one code and status, on every route", () => {
    const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });
    const expectAnswer = (error: unknown, status: number, code: string) => expect(toHttpError(error), String(error)).toMatchObject({ status, code });
    expectAnswer(new Refusal("invalid", "x"), 400, "BAD_REQUEST");
    expectAnswer(new Refusal("not-found", "x"), 404, "NOT_FOUND");
    expectAnswer(new Refusal("forbidden", "x"), 403, "FORBIDDEN");
    expectAnswer(new Refusal("conflict", "x"), 409, "CONFLICT");
    expectAnswer(new Refusal("underfunded", "x"), 422, "UNPROCESSABLE");
    expectAnswer(new Refusal("chain", "x"), 502, "CHAIN_REFUSED");
    expectAnswer(new Refusal("unavailable", "x"), 503, "CHAIN_UNAVAILABLE");
    expectAnswer(new Refusal("unavailable", "x", "NOT_CONFIGURED"), 503, "NOT_CONFIGURED");
    expectAnswer(new EngineError("x", { code: "database-unavailable", retryable: true }), 503, "DATABASE_UNAVAILABLE");
    expectAnswer(new EngineError("x", { code: "rpc-unavailable", retryable: true }), 503, "CHAIN_UNAVAILABLE");
    expectAnswer(new EngineError("reverted: X()", { code: "revert", retryable: false }), 502, "CHAIN_REFUSED");
    // A database that does not exist (yet) is an outage too, as on the agent routes before: never a 500.
    expectAnswer(pgError("3D000", 'database "x" does not exist'), 503, "DATABASE_UNAVAILABLE");
    expectAnswer(new Error("Failed query", { cause: pgError("55P03", "canceling statement due to lock timeout") }), 503, "DATABASE_BUSY");
    expect(toHttpError(new WalletKeyError("bad tag"))).toMatchObject({ status: 503, code: "NOT_CONFIGURED", unexpected: true });
  });

  it("walks a cause chain once, GraphQL's originalError included, at most 8 deep", () => {
    const inner = Object.assign(new Error("inner"), { code: "57P01" });
    const outer = new Error("outer", { cause: { originalError: inner } });
    expect(causeChain(outer)).toEqual([outer, { originalError: inner }, inner]);
    let deep: Error = inner;
    for (let i = 0; i < 20; i++) deep = new Error(`wrap ${i}`, { cause: deep });
    expect(causeChain(deep)).toHaveLength(8);
    expect(causeChain("text")).toEqual(["text"]);
    expect(causeChain(undefined)).toEqual([]);
  });
});

describe("formats", () => {
  it("formats activity amounts in whole units of their currency, as each kind's schema declares them, and checksums addresses", () => {
    const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2";
    expect(
      formatActivityData(
        "protocol-buyback",
        { usdcIn: "1500000", pairedIn: "2500000000000000000", pairedToken: WETH, tokensBought: "1000000000000000000000" },
        USDC,
      ),
    ).toEqual({ usdcIn: "1.5", pairedIn: "2.5", pairedToken: getAddress(WETH), tokensBought: "1000" });
    // The paired currency USDC: its 6 decimals.
    expect(formatActivityData("creator-buyback", { pairedIn: "2500000", pairedToken: USDC.toLowerCase() }, USDC)).toEqual({
      pairedIn: "2.5",
      pairedToken: USDC,
    });
    expect(
      formatActivityData(
        "fees-collected",
        { collected: [{ rewardIndex: 0, recipient: USDC.toLowerCase(), currency: USDC.toLowerCase(), amount: "1234567" }] },
        USDC,
      ),
    ).toEqual({ collected: [{ rewardIndex: 0, recipient: USDC, currency: USDC, amount: "1.234567" }] });
    expect(formatActivityData("desk-closed", { price: "35000000000000", realisedPnl: "-2500000", leverage: "50000000000", tradeId: "0-1-7" }, USDC)).toEqual({
      price: "3500",
      realisedPnl: "-2.5",
      leverage: "5",
      tradeId: "0-1-7",
    });
    expect(formatActivityData("fees-attributed", { currency: WETH, amount: "5", legs: { perpUsdc: "250000" } }, USDC)).toEqual({
      currency: getAddress(WETH),
      amount: "0.000000000000000005",
      legs: { perpUsdc: "0.25" },
    });
    // A field no schema declares is kept as indexed (an integer is not scaled by its name alone).
    expect(formatActivityData("burn", { amount: "1000000000000000000", usdcIn: "1500000" }, USDC)).toEqual({ amount: "1", usdcIn: "1500000" });
  });

  it("ends buckets at the next day, week and calendar month", () => {
    const jan31 = BigInt(Date.UTC(2025, 0, 31) / 1000);
    expect(bucketEnd("DAY", jan31)).toBe(jan31 + 86_400n);
    expect(bucketEnd("WEEK", jan31)).toBe(jan31 + 7n * 86_400n);
    expect(bucketEnd("MONTH", BigInt(Date.UTC(2025, 0, 1) / 1000))).toBe(BigInt(Date.UTC(2025, 1, 1) / 1000));
    expect(bucketEnd("MONTH", BigInt(Date.UTC(2024, 11, 1) / 1000))).toBe(BigInt(Date.UTC(2025, 0, 1) / 1000));
  });

  it("values a desk as the exchange would close it", () => {
    const trade = { collateral: 100_000_000n, leverage: 5n * 10n ** 10n, openPrice: 3000n * 10n ** 10n, buy: true };
    expect(unrealisedPnl(trade, 3300n * 10n ** 10n)).toBe(50_000_000n); // +10% × 5
    expect(unrealisedPnl({ ...trade, buy: false }, 3300n * 10n ** 10n)).toBe(-50_000_000n);
    expect(unrealisedPnl(trade, 1000n * 10n ** 10n)).toBe(-100_000_000n); // never below -collateral
  });
});

describe("OpenAPI document", () => {
  const doc = openApiDocument(REST_ROUTES) as any;

  it("lists every route with its parameters, body and answers", () => {
    expect(doc.openapi).toBe("3.0.3");
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/activity",
      "/agents",
      "/agents/{id}",
      "/agents/{id}/charter/chat",
      "/agents/{id}/charter/default",
      "/agents/{id}/charter/launch",
      "/agents/{id}/charter/submit",
      "/audit",
      "/auth/logout",
      "/auth/nonce",
      "/auth/verify",
      "/burns/{token}",
      "/burns/{txHash}/{logIndex}",
      "/buybacks",
      "/buybacks/{token}",
      "/desks",
      "/export/activity.csv",
      "/export/activity.ndjson",
      "/export/burns.csv",
      "/export/burns.ndjson",
      "/export/buybacks.csv",
      "/export/buybacks.ndjson",
      "/export/fees.csv",
      "/export/fees.ndjson",
      "/health",
      "/ready",
      "/stats",
      "/tokens",
      "/tokens/launch",
      "/tokens/register",
      "/tokens/{token}/audit",
      "/tokens/{token}/candles",
      "/tokens/{token}/desk-statement",
      "/tokens/{token}/flow",
      "/tokens/{token}/market",
      "/webhooks",
      "/webhooks/dead-letters",
      "/webhooks/dead-letters/{id}/retry",
      "/webhooks/{id}",
    ]);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["operatorKey", "session"]);
    expect(doc.paths["/agents/{id}/charter/launch"].post.security).toEqual([{ session: [] }]);
    expect(doc.paths["/agents/{id}"].get.security).toBeUndefined();
    expect(doc.paths["/auth/verify"].post.requestBody.content["application/json"].schema.required).toEqual(["message", "signature"]);
    expect(doc.paths["/p/{idOrToken}"]).toBeUndefined();
    expect(doc.paths["/audit"].get.security).toEqual([{ operatorKey: [] }]);
    expect(doc.paths["/buybacks/{token}"].get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      "path:token",
      "query:limit",
      "query:cursor",
    ]);
    expect(doc.paths["/activity"].get.parameters.find((p: { name: string }) => p.name === "kind").schema.type).toBe("string");
    expect(Object.keys(doc.paths["/tokens/launch"].post.responses).sort()).toEqual([
      "201",
      "400",
      "401",
      "403",
      "408",
      "413",
      "415",
      "422",
      "429",
      "500",
      "502",
      "503",
    ]);
    expect(doc.paths["/tokens/launch"].post.security).toEqual([{ operatorKey: [] }]);
    // The operator-key reads answer 401 and 403 too; each error answer names its codes.
    expect(Object.keys(doc.paths["/audit"].get.responses).sort()).toEqual(["200", "401", "403", "429", "500", "503"]);
    const codes = (path: string, method: string, status: number) =>
      doc.paths[path][method].responses[status].content["application/json"].schema.properties.code.enum;
    expect(codes("/audit", "get", 401)).toEqual(["UNAUTHORIZED"]);
    expect(codes("/audit", "get", 403)).toEqual(["FORBIDDEN"]);
    expect(codes("/tokens/register", "post", 503)).toEqual(["NOT_CONFIGURED", "DATABASE_UNAVAILABLE", "DATABASE_BUSY", "CHAIN_UNAVAILABLE"]);
    expect(codes("/buybacks/{token}", "get", 404)).toEqual(["NOT_FOUND"]);
    expect(doc.paths["/buybacks/{token}"].get.responses["503"].headers["Retry-After"]).toBeDefined();
    expect(doc.paths["/health"].get.security).toBeUndefined();
  });

  it("documents the request schemas that validate (exact percents included)", () => {
    const body = doc.paths["/tokens/launch"].post.requestBody.content["application/json"].schema;
    expect(body.required).toEqual(["name", "symbol"]);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.assetPct).toMatchObject({ type: "number", minimum: 0, maximum: 95, multipleOf: 0.01 });
    expect(body.properties.creator.description).toMatch(/creator leg/);
    const register = doc.paths["/tokens/register"].post.requestBody.content["application/json"].schema;
    expect(register.required).toEqual(["token", "assetPct", "perpPct", "creatorPct"]);
    const tokens = doc.paths["/tokens"].get.responses["200"].content["application/json"].schema;
    expect(tokens.required).toEqual(["items", "nextCursor"]);
    expect(tokens.properties.items.items.properties.split.required).toEqual(["protocolBps", "assetBps", "perpBps", "creatorBps"]);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });
});
