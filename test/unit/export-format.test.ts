/**
 * The exports' fast paths against the service's reference functions: cached EIP-55 checksums
 * against viem's `getAddress`, for any value; binary COPY output, split anywhere, decoded into
 * its lines. (Decimals built in SQL are held to `formatDecimal` in test/api/seeded/export.ts.)
 */
import fc from "fast-check";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { fastChecksum } from "../../api/read/export.js";
import { LineDecoder } from "../../api/read/export-copy.js";

describe("fastChecksum", () => {
  it("equals viem's getAddress, from lowercase or checksummed input, cached or not", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), (bytes) => {
        const lower = `0x${Buffer.from(bytes).toString("hex")}`;
        const expected = getAddress(lower);
        expect(fastChecksum(lower)).toBe(expected);
        expect(fastChecksum(expected)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});

/** Binary COPY framing: the signature, flags, an empty extension, the tuples and the trailer. */
function binaryCopy(tuples: (Buffer | null)[][]): Buffer {
  const parts: Buffer[] = [Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)];
  for (const fields of tuples) {
    const count = Buffer.alloc(2);
    count.writeInt16BE(fields.length);
    parts.push(count);
    for (const f of fields) {
      const length = Buffer.alloc(4);
      length.writeInt32BE(f === null ? -1 : f.length);
      parts.push(length);
      if (f) parts.push(f);
    }
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

describe("LineDecoder", () => {
  it("writes each tuple's fields as one line, odd 0x-address fields checksummed, however the stream is split", () => {
    const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}`);
    // A few addresses recur (the checksum cache), others are new.
    const pool = fc.sample(address, 5);
    const slot = fc.oneof(fc.constantFrom(...pool), address, fc.constant(null), fc.string({ maxLength: 8 }));
    const text = fc.oneof(fc.string({ maxLength: 40 }), fc.fullUnicodeString({ maxLength: 10 }), fc.constant(""));
    const tuple = fc.tuple(text, slot, text, slot, text);
    fc.assert(
      fc.property(fc.array(tuple, { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }), (tuples, cuts) => {
        const stream = binaryCopy(tuples.map((t) => t.map((f) => (f === null ? null : Buffer.from(f, "utf8")))));
        const expected = tuples
          .map((t) => t.map((f, i) => (f === null ? "" : i % 2 === 1 && /^0x[0-9a-f]{40}$/.test(f) ? getAddress(f) : f)).join(""))
          .join("");
        const decoder = new LineDecoder();
        const out: Buffer[] = [];
        let at = 0;
        for (let i = 0; at < stream.length; i++) {
          const size = cuts[i % cuts.length]!;
          // Each chunk a buffer of its own (the decoder writes over it).
          out.push(Buffer.from(decoder.push(Buffer.from(stream.subarray(at, at + size)))));
          at += size;
        }
        expect(decoder.ended).toBe(true);
        expect(decoder.rows).toBe(tuples.length);
        expect(Buffer.concat(out).toString("utf8")).toBe(expected);
      }),
      { numRuns: 1_000 },
    );
  });
});
