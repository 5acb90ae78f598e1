/**
 * The devnet's anvil keeps a bounded state history (docs/operations.md, "The devnet's memory"):
 * started with `--prune-history N`, mined by startAnvil's block timer (anvil's own interval
 * mining would lift the bound), and after hundreds of blocks of traffic it still serves what
 * our code asks of old blocks — logs from the first block (ponder's rebuild, the engine's
 * cursors), old receipts and blocks — while calls at a block older than the bound fail and
 * calls at recent blocks (the engine's replays, ponder's reads at an event's block) answer.
 * What still grows, the call traces, is dropped from the saved state, and past a memory bound
 * `npm start` restarts anvil from it (devnet/memory-bound.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AnvilHandle,
  type AnvilOptions,
  DEFAULT_STATE_HISTORY_BLOCKS,
  startAnvil,
  stateHistoryArgs,
  stateHistoryBlocksFromEnv,
} from "../../devnet/anvil.js";
import { type MemoryBound, boundAnvilMemory, residentBytes } from "../../devnet/memory-bound.js";
import { freePort } from "../helpers/ports.js";

const FROM = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
const HISTORY = 16;
const CALLS = 300;
/**
 * A contract whose every call logs `LOG1(topic: caller)` and stops. Runtime 0x3360006000a100
 * (CALLER PUSH1 0 PUSH1 0 LOG1 STOP); the init code stores it in memory and returns those 7 bytes.
 */
const LOGGER_INIT = "0x663360006000a10060005260076019f3";

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

type Receipt = { status: string; blockNumber: string; contractAddress: string | null; logs: { topics: string[] }[] };

