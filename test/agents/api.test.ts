/**
 * Sign-In with Ethereum and the charter endpoints, in-process on real PostgreSQL and the
 * shared devnet (signatures verified through the chain): the full flow, each rejection, the
 * owner-only rule, and charters by default, submission and chat.
 */
import { createRequire } from "node:module";
import { type Abi, type Address, type Hex, hashMessage } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSiweMessage } from "../../api/auth/siwe.js";
import { defaultCharter } from "../../core/agents/charter.js";
import { agentResponse, charterResponse, chatResponse } from "../../api/views/agent.js";
import { ANVIL_KEYS, createDatabase, devnetAs } from "../helpers/env.js";
import { BASE, HOST, type TestApi, signIn, signedMessage, testApi } from "./helpers.js";

const ALICE = ANVIL_KEYS[1];
const BOB = ANVIL_KEYS[2];

let api: TestApi;
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await createDatabase("agents_api");
  api = testApi(databaseUrl);
});
afterAll(async () => {
  await api?.close();
});

describe("Sign-In with Ethereum", () => {
  it("full flow: nonce, signed message, bearer session bound to the address", async () => {
    const nonce = await api.call("GET", "/api/v1/auth/nonce");
    expect(nonce.status).toBe(200);
    expect(nonce.json.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(nonce.json).toMatchObject({ domain: HOST, uri: BASE, chainId: 31337 });
    expect(Date.parse(nonce.json.expiresAt) - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(nonce.headers.get("cache-control")).toBe("no-store");

    const body = await signedMessage(api, ALICE, { nonce: nonce.json.nonce });
    const verified = await api.call("POST", "/api/v1/auth/verify", { body });
    expect(verified.status, verified.text).toBe(200);
    expect(verified.json.address).toBe(privateKeyToAccount(ALICE).address);
    expect(verified.json.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Date.parse(verified.json.expiresAt)).toBeGreaterThan(Date.now() + 23 * 3600_000);

    const created = await api.call("POST", "/api/v1/agents", { token: verified.json.token });
    expect(created.status, created.text).toBe(201);
    expect(created.json.owner).toBe(privateKeyToAccount(ALICE).address);

    // Logout ends the session.
    expect((await api.call("POST", "/api/v1/auth/logout", { token: verified.json.token })).status).toBe(204);
    expect((await api.call("POST", "/api/v1/agents", { token: verified.json.token })).status).toBe(401);
  });

  it("nonces are crypto-random and distinct", async () => {
    const nonces = await Promise.all(Array.from({ length: 20 }, () => api.call("GET", "/api/v1/auth/nonce")));
    expect(new Set(nonces.map((n) => n.json.nonce)).size).toBe(20);
  });

  const reject = async (body: { message: string; signature: Hex }, reason: RegExp, host?: string) => {
    const res = await api.call("POST", "/api/v1/auth/verify", { body, host });
    expect(res.status, res.text).toBe(401);
    expect(res.json.error).toMatch(reason);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
  };

  it("bad signature → 401", async () => {
    const { message } = await signedMessage(api, ALICE);
    const { signature } = await signedMessage(api, BOB, { address: privateKeyToAccount(ALICE).address });
    await reject({ message, signature }, /invalid signature/);
    await reject({ message, signature: `0x${"11".repeat(65)}` }, /invalid signature/);
  });

  it("wrong domain → 401 (the message's domain, the URI's host or scheme)", async () => {
    await reject(await signedMessage(api, ALICE, { domain: "evil.test" }), /wrong domain: expected agents.test/);
    await reject(await signedMessage(api, ALICE, { uri: "https://evil.test/login" }), /wrong URI/);
    await reject(await signedMessage(api, ALICE, { uri: "https://agents.test/login" }), /wrong URI: expected a URI on http:\/\/agents.test/);
  });

  it("sign-in is bound to the configured origin, never to the Host a request came with (a relayed signature is refused)", async () => {
    // A phishing page at evil.example has a visitor sign a message for its own domain, then relays it here with its Host.
    const relayed = (headers: Record<string, string>) => async (host: string) => {
      const signed = await signedMessage(api, ALICE, { domain: "evil.example", uri: "https://evil.example/login" });
      const res = await api.app.request(`http://${host}/api/v1/auth/verify`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(signed),
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { error: string }).error).toBe("wrong domain: expected agents.test");
    };
    await relayed({})("evil.example");
    await relayed({ "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" })(HOST);
    await relayed({ "x-forwarded-host": "evil.example", forwarded: "host=evil.example;proto=https" })("evil.example");
    // The nonce answer names the configured origin, whatever Host the client sent.
    for (const headers of [{ host: "evil.example" }, { "x-forwarded-host": "evil.example" }] as Record<string, string>[]) {
      const res = await api.app.request("http://evil.example/api/v1/auth/nonce", { headers });
      const json = (await res.json()) as Record<string, unknown>;
      expect(json).toMatchObject({ domain: HOST, uri: BASE, chainId: 31337 });
      expect(JSON.stringify(json)).not.toContain("evil");
    }
    // A message for the configured origin still signs in when it arrives with another Host (behind a proxy).
    const good = await signedMessage(api, ALICE);
    const res = await api.call("POST", "/api/v1/auth/verify", { body: good, host: "10.0.0.7:42069" });
    expect(res.status, res.text).toBe(200);
  });

  it("wrong chain id → 401", async () => {
    await reject(await signedMessage(api, ALICE, { chainId: 8453 }), /wrong chain ID: expected 31337/);
  });

  it("expired → 401 (expiration time passed, or issued long ago)", async () => {
    await reject(await signedMessage(api, ALICE, { expirationTime: new Date(Date.now() - 1000) }), /message expired/);
    await reject(await signedMessage(api, ALICE, { issuedAt: new Date(Date.now() - 3600_000) }), /issued too long ago/);
    await reject(await signedMessage(api, ALICE, { notBefore: new Date(Date.now() + 3600_000) }), /not yet valid/);
  });

  it("an expired nonce → 401", async () => {
    const later = testApi(databaseUrl, {}, { now: () => new Date(Date.now() + 6 * 60_000) });
    const body = await signedMessage(api, ALICE, { issuedAt: new Date(Date.now() + 6 * 60_000) });
    const res = await later.call("POST", "/api/v1/auth/verify", { body });
    expect(res.status).toBe(401);
    expect(res.json.error).toMatch(/nonce expired/);
    await later.close();
  });

  it("replayed nonce → 401", async () => {
    const body = await signedMessage(api, ALICE);
    expect((await api.call("POST", "/api/v1/auth/verify", { body })).status).toBe(200);
    await reject(body, /nonce already used/);
    // Concurrent replays: exactly one wins.
    const again = await signedMessage(api, ALICE);
    const results = await Promise.all(Array.from({ length: 5 }, () => api.call("POST", "/api/v1/auth/verify", { body: again })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401, 401]);
  });

  it("unknown nonce → 401", async () => {
    await reject(await signedMessage(api, ALICE, { nonce: "abcdef0123456789abcdef0123456789" }), /unknown nonce/);
  });

  it("malformed bodies are 400s, a non-SIWE message a 401", async () => {
    expect((await api.call("POST", "/api/v1/auth/verify", { body: { message: "hi" } })).status).toBe(400);
    expect((await api.call("POST", "/api/v1/auth/verify", { raw: "{" })).status).toBe(400);
    expect((await api.call("POST", "/api/v1/auth/verify", { body: { message: "hi", signature: "nothex" } })).json.error).toMatch(
      /signature must be 0x-prefixed hex/,
    );
    await reject({ message: "hello", signature: "0x1234" }, /not a Sign-In with Ethereum message/);
  });

  it("a smart-contract wallet signs in through the chain (ERC-1271)", async () => {
    const require = createRequire(import.meta.url);
    const solc = require("solc") as { compile(input: string): string };
    const source = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract OwnedWallet {
  address public immutable owner;
  constructor(address o) { owner = o; }
  function isValidSignature(bytes32 hash, bytes calldata sig) external view returns (bytes4) {
    if (sig.length != 65) return 0xffffffff;
    bytes32 r; bytes32 s; uint8 v;
    assembly { r := calldataload(sig.offset) s := calldataload(add(sig.offset, 32)) v := byte(0, calldataload(add(sig.offset, 64))) }
    return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
  }
}`;
    const out = JSON.parse(
      solc.compile(
        JSON.stringify({
          language: "Solidity",
          sources: { "W.sol": { content: source } },
          settings: { outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } } },
        }),
      ),
    );
    const c = out.contracts["W.sol"].OwnedWallet;
    const deployer = devnetAs(3);
    const owner = privateKeyToAccount(ANVIL_KEYS[3]);
    const wallet = await deployer.deploy({ abi: c.abi as Abi, bytecode: `0x${c.evm.bytecode.object}`, deployedBytecode: "0x" }, [owner.address]);

    const { message } = await signedMessage(api, ANVIL_KEYS[3], { address: wallet });
    const signature = await owner.sign({ hash: hashMessage(message) });
    const ok = await api.call("POST", "/api/v1/auth/verify", { body: { message, signature } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.address).toBe(wallet);

    const { message: m2 } = await signedMessage(api, ANVIL_KEYS[3], { address: wallet });
    const wrong = await privateKeyToAccount(ANVIL_KEYS[4]).sign({ hash: hashMessage(m2) });
    await reject({ message: m2, signature: wrong }, /invalid signature/);
  });

  it("checkSiweMessage is pure: every field is checked", () => {
    const now = new Date("2030-01-01T00:00:00Z");
    const base = `${HOST} wants you to sign in with your Ethereum account:\n0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n\n\nURI: ${BASE}\nVersion: 1\nChain ID: 31337\nNonce: abcdef0123456789\nIssued At: 2030-01-01T00:00:00.000Z`;
    expect(checkSiweMessage(base, { domain: HOST, chainId: 31337, now }).ok).toBe(true);
    expect(checkSiweMessage(base.replace("Version: 1", "Version: 2"), { domain: HOST, chainId: 31337, now })).toEqual({
      ok: false,
      reason: "unsupported version 2",
    });
    expect(checkSiweMessage(base.replace("Nonce: abcdef0123456789", "Nonce: abc"), { domain: HOST, chainId: 31337, now })).toMatchObject({ ok: false });
    expect(checkSiweMessage(base, { domain: HOST, chainId: 1, now })).toEqual({ ok: false, reason: "wrong chain ID: expected 1" });
    expect(checkSiweMessage(base, { domain: HOST, chainId: 31337, now: new Date("2029-12-31T00:00:00Z") })).toEqual({
      ok: false,
      reason: "message issued in the future",
    });
  });
});

describe("agents and charters", () => {
  let alice: string;
  let bob: string;
  let agentId: string;

  beforeAll(async () => {
    alice = await signIn(api, ALICE);
    bob = await signIn(api, BOB);
    const created = await api.call("POST", "/api/v1/agents", { token: alice });
    agentId = created.json.id;
  });

  it("POST /agents: a wallet per agent; GET /agents/:id is public and never shows the key", async () => {
    const other = await api.call("POST", "/api/v1/agents", { token: alice });
    expect(other.json.wallet).not.toBe((await api.call("GET", `/api/v1/agents/${agentId}`)).json.wallet);
    const res = await api.call("GET", `/api/v1/agents/${agentId}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: agentId, status: "draft", charter: null, token: null, prospectus: `/p/${agentId}` });
    // The answer is the documented schema's, and no more (OpenAPI and GraphQL's Agent are made from it).
    expect(agentResponse.strict().parse(res.json)).toEqual(res.json);
    expect(res.text).not.toMatch(/v1:|wallet_?key|walletKey/i);
    const { rows } = await api.deps.services.pool.query("SELECT wallet_key FROM engine.agents WHERE id = $1", [agentId]);
    expect(rows[0].wallet_key).toMatch(/^v1:/);
    expect(res.text).not.toContain(rows[0].wallet_key.slice(3, 20));
    expect((await api.call("GET", "/api/v1/agents/not-a-uuid")).status).toBe(400);
    expect((await api.call("GET", "/api/v1/agents/00000000-0000-4000-8000-000000000000")).status).toBe(404);
  });

  it("no session → 401; another creator's agent → 403", async () => {
    for (const path of ["/api/v1/agents", `/api/v1/agents/${agentId}/charter/default`, `/api/v1/agents/${agentId}/charter/launch`]) {
      expect((await api.call("POST", path)).status, path).toBe(401);
      expect((await api.call("POST", path, { token: "x".repeat(43) })).status, path).toBe(401);
    }
    for (const kind of ["default", "submit", "chat", "launch"]) {
      const res = await api.call("POST", `/api/v1/agents/${agentId}/charter/${kind}`, { token: bob, body: {} });
      expect(res.status, kind).toBe(403);
      expect(res.json.error).toBe("only the agent's owner may do this");
    }
  });

  it("charter/default: the spec's split and conservative limits", async () => {
    const res = await api.call("POST", `/api/v1/agents/${agentId}/charter/default`, { token: alice });
    expect(res.status).toBe(200);
    expect(res.json.charter).toEqual(defaultCharter({ buybackMinUsdc: 5_000_000n }));
    expect(res.json).toMatchObject({ status: "charter-ready", charterSource: "default" });
    expect(res.json.charterHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(charterResponse.strict().parse(res.json)).toEqual(res.json);
  });

  it("charter/submit: valid, and each invalid field is a 400 naming it", async () => {
    const charter = {
      engine: { strategy: "hold" },
      persona: { name: "Ada", voice: "dry" },
      mandate: {
        split: { assetPct: 28.5, perpPct: 57, creatorPct: 9.5 },
        desk: { market: "BTC/USD", maxLeverage: 2, maxDrawdownPct: 10 },
        buybackMinUsdc: "7.5",
      },
    };
    const ok = await api.call("POST", `/api/v1/agents/${agentId}/charter/submit`, { token: alice, body: charter });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.charter).toMatchObject({ version: 1, engine: { strategy: "hold" }, mandate: { desk: { takeProfitPct: 10 } } });
    expect(ok.json.charterSource).toBe("submit");

    const bad: [string, object, RegExp][] = [
      ["split", { mandate: { ...charter.mandate, split: { assetPct: 30, perpPct: 57, creatorPct: 9.5 } } }, /invalid split: .* must equal 95 \(got 96.5\)/],
      [
        "market",
        { mandate: { ...charter.mandate, desk: { ...charter.mandate.desk, market: "SOL/USD" } } },
        /^mandate.desk.market: .*one of ETH\/USD, BTC\/USD/,
      ],
      [
        "leverage",
        { mandate: { ...charter.mandate, desk: { ...charter.mandate.desk, maxLeverage: 75 } } },
        /^mandate.desk.maxLeverage: maxLeverage must be at most 50/,
      ],
      ["drawdown", { mandate: { ...charter.mandate, desk: { ...charter.mandate.desk, maxDrawdownPct: -1 } } }, /maxDrawdownPct must be greater than 0/],
      ["buyback", { mandate: { ...charter.mandate, buybackMinUsdc: "lots" } }, /^mandate.buybackMinUsdc: /],
      ["strategy", { engine: { strategy: "yolo" } }, /^engine.strategy: .*one of momentum, hold/],
      ["persona", { persona: { name: "" } }, /^persona.name: persona.name must not be empty/],
      ["unknown field", { extra: true }, /unknown field "extra"/],
    ];
    for (const [what, patch, message] of bad) {
      const res = await api.call("POST", `/api/v1/agents/${agentId}/charter/submit`, { token: alice, body: { ...charter, ...patch } });
      expect(res.status, what).toBe(400);
      expect(res.json.error, what).toMatch(message);
    }
    // A percent whose JSON text is not exactly a two-decimal number is not silently rounded.
    const inexact = await api.call("POST", `/api/v1/agents/${agentId}/charter/submit`, {
      token: alice,
      raw: JSON.stringify(charter).replace('"assetPct":28.5', '"assetPct":28.499999999999999999'),
    });
    expect(inexact.status).toBe(400);
    expect(inexact.json.error).toMatch(/cannot be represented exactly/);
    expect((await api.call("POST", `/api/v1/agents/${agentId}/charter/submit`, { token: alice, raw: "[1," })).status).toBe(400);
  });

  it("charter/chat: a draft charter and the questions still open", async () => {
    const res = await api.call("POST", `/api/v1/agents/${agentId}/charter/chat`, {
      token: alice,
      body: { messages: [{ role: "user", content: "Call it Ada. 5x leverage on BTC, split 30/55/10." }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ source: "compiler", ready: false, charterSource: "chat", status: "charter-ready" });
    expect(res.json.charter.mandate).toMatchObject({ split: { assetPct: 30, perpPct: 55, creatorPct: 10 }, desk: { market: "BTC/USD", maxLeverage: 5 } });
    expect(res.json.questions).toHaveLength(1);
    expect(res.json.questions[0]).toMatch(/drawdown/);
    expect(chatResponse.strict().parse(res.json)).toEqual(res.json);
    const one = await api.call("POST", `/api/v1/agents/${agentId}/charter/chat`, {
      token: alice,
      body: { message: "Name it Bo, halt at 10% drawdown, 2x leverage, ETH, default split" },
    });
    expect(one.json).toMatchObject({ ready: true, questions: [] });
    expect((await api.call("POST", `/api/v1/agents/${agentId}/charter/chat`, { token: alice, body: { messages: [] } })).status).toBe(400);
    const stored = await api.call("GET", `/api/v1/agents/${agentId}`);
    expect(stored.json.charter.persona.name).toBe("Bo");
    expect(stored.json.charterHash).toBe(one.json.charterHash);
    expect(agentResponse.strict().parse(stored.json)).toEqual(stored.json);
  });

  it("missing AGENT_KEY_SECRET → 503 naming it", async () => {
    const bare = testApi(databaseUrl, { AGENT_KEY_SECRET: "" });
    const token = await signIn(bare, ALICE);
    const res = await bare.call("POST", "/api/v1/agents", { token });
    expect(res.status).toBe(503);
    expect(res.json.error).toMatch(/AGENT_KEY_SECRET/);
    await bare.close();
  });

  it("an owner is matched by address, whatever its case", async () => {
    const owner = (await api.call("GET", `/api/v1/agents/${agentId}`)).json.owner as Address;
    expect(owner).toBe(privateKeyToAccount(ALICE).address);
  });
});
