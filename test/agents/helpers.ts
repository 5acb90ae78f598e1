/**
 * The agent API in-process (Hono `app.request`, no port) on a real PostgreSQL database and
 * the shared devnet, plus Sign-In with Ethereum as a wallet does it: nonce, EIP-4361
 * message, personal_sign, verify.
 */
import { Hono } from "hono";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { DEVNET_CHAIN_ID } from "../../common/config.js";
import { createLogger } from "../../common/logger.js";
import { type AgentApiDeps, agentApi, agentApiFromConfig } from "../../api/agents/index.js";
import { prospectusPages } from "../../api/pages/routes.js";
import type { AgentServiceOptions } from "../../core/agents/services.js";
import { testConfig } from "../helpers/env.js";
import { answer } from "../helpers/http.js";

export const AGENT_KEY_SECRET = "test-agent-key-secret-0123456789abcdef";
export const HOST = "agents.test";
export const BASE = `http://${HOST}`;

/** Plenty for a test's burst of requests from one client. */
export const TEST_RATE_LIMITS = {
  auth: { capacity: 10_000, refillPerSecond: 1_000 },
  agentWrite: { capacity: 10_000, refillPerSecond: 1_000 },
  launch: { capacity: 10_000, refillPerSecond: 1_000 },
  read: { capacity: 10_000, refillPerSecond: 1_000 },
};

export type TestApi = {
  deps: AgentApiDeps;
  app: Hono;
  call: (
    method: string,
    path: string,
    p?: { token?: string; body?: unknown; raw?: string; host?: string },
  ) => Promise<{ status: number; json: any; text: string; headers: Headers }>;
  close: () => Promise<void>;
};

export function testApi(databaseUrl: string, env: Record<string, string> = {}, options: AgentServiceOptions & { now?: () => Date } = {}): TestApi {
  const config = testConfig(databaseUrl, { AGENT_KEY_SECRET, PUBLIC_URL: BASE, ...env });
  const deps = agentApiFromConfig(config, {
    log: createLogger("agents-test", "error"),
    rateLimits: TEST_RATE_LIMITS,
    pipelineOptions: { pollMs: 50, maxWaitMs: 30_000 },
    logError: (error, where) => console.error("unexpected error", where, error),
    ...options,
  });
  if (options.now) deps.now = options.now;
  const app = new Hono();
  app.route("/api/v1", agentApi(deps));
  app.route("/", prospectusPages(deps));
  return {
    deps,
    app,
    async call(method, path, p = {}) {
      const headers: Record<string, string> = {};
      if (p.token) headers.authorization = `Bearer ${p.token}`;
      let body: string | undefined;
      if (p.raw !== undefined || p.body !== undefined) {
        headers["content-type"] = "application/json";
        body = p.raw ?? JSON.stringify(p.body);
      }
      return answer(await app.request(`http://${p.host ?? HOST}${path}`, { method, headers, body }));
    },
    close: () => deps.services.close(),
  };
}

export type SiweOverrides = Partial<Parameters<typeof createSiweMessage>[0]>;

/** A signed Sign-In with Ethereum message for `address` (signed by `signerKey`). */
export async function signedMessage(api: TestApi, signerKey: Hex, overrides: SiweOverrides & { address?: Address } = {}) {
  const account = privateKeyToAccount(signerKey);
  const nonce = overrides.nonce ?? (await api.call("GET", "/api/v1/auth/nonce")).json.nonce;
  const message = createSiweMessage({
    address: overrides.address ?? account.address,
    chainId: DEVNET_CHAIN_ID,
    domain: HOST,
    nonce,
    uri: `${BASE}/login`,
    version: "1",
    issuedAt: new Date(),
    statement: "Sign in to launch agents.",
    ...overrides,
  });
  return { message, signature: await account.signMessage({ message }) };
}

/** Signs in with the key; returns the bearer token. */
export async function signIn(api: TestApi, key: Hex): Promise<string> {
  const body = await signedMessage(api, key);
  const res = await api.call("POST", "/api/v1/auth/verify", { body });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${res.text}`);
  return res.json.token;
}
