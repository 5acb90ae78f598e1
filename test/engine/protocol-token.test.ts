/**
 * `npm run engine -- launch-protocol-token` on a private devnet, as an operator runs it
 * against any RPC: a dry run simulates and prints without sending; without a terminal it asks
 * for --yes; with --yes it launches through the configured launcher — a USDC pool at about
 * 10,000 USDC of market cap, 100% of LP fees to the operator, not enrolled — and a repeat
 * finds the first launch instead of sending again.
 */
import { type Abi, type Address, getAddress, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { registryAbi } from "../../common/abis/registry.js";
import { type PrivateDevnet, startPrivateDevnet } from "./devnet.js";
import { runTs } from "./helpers.js";

let d: PrivateDevnet;
let operator: Address;
const args = ["launch-protocol-token", "--name", "LaunchpadProtocolTwo", "--symbol", "LAUNCH2"];
const cli = (extra: string[]) => runTs("engine/cli.ts", { ...d.env(), LOG_FORMAT: "json", ARGS: [...args, ...extra].join(" ") }, { timeoutMs: 120_000 });
const nonce = () => d.as(1).publicClient.getTransactionCount({ address: operator });

beforeAll(async () => {
  d = await startPrivateDevnet();
  operator = d.config().operator!;
}, 240_000);
afterAll(async () => {
  await d?.stop();
});

describe("launch-protocol-token", () => {
  it("--dry-run simulates and prints the plan, sending nothing", async () => {
    const before = await nonce();
    const run = await cli(["--dry-run"]);
    expect(run.code, run.stderr).toBe(0);
    const { plan } = JSON.parse(run.stdout);
    expect(plan).toMatchObject({ operator, pairedToken: d.c.usdc, startingMarketCapUsdc: "10000", lpFeesToOperator: "100%", enrolled: false });
    expect(plan.token).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await nonce()).toBe(before);
  });

  it("--dry-run says a protocol token already exists, and that launching would only add a second one the service ignores", async () => {
    const configured = d.protocolToken;
    const symbol = await d.as(1).read<string>(configured, parseAbi(["function symbol() view returns (string)"]) as Abi, "symbol", []);
    const before = await nonce();
    const run = await cli(["--dry-run"]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.existing).toEqual({ token: configured, deployed: true, symbol });
    expect(out.dryRun.wouldSend).toBe(false);
    expect(out.dryRun.message).toContain(`a protocol token already exists: ${symbol} at ${configured}`);
    expect(out.dryRun.message).toContain(`a second token, LAUNCH2 at ${out.plan.token}`);
    expect(out.dryRun.message).toContain(`PROTOCOL_TOKEN_ADDRESS=${out.plan.token}`);
    expect(run.stderr).toContain("dry run: a protocol token already exists");
    expect(await nonce()).toBe(before);
  });

  it("--dry-run with a configured address that has no code: says it would launch, and what to configure", async () => {
    const nowhere = getAddress(`0x${"ab".repeat(20)}`);
    const run = await runTs(
      "engine/cli.ts",
      { ...d.env(), PROTOCOL_TOKEN_ADDRESS: nowhere, LOG_FORMAT: "json", ARGS: [...args, "--dry-run"].join(" ") },
      { timeoutMs: 120_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.existing).toEqual({ token: nowhere, deployed: false, symbol: null });
    expect(out.dryRun).toEqual({
      wouldSend: true,
      message: `PROTOCOL_TOKEN_ADDRESS=${nowhere} has no code on this chain: without --dry-run this would launch LAUNCH2 at ${out.plan.token} from ${operator}; then set PROTOCOL_TOKEN_ADDRESS=${out.plan.token}`,
    });
  });

  it("asks for --yes when there is no terminal to confirm at", async () => {
    const run = await cli([]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/add --yes/);
  });

  it("refuses bad arguments with a clear line", async () => {
    const bad = await runTs("engine/cli.ts", { ...d.env(), ARGS: "launch-protocol-token --symbol X" });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--name and --symbol are required/);
    const cap = await cli(["--market-cap-usdc", "lots"]);
    expect(cap.code).toBe(2);
    expect(cap.stderr).toMatch(/--market-cap-usdc: expected a decimal amount/);
  });

  it("--yes launches the token through the launcher: USDC pool, all fees to the operator, not enrolled; a repeat sends nothing", async () => {
    const run = await cli(["--yes"]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout.slice(run.stdout.indexOf("{", run.stdout.indexOf("launched") - 5)));
    const token = getAddress(out.launched.token);
    expect(out.configure).toBe(`PROTOCOL_TOKEN_ADDRESS=${token}`);
    expect(await d.as(1).publicClient.getCode({ address: token })).toMatch(/^0x.+/);
    const rewards = await d
      .as(1)
      .read<{ poolKey: { currency0: Address; currency1: Address }; rewardRecipients: Address[]; rewardBps: number[] }>(
        d.c.lpLocker!,
        clankerLpLockerAbi as Abi,
        "tokenRewards",
        [token],
      );
    expect([getAddress(rewards.poolKey.currency0), getAddress(rewards.poolKey.currency1)]).toContain(d.c.usdc);
    expect(rewards.rewardRecipients.map((r) => getAddress(r))).toEqual([operator]);
    expect(rewards.rewardBps).toEqual([10_000]);
    expect(await d.as(1).read<boolean>(d.c.registry!, registryAbi as Abi, "isEnrolled", [token])).toBe(false);

    const before = await nonce();
    const again = await cli(["--yes"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(token);
    expect(await nonce()).toBe(before);
  });
});
