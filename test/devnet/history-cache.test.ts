/**
 * The benchmark's cached histories: gzipped anvil state with its size and sha256 in meta.json
 * (written last); a damaged or unfinished cache is regenerated with a line saying why, and a
 * cache is served by a real anvil at the head it recorded.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { HISTORY_DIR, type History, ensureHistory, historyName, loadHistory } from "../../bench/history.js";
import { serveHistory } from "../../bench/lib.js";
import { freePort } from "../helpers/ports.js";

const EVENTS = 100;
const SEED = 900_000 + (process.pid % 10_000); // a cache of this run's own
const dir = join(HISTORY_DIR, historyName(EVENTS, SEED));

async function servedHead(history: History): Promise<number> {
  const anvil = await serveHistory(history);
  try {
    const res = await fetch(anvil.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
    });
    return Number(((await res.json()) as { result: string }).result);
  } finally {
    await anvil.stop();
  }
}

describe("benchmark history cache", () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("stores gzipped state with a checksum, and serves it at the recorded head", async () => {
    const history = await ensureHistory(EVENTS, SEED, await freePort());
    expect(history.stateFile).toBe(join(dir, "state.json.gz"));
    expect(statSync(history.stateFile).size).toBe(history.stateBytes);
    expect(history.stateSha256).toMatch(/^[0-9a-f]{64}$/);
    const state = JSON.parse(gunzipSync(readFileSync(history.stateFile)).toString()) as { block: { number: string } };
    expect(Number(state.block.number)).toBe(history.head);
    expect((await loadHistory(EVENTS, SEED)).history?.head).toBe(history.head);
    expect(await servedHead(history)).toBe(history.head);
  });

  it("names what is wrong with a damaged cache", async () => {
    const gz = join(dir, "state.json.gz");
    const good = readFileSync(gz);
    const flipped = Buffer.from(good);
    flipped[flipped.length >> 1]! ^= 0xff;
    writeFileSync(gz, flipped);
    expect((await loadHistory(EVENTS, SEED)).problem).toBe("state.json.gz does not match its sha256 in meta.json");
    writeFileSync(gz, good);
    expect((await loadHistory(EVENTS, SEED)).problem).toBeUndefined();

    // A cache from before checksums (plain JSON state, no sha256) is used only while complete.
    const legacyName = historyName(EVENTS, SEED + 1);
    const legacyDir = join(HISTORY_DIR, legacyName);
    try {
      rmSync(legacyDir, { recursive: true, force: true });
      mkdirSync(legacyDir, { recursive: true });
      const meta = JSON.parse(readFileSync(join(dir, "meta.json"), "utf8")) as Record<string, unknown>;
      delete meta.stateSha256;
      delete meta.stateBytes;
      writeFileSync(join(legacyDir, "meta.json"), JSON.stringify(meta));
      copyFileSync(join(dir, "deployments.json"), join(legacyDir, "deployments.json"));
      const json = gunzipSync(good);
      writeFileSync(join(legacyDir, "state.json"), json);
      expect((await loadHistory(EVENTS, SEED + 1)).history?.stateFile).toBe(join(legacyDir, "state.json"));
      truncateSync(join(legacyDir, "state.json"), 5000);
      expect((await loadHistory(EVENTS, SEED + 1)).problem).toBe("state.json: truncated JSON at byte 5000");
    } finally {
      rmSync(legacyDir, { recursive: true, force: true });
    }
  });

  it("regenerates a truncated or unfinished cache, saying why", async () => {
    const gz = join(dir, "state.json.gz");
    const size = statSync(gz).size;
    truncateSync(gz, size >> 1);
    const lines: string[] = [];
    const history = await ensureHistory(EVENTS, SEED, await freePort(), (m) => lines.push(m));
    expect(lines[0]).toMatch(
      new RegExp(`^cached ${historyName(EVENTS, SEED)} is unusable \\(state\\.json\\.gz has ${size >> 1} bytes, meta\\.json says \\d+\\): regenerating it$`),
    );
    expect((await loadHistory(EVENTS, SEED)).problem).toBeUndefined();
    expect(await servedHead(history)).toBe(history.head);

    // Generation that never reached meta.json (killed midway) is not mistaken for a cache.
    unlinkSync(join(dir, "meta.json"));
    expect((await loadHistory(EVENTS, SEED)).problem).toBe("its generation never finished (no meta.json)");
    expect(existsSync(gz)).toBe(true);
  });
});