async function receiptOf(url: string, hash: string): Promise<Receipt> {
  for (;;) {
    const receipt = await rpc<Receipt | null>(url, "eth_getTransactionReceipt", [hash]);
    if (receipt) return receipt;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const head = async (url: string) => Number(BigInt(await rpc(url, "eth_blockNumber")));
const hex = (n: number) => `0x${n.toString(16)}`;
/** `eth_getCode` of `address` at `block`: the past-state read ponder's launch finder makes. */
const codeAt = (url: string, address: string, block: number) => rpc(url, "eth_getCode", [address, hex(block)]);

describe("the devnet's anvil memory bound", () => {
  it("npm start bounds the state history by default, DEVNET_STATE_HISTORY_BLOCKS sets it, 0 leaves anvil's default, and a bad value names the variable", () => {
    expect(DEFAULT_STATE_HISTORY_BLOCKS).toBe(64);
    expect(stateHistoryBlocksFromEnv({})).toBe(64);
    expect(stateHistoryBlocksFromEnv({ DEVNET_STATE_HISTORY_BLOCKS: "" })).toBe(64);
    expect(stateHistoryBlocksFromEnv({ DEVNET_STATE_HISTORY_BLOCKS: "1000" })).toBe(1000);
    expect(stateHistoryBlocksFromEnv({ DEVNET_STATE_HISTORY_BLOCKS: "0" })).toBeUndefined();
    for (const bad of ["-1", "abc", "1.5", "100001"]) {
      expect(() => stateHistoryBlocksFromEnv({ DEVNET_STATE_HISTORY_BLOCKS: bad })).toThrow(
        /^DEVNET_STATE_HISTORY_BLOCKS: expected an integer from 0 to 100000/,
      );
    }
    expect(stateHistoryArgs(256)).toEqual(["--prune-history", "256"]);
    expect(stateHistoryArgs(undefined)).toEqual([]);
    expect(() => stateHistoryArgs(0)).toThrow(/positive integer/);
  });

  describe("a bounded devnet after hundreds of blocks of traffic", () => {
    let anvil: AnvilHandle;
    let logger: string;
    let firstCall: Receipt;
    let firstCallHash: string;
    let deployBlock: number;

    beforeAll(async () => {
      anvil = await startAnvil({ port: await freePort(), stateHistoryBlocks: HISTORY, blockTime: 1 });
      const url = anvil.rpcUrl;
      // A block a second from startAnvil's timer, as npm start runs it: a transaction waits for it.
      const deploy = await rpc(url, "eth_sendTransaction", [{ from: FROM, data: LOGGER_INIT }]);
      const deployed = await receiptOf(url, deploy);
      logger = deployed.contractAddress!;
      deployBlock = Number(BigInt(deployed.blockNumber));
      // Then the traffic, one block per call (automine, for speed).
      await anvil.setBlockTime(0);
      for (let i = 0; i < CALLS; i++) {
        const hash = await rpc(url, "eth_sendTransaction", [{ from: FROM, to: logger }]);
        const receipt = await receiptOf(url, hash);
        if (i === 0) {
          firstCall = receipt;
          firstCallHash = hash;
        }
      }
      // And interval mining once more, which must not lift the bound.
      await anvil.setBlockTime(1);
      const at = await head(url);
      while ((await head(url)) < at + 2) await new Promise((r) => setTimeout(r, 200));
    }, 120_000);

    afterAll(async () => {
      await anvil?.stop();
    });

    it("is started with the bound and without anvil's interval miner", () => {
      const args = readFileSync(`/proc/${anvil.process.pid}/cmdline`, "utf8").split("\0");
      expect(args).toContain("--prune-history");
      expect(args[args.indexOf("--prune-history") + 1]).toBe(String(HISTORY));
      expect(args).toContain("--no-mining");
      expect(args).not.toContain("--block-time");
    });

    it("mines a block a second from its timer, and transactions wait for it", async () => {
      const url = anvil.rpcUrl;
      const before = await head(url);
      const hash = await rpc(url, "eth_sendTransaction", [{ from: FROM, to: logger }]);
      expect(await rpc(url, "eth_getTransactionReceipt", [hash])).toBeNull();
      const receipt = await receiptOf(url, hash);
      expect(Number(BigInt(receipt.blockNumber))).toBeGreaterThan(before);
    });

    it("still serves every log from the first block, old receipts and old blocks", async () => {
      const url = anvil.rpcUrl;
      const logs = await rpc<{ blockNumber: string; topics: string[] }[]>(url, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: logger }]);
      expect(logs.length).toBeGreaterThanOrEqual(CALLS);
      expect(Number(BigInt(logs[0]!.blockNumber))).toBe(Number(BigInt(firstCall.blockNumber)));
      expect(logs[0]!.topics[0]!.toLowerCase()).toBe(`0x${FROM.slice(2).toLowerCase().padStart(64, "0")}`);
      // A range of old blocks, as ponder's backfill and the engine's cursors ask.
      const first = Number(BigInt(firstCall.blockNumber));
      const range = await rpc<unknown[]>(url, "eth_getLogs", [{ fromBlock: hex(first), toBlock: hex(first + 9), address: logger }]);
      expect(range).toHaveLength(10);
      const receipt = await rpc<Receipt>(url, "eth_getTransactionReceipt", [firstCallHash]);
      expect(receipt.logs).toHaveLength(1);
      const block = await rpc<{ transactions: string[] }>(url, "eth_getBlockByNumber", [firstCall.blockNumber, false]);
      expect(block.transactions).toEqual([firstCallHash]);
    });

    it("answers calls at recent blocks and refuses them past the bound: the old states are gone", async () => {
      const url = anvil.rpcUrl;
      const now = await head(url);
      expect(now - deployBlock).toBeGreaterThan(CALLS);
      expect(await codeAt(url, logger, now - 2)).toBe("0x3360006000a100");
      expect(await codeAt(url, logger, now - Math.floor(HISTORY / 2))).toBe("0x3360006000a100");
      await expect(codeAt(url, logger, now - 100)).rejects.toThrow(/BlockOutOfRange|block height/i);
      await expect(codeAt(url, logger, deployBlock + 1)).rejects.toThrow(/BlockOutOfRange|block height/i);
    });
  });

  describe("restarted past its memory bound, or after it exited", () => {
    const CALLS_BEFORE = 12;
    let dir: string;
    let bound: MemoryBound | undefined;
    let logger: string;
    let firstCallHash: string;

    const traceOf = (url: string, hash: string) => rpc<unknown[]>(url, "trace_transaction", [hash]);
    const until = async (what: string, done: () => boolean, ms = 30_000) => {
      const deadline = Date.now() + ms;
      while (!done()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), "launchpad-anvil-bound-"));
    });
    afterAll(async () => {
      await bound?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it("restarts from its state without call traces, keeps the chain, its logs and receipts, and does not loop when the chain itself is near the bound", async () => {
      const options: AnvilOptions = { port: await freePort(), stateFile: join(dir, "state.json"), saveIntervalSeconds: 0, stateHistoryBlocks: HISTORY };
      const first = await startAnvil(options);
      const url = first.rpcUrl;
      logger = (await receiptOf(url, await rpc(url, "eth_sendTransaction", [{ from: FROM, data: LOGGER_INIT }]))).contractAddress!;
      for (let i = 0; i < CALLS_BEFORE; i++) {
        const hash = await rpc(url, "eth_sendTransaction", [{ from: FROM, to: logger }]);
        await receiptOf(url, hash);
        if (i === 0) firstCallHash = hash;
      }
      expect(await traceOf(url, firstCallHash)).not.toEqual([]);
      const headBefore = await head(url);
      const lines: string[] = [];
      // A bound below any anvil: restarted once, then left running with one line saying why.
      bound = boundAnvilMemory(first, { limitBytes: 1e6, checkEveryMs: 200, restart: () => startAnvil(options), log: (line) => lines.push(line) });
      await until("the restart", () => bound!.restarts.length === 1);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(bound.restarts).toHaveLength(1);
      expect(lines.some((l) => /above its bound of 1 MB: restarting it/.test(l))).toBe(true);
      expect(lines.some((l) => /the chain itself is near the bound of 1 MB; it is no longer restarted/.test(l))).toBe(true);

      const now = bound.current();
      expect(now.process.pid).not.toBe(first.process.pid);
      expect(now.rpcUrl).toBe(url);
      expect(residentBytes(now.process.pid)).toBeGreaterThan(0);
      expect(await head(url)).toBe(headBefore);
      const logs = await rpc<unknown[]>(url, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: logger }]);
      expect(logs).toHaveLength(CALLS_BEFORE);
      expect((await rpc<Receipt>(url, "eth_getTransactionReceipt", [firstCallHash])).logs).toHaveLength(1);
      // The trace is what was dropped, in memory and on disk.
      expect(await traceOf(url, firstCallHash)).toEqual([]);
      expect(readFileSync(options.stateFile!, "utf8")).not.toMatch(/"traces":\[[^\]]/);
      // And the chain goes on: a new call is mined and traced as before.
      const after = await rpc(url, "eth_sendTransaction", [{ from: FROM, to: logger }]);
      expect(Number(BigInt((await receiptOf(url, after)).blockNumber))).toBe(headBefore + 1);
      expect(await traceOf(url, after)).not.toEqual([]);

      // An anvil that dies is started again from its last saved state, even after the bound gave up.
      await now.saveState();
      const saved = await head(url);
      now.process.kill("SIGKILL");
      await until("the restart after the kill", () => bound!.restarts.length === 2);
      expect(lines.some((l) => /anvil exited: starting it again from its state/.test(l))).toBe(true);
      expect(await head(url)).toBe(saved);
      expect(await rpc<unknown[]>(url, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest", address: logger }])).toHaveLength(CALLS_BEFORE + 1);
    }, 120_000);
  });
});
