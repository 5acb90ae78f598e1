/**
 * What a suite needs to reach the shared devnet and database, plus helpers for private
 * databases and a ponder instance of its own.
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { inject } from "vitest";
import { type Config, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY, type Deployments, loadConfig } from "../../common/config.js";
import { createDevnetContext, type DevnetContext } from "../../devnet/context.js";
import { type PonderHandle, startPonder } from "../../devnet/ponder.js";
import { freePort } from "./ports.js";

/** anvil's default accounts 1..9 (account 0 is the operator). */
export const ANVIL_KEYS = [
  DEVNET_OPERATOR_KEY,
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
  "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
] as const;

/**
 * Where this file's shared devnet and database are. Files run two at a time (vitest.config.ts);
 * each worker has its own anvil, picked by vitest's VITEST_POOL_ID (1..maxWorkers).
 */
export function testEnv() {
  const rpcUrls = inject("rpcUrls");
  const worker = (Number(process.env.VITEST_POOL_ID ?? "1") - 1) % rpcUrls.length;
  const rpcUrl = rpcUrls[worker]!;
  const deploymentsFile = inject("deploymentsFiles")[worker]!;
  const deployments = JSON.parse(readFileSync(deploymentsFile, "utf8")) as Deployments;
  return { rpcUrl, deploymentsFile, deployments, databaseUrl: inject("databaseUrl"), workDir: inject("workDir") };
}

/** Environment variables that point the service at the test devnet and a database. */
export function serviceEnv(databaseUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  const { rpcUrl, deploymentsFile } = testEnv();
  return { DATABASE_URL: databaseUrl, RPC_URL: rpcUrl, CHAIN_ID: String(DEVNET_CHAIN_ID), DEPLOYMENTS_FILE: deploymentsFile, ...extra };
}

export function testConfig(databaseUrl: string, extra: Record<string, string> = {}): Config {
  return loadConfig(serviceEnv(databaseUrl, extra));
}

export function devnetAs(keyIndex = 0): DevnetContext {
  return createDevnetContext(testEnv().rpcUrl, DEVNET_CHAIN_ID, ANVIL_KEYS[keyIndex]!);
}

let databases = 0;
/** A fresh, empty database on the shared server. */
export async function createDatabase(prefix = "t"): Promise<string> {
  const base = testEnv().databaseUrl;
  const name = `${prefix}_${process.pid}_${Date.now()}_${databases++}`;
  const admin = new pg.Client({ connectionString: base.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  await admin.end();
  return base.replace(/\/[^/]+$/, `/${name}`);
}

/**
 * ponder's client limits each endpoint on its own, starting at 20 requests/s (the bench's
 * "endpoints", bench/lib.ts): a test's anvil is listed this many times, so that the limit meant
 * for a remote provider does not set the pace of a local reindex (about 5 s of each start).
 */
const TEST_INDEXER_ENDPOINTS = 4;

/** Starts ponder (indexer + API) against the test devnet and the given database. */
export async function startTestPonder(databaseUrl: string, extraEnv: Record<string, string> = {}): Promise<PonderHandle & { logs: string[] }> {
  const logs: string[] = [];
  const env = serviceEnv(databaseUrl, extraEnv);
  const handle = startPonder({
    port: await freePort(),
    env: { INDEXER_RPC_URLS: Array(TEST_INDEXER_ENDPOINTS).fill(env.RPC_URL).join(","), ...env },
    schema: "app",
    viewsSchema: "launchpad",
    logLevel: "warn",
    onLog: (line) => logs.push(line),
  });
  return Object.assign(handle, { logs });
}

/** Every row of every table ponder created in `schema`, as sorted JSON lines (for equality checks). */
export async function dumpPonderTables(databaseUrl: string, schema = "app"): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const tables = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name NOT LIKE '\\_%' ORDER BY table_name",
      [schema],
    );
    const dump: Record<string, string[]> = {};
    for (const { table_name } of tables.rows) {
      const rows = await client.query(`SELECT * FROM ${client.escapeIdentifier(schema)}.${client.escapeIdentifier(table_name)}`);
      dump[table_name] = rows.rows.map((r) => JSON.stringify(r)).sort();
    }
    return dump;
  } finally {
    await client.end();
  }
}
