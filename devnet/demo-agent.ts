/**
 * The devnet's demo agent: `npm start` launches one token through the agent flow itself, the
 * way a creator does it over HTTP — Sign-In with Ethereum as anvil account 2, a new agent,
 * the default charter, the agent wallet funded, the launch — so the printed prospectus link
 * shows a live agent on the first click. Done once per devnet (remembered in
 * `demo-agent.json` beside the chain's state); a later start reuses it.
 *
 * A crash rolls the devnet back to its last saved state, which may predate the demo's
 * launch: the engine re-sends the agent's signed launch transactions, but the wallet's funding
 * was not the engine's to re-send. A later start that finds the demo token gone funds the
 * wallet again, so those transactions can be mined.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { createDevnetContext } from "./context.js";
import { devnetPrivateKey } from "./protocol.js";

/** Anvil account 2: free for the user, it plays the demo's creator. */
const DEMO_CREATOR = 2;
const DEMO_FUNDING = parseEther("0.05");

export type DemoAgent = { agentId: string; token: Address; wallet: Address };

type Answer = { status: number; json: Record<string, unknown>; retryAfter?: number };

/** How long one step of the demo's flow retries an API that is busy or briefly away (a loaded first start). */
const RETRY_FOR_MS = 90_000;

async function callOnce(base: string, method: string, path: string, p: { token?: string; body?: unknown }): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (p.token) headers.authorization = `Bearer ${p.token}`;
  if (p.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}/api/v1${path}`, { method, headers, body: p.body === undefined ? undefined : JSON.stringify(p.body) });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch {
    // not JSON: reported below with the status
  }
  return { status: res.status, json, retryAfter: Number(res.headers.get("retry-after")) || undefined };
}

/**
 * One API call, tried again while the API is refused, rate-limited (429) or unavailable (5xx)
 * for up to `RETRY_FOR_MS`. Every step is safe to repeat: a second agent costs nothing and an
 * agent launches at most once (a repeat is a 409, handled by the caller).
 */
async function call(base: string, method: string, path: string, p: { token?: string; body?: unknown } = {}): Promise<Answer> {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (let attempt = 1; ; attempt++) {
    let answer: Answer | undefined;
    let failure: unknown;
    try {
      answer = await callOnce(base, method, path, p);
    } catch (error) {
      failure = error;
    }
    const transient = !answer || answer.status === 429 || answer.status >= 500;
    if (!transient || Date.now() >= deadline) {
      if (answer) return answer;
      throw failure;
    }
    const waitMs = Math.min(answer?.retryAfter ? answer.retryAfter * 1000 : 250 * 2 ** attempt, 5_000);
    await new Promise((r) => setTimeout(r, waitMs));
  }
}

function expectStatus(answer: Answer, status: number, what: string): Record<string, unknown> {
  if (answer.status !== status) throw new Error(`demo agent: ${what} answered ${answer.status}: ${String(answer.json.error ?? "")}`);
  return answer.json;
}

/** The demo agent of this devnet, launched through the API on the first call. */
export async function ensureDemoAgent(p: {
  apiBase: string;
  rpcUrl: string;
  chainId: number;
  dataDir: string;
  log: (line: string) => void;
}): Promise<DemoAgent> {
  const file = join(p.dataDir, "demo-agent.json");
  const key = devnetPrivateKey(DEMO_CREATOR) as Hex;
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, "utf8")) as DemoAgent;
    await refundAfterRollback(createDevnetContext(p.rpcUrl, p.chainId, key), demo, p.log);
    return demo;
  }

  const creator = privateKeyToAccount(key);
  const nonce = expectStatus(await call(p.apiBase, "GET", "/auth/nonce"), 200, "sign-in nonce");
  const message = createSiweMessage({
    address: creator.address,
    chainId: p.chainId,
    domain: String(nonce.domain),
    nonce: String(nonce.nonce),
    uri: `${p.apiBase}/login`,
    version: "1",
    issuedAt: new Date(),
    statement: "Sign in to launch the demo agent.",
  });
  const session = expectStatus(
    await call(p.apiBase, "POST", "/auth/verify", { body: { message, signature: await creator.signMessage({ message }) } }),
    200,
    "sign-in",
  );
  const token = String(session.token);
  const agent = expectStatus(await call(p.apiBase, "POST", "/agents", { token }), 201, "agent creation");
  const agentId = String(agent.id);
  const wallet = agent.wallet as Address;
  expectStatus(await call(p.apiBase, "POST", `/agents/${agentId}/charter/default`, { token }), 200, "default charter");
  p.log(`demo agent ${agentId}: charter set, funding its wallet ${wallet}`);
  const funder = createDevnetContext(p.rpcUrl, p.chainId, key);
  const hash = await funder.walletClient.sendTransaction({ to: wallet, value: DEMO_FUNDING, account: funder.account, chain: funder.walletClient.chain });
  await funder.publicClient.waitForTransactionReceipt({ hash });
  const answer = await call(p.apiBase, "POST", `/agents/${agentId}/charter/launch`, {
    token,
    body: { name: "Demo Agent Coin", symbol: "DEMO", description: "Launched by the devnet's demo agent", devBuyEth: "0.001" },
  });
  // A 409 after a retried launch: the first attempt got through, and the agent knows its token.
  const launched = answer.status === 409 ? await launchedToken(p.apiBase, agentId) : expectStatus(answer, 201, "launch");
  const demo: DemoAgent = { agentId, token: launched.token as Address, wallet };
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`);
  p.log(`demo agent ${agentId} launched ${demo.token}`);
  return demo;
}

/** The agent's launched token, once its launch (in progress after a retried request) has one. */
async function launchedToken(base: string, agentId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + RETRY_FOR_MS;
  for (;;) {
    const agent = expectStatus(await call(base, "GET", `/agents/${agentId}`), 200, "agent");
    if (agent.token) return agent;
    if (agent.status === "failed" || Date.now() >= deadline)
      throw new Error(`demo agent: launch of agent ${agentId} still without a token (${String(agent.status)}: ${String(agent.statusReason ?? "")})`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/** The demo's launch left with a rollback (its token has no code): the wallet gets its funding back, up to `DEMO_FUNDING`. */
async function refundAfterRollback(funder: ReturnType<typeof createDevnetContext>, demo: DemoAgent, log: (line: string) => void): Promise<void> {
  const code = await funder.publicClient.getCode({ address: demo.token });
  if (code && code !== "0x") return;
  const balance = await funder.publicClient.getBalance({ address: demo.wallet });
  if (balance >= DEMO_FUNDING) return;
  log(`demo agent ${demo.agentId}: its token ${demo.token} left with a devnet rollback; funding its wallet again so its launch is mined again`);
  const hash = await funder.walletClient.sendTransaction({
    to: demo.wallet,
    value: DEMO_FUNDING - balance,
    account: funder.account,
    chain: funder.walletClient.chain,
  });
  await funder.publicClient.waitForTransactionReceipt({ hash });
}
