/**
 * An oversized request body: the rest of it is read and dropped (up to a bound) before the 413,
 * so a client still writing reads the answer instead of a broken pipe; past the bound the stream
 * is cancelled.
 */
import { describe, expect, it } from "vitest";
import { BodyError, readLimited } from "../../api/http/validation.js";

/** A body of `chunks` chunks of `size` bytes; counts how many the reader pulled and whether it was cancelled. */
function body(chunks: number, size: number) {
  const seen = { pulled: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled === chunks) return controller.close();
      seen.pulled++;
      controller.enqueue(new Uint8Array(size));
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

describe("readLimited", () => {
  it("reads a body within the limit whole", async () => {
    const { stream } = body(4, 1_000);
    expect((await readLimited(stream, 4_000)).byteLength).toBe(4_000);
  });

  it("past the limit, reads the rest to its end before the 413", async () => {
    const { stream, seen } = body(100, 1_000);
    const error = await readLimited(stream, 16_384).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BodyError);
    expect(error).toMatchObject({ status: 413, message: "body larger than 16384 bytes" });
    expect(seen).toEqual({ pulled: 100, cancelled: false });
  });

  it("a body far past the limit is cut off after a bounded discard", async () => {
    const { stream, seen } = body(10_000, 1_000);
    await expect(readLimited(stream, 16_384)).rejects.toMatchObject({ status: 413 });
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBeLessThan(2_000);
    expect(seen.pulled).toBeGreaterThan(1_000);
  });
});
