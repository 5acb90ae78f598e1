/**
 * The MCP server at /mcp, driven by the SDK's own client over Streamable HTTP against the real
 * ponder process (indexer + API) on the shared devnet, after the API suites' small history (a
 * launch, burns, buybacks, a desk): the client lists the tools and calls each; the read tools
 * answer what the REST routes answer; a signed-in creator (Sign-In with Ethereum, the REST
 * agent routes' session) creates an agent, adopts a charter and launches its token through the
 * tools; without a session, or on another creator's agent, the creator tools refuse with the
 * REST codes.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Address, type Hex, getAddress, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentResponse, chatResponse, launchedResponse } from "../../api/views/agent.js";
import { burnView } from "../../api/views/burn.js";
import { viewKeys } from "../../api/views/view.js";
import { DEVNET_CHAIN_ID } from "../../common/config.js";
import { ANVIL_KEYS, devnetAs } from "../helpers/env.js";
import { type Harness, startHarness } from "./harness.js";
import { type Scenario, seedScenario } from "./scenario.js";

const AGENT_KEY_SECRET = "test-agent-key-secret-0123456789abcdef";
const HOST = "agents.test";
const CREATOR_KEY = ANVIL_KEYS[3];
const OTHER_KEY = ANVIL_KEYS[4];

let h: Harness;
let s: Scenario;
const clients: Client[] = [];

async function rest(path: string, token?: string): Promise<any> {
  const res = await fetch(`${h.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(res.status, `${path}: ${res.status}`).toBe(200);
  return res.json();
}

/** Sign-In with Ethereum over HTTP, as a wallet does: nonce, EIP-4361 message, signature, session token. */
async function signIn(key: Hex): Promise<string> {
  const account = privateKeyToAccount(key);
  const { nonce } = await rest("/api/v1/auth/nonce");
  const message = createSiweMessage({
    address: account.address,
    chainId: DEVNET_CHAIN_ID,
    domain: HOST,
    nonce,
    uri: `http://${HOST}/login`,
    version: "1",
    issuedAt: new Date(),
  });
  const res = await fetch(`${h.url}/api/v1/auth/verify`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message, signature: await account.signMessage({ message }) }),
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body.token;
}

