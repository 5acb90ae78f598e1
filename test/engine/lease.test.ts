/**
 * The leadership lease on real PostgreSQL, statement by statement: who may take it, and when
 * the epoch rises. (test/engine/failover.test.ts runs whole engines against it.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { readLease, releaseLease, renewLease, tryAcquireLease } from "../../core/leadership.js";
import { createDatabase } from "../helpers/env.js";

let url: string;
let e: EngineDb;

beforeAll(async () => {
  url = await createDatabase("lease");
  e = openEngineDb(url);
  await migrate(e.pool);
});
afterAll(async () => {
  await e?.close();
});

/** A session of its own, as an engine's lease session is. */
async function session(): Promise<{ db: EngineDb; close: () => Promise<void> }> {
  const db = openEngineDb(url);
  // One connection: the backend pid the lease records stays the one that lives.
  const client = await db.pool.connect();
  client.release();
  return { db, close: () => db.close() };
}

describe("leadership lease", () => {
  it("a live term blocks a standby; expiry or the holder's closed session lets it take over with the next epoch", async () => {
    const a = await session();
    const b = await session();
    const first = await tryAcquireLease(a.db.db, "host:1:a", 60_000);
    expect(first?.holder).toBe("host:1:a");
    const epoch = first!.epoch;
    // Another holder while the term runs and its session lives: nothing.
    expect(await tryAcquireLease(b.db.db, "host:2:b", 60_000)).toBeUndefined();
    expect(await renewLease(a.db.db, "host:1:a", epoch, 60_000)).toBe(true);
    // The holder's session closes (a process that died): the standby takes over, next epoch.
    await a.close();
    await waitUntil(
      async () => (await e.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1", [(await readLease(e.db))!.sessionPid])).rows[0].n === 0,
    );
    const second = await tryAcquireLease(b.db.db, "host:2:b", 60_000);
    expect(second).toMatchObject({ holder: "host:2:b", epoch: epoch + 1n });
    // The old holder's renewal finds another term.
    const a2 = await session();
    expect(await renewLease(a2.db.db, "host:1:a", epoch, 60_000)).toBe(false);
    // Released: the next holder takes it at once.
    await releaseLease(b.db.db, "host:2:b", second!.epoch);
    expect(await tryAcquireLease(a2.db.db, "host:3:c", 60_000)).toMatchObject({ holder: "host:3:c", epoch: epoch + 2n });
    await a2.close();
    await b.close();
  });

  it("a standby that takes the lease again after an answer it never got keeps the epoch: no takeover is counted twice", async () => {
    const s = await session();
    const before = await readLease(e.db);
    const holder = "host:4:d";
    // Make the current term end, so this standby may take it.
    await e.pool.query("UPDATE engine.leadership SET expires_at = clock_timestamp()");
    const taken = await tryAcquireLease(s.db.db, holder, 60_000);
    expect(taken).toMatchObject({ holder, epoch: before!.epoch + 1n });
    // Its session is replaced (the first statement "timed out" on the client side), and it tries again.
    await s.close();
    const again = await session();
    const retaken = await tryAcquireLease(again.db.db, holder, 60_000);
    expect(retaken).toMatchObject({ holder, epoch: taken!.epoch });
    expect(retaken!.sessionPid).not.toBe(taken!.sessionPid);
    // Another standby still waits for this term.
    const other = await session();
    expect(await tryAcquireLease(other.db.db, "host:5:e", 60_000)).toBeUndefined();
    await other.close();
    await again.close();
  });
});

async function waitUntil(fn: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}
