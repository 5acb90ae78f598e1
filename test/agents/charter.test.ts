/**
 * Charters without a chain or database: the default, submitted charters (valid, and each
 * invalid field), the canonical hash, the mandate the workers get, the deterministic chat
 * compiler, and the OpenAI-compatible compiler against a local fake endpoint.
 */
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { keccak256, stringToBytes } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { type Charter, canonicalJson, charterHash, charterMandate, charterSchema, charterSplit, defaultCharter } from "../../core/agents/charter.js";
import { compileCharter, readStatements } from "../../core/agents/compiler.js";
import { InferenceError, createInferenceCompiler } from "../../core/agents/inference.js";
import { decryptWalletKey, encryptWalletKey, newAgentWallet, agentAccount, WalletKeyError } from "../../core/agents/keys.js";

const DEFAULTS = defaultCharter({ buybackMinUsdc: 5_000_000n });

const valid = (): Charter => ({
  version: 1,
  engine: { strategy: "momentum" },
  persona: { name: "Ada", voice: "dry and patient" },
  mandate: {
    split: { assetPct: 30, perpPct: 55, creatorPct: 10 },
    desk: { market: "BTC/USD", maxLeverage: 4, maxDrawdownPct: 15, takeProfitPct: 12.5 },
    buybackMinUsdc: "20",
  },
});