/** The SDK's client over Streamable HTTP, with the creator's session when given. */
async function connect(token?: string): Promise<Client> {
  const client = new Client({ name: "launchpad-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** Calls a tool; its JSON answer (or the `{ error, code }` of a refusal, with `isError`). */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; json: any }> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text: string }[] };
  expect(result.content[0]!.type).toBe("text");
  const text = result.content[0]!.text;
  // The SDK's own refusal of arguments the input schema does not allow is plain text.
  return { isError: result.isError === true, json: text.startsWith("{") ? JSON.parse(text) : text };
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await call(client, name, args);
  expect(r.isError, `${name}: ${JSON.stringify(r.json)}`).toBe(false);
  return r.json;
}

beforeAll(async () => {
  h = await startHarness({ AGENT_KEY_SECRET, PUBLIC_URL: `http://${HOST}`, RATE_LIMIT_SCALE: "1000" });
  s = await seedScenario(h);
  await h.synced();
}, 360_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await s?.cleanup();
  await h?.stop();
});

const READ_TOOLS = ["stats", "token", "burns", "fee_flow", "audit_status", "desk_statement"];
const CREATOR_TOOLS = ["create_agent", "agent", "charter_default", "charter_submit", "charter_chat", "launch"];

describe("the read tools", () => {
  it("lists every tool with its input schema; the read tools are marked read-only", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...CREATOR_TOOLS].sort());
    for (const t of tools) {
      expect(t.description, t.name).toBeTruthy();
      expect(t.inputSchema.type).toBe("object");
      expect(t.annotations?.readOnlyHint, t.name).toBe(READ_TOOLS.includes(t.name) || t.name === "agent");
    }
    const burns = tools.find((t) => t.name === "burns")!;
    // Its answer is structured content of a declared schema: a page of the burn view's items.
    expect(Object.keys((burns.outputSchema?.properties?.items as any)?.items?.properties ?? {})).toEqual(viewKeys(burnView));
    // The agent tools declare the REST answers' schemas (api/views/agent.ts).
    for (const [name, schema] of [
      ["agent", agentResponse],
      ["charter_chat", chatResponse],
      ["launch", launchedResponse],
    ] as const)
      expect(Object.keys(tools.find((t) => t.name === name)?.outputSchema?.properties ?? {}), name).toEqual(Object.keys(schema.shape));
    expect(Object.keys(burns.inputSchema.properties ?? {}).sort()).toEqual([
      "cursor",
      "fromBlock",
      "fromTime",
      "kinds",
      "limit",
      "order",
      "toBlock",
      "toTime",
      "token",
    ]);
  });

  it("stats, token, burns and a token's reports (fee_flow, audit_status, desk_statement) answer what REST answers", async () => {
    const client = await connect();
    const token = s.token;

    const stats = await ok(client, "stats");
    const restStats = await rest("/api/v1/stats");
    expect(stats).toEqual(restStats);

    const page = await ok(client, "token", { token });
    expect(page.token).toMatchObject({ address: getAddress(token), symbol: expect.any(String) });
    expect(page.enrollment).toMatchObject({ protocolBps: expect.any(Number), creatorBps: expect.any(Number) });
    expect(BigInt(page.ledger.burns.burned)).toBeGreaterThan(0n);

    // One burn view (api/views/burn.ts): the tool's items are REST's, field for field, without REST's valuations.
    const burns = await ok(client, "burns", { token, limit: 200 });
    const restBurns = await rest(`/api/v1/burns/${token}?limit=200`);
    const keys = viewKeys(burnView);
    expect(Object.keys(burns.items[0])).toEqual(keys);
    expect(burns.items).toEqual(restBurns.items.map((b: any) => Object.fromEntries(keys.map((k) => [k, b[k]]))));
    expect(burns.items.length).toBeGreaterThanOrEqual(2);
    const organic = await ok(client, "burns", { token, kinds: ["organic"], order: "OLDEST" });
    expect(organic.items.every((b: any) => b.kind === "organic")).toBe(true);
    expect(organic.items.map((b: any) => b.txHash.toLowerCase())).toContain(s.organicBurn.tx.toLowerCase());
    const first = burns.items.at(-1);
    const ranged = await ok(client, "burns", { token, fromBlock: first.blockNumber, toBlock: first.blockNumber });
    expect(ranged.items.every((b: any) => b.blockNumber === first.blockNumber)).toBe(true);
    const onePage = await ok(client, "burns", { token, limit: 1 });
    expect(onePage.items).toHaveLength(1);
    const next = await ok(client, "burns", { token, limit: 1, cursor: onePage.nextCursor });
    expect(next.items[0].id).toBe(burns.items[1].id);

    expect(await ok(client, "fee_flow", { token })).toEqual(await rest(`/api/v1/tokens/${token}/flow`));
    expect(await ok(client, "audit_status", { token })).toEqual(await rest(`/api/v1/tokens/${token}/audit`));
    expect(await ok(client, "desk_statement", { token })).toEqual(await rest(`/api/v1/tokens/${token}/desk-statement`));

    // Refusals are tool errors carrying the REST body.
    const unknown = "0x00000000000000000000000000000000000000aa";
    expect(await call(client, "fee_flow", { token: unknown })).toMatchObject({ isError: true, json: { code: "NOT_FOUND" } });
    expect(await call(client, "token", { token: unknown })).toMatchObject({ isError: true, json: { code: "NOT_FOUND" } });
    const badCursor = await call(client, "burns", { token, cursor: "not-a-cursor" });
    expect(badCursor).toMatchObject({ isError: true, json: { code: "BAD_REQUEST" } });
    // Input the schema refuses never reaches a tool.
    const badInput = await call(client, "fee_flow", { token: "0x12" });
    expect(badInput).toMatchObject({ isError: true, json: expect.stringMatching(/invalid/i) });
  });

  it("only POST: GET and DELETE /mcp are 405; a bad session is 401", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${h.url}/mcp`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(await res.json()).toMatchObject({ code: "METHOD_NOT_ALLOWED" });
    }
    const res = await fetch(`${h.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: "Bearer not-a-session-token-at-all-0000" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ code: "UNAUTHORIZED" });
  });
});

