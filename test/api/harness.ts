/**
 * The API under test, twice over the same data: the real ponder process (indexer + API on a
 * port, as in production) and the same Hono app built in memory over the same PostgreSQL
 * tables (no port; fast enough for thousands of requests). Both read one fresh database that
 * ponder indexes from the shared devnet.
 *
 * `{ indexer: false }`: no ponder, for pages that need no indexed data (the API reference,
 * GraphiQL). The in-memory app is then also served over HTTP at `url`, on an empty database.
 */
import { type Answer, answer, serveFetch } from "../helpers/http.js";
import { drizzle } from "drizzle-orm/node-postgres";
import type { Hono } from "hono";
import pg from "pg";
import { type Address, type PublicClient, createPublicClient, http } from "viem";
import { createLogger } from "../../common/logger.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { agentApiFromConfig } from "../../api/agents/index.js";
import { createApp } from "../../api/create-app.js";
import type { ApiDeps, ReadDb } from "../../api/deps.js";
import { createEnginePort } from "../../api/engine-port.js";
import { createChainLauncher } from "../../core/launch/deploy-and-enroll.js";
import { pipelineSender } from "../../core/launch/sender.js";
import { createDatabase, devnetAs, startTestPonder, testConfig, testEnv } from "../helpers/env.js";

export const OPERATOR_API_KEY = "test-operator-key-0123456789";
/** The ponder process's schema (startTestPonder). */
const PONDER_SCHEMA = "app";
/** Plenty for a test's burst of requests from one client. */
export const GENEROUS_LIMITS = {
  read: { capacity: 100_000, refillPerSecond: 10_000 },
  write: { capacity: 100_000, refillPerSecond: 10_000 },
  graphql: { capacity: 100_000, refillPerSecond: 10_000 },
};

export type { Answer } from "../helpers/http.js";

export type Harness = {
  url: string;
  databaseUrl: string;
  contracts: Record<string, Address>;
  protocolToken: Address;
  /** The in-memory app and its dependencies. */
  app: Hono;
  deps: ApiDeps;
  /** Rows of the indexed tables (search_path = ponder's schema). */
  query: <T = Record<string, unknown>>(text: string, values?: unknown[]) => Promise<T[]>;
  /** Calls the in-memory app. */
  call: (method: string, path: string, p?: RequestInit & { json?: unknown; key?: string }) => Promise<Answer>;
  /** Calls the ponder process over HTTP. */
  fetch: (method: string, path: string, p?: RequestInit & { json?: unknown; key?: string }) => Promise<Answer>;
  gql: (query: string, variables?: Record<string, unknown>, over?: "memory" | "http") => Promise<Answer>;
  /** Waits until ponder has indexed the chain's current head. */
  synced: () => Promise<void>;
  /** Builds another in-memory app over the same data with other dependencies. */
  appWith: (override: Partial<ApiDeps>) => Hono;
  stop: () => Promise<void>;
  logs: string[];
};

function request(method: string, p: RequestInit & { json?: unknown; key?: string } = {}): RequestInit {
  const headers = new Headers(p.headers);
  if (p.json !== undefined) headers.set("content-type", "application/json");
  if (p.key) headers.set("authorization", `Bearer ${p.key}`);
  return { ...p, method, headers, body: p.json !== undefined ? JSON.stringify(p.json) : p.body };
}

export async function startHarness(env: Record<string, string> = {}, options: { indexer?: boolean } = {}): Promise<Harness> {
  const { deployments, rpcUrl } = testEnv();
  const databaseUrl = await createDatabase("api");
  const ponderEnv = { OPERATOR_API_KEY, ...env };
  const ponder = options.indexer === false ? undefined : await startTestPonder(databaseUrl, ponderEnv);
  const publicClient = createPublicClient({ transport: http(rpcUrl) }) as PublicClient;
  const synced = async () => {
    if (!ponder) return;
    const head = await publicClient.getBlockNumber({ cacheTime: 0 });
    // Given the handle, a ponder that exits fails the wait at once, with its last log lines.
    await waitForIndexed(ponder, head);
  };
  await synced();

  const readPool = new pg.Pool({ connectionString: databaseUrl, max: 4, options: `-c search_path=${PONDER_SCHEMA}` });
  const enginePool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  const db = drizzle(readPool, { casing: "snake_case" }) as unknown as ReadDb;
  const config = testConfig(databaseUrl, ponderEnv);
  const log = createLogger("api-test", "warn");
  const logError = (error: unknown, where: string) => console.error("unexpected error", where, error);
  const agents = agentApiFromConfig(config, { db, pool: enginePool, log, logError, rateLimits: GENEROUS_LIMITS as never, pipelineOptions: { pollMs: 50 } });
  const deps: ApiDeps = {
    db,
    config,
    engine: createEnginePort(enginePool),
    launcher: createChainLauncher({ config, publicClient, sender: pipelineSender(agents.services) }),
    agents,
    startedAt: Date.now(),
    rateLimits: GENEROUS_LIMITS,
    pollIntervalMs: 100,
    logError,
  };
  const app = createApp(deps);

  const served = ponder ? undefined : await serveFetch((req) => app.fetch(req));
  const url = ponder?.url ?? served!.url;
  const call: Harness["call"] = async (method, path, p) => answer(await app.request(`http://api.test${path}`, request(method, p)));
  const fetchHttp: Harness["fetch"] = async (method, path, p) => answer(await fetch(`${url}${path}`, request(method, p)));
  return {
    url,
    databaseUrl,
    contracts: deployments.contracts as Record<string, Address>,
    protocolToken: deployments.protocolToken as Address,
    app,
    deps,
    query: async (text, values = []) => (await readPool.query(text, values)).rows,
    call,
    fetch: fetchHttp,
    gql: (query, variables, over = "memory") => (over === "memory" ? call : fetchHttp)("POST", "/graphql", { json: { query, variables } }),
    synced,
    appWith: (override) => createApp({ ...deps, ...override }),
    logs: ponder?.logs ?? [],
    stop: async () => {
      await ponder?.stop();
      await served?.close();
      await readPool.end();
      await enginePool.end();
    },
  };
}

/** The devnet's roles in API tests: anvil account 0 is the operator; 1 and 2 are free. */
export const actors = () => ({ operator: devnetAs(0), trader: devnetAs(1), other: devnetAs(2) });
