/**
 * The local service's connection file: `npm start` writes where its database, chain and
 * deployments are (and the devnet's secrets) to `.data/connection.json` (mode 0600), so that
 * `npm run engine -- …` in another terminal finds them without hand-set variables.
 *
 * Keys are the environment variables they stand for; a variable set in the environment
 * always wins over the file.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "./config.js";

/** `.data/` at the repository root: embedded PostgreSQL, the devnet's state, this file. */
export const DATA_PATH = fileURLToPath(new URL("../.data", import.meta.url));
export const CONNECTION_FILE = "connection.json";

/** The variables the file may carry. */
export const CONNECTION_VARIABLES = ["DATABASE_URL", "RPC_URL", "CHAIN_ID", "DEPLOYMENTS_FILE", "AGENT_KEY_SECRET", "OPERATOR_API_KEY"] as const;
export type ConnectionVariable = (typeof CONNECTION_VARIABLES)[number];
export type Connection = Partial<Record<ConnectionVariable, string>>;

/** The folder that holds the file: `DATA_DIR` if set, else the repository's `.data/`. */
export function dataDir(env: Record<string, string | undefined>): string {
  return env.DATA_DIR || DATA_PATH;
}

/** Writes the file (owner read/write only), replacing it whole. */
export function writeConnectionFile(dir: string, connection: Connection): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, CONNECTION_FILE);
  const values = Object.fromEntries(CONNECTION_VARIABLES.filter((k) => connection[k] !== undefined).map((k) => [k, connection[k]]));
  const staging = `${file}.${process.pid}`;
  writeFileSync(staging, `${JSON.stringify(values, null, 2)}\n`, { mode: 0o600 });
  chmodSync(staging, 0o600);
  renameSync(staging, file);
  return file;
}

/** Reads the file in `dir`; undefined if there is none. Throws ConfigError if it is malformed. */
export function readConnectionFile(dir: string): Connection | undefined {
  const file = join(dir, CONNECTION_FILE);
  if (!existsSync(file)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    throw new ConfigError("DATA_DIR", `${file} is not valid JSON`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new ConfigError("DATA_DIR", `${file} is not a JSON object`);
  const connection: Connection = {};
  for (const key of CONNECTION_VARIABLES) {
    const value = (parsed as Record<string, unknown>)[key];
    if (value === undefined) continue;
    if (typeof value !== "string") throw new ConfigError("DATA_DIR", `${file}: ${key} is not a string`);
    connection[key] = value;
  }
  return connection;
}

/**
 * The environment, completed from the connection file when `DATABASE_URL` is unset: the
 * file's values fill the variables the environment leaves unset. With `DATABASE_URL` set the
 * environment is returned as it is (it names another service).
 */
export function withConnectionFile(env: Record<string, string | undefined>): Record<string, string | undefined> {
  if (env.DATABASE_URL) return env;
  const connection = readConnectionFile(dataDir(env));
  if (!connection) return env;
  const filled: Record<string, string | undefined> = { ...env };
  for (const [key, value] of Object.entries(connection)) if (!filled[key]) filled[key] = value;
  return filled;
}
