/**
 * The bench's history cache and the `npm start` devnet's saved state drop anvil's call traces
 * from its JSON state as it streams by:
 * every `"traces":[…]` becomes `"traces":[]`, whatever the chunk boundaries and whatever the
 * strings inside hold, and everything else is kept byte for byte.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stripTraces } from "../../devnet/traces.js";

async function strip(text: string, chunkSizes: number[]): Promise<{ out: string; removed: number }> {
  const bytes = Buffer.from(text);
  const chunks: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = Math.max(1, chunkSizes[i % chunkSizes.length] ?? bytes.length);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  async function* source() {
    yield* chunks;
  }
  const removed = { bytes: 0 };
  const out: Buffer[] = [];
  for await (const piece of stripTraces(source(), removed)) out.push(piece);
  return { out: Buffer.concat(out).toString(), removed: removed.bytes };
}

/** An anvil-like state: transactions whose traces hold nested calls and awkward strings. */
const leaf = fc.record({ to: fc.string(), output: fc.string(), calls: fc.constant([] as unknown[]) });
const trace = fc.record({
  to: fc.string(),
  input: fc.string(),
  calls: fc.array(fc.record({ to: fc.string(), calls: fc.array(leaf, { maxLength: 2 }) }), { maxLength: 2 }),
});
const state = fc.array(fc.record({ hash: fc.string(), info: fc.record({ traces: fc.array(trace, { maxLength: 3 }), logs: fc.array(fc.string()) }) }), {
  maxLength: 4,
});

describe("history cache: stripping anvil's traces", () => {
  it("empties every traces array and keeps the rest, across any chunking (property)", async () => {
    await fc.assert(
      fc.asyncProperty(state, fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }), async (transactions, sizes) => {
        const text = JSON.stringify({ block: { number: "0x1" }, transactions });
        const expected = JSON.stringify({ block: { number: "0x1" }, transactions: transactions.map((t) => ({ ...t, info: { ...t.info, traces: [] } })) });
        const { out, removed } = await strip(text, sizes);
        expect(out).toBe(expected);
        expect(removed).toBe(Buffer.byteLength(text) - Buffer.byteLength(expected));
        expect(JSON.parse(out)).toEqual(JSON.parse(expected));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a state cut off inside a transaction's traces", async () => {
    await expect(strip('{"transactions":[{"info":{"traces":[{"to":"x","calls":[', [7])).rejects.toThrow(/truncated/);
  });
});
