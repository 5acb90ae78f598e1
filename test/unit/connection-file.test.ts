/**
 * The connection file `npm start` leaves in `.data/`: read back exactly, never over the
 * environment, and enough for the engine CLI to reach the database with no variables set.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../common/config.js";
import { CONNECTION_FILE, readConnectionFile, withConnectionFile, writeConnectionFile } from "../../common/connection-file.js";
import { ROOT } from "../../devnet/compile.js";
import { createDatabase } from "../helpers/env.js";

const run = promisify(execFile);
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "launchpad-data-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const CONNECTION = {
  DATABASE_URL: "postgres://postgres:postgres@127.0.0.1:54329/launchpad",
  RPC_URL: "http://127.0.0.1:8545",
  CHAIN_ID: "31337",
  DEPLOYMENTS_FILE: "/nonexistent/deployments.json",
  AGENT_KEY_SECRET: "a".repeat(64),
  OPERATOR_API_KEY: "operator-key-0123456789",
};

describe("connection file", () => {
  it("is written owner-only and read back exactly", () => {
    const dir = tempDir();
    const file = writeConnectionFile(dir, CONNECTION);
    expect(file).toBe(join(dir, CONNECTION_FILE));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readConnectionFile(dir)).toEqual(CONNECTION);
    // Rewritten whole on the next start; still owner-only.
    writeConnectionFile(dir, { ...CONNECTION, RPC_URL: "http://127.0.0.1:9545" });
    expect(readConnectionFile(dir)?.RPC_URL).toBe("http://127.0.0.1:9545");
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("fills only what the environment leaves unset, and only without DATABASE_URL", () => {
    const dir = tempDir();
    writeConnectionFile(dir, CONNECTION);
    const filled = withConnectionFile({ DATA_DIR: dir, RPC_URL: "http://10.0.0.1:8545" });
    expect(filled).toMatchObject({ ...CONNECTION, RPC_URL: "http://10.0.0.1:8545" });
    const config = loadConfig(filled);
    expect(config.databaseUrl).toBe(CONNECTION.DATABASE_URL);
    expect(config.agentKeySecret).toBe(CONNECTION.AGENT_KEY_SECRET);
    expect(config.operatorApiKey).toBe(CONNECTION.OPERATOR_API_KEY);

    const own = { DATA_DIR: dir, DATABASE_URL: "postgres://me@db.example:5432/x" };
    expect(withConnectionFile(own)).toEqual(own);
    const empty = tempDir();
    expect(withConnectionFile({ DATA_DIR: empty })).toEqual({ DATA_DIR: empty });
  });

  it("a malformed file is a configuration error naming it", () => {
    const dir = tempDir();
    writeFileSync(join(dir, CONNECTION_FILE), "{ not json");
    expect(() => readConnectionFile(dir)).toThrowError(ConfigError);
    expect(() => readConnectionFile(dir)).toThrowError(join(dir, CONNECTION_FILE));
    writeFileSync(join(dir, CONNECTION_FILE), JSON.stringify({ DATABASE_URL: 5432 }));
    expect(() => withConnectionFile({ DATA_DIR: dir })).toThrowError("DATABASE_URL is not a string");
  });
});

describe("engine CLI without DATABASE_URL", () => {
  const cli = (dataDir: string, ...args: string[]) => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), DATA_DIR: dataDir, LOG_LEVEL: "warn" };
    delete env.DATABASE_URL;
    return run(process.execPath, ["--import", "tsx", join(ROOT, "engine", "cli.ts"), ...args], { cwd: ROOT, env, timeout: 90_000 }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
  };

  it("finds the database through the connection file in DATA_DIR", async () => {
    const dir = tempDir();
    const databaseUrl = await createDatabase("cli_conn");
    writeConnectionFile(dir, { ...CONNECTION, DATABASE_URL: databaseUrl });
    const res = await cli(dir, "ledger", "--json");
    expect(res.code, res.stderr).toBe(0);
    const report = JSON.parse(res.stdout) as { totals: { feesClaimedUsdc: string }; invariants: { ok: boolean } };
    expect(report.invariants.ok).toBe(true);
    expect(report.totals.feesClaimedUsdc).toBe("0");
    // In words by default: amounts in whole units with their currency, base units beside them with --raw.
    const words = await cli(dir, "ledger");
    expect(words.code, words.stderr).toBe(0);
    expect(words.stdout).toMatch(/fees claimed \(all legs\) +0 USDC\n/);
    expect(words.stdout).toMatch(/legacy WETH +0 WETH\n/);
    expect(words.stdout).toContain("Invariants: all hold.");
    expect((await cli(dir, "ledger", "--raw")).stdout).toMatch(/protocol buyback +0 USDC \(0 base units\)/);
  });

  it("without a file says what to do", async () => {
    const dir = tempDir();
    const res = await cli(dir, "ledger");
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`DATABASE_URL is not set and there is no ${join(dir, CONNECTION_FILE)}`);
    expect(res.stderr).toContain("npm start");
  });
});
