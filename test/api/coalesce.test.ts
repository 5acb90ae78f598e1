/** Request coalescing of hot reads: shared among concurrent callers, never stale. */
import { describe, expect, it } from "vitest";
import { Coalescer, lastShaped, sameData } from "../../api/read/coalesce.js";

/** A read whose completion the test controls; records when each read started. */
function controlledReads() {
  const started: number[] = [];
  const finish: ((value: number) => void)[] = [];
  const fail: ((error: Error) => void)[] = [];
  let version = 0;
  const read = (_key: string) =>
    new Promise<number>((resolve, reject) => {
      started.push(++version);
      finish.push(resolve);
      fail.push(reject);
    });
  return { started, finish, fail, read };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("Coalescer", () => {
  it("gives a caller arriving during a read the next read, shared by everyone who arrived meanwhile", async () => {
    const r = controlledReads();
    const c = new Coalescer(r.read);
    const first = c.get("stats");
    const during = [c.get("stats"), c.get("stats"), c.get("stats")];
    expect(r.started).toEqual([1]);
    r.finish[0]!(1);
    expect(await first).toBe(1);
    await tick();
    // The next read started only after the first finished: it sees every write before the callers asked.
    expect(r.started).toEqual([1, 2]);
    r.finish[1]!(2);
    expect(await Promise.all(during)).toEqual([2, 2, 2]);
    expect(c.size).toBe(0);
  });

  it("keeps keys apart and passes a failed read's error to the callers sharing it, then reads again", async () => {
    const r = controlledReads();
    const c = new Coalescer(r.read);
    const a = c.get("a");
    const b = c.get("b");
    expect(r.started).toEqual([1, 2]);
    r.fail[0]!(new Error("database went away"));
    r.finish[1]!(20);
    await expect(a).rejects.toThrow("database went away");
    expect(await b).toBe(20);
    const again = c.get("a");
    expect(r.started).toEqual([1, 2, 3]);
    r.finish[2]!(30);
    expect(await again).toBe(30);
  });

  it("turns many concurrent callers into at most two reads", async () => {
    let reads = 0;
    const c = new Coalescer(async () => {
      reads++;
      await tick();
      return reads;
    });
    const answers = await Promise.all(Array.from({ length: 50 }, () => c.get("k")));
    expect(reads).toBe(2);
    expect(new Set(answers)).toEqual(new Set([1, 2]));
  });
});

describe("lastShaped", () => {
  it("shapes again only when the data differs from the previous read's", () => {
    let shaped = 0;
    const body = lastShaped((s: { n: bigint; rows: { id: string; at: bigint | null }[]; by: Map<string, bigint> }) => `${++shaped}:${s.n}`);
    const read = (n: bigint, at: bigint | null = 1n) => ({ n, rows: [{ id: "a", at }], by: new Map([["x", n]]) });
    expect(body(read(1n))).toBe("1:1");
    expect(body(read(1n))).toBe("1:1");
    expect(body(read(2n))).toBe("2:2");
    expect(body(read(2n, null))).toBe("3:2");
    expect(body(read(2n, null))).toBe("3:2");
  });

  it("compares bigints by value, arrays, Maps and the keys of objects in order", () => {
    expect(sameData({ a: 1n, b: [1, "x", null] }, { a: 1n, b: [1, "x", null] })).toBe(true);
    expect(sameData({ a: 1n, b: 2n }, { b: 2n, a: 1n })).toBe(false);
    expect(sameData([1n], [1n, 2n])).toBe(false);
    expect(sameData(new Map([["k", 1n]]), new Map([["k", 2n]]))).toBe(false);
    expect(sameData({ a: undefined }, {})).toBe(false);
    expect(sameData(new Date(0), new Date(0))).toBe(false);
    expect(sameData(1n, 1)).toBe(false);
  });
});
