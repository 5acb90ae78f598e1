import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, DEVNET_OPERATOR_KEY, loadConfig, MissingConfigError, requireContract } from "../../common/config.js";
import { ROOT } from "../../devnet/compile.js";

const NO_FILE = { DEPLOYMENTS_FILE: "/nonexistent/deployments.json" };

describe("config", () => {
  it("applies the spec's defaults as exact base units", () => {
    const config = loadConfig(NO_FILE);
    expect(config.port).toBe(42069);
    expect(config.chainId).toBe(31337);
    expect(config.platformLaunchFeeWei).toBe(2_000_000_000_000_000n);
    expect(config.perpsMinNotionalUsdc).toBe(100_000_000n);
    expect(config.protocolBuybackMinUsdc).toBe(500_000n);
    expect(config.creatorBuybackMinUsdc).toBe(5_000_000n);
    expect(config.claimBatchSize).toBe(10);
    expect(config.operatorKey).toBe(DEVNET_OPERATOR_KEY);
    expect(config.operator).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
  });

  it.each([
    [{ PORT: "abc" }, "PORT: expected an integer from 1 to 65535"],
    [{ PORT: "70000" }, "PORT: expected an integer from 1 to 65535"],
    [{ PROTOCOL_PRIVATE_KEY: "0x1234" }, "PROTOCOL_PRIVATE_KEY: expected a 0x-prefixed 32-byte hex private key"],
    [{ PROTOCOL_PRIVATE_KEY: `0x${"0".repeat(64)}` }, "PROTOCOL_PRIVATE_KEY: not a valid secp256k1 private key"],
    [{ PLATFORM_LAUNCH_FEE_ETH: "-1" }, "PLATFORM_LAUNCH_FEE_ETH: expected a non-negative decimal"],
    [{ PERPS_MIN_NOTIONAL_USDC: "1.0000001" }, "PERPS_MIN_NOTIONAL_USDC: expected a non-negative decimal with at most 6 places"],
    [{ RPC_URL: "ftp://x" }, "RPC_URL: expected a http or https URL"],
    [{ INDEXER_RPC_URLS: "http://a:8545,ftp://x" }, "INDEXER_RPC_URLS: expected a http or https URL"],
    [{ INDEXER_RPC_URLS: " , " }, "INDEXER_RPC_URLS: expected one or more comma-separated URLs"],
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL: expected a postgres or postgresql URL"],
    [{ LAUNCHER_ADDRESS: "0x12" }, "LAUNCHER_ADDRESS: expected a 0x-prefixed 20-byte hex address"],
    [{ LEGACY_LAUNCH_OPEN: "yes" }, "LEGACY_LAUNCH_OPEN: expected true or false"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL: expected trace, debug, info, warn or error"],
    [{ WORKER_INTERVAL_SCALE: "0" }, "WORKER_INTERVAL_SCALE: expected a positive number up to 100"],
  ])("rejects %o naming the variable", (env, message) => {
    expect(() => loadConfig({ ...NO_FILE, ...env })).toThrowError(ConfigError);
    expect(() => loadConfig({ ...NO_FILE, ...env })).toThrowError(message);
  });

  it("gives the indexer RPC_URL, or the endpoints INDEXER_RPC_URLS lists", () => {
    expect(loadConfig({ ...NO_FILE, RPC_URL: "http://node:8545" }).indexerRpcUrls).toEqual(["http://node:8545"]);
    expect(loadConfig({ ...NO_FILE, INDEXER_RPC_URLS: "https://a.example/v1, https://b.example/v1" }).indexerRpcUrls).toEqual([
      "https://a.example/v1",
      "https://b.example/v1",
    ]);
  });

  it("never echoes a secret in its error", () => {
    expect(() => loadConfig({ ...NO_FILE, PROTOCOL_PRIVATE_KEY: "0xsecretsecret" })).toThrowError(/^PROTOCOL_PRIVATE_KEY: [^"]*$/);
    expect(() => loadConfig({ ...NO_FILE, DATABASE_URL: "mysql://app:hunter2@db/x" })).toThrowError(/^DATABASE_URL: [^"]*$/);
    expect(() => loadConfig({ ...NO_FILE, INDEXER_RPC_URLS: "https://base.example/v2/apikey,ws://x" })).toThrowError(/^INDEXER_RPC_URLS: [^"]*$/);
  });

  it("needs an operator key outside the devnet and names missing addresses", () => {
    const config = loadConfig({ ...NO_FILE, CHAIN_ID: "8453" });
    expect(config.operatorKey).toBeUndefined();
    expect(() => requireContract(config, "registry")).toThrowError(new MissingConfigError("REGISTRY_ADDRESS"));
    // Clanker's own contracts default to Base's (docs/base.md, "Base addresses"); ours must be named.
    expect(requireContract(config, "launcher")).toBe("0xE85A59c628F7d27878ACeB4bf3b35733630083a9");
    expect(requireContract(config, "clankerHook")).toBe("0xb429d62f8f3bFFb98CdB9569533eA23bF0Ba28CC");
  });

  it("stops npm start with one clear line and no stack trace", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx/esm", join(ROOT, "scripts", "start.ts")], {
      cwd: ROOT,
      env: { ...process.env, PORT: "abc" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('configuration error: PORT: expected an integer from 1 to 65535 (got "abc")');
    expect(result.stdout).toBe("");
  });
});
