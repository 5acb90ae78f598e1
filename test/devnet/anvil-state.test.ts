/**
 * The devnet's chain state survives stops, and a state file that cannot be loaded is refused
 * with one clear line. Real anvil throughout, on a state large enough (about 140 MB of JSON,
 * a million storage slots) that anvil needs seconds to dump it.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { type AnvilHandle, anvilBinary, startAnvil, waitForRpc } from "../../devnet/anvil.js";
import { freePort } from "../helpers/ports.js";
import { UnloadableStateError, checkStateFile, inconsistentState } from "../../devnet/state.js";

const SLOTS = 1_000_000;
const PER_TX = 80_000;
const GAS_LIMIT = 2_000_000_000;
const FROM = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const OTHER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
/** Storage slot i of the filler holds i at key i * P (mod 2^256), spreading keys over the whole range. */
const P = 0x9e3779b97f4a7c15f39cc0605cedc8341082276bf3a27251f86c6a11d0c18e95n;
const slotKey = (i: bigint) => `0x${((i * P) % 2n ** 256n).toString(16)}`;

/** Runtime code: `fill(start, n)` from calldata words 0 and 1; writes key i*P := i for i in [start, start+n). */
function fillerInitCode(): string {
  const runtime = [
    "600035", // PUSH1 0 CALLDATALOAD          [i]
    "80602035", // DUP1 PUSH1 32 CALLDATALOAD  [n, i, i]
    "01", // ADD                                [end, i]
    "5b", // pc 8: loop
    "8082", // DUP1 DUP3                        [i, end, end, i]
    "1015", // LT ISZERO                        [i >= end, end, i]
    "61003f57", // PUSH2 exit JUMPI             [end, i]
    "8180", // DUP2 DUP1                        [i, i, end, i]
    `7f${P.toString(16).padStart(64, "0")}`, // PUSH32 P
    "0255", // MUL SSTORE                       [end, i]
    "9060010190", // SWAP1 PUSH1 1 ADD SWAP1    [end, i + 1]
    "61000856", // PUSH2 loop JUMP
    "5b00", // pc 63: exit: STOP
  ].join("");
  const length = runtime.length / 2;
  // PUSH2 len DUP1 PUSH1 12 PUSH1 0 CODECOPY PUSH1 0 RETURN, then the runtime.
  return `0x61${length.toString(16).padStart(4, "0")}80600c6000396000f3${runtime}`;
}

async function rpc<T = string>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