function issues(input: unknown): string[] {
  const r = charterSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

describe("default charter", () => {
  it("is the spec's split with conservative limits, and valid", () => {
    expect(charterSchema.parse(DEFAULTS)).toEqual(DEFAULTS);
    expect(charterSplit(DEFAULTS)).toEqual({ assetBps: 2850, perpBps: 5700, creatorBps: 950 });
    const m = charterMandate(DEFAULTS);
    expect(m.deskPairIndex).toBe(0);
    expect(m.maxLeverage).toBe(3n * PERPS_PRECISION);
    expect(m.maxDrawdownBps).toBe(2000);
    expect(m.buybackMinUsdc).toBe(5_000_000n);
    expect(m.strategy).toBe("momentum");
  });
});

describe("submitted charter", () => {
  it("accepts a valid charter and fills defaults (version, voice, take-profit)", () => {
    const c = valid();
    expect(issues(c)).toEqual([]);
    const { version: _v, ...noVersion } = c;
    const partial = { ...noVersion, persona: { name: "Ada" }, mandate: { ...c.mandate, desk: { market: "ETH/USD", maxLeverage: 2.5, maxDrawdownPct: 10 } } };
    const parsed = charterSchema.parse(partial);
    expect(parsed.version).toBe(1);
    expect(parsed.persona.voice).toBe("");
    expect(parsed.mandate.desk.takeProfitPct).toBe(10);
    expect(charterMandate(parsed).maxLeverage).toBe(25n * 10n ** 9n);
  });

  const cases: [string, (c: Record<string, any>) => void, RegExp][] = [
    ["unknown top-level field", (c) => (c.extra = 1), /unrecognized|Unrecognized/i],
    ["wrong version", (c) => (c.version = 2), /version must be 1/],
    ["unknown strategy", (c) => (c.engine.strategy = "yolo"), /engine.strategy: strategy must be one of momentum, hold/],
    ["missing persona name", (c) => delete c.persona.name, /persona.name: persona.name is required/],
    ["empty persona name", (c) => (c.persona.name = "   "), /persona.name: persona.name must not be empty/],
    ["long persona name", (c) => (c.persona.name = "x".repeat(49)), /at most 48 bytes/],
    ["control characters in voice", (c) => (c.persona.voice = "a\u0000b"), /control characters/],
    ["split not summing to 95", (c) => (c.mandate.split.creatorPct = 11), /invalid split: assetPct \+ perpPct \+ creatorPct must equal 95 \(got 96\)/],
    ["negative leg", (c) => Object.assign(c.mandate.split, { assetPct: -5, perpPct: 90, creatorPct: 10 }), /assetPct must be at least 0/],
    ["three decimals", (c) => Object.assign(c.mandate.split, { assetPct: 30.005, perpPct: 54.995, creatorPct: 10 }), /at most two decimal places/],
    ["split as strings", (c) => (c.mandate.split.perpPct = "55"), /perpPct must be a number/],
    ["missing split leg", (c) => delete c.mandate.split.creatorPct, /creatorPct is required/],
    ["unknown market", (c) => (c.mandate.desk.market = "DOGE/USD"), /market must be one of ETH\/USD, BTC\/USD/],
    ["leverage above 50", (c) => (c.mandate.desk.maxLeverage = 51), /maxLeverage must be at most 50/],
    ["leverage below 1", (c) => (c.mandate.desk.maxLeverage = 0.5), /maxLeverage must be at least 1/],
    ["zero drawdown", (c) => (c.mandate.desk.maxDrawdownPct = 0), /maxDrawdownPct must be greater than 0/],
    ["drawdown above 100", (c) => (c.mandate.desk.maxDrawdownPct = 101), /maxDrawdownPct must be at most 100/],
    ["infinite take-profit", (c) => (c.mandate.desk.takeProfitPct = Number.POSITIVE_INFINITY), /takeProfitPct/],
    ["buyback minimum as a number", (c) => (c.mandate.buybackMinUsdc = 5), /buybackMinUsdc must be a decimal string/],
    ["buyback minimum with 7 decimals", (c) => (c.mandate.buybackMinUsdc = "1.0000001"), /at most 6 decimals/],
    ["zero buyback minimum", (c) => (c.mandate.buybackMinUsdc = "0"), /buybackMinUsdc must be positive/],
    ["unknown desk field", (c) => (c.mandate.desk.stopLoss = 5), /nrecognized key/],
  ];
  for (const [name, mutate, expected] of cases) {
    it(`rejects: ${name}`, () => {
      const c = structuredClone(valid()) as Record<string, any>;
      mutate(c);
      const found = issues(c);
      expect(found.length, name).toBeGreaterThan(0);
      expect(found.join("; ")).toMatch(expected);
    });
  }
});

describe("charter hash", () => {
  it("is keccak256 of the canonical JSON (sorted keys), independent of key order", () => {
    const c = valid();
    const reordered = JSON.parse(
      JSON.stringify({ mandate: c.mandate, persona: { voice: c.persona.voice, name: c.persona.name }, engine: c.engine, version: 1 }),
    );
    expect(canonicalJson(c)).toBe(canonicalJson(reordered));
    expect(charterHash(c)).toBe(keccak256(stringToBytes(canonicalJson(c))));
    expect(canonicalJson(c)).toMatch(/^\{"engine":\{"strategy":"momentum"\},"mandate":\{"buybackMinUsdc":"20","desk":/);
    expect(charterHash(charterSchema.parse({ ...c, mandate: { ...c.mandate, buybackMinUsdc: "20.000" } }))).toBe(charterHash(c));
    expect(charterHash({ ...c, persona: { ...c.persona, name: "Ada2" } })).not.toBe(charterHash(c));
  });

  it("round-trips through JSON (as stored) with the same hash", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9500 }), fc.integer({ min: 0, max: 9500 }), fc.integer({ min: 100, max: 5000 }), (a, p, lev) => {
        if (a + p > 9500) return;
        const c = charterSchema.parse({
          ...valid(),
          mandate: {
            ...valid().mandate,
            split: { assetPct: a / 100, perpPct: p / 100, creatorPct: (9500 - a - p) / 100 },
            desk: { ...valid().mandate.desk, maxLeverage: lev / 100 },
          },
        });
        const back = charterSchema.parse(JSON.parse(JSON.stringify(c)));
        expect(charterHash(back)).toBe(charterHash(c));
        expect(charterSplit(back)).toEqual({ assetBps: a, perpBps: p, creatorBps: 9500 - a - p });
      }),
      { numRuns: 200 },
    );
  });
});

