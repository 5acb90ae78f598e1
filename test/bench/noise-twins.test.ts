/**
 * The foreign-noise benchmark's guarantee (bench/foreign.ts): a history generated with strangers'
 * activity beside ours (`--foreign 10`) holds exactly the chain events of ours that its clean
 * twin (`--foreign 0`) holds, same blocks, times, transactions and log positions, with the
 * strangers' events outnumbering ours at least 10 to 1, some of them in the blocks of ours.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type Hex, createPublicClient, http } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { FOREIGN_ACCOUNTS } from "../../bench/foreign.js";
import { HISTORY_DIR, type History, ensureHistory, historyName } from "../../bench/history.js";
import { serveHistory } from "../../bench/lib.js";
import { devnetAccount } from "../../devnet/protocol.js";
import { freePort } from "../helpers/ports.js";

const EVENTS = 40;
const RATIO = 10;
const SEED = 800_000 + (process.pid % 10_000); // caches of this run's own
const strangers = new Set(FOREIGN_ACCOUNTS.map((i) => devnetAccount(i).address.toLowerCase()));

type ChainLogs = { ours: string[]; foreign: number; sharedBlocks: number; timestamps: bigint[] };

/** Every log of the served history by block, split into ours (as comparable strings) and the strangers' (counted). */
async function chainLogs(history: History): Promise<ChainLogs> {
  const anvil = await serveHistory(history);
  try {
    const client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const out: ChainLogs = { ours: [], foreign: 0, sharedBlocks: 0, timestamps: [] };
    for (let n = 0n; n <= BigInt(history.head); n++) {
      const block = await client.getBlock({ blockNumber: n, includeTransactions: true });
      out.timestamps.push(block.timestamp);
      const foreignTxs = new Set<Hex>(block.transactions.filter((t) => strangers.has(t.from.toLowerCase())).map((t) => t.hash));
      const logs = await client.getLogs({ fromBlock: n, toBlock: n });
      let ours = 0;
      for (const l of logs) {
        if (foreignTxs.has(l.transactionHash!)) out.foreign++;
        else {
          ours++;
          out.ours.push(
            JSON.stringify([l.blockNumber, l.transactionIndex, l.logIndex, l.transactionHash, l.address, l.topics, l.data], (_, v) =>
              typeof v === "bigint" ? v.toString() : v,
            ),
          );
        }
      }
      if (ours > 0 && foreignTxs.size > 0) out.sharedBlocks++;
    }
    return out;
  } finally {
    await anvil.stop();
  }
}

describe("foreign-noise history twins", () => {
  afterAll(() => {
    for (const foreign of [0, RATIO]) rmSync(join(HISTORY_DIR, historyName(EVENTS, SEED, undefined, foreign)), { recursive: true, force: true });
  });

  it("hold the same events of ours with and without the strangers' beside them", async () => {
    const clean = await ensureHistory(EVENTS, SEED, await freePort(), () => {}, { foreign: 0 });
    const noisy = await ensureHistory(EVENTS, SEED, await freePort(), () => {}, { foreign: RATIO });
    expect(noisy.head).toBe(clean.head);
    expect(noisy.eventsBySource).toEqual(clean.eventsBySource);
    expect(noisy.tokenTransfers).toBe(clean.tokenTransfers);
    expect(clean.foreign?.events).toBe(0);
    expect(noisy.foreign!.events).toBeGreaterThanOrEqual(RATIO * noisy.indexedEvents);
    expect(noisy.foreign!.bySource.poolManager).toBeGreaterThan(0);
    expect(noisy.foreign!.launches).toBeGreaterThan(0);

    const a = await chainLogs(clean);
    const b = await chainLogs(noisy);
    expect(a.ours.length).toBeGreaterThanOrEqual(clean.indexedEvents);
    expect(a.foreign).toBe(0);
    expect(b.ours).toEqual(a.ours);
    expect(b.timestamps).toEqual(a.timestamps.map((t, i) => (i === 0 ? b.timestamps[0] : t))); // block 0: anvil's start time
    expect(b.foreign).toBeGreaterThan(RATIO * noisy.indexedEvents);
    expect(b.sharedBlocks).toBeGreaterThan(0);
  }, 300_000);
});