describe("the creator tools", () => {
  it("without a session they refuse with UNAUTHORIZED", async () => {
    const client = await connect();
    expect(await call(client, "create_agent")).toMatchObject({ isError: true, json: { code: "UNAUTHORIZED" } });
    expect(await call(client, "charter_default", { agentId: "00000000-0000-4000-8000-000000000000" })).toMatchObject({
      isError: true,
      json: { code: "UNAUTHORIZED" },
    });
  });

  it("a signed-in creator creates an agent, drafts and adopts a charter, and launches its token through the tools", async () => {
    const creator = privateKeyToAccount(CREATOR_KEY).address;
    const client = await connect(await signIn(CREATOR_KEY));
    const created = await ok(client, "create_agent");
    expect(created).toMatchObject({ owner: creator, status: "draft" });
    const agentId: string = created.id;
    const wallet = created.wallet as Address;

    const chat = await ok(client, "charter_chat", { agentId, message: "a patient momentum trader on BTC, 3x at most, keep 10% for me" });
    expect(chat).toMatchObject({ id: agentId, charter: { engine: { strategy: expect.any(String) } } });
    expect(chat.questions).toEqual(expect.any(Array));
    const adopted = await ok(client, "charter_default", { agentId });
    expect(adopted).toMatchObject({ id: agentId, charterSource: "default" });

    // Another creator may not touch it.
    const other = await connect(await signIn(OTHER_KEY));
    expect(await call(other, "agent", { agentId })).toMatchObject({ isError: true, json: { code: "FORBIDDEN" } });
    expect(await call(other, "launch", { agentId, name: "Nope", symbol: "NOPE" })).toMatchObject({ isError: true, json: { code: "FORBIDDEN" } });

    // Unfunded: the shortfall, as REST names it.
    const short = await call(client, "launch", { agentId, name: "Tool Cat", symbol: "TCAT" });
    expect(short).toMatchObject({ isError: true, json: { code: "UNPROCESSABLE", error: expect.stringMatching(/short by [\d.]+ ETH/) } });

    const funder = devnetAs(1);
    const hash = await funder.walletClient.sendTransaction({ to: wallet, value: parseEther("1"), account: funder.account, chain: funder.walletClient.chain });
    await funder.publicClient.waitForTransactionReceipt({ hash });
    const launched = await ok(client, "launch", { agentId, name: "Tool Cat", symbol: "TCAT", description: "launched over MCP" });
    expect(launched).toMatchObject({ id: agentId, wallet, token: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/), prospectus: `/p/${agentId}` });
    expect(["launched", "running"]).toContain(launched.status);

    // REST and the chain agree.
    const agent = await rest(`/api/v1/agents/${agentId}`);
    expect(agent).toMatchObject({ owner: creator, token: launched.token, charterSource: "default", launch: { name: "Tool Cat", symbol: "TCAT" } });
    const deployed = await funder.publicClient.getTransactionReceipt({ hash: agent.launch.txs.deploy });
    expect(getAddress(deployed.from)).toBe(wallet);
    expect(await ok(client, "agent", { agentId })).toEqual(agent);
    // The charter is fixed once launched.
    expect(await call(client, "charter_default", { agentId })).toMatchObject({ isError: true, json: { code: "CONFLICT" } });

    // Once indexed, the read tools know the new token.
    await h.synced();
    const page = await ok(client, "token", { token: launched.token });
    expect(page.agent).toMatchObject({ id: agentId, owner: creator });
    expect(page.token).toMatchObject({ address: launched.token, symbol: "TCAT" });
  }, 180_000);
});