describe("deterministic chat compiler", () => {
  const compile = (...texts: string[]) =>
    compileCharter(
      texts.map((content) => ({ role: "user" as const, content })),
      DEFAULTS,
    );

  it("reads a full brief with no questions left", () => {
    const r = compile(
      "Call it Ada, a dry, patient trader. Split 30% to the asset, 55% to the perp desk and 10% to me. 4x leverage on BTC, halt at 15% drawdown.",
    );
    expect(r.questions).toEqual([]);
    expect(r.charter.persona).toEqual({ name: "Ada", voice: "a dry, patient trader" });
    expect(r.charter.mandate.split).toEqual({ assetPct: 30, perpPct: 55, creatorPct: 10 });
    expect(r.charter.mandate.desk).toMatchObject({ market: "BTC/USD", maxLeverage: 4, maxDrawdownPct: 15 });
  });

  it("split phrasings: triples, two legs fix the third, one leg shares the rest", () => {
    expect(readStatements("split 50/40/5").split).toEqual({ asset: 50, perp: 40, creator: 5 });
    expect(compile("perp 60%, creator 5%").charter.mandate.split).toEqual({ assetPct: 30, perpPct: 60, creatorPct: 5 });
    const one = compile("I want 20% for the creator");
    expect(one.charter.mandate.split.creatorPct).toBe(20);
    expect(one.charter.mandate.split.assetPct + one.charter.mandate.split.perpPct).toBeCloseTo(75, 9);
    expect(one.questions.join(" ")).toMatch(/You set the creator leg to 20%/);
    expect(compile("use the default split").charter.mandate.split).toEqual(DEFAULTS.mandate.split);
  });

  it("a split that does not add to 95 keeps the default and asks", () => {
    const r = compile("40% asset 40% perp 40% creator");
    expect(r.charter.mandate.split).toEqual(DEFAULTS.mandate.split);
    expect(r.questions[0]).toMatch(/adds to 120%/);
  });

  it("leverage, market, drawdown, take-profit, buyback minimum, strategy and voice phrases", () => {
    expect(readStatements("Use 10x leverage on BTC")).toMatchObject({ leverage: 10, market: "BTC/USD" });
    expect(readStatements("max drawdown of 12.5%, leverage up to 4x, trade ethereum")).toMatchObject({ drawdown: 12.5, leverage: 4, market: "ETH/USD" });
    expect(readStatements("hold strategy, buybacks above 20 USDC, take profit at 25%")).toMatchObject({ strategy: "hold", buybackMin: "20", takeProfit: 25 });
    expect(readStatements("voice: playful and blunt. Name it Captain Burn.")).toMatchObject({ name: "Captain Burn", voice: "playful and blunt" });
    // The desk's drawdown is not a perp leg.
    expect(readStatements("halt the desk at 15% drawdown")).toEqual({ drawdown: 15 });
  });

  it("out-of-range values are questions, not charter fields", () => {
    const r = compile("leverage 100x, drawdown 150%");
    expect(r.charter.mandate.desk.maxLeverage).toBe(3);
    expect(r.questions.join(" ")).toMatch(/Leverage of 100x cannot be used/);
    expect(r.questions.join(" ")).toMatch(/drawdown of 150% cannot be used/);
  });

  it("lists every open question for an empty brief and later messages override earlier ones", () => {
    const empty = compile("hello");
    expect(empty.charter).toEqual(DEFAULTS);
    expect(empty.questions).toHaveLength(5);
    const r = compile("5x leverage on ETH", "actually 2x leverage on BTC");
    expect(r.charter.mandate.desk).toMatchObject({ maxLeverage: 2, market: "BTC/USD" });
    // Assistant messages are not the creator's words.
    const a = compileCharter(
      [
        { role: "assistant", content: "Shall I use 50x leverage?" },
        { role: "user", content: "no" },
      ],
      DEFAULTS,
    );
    expect(a.charter.mandate.desk.maxLeverage).toBe(3);
  });

  it("any text compiles to a valid charter", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        const r = compile(text);
        expect(charterSchema.safeParse(r.charter).success).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe("inference compiler (OpenAI-compatible endpoint)", () => {
  let server: Server;
  let url: string;
  const seen: { path: string; body: any; auth?: string }[] = [];
  let answer: (body: any) => { status: number; json: unknown } = () => ({ status: 200, json: {} });

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = "";
      req.on("data", (d) => (raw += d));
      req.on("end", () => {
        const body = JSON.parse(raw);
        seen.push({ path: req.url!, body, auth: req.headers.authorization });
        const { status, json } = answer(body);
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(json));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const reply = (content: string) => ({ status: 200, json: { choices: [{ message: { role: "assistant", content } }] } });

  it("sends the conversation with the schema and validates the answer", async () => {
    const charter = { ...valid(), persona: { name: "Nova", voice: "bright" } };
    answer = () => reply(JSON.stringify({ charter, questions: ["Confirm BTC?"] }));
    const compiler = createInferenceCompiler({ url, apiKey: "k-123", model: "test-model" });
    const r = await compiler.compile([{ role: "user", content: "Nova, bright, BTC" }], DEFAULTS);
    expect(r.charter).toEqual(charterSchema.parse(charter));
    expect(r.questions).toEqual(["Confirm BTC?"]);
    const req = seen.at(-1)!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.auth).toBe("Bearer k-123");
    expect(req.body.model).toBe("test-model");
    expect(req.body.messages[0].role).toBe("system");
    expect(req.body.messages[0].content).toContain("assetPct + perpPct + creatorPct must equal 95");
    expect(req.body.messages[1]).toEqual({ role: "user", content: "Nova, bright, BTC" });
  });

  it("accepts an answer in a fenced block", async () => {
    answer = () => reply(`\`\`\`json\n${JSON.stringify({ charter: valid(), questions: [] })}\n\`\`\``);
    const r = await createInferenceCompiler({ url }).compile([{ role: "user", content: "x" }], DEFAULTS);
    expect(r.charter.persona.name).toBe("Ada");
  });

  it("an invalid charter, a non-JSON answer, an HTTP error and an unreachable endpoint are InferenceErrors", async () => {
    const compiler = createInferenceCompiler({ url });
    answer = () => reply(JSON.stringify({ charter: { ...valid(), mandate: { ...valid().mandate, split: { assetPct: 50, perpPct: 50, creatorPct: 50 } } } }));
    await expect(compiler.compile([{ role: "user", content: "x" }], DEFAULTS)).rejects.toThrow(/invalid charter: mandate.split: invalid split/);
    answer = () => reply("I think you should use 10x leverage.");
    await expect(compiler.compile([{ role: "user", content: "x" }], DEFAULTS)).rejects.toThrow(InferenceError);
    answer = () => ({ status: 500, json: { error: "boom" } });
    await expect(compiler.compile([{ role: "user", content: "x" }], DEFAULTS)).rejects.toThrow(/HTTP 500/);
    await expect(createInferenceCompiler({ url: "http://127.0.0.1:9/v1" }).compile([{ role: "user", content: "x" }], DEFAULTS)).rejects.toThrow(/unreachable/);
  });
});

describe("agent wallet keys", () => {
  const secret = "s".repeat(40);
  it("encrypts with AES-256-GCM bound to the agent and wallet; tampering or another secret fails", () => {
    const { address, encryptedKey } = newAgentWallet(secret, "agent-1");
    expect(encryptedKey).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    const account = agentAccount(secret, encryptedKey, "agent-1", address);
    expect(account.address).toBe(address);
    expect(() => agentAccount("t".repeat(40), encryptedKey, "agent-1", address)).toThrow(WalletKeyError);
    expect(() => agentAccount(secret, encryptedKey, "agent-2", address)).toThrow(WalletKeyError);
    const bytes = Buffer.from(encryptedKey.slice(3), "base64");
    bytes[bytes.length - 1]! ^= 1;
    expect(() => decryptWalletKey(secret, `v1:${bytes.toString("base64")}`, "agent-1", address)).toThrow(WalletKeyError);
    // Two encryptions of one key differ (random IV).
    const key = `0x${"11".repeat(32)}` as const;
    expect(encryptWalletKey(secret, key, "a", address)).not.toBe(encryptWalletKey(secret, key, "a", address));
    expect(decryptWalletKey(secret, encryptWalletKey(secret, key, "a", address), "a", address)).toBe(key);
  });
});
