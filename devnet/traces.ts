/**
 * anvil's call traces, dropped from its saved JSON state: the bench's histories are stored
 * without them, and the `npm start` devnet saves and loads its chain without them, so a
 * restarted anvil holds a fraction of the memory the running one did (devnet/memory-bound.ts).
 */
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { promoteSync } from "./state.js";

const TRACES_KEY = Buffer.from('"traces":[');
const TRACES_CLOSE = Buffer.from("]");

/**
 * Removes every mined transaction's call traces from anvil's JSON state as it streams by
 * (`"traces":[…]` becomes `"traces":[]`), counting the bytes removed in `removed`.
 *
 * anvil records the call tree of every transaction it mines (no flag turns that off) and
 * dumps it with the chain: ~85% of a history's state, and of the memory anvil needs to load
 * it. Nothing the benchmarks or the stack ask of a past transaction depends on it: logs,
 * blocks and receipts come from the other fields, and anvil loads a state whose traces are
 * empty (checked on the 100k history: the same `eth_getLogs`, blocks and receipts, byte for
 * byte, from a 313 MB state instead of 1.39 GB, in 0.8 GB of memory instead of 3 GB). Only `debug_trace*`/`trace_*` of the
 * history's own transactions answer empty. anvil's dump is compact JSON, where `"traces":[`
 * can only be that key (a string cannot hold an unescaped quote); the skipped value is walked
 * bracket by bracket, strings included.
 */
export async function* stripTraces(chunks: AsyncIterable<Buffer>, removed: { bytes: number } = { bytes: 0 }): AsyncGenerator<Buffer> {
  let carry: Buffer | undefined;
  let skipping = false;
  let depth = 0;
  let inString = false;
  let escaped = false;
  for await (const chunk of chunks) {
    const buf = carry ? Buffer.concat([carry, chunk]) : chunk;
    carry = undefined;
    let i = 0;
    while (i < buf.length) {
      if (skipping) {
        const start = i;
        const n = buf.length;
        for (; i < n; i++) {
          const b = buf[i]!;
          if (inString) {
            if (escaped) escaped = false;
            else if (b === 0x5c) escaped = true;
            else if (b === 0x22) inString = false;
          } else if (b === 0x22) inString = true;
          else if (b === 0x5b || b === 0x7b) depth++;
          else if ((b === 0x5d || b === 0x7d) && --depth === 0) break;
        }
        removed.bytes += i - start;
        if (i < n) {
          skipping = false;
          yield TRACES_CLOSE;
          i++;
        }
        continue;
      }
      const at = buf.indexOf(TRACES_KEY, i);
      if (at < 0) {
        // Keep a tail that could be the start of the key, to match it across chunks.
        const keep = Math.max(i, buf.length - (TRACES_KEY.length - 1));
        if (keep > i) yield buf.subarray(i, keep);
        carry = buf.subarray(keep);
        break;
      }
      yield buf.subarray(i, at + TRACES_KEY.length);
      i = at + TRACES_KEY.length;
      skipping = true;
      depth = 1;
      inString = false;
      escaped = false;
    }
  }
  if (skipping) throw new Error("the state ends inside a transaction's traces (truncated)");
  if (carry?.length) yield carry;
}

/**
 * Rewrites the JSON state `file` without call traces (atomically: a temporary file, fsync,
 * rename), when it holds any; returns the bytes removed (0: the file is left as it was).
 */
export async function stripTracesFromFile(file: string): Promise<number> {
  if (!existsSync(file)) return 0;
  const tmp = `${file}.strip.tmp`;
  const removed = { bytes: 0 };
  try {
    await pipeline(createReadStream(file, { highWaterMark: 4 << 20 }), (chunks: AsyncIterable<Buffer>) => stripTraces(chunks, removed), createWriteStream(tmp));
    if (removed.bytes === 0) {
      await rm(tmp, { force: true });
      return 0;
    }
    promoteSync(tmp, file);
    return removed.bytes;
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
