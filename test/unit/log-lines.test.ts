/**
 * Log lines: sentences with whole-unit amounts and symbols for the engine's main events;
 * pretty on a terminal or with LOG_FORMAT=pretty, one JSON object per line when piped.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Address } from "viem";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../common/config.js";
import { intentOwnerMixin, intentOwnerOf, lineRelay, resolveLogFormat } from "../../common/logger.js";
import { ROOT } from "../../devnet/compile.js";
import { describeDecision, tokenSymbol } from "../../core/log-lines.js";
import { devnetAs, testEnv } from "../helpers/env.js";

const run = promisify(execFile);
const NO_FILE = { DEPLOYMENTS_FILE: "/nonexistent/deployments.json" };

describe("decision sentences", () => {
  it.each([
    [{ worker: "fee-claimer", decision: "fees-claimed", reason: "", data: { currency: "USDC", amount: 2_150_000n } }, "UCRT", "claimed 2.15 USDC for UCRT"],
    [
      { worker: "fee-claimer", decision: "fees-claimed", reason: "", data: { currency: "WETH", amount: "1500000000000000" } },
      "WCRT",
      "claimed 0.0015 WETH for WCRT",
    ],
    [
      {
        worker: "buyback-engine",
        decision: "protocol-buyback",
        reason: "",
        data: { currencyIn: "USDC", amountIn: "25000000", bought: "1234500000000000000000", burned: "1234500000000000000001" },
      },
      "TITHE",
      "protocol buyback: swapped 25 USDC for 1,234.5 TITHE, burned 1,234.5 TITHE",
    ],
    [
      { worker: "desk-manager", decision: "desk-open", reason: "long: momentum", data: { side: "long", leverage: 40_000_000_000n, collateral: 120_000_000n } },
      "UCRT",
      "opening a 4x long desk for UCRT with 120 USDC",
    ],
    [
      { worker: "desk-manager", decision: "desk-opened", reason: "", data: { collateral: "119880000" } },
      "UCRT",
      "the UCRT desk is open: 119.88 USDC collateral on the exchange",
    ],
    [{ worker: "desk-manager", decision: "desk-increase", reason: "", data: { amount: 5_500_000n } }, "UCRT", "increasing the UCRT desk by 5.5 USDC"],
    [
      { worker: "profit-checker", decision: "desk-close", reason: "profit 31% above 25%", data: { amount: "100000000" } },
      "UCRT",
      "closing the UCRT desk: 100 USDC of collateral (profit 31% above 25%)",
    ],
    [
      { worker: "desk-manager", decision: "desk-closed", reason: "", data: { returned: 131_000_000n, pnl: 31_000_000n, full: true } },
      "UCRT",
      "the UCRT desk closed: 131 USDC returned, profit 31 USDC",
    ],
    [
      { worker: "desk-manager", decision: "desk-liquidated", reason: "", data: { returned: 0n, pnl: -100_000_000n, full: true } },
      "UCRT",
      "the UCRT desk was liquidated: 0 USDC returned, loss 100 USDC",
    ],
    [
      {
        worker: "asset-engine",
        decision: "asset-purchased",
        reason: "",
        data: { usdcIn: "2304288", assetBought: "1148684861040117367", staked: 1148684861040117367n, shares: 1n },
      },
      undefined,
      "bought 1.14 of the secondary asset with 2.304288 USDC, staked 1.14 in the vault",
    ],
    [{ worker: "desk-risk", decision: "desk-halted", reason: "drawdown 16% above 15%" }, "UCRT", "desk-risk: desk-halted for UCRT — drawdown 16% above 15%"],
    [{ worker: "fee-claimer", decision: "fees-claimed", reason: "odd data", data: { amount: 1.5 } }, undefined, "fee-claimer: fees-claimed — odd data"],
  ])("%o → %s", (decision, symbol, sentence) => {
    expect(describeDecision(decision, symbol)).toBe(sentence);
  });

  it("names a token by its onchain symbol, or by a short address when the chain cannot say", async () => {
    const env = testEnv();
    const client = devnetAs(0).publicClient;
    expect(await tokenSymbol(client, env.deployments.contracts.usdc as Address)).toBe("USDC");
    const nobody = "0x000000000000000000000000000000000000bEEF";
    const started = Date.now();
    expect(await tokenSymbol(client, nobody)).toBe("0x0000…bEEF");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("log format", () => {
  it("LOG_FORMAT is pretty, json or auto (the default)", () => {
    expect(loadConfig(NO_FILE).logFormat).toBe("auto");
    expect(loadConfig({ ...NO_FILE, LOG_FORMAT: "json" }).logFormat).toBe("json");
    expect(() => loadConfig({ ...NO_FILE, LOG_FORMAT: "xml" })).toThrowError(ConfigError);
    expect(() => loadConfig({ ...NO_FILE, LOG_FORMAT: "xml" })).toThrowError("LOG_FORMAT: expected pretty, json or auto");
    expect(resolveLogFormat("auto", { isTTY: true })).toBe("pretty");
    expect(resolveLogFormat("auto", { isTTY: false })).toBe("json");
    expect(resolveLogFormat("json", { isTTY: true })).toBe("json");
  });

  const logOnce = async (env: Record<string, string>) => {
    const script = `import { createLogger } from "./common/logger.ts"; import { loadConfig } from "./common/config.ts";
const c = loadConfig(process.env);
createLogger("engine", c.logLevel, c.logFormat).info({ worker: "fee-claimer", data: { amount: "2150000" } }, "claimed 2.15 USDC for UCRT");`;
    const { stdout } = await run(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: ROOT,
      env: { ...process.env, ...NO_FILE, ...env },
    });
    return stdout.trim();
  };

  it("piped: one JSON object per line, with the structured fields", async () => {
    const line = JSON.parse(await logOnce({}));
    expect(line).toMatchObject({ level: 30, name: "engine", msg: "claimed 2.15 USDC for UCRT", worker: "fee-claimer", data: { amount: "2150000" } });
  });

  it("LOG_FORMAT=pretty: a line a person reads, fields kept", async () => {
    const line = await logOnce({ LOG_FORMAT: "pretty" });
    expect(line).toMatch(
      /^\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\] INFO \(engine\): claimed 2\.15 USDC for UCRT \{"worker":"fee-claimer","data":\{"amount":"2150000"\}\}$/,
    );
  });
});

describe("relayed lines (npm start's children)", () => {
  const relayed = (source: string, format: "pretty" | "json", lines: string[]) => {
    const out: string[] = [];
    const relay = lineRelay(source, format, (l) => out.push(l));
    for (const l of lines) relay(l);
    return out;
  };
  const ponderLine = JSON.stringify({ level: 30, time: Date.UTC(2026, 0, 2, 3, 4, 5, 678), msg: "Started indexing" });
  const apiLine = JSON.stringify({ level: 40, time: "2026-01-02T03:04:06.000Z", service: "api", name: "api", msg: "rate limit pool error" });
  const warning = "(node:123) DeprecationWarning: something old";

  it("JSON: ponder's epoch milliseconds become ISO, each line names its process", () => {
    const [p, a, w] = relayed("ponder", "json", [ponderLine, apiLine, warning]).map((l) => JSON.parse(l));
    expect(p).toEqual({ level: 30, time: "2026-01-02T03:04:05.678Z", msg: "Started indexing", service: "ponder", name: "ponder" });
    expect(a).toMatchObject({ level: 40, time: "2026-01-02T03:04:06.000Z", service: "api", name: "api" });
    expect(w).toMatchObject({ level: 40, service: "ponder", name: "ponder", msg: warning });
    expect(new Date(w.time).toISOString()).toBe(w.time);
  });

  it("pretty: the same ISO time and name as this process's own lines", () => {
    const [p, a] = relayed("ponder", "pretty", [ponderLine, apiLine]);
    expect(p).toBe("[2026-01-02T03:04:05.678Z] INFO (ponder): Started indexing");
    expect(a).toBe("[2026-01-02T03:04:06.000Z] WARN (api): rate limit pool error");
  });

  it("ponder's known pg deprecation notice becomes one info line that says what it is", () => {
    const out = relayed("ponder", "json", [
      "(node:1) DeprecationWarning: Calling client.query() when the client is already executing a query is deprecated and will be removed in pg@9.0. Use async/await or an external async flow control mechanism instead.",
      "(Use `node --trace-deprecation ...` to show where the warning was created)",
    ]).map((l) => JSON.parse(l));
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ level: 30, service: "ponder" });
    expect(out[0].msg).toMatch(/ponder 0\.16\.10 queues several on its own transactions' connections/);
  });

  it("an API replica names its own lines", () => {
    const [a] = relayed("api-2", "json", [apiLine]).map((l) => JSON.parse(l));
    expect(a).toMatchObject({ service: "api", name: "api-2" });
  });
});

describe("transaction lines name their owner", () => {
  it("the API's launches and agents are its own; claims, conversions and buybacks are the engine's", async () => {
    expect(intentOwnerOf("api:launch:abc")).toBe("api");
    expect(intentOwnerOf("agent:8260dd39:deploy:1")).toBe("api");
    expect(intentOwnerOf("claim-cycle:2:claim:usdc")).toBe("engine");
    expect(intentOwnerOf("weth-conversion:1:swap")).toBe("engine");
    expect(intentOwnerOf("protocol-token:0x01")).toBe("engine-cli");
    const lines: string[] = [];
    const { Writable } = await import("node:stream");
    const pino = (await import("pino")).default;
    const log = pino(
      { base: { service: "api" }, mixin: intentOwnerMixin(intentOwnerOf) as never },
      new Writable({
        write: (chunk, _e, cb) => {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    log.child({ component: "tx-pipeline" }).info({ intent: "claim-cycle:2:claim:usdc" }, "claim-fees transaction mined");
    log.info({ intent: "api:launch:x" }, "launch transaction mined");
    log.info("no transaction");
    expect(lines.map((l) => JSON.parse(l).intentOwner)).toEqual(["engine", "api", undefined]);
  });
});