async function send(url: string, tx: Record<string, string>): Promise<{ status: string; contractAddress: string | null }> {
  const hash = await rpc(url, "eth_sendTransaction", [{ from: FROM, ...tx }]);
  for (;;) {
    const receipt = await rpc<{ status: string; contractAddress: string | null } | null>(url, "eth_getTransactionReceipt", [hash]);
    if (receipt) return receipt;
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Chain = { block: string; balance: string; first: string; last: string; marker: string };

async function chain(url: string, filler: string): Promise<Chain> {
  return {
    block: await rpc(url, "eth_blockNumber"),
    balance: await rpc(url, "eth_getBalance", [OTHER, "latest"]),
    first: await rpc(url, "eth_getStorageAt", [filler, slotKey(1n), "latest"]),
    last: await rpc(url, "eth_getStorageAt", [filler, slotKey(BigInt(SLOTS)), "latest"]),
    marker: await rpc(url, "eth_getStorageAt", [filler, "0x1", "latest"]),
  };
}

describe("devnet chain state", () => {
  let dir: string;
  let stateFile: string;
  let filler: string;
  const progress: string[] = [];
  const start = async () =>
    startAnvil({ port: await freePort(), stateFile, gasLimit: GAS_LIMIT, detached: true, saveIntervalSeconds: 0, onProgress: (m) => progress.push(m) });
  let anvil: AnvilHandle | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "launchpad-anvil-state-"));
    stateFile = join(dir, "state.json");
  });
  afterAll(async () => {
    await anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  let beforeStop: Chain;
  it("keeps the whole chain across a stop the way Ctrl-C does it, however large the state", async () => {
    anvil = await start();
    const url = anvil.rpcUrl;
    const deployed = await send(url, { data: fillerInitCode(), gas: "0x100000" });
    filler = deployed.contractAddress!;
    for (let s = 1; s <= SLOTS; s += PER_TX) {
      const n = Math.min(PER_TX, SLOTS - s + 1);
      const data = `0x${BigInt(s).toString(16).padStart(64, "0")}${BigInt(n).toString(16).padStart(64, "0")}`;
      expect((await send(url, { to: filler, data, gas: `0x${(GAS_LIMIT - 1_000_000).toString(16)}` })).status).toBe("0x1");
    }
    // A save while running (the periodic path), then more blocks that only the stop's dump holds.
    await anvil.saveState();
    const saved = statSync(stateFile).size;
    expect(saved).toBeGreaterThan(100e6);
    expect(checkStateFile(stateFile)).toBeUndefined();
    await send(url, { to: OTHER, value: "0x2a" });
    await rpc(url, "anvil_setStorageAt", [filler, "0x1", `0x${"77".repeat(32)}`]);
    await send(url, { to: OTHER, value: "0x1" });
    beforeStop = await chain(url, filler);
    expect(BigInt(beforeStop.first)).toBe(1n);
    expect(BigInt(beforeStop.last)).toBe(BigInt(SLOTS));

    const stopped = performance.now();
    await anvil.stop(); // what scripts/start.ts does on Ctrl-C
    anvil = undefined;
    const stopSeconds = (performance.now() - stopped) / 1000;
    expect(existsSync(`${stateFile}.exit.tmp`)).toBe(false);
    expect(checkStateFile(stateFile)).toBeUndefined();
    expect(progress.some((m) => m.includes("anvil is writing the chain state"))).toBe(true);
    console.log(`state ${(statSync(stateFile).size / 1e6).toFixed(0)} MB, stop (anvil's exit dump) ${stopSeconds.toFixed(1)} s`);

    const loaded = performance.now();
    anvil = await start();
    console.log(`restart on the state: ${((performance.now() - loaded) / 1000).toFixed(1)} s`);
    expect(await chain(anvil.rpcUrl, filler)).toEqual(beforeStop);
    expect(BigInt(beforeStop.marker)).toBe(BigInt(`0x${"77".repeat(32)}`));
  }, 240_000);

  it("keeps the last complete state when anvil is killed in the middle of its dump", async () => {
    const url = anvil!.rpcUrl;
    const before = readFileSync(stateFile);
    await send(url, { to: OTHER, value: "0x5" }); // lost: the dump that holds it never completes
    const exitTmp = `${stateFile}.exit.tmp`;
    anvil!.process.kill("SIGTERM");
    while (!(existsSync(exitTmp) && statSync(exitTmp).size > 0)) await new Promise((r) => setTimeout(r, 5));
    anvil!.process.kill("SIGKILL");
    await anvil!.stop();
    anvil = undefined;
    expect(existsSync(exitTmp)).toBe(false);
    expect(readFileSync(stateFile).equals(before)).toBe(true);
    expect(progress.some((m) => m.includes("exit dump was incomplete"))).toBe(true);

    anvil = await start();
    expect(await chain(anvil.rpcUrl, filler)).toEqual(beforeStop);
    await anvil.stop();
    anvil = undefined;
  }, 120_000);

  it("saves periodically while running, so a crash loses at most one interval", async () => {
    const crashDir = join(dir, "crash");
    mkdirSync(crashDir);
    const file = join(crashDir, "state.json");
    const running = await startAnvil({ port: await freePort(), stateFile: file, saveIntervalSeconds: 1 });
    await send(running.rpcUrl, { to: OTHER, value: "0x7" });
    await send(running.rpcUrl, { to: OTHER, value: "0x7" });
    const block = await rpc(running.rpcUrl, "eth_blockNumber");
    const after = Date.now();
    const deadline = after + 30_000;
    // A save that started after the last block (an earlier one may hold an older head).
    while (!(existsSync(file) && statSync(file).mtimeMs > after + 50) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(checkStateFile(file)).toBeUndefined();
    running.process.kill("SIGKILL"); // a crash: no exit dump at all
    await running.stop();
    const restarted = await startAnvil({ port: await freePort(), stateFile: file });
    try {
      expect(await rpc(restarted.rpcUrl, "eth_blockNumber")).toBe(block);
    } finally {
      await restarted.stop();
    }
  });

  it("mines a reloaded chain's blocks later than its head, after the clock was moved forward, and keeps interval mining", async () => {
    const clockDir = join(dir, "clock");
    mkdirSync(clockDir);
    const file = join(clockDir, "state.json");
    const timeOf = async (url: string, tag: string) => BigInt((await rpc<{ timestamp: string }>(url, "eth_getBlockByNumber", [tag, false])).timestamp);
    const first = await startAnvil({ port: await freePort(), stateFile: file, blockTime: 1, saveIntervalSeconds: 0 });
    // The devnet skips a launch's sniper auction so: the clock runs ahead of the wall clock.
    await rpc(first.rpcUrl, "evm_increaseTime", [600]);
    await send(first.rpcUrl, { to: OTHER, value: "0x7" });
    await first.stop();
    const headTime = await (async () => {
      const again = await startAnvil({ port: await freePort(), stateFile: file, blockTime: 1, saveIntervalSeconds: 0, onProgress: (m) => progress.push(m) });
      try {
        const head = BigInt(await rpc(again.rpcUrl, "eth_blockNumber"));
        const time = await timeOf(again.rpcUrl, `0x${head.toString(16)}`);
        expect(time).toBeGreaterThan(BigInt(Math.floor(Date.now() / 1000)) + 500n);
        // Interval mining resumes, and every new block is later than the head before the reload.
        const deadline = Date.now() + 15_000;
        while (BigInt(await rpc(again.rpcUrl, "eth_blockNumber")) < head + 2n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
        expect(BigInt(await rpc(again.rpcUrl, "eth_blockNumber"))).toBeGreaterThanOrEqual(head + 2n);
        expect(await timeOf(again.rpcUrl, `0x${(head + 1n).toString(16)}`)).toBeGreaterThan(time);
        return time;
      } finally {
        await again.stop();
      }
    })();
    expect(headTime).toBeGreaterThan(0n);
    expect(progress.some((m) => /the clock moved \d+ s forward/.test(m))).toBe(true);
  });

  it("refuses a leftover exit dump torn by the miner (a nonce without its transaction) and keeps the last saved state", async () => {
    const tornDir = join(dir, "torn");
    mkdirSync(tornDir);
    const file = join(tornDir, "state.json");
    const first = await startAnvil({ port: await freePort(), stateFile: file, blockTime: 1, saveIntervalSeconds: 0 });
    await send(first.rpcUrl, { to: OTHER, value: "0x7" });
    const nonce = await rpc(first.rpcUrl, "eth_getTransactionCount", [FROM, "latest"]);
    await first.stop();
    expect(inconsistentState(file)).toBeUndefined();
    // What a dump written while a block was mined looks like: the sender's nonce one past its transactions.
    const state = JSON.parse(readFileSync(file, "utf8")) as { accounts: Record<string, { nonce: number }> };
    const key = Object.keys(state.accounts).find((a) => a.toLowerCase() === FROM.toLowerCase())!;
    state.accounts[key]!.nonce += 1;
    writeFileSync(`${file}.exit.tmp`, JSON.stringify(state));
    expect(inconsistentState(`${file}.exit.tmp`)).toMatch(/has nonce \d+ but \d+ transactions/);
    const seen: string[] = [];
    const again = await startAnvil({ port: await freePort(), stateFile: file, blockTime: 1, saveIntervalSeconds: 0, onProgress: (m) => seen.push(m) });
    try {
      expect(await rpc(again.rpcUrl, "eth_getTransactionCount", [FROM, "latest"])).toBe(nonce);
      expect(seen.some((m) => /not one moment of the chain/.test(m))).toBe(true);
      expect(existsSync(`${file}.exit.tmp`)).toBe(false);
    } finally {
      await again.stop();
    }
  });

  it("recovers a complete exit dump that a dying parent never renamed into place", async () => {
    const file = join(dir, "crash", "state.json");
    const tmp = `${file}.exit.tmp`;
    const block = BigInt(
      await (async () => {
        // anvil as our handle starts it, but its parent gone before the rename.
        const port = await freePort();
        const child = spawn(anvilBinary(), ["--port", String(port), "--load-state", file, "--dump-state", tmp], { stdio: "ignore" });
        const url = `http://127.0.0.1:${port}`;
        await waitForRpc(url);
        await send(url, { to: OTHER, value: "0x9" });
        const head = await rpc(url, "eth_blockNumber");
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
        return head;
      })(),
    );
    expect(existsSync(tmp)).toBe(true);
    const messages: string[] = [];
    const restarted = await startAnvil({ port: await freePort(), stateFile: file, onProgress: (m) => messages.push(m) });
    try {
      expect(BigInt(await rpc(restarted.rpcUrl, "eth_blockNumber"))).toBe(block);
      expect(messages.some((m) => m.includes("recovered the complete dump"))).toBe(true);
      expect(existsSync(tmp)).toBe(false);
    } finally {
      await restarted.stop();
    }
  });

  it("refuses a truncated state file with one clear line and leaves it as it was", async () => {
    const truncated = join(dir, "truncated", "state.json");
    rmSync(join(dir, "truncated"), { recursive: true, force: true });
    mkdirSync(join(dir, "truncated"));
    copyFileSync(stateFile, truncated);
    const cut = Math.floor(statSync(truncated).size * 0.6);
    truncateSync(truncated, cut);
    const port = await freePort();
    const error = await startAnvil({ port, stateFile: truncated }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(UnloadableStateError);
    expect(error!.message).not.toContain("\n");
    expect(error!.message).toBe(
      `devnet state ${truncated} cannot be loaded (truncated JSON at byte ${cut}): move it away to start a fresh devnet, or restore a backup`,
    );
    expect(statSync(truncated).size).toBe(cut);
    // Nothing was started in its place: no fresh chain answers on the port.
    await expect(fetch(`http://127.0.0.1:${port}`, { method: "POST", body: "{}" })).rejects.toThrow();
  });

  it("maps anvil's own refusal of a complete but invalid state file to the same line", async () => {
    const invalid = join(dir, "invalid.json");
    writeFileSync(invalid, '{"block": 5}\n');
    const error = await startAnvil({ port: await freePort(), stateFile: invalid }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(UnloadableStateError);
    expect(error!.message).toMatch(
      /^devnet state .*invalid\.json cannot be loaded \(anvil: .*BlockEnv.*\): move it away to start a fresh devnet, or restore a backup$/,
    );
    expect(readFileSync(invalid, "utf8")).toBe('{"block": 5}\n');
  });
});
