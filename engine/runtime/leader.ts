/**
 * The engine's leadership (core/leadership.ts holds the lease and its fence): a standby polls
 * until the lease is free, expired or its holder's session is gone, and takes it with the next
 * epoch; the leader renews it on a heartbeat over a connection of its own (its lease session,
 * never starved by busy workers), and watches its own clock. When the term runs out before a
 * renewal succeeds (the database unreachable, the process frozen), the fence is suspended —
 * the pipeline signs, broadcasts and writes nothing, the scheduler starts no cycle — and the
 * heartbeat keeps trying: a renewal at the same epoch (nobody took over) resumes the term, so
 * a database outage of any length is waited out in the same process. When a renewal finds
 * another holder, the fence closes for good and `lost` resolves with the reason: the process
 * stands down.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { sleep } from "../../common/async.js";
import type { Logger } from "../../common/logger.js";
import { type Db, survivePoolErrors, tables } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { LeaseFence, type LeaseRow, holderId, readLease, releaseLease, renewLease, tryAcquireLease } from "../../core/leadership.js";

export type LeaderOptions = {
  /** Lease term (ms): a leader that stops renewing is replaced this long after its last renewal. */
  ttlMs: number;
  /** Heartbeat (ms) between renewals; a fifth of the term by default. */
  renewMs?: number;
  /** How often a standby tries to take the lease (ms). */
  pollMs?: number;
  signal?: AbortSignal;
  /** Try once instead of waiting as a standby (the CLI's `run`). */
  once?: boolean;
};

export type Leadership = {
  holder: string;
  epoch: bigint;
  acquiredAt: Date;
  fence: LeaseFence;
  /** Resolves with the reason when the leadership is lost (never after `release`). */
  lost: Promise<string>;
  release: () => Promise<void>;
};

/** Sleeps `ms`, or less when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** How often the leader compares its term with its own clock, between heartbeats. */
const WATCH_MS = 250;

export async function acquireLeadership(databaseUrl: string, log: Logger, options: LeaderOptions): Promise<Leadership | undefined> {
  const ttlMs = options.ttlMs;
  const renewMs = options.renewMs ?? Math.max(200, Math.floor(ttlMs / 5));
  const pollMs = options.pollMs ?? Math.max(200, Math.min(1_000, Math.floor(ttlMs / 5)));
  const holder = holderId();
  let waitingLogged = false;
  let migrated = false;

  // The lease session: one connection, every statement bounded (a renewal stuck on a cut link
  // must not outlive the term), replaced after any error.
  let session: { client: pg.Client; db: Db } | undefined;
  async function leaseDb(): Promise<Db> {
    if (session) return session.db;
    // A third of the term: a slow renewal (a loaded host) gets time, and a hung one still
    // leaves room for another try before the term ends.
    const timeoutMs = Math.max(renewMs, Math.floor(ttlMs / 3));
    const client = new pg.Client({
      connectionString: databaseUrl,
      application_name: "launchpad-engine-leader",
      query_timeout: timeoutMs,
      connectionTimeoutMillis: timeoutMs,
    });
    client.on("error", () => dropSession(client));
    try {
      await client.connect();
    } catch (error) {
      dropSession(client);
      throw error;
    }
    session = { client, db: drizzle(client, { schema: tables }) };
    return session.db;
  }
  function dropSession(client = session?.client): void {
    if (session?.client === client) session = undefined;
    void client?.end().catch(() => {});
  }
  async function withSession<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await fn(await leaseDb());
    } catch (error) {
      dropSession();
      throw error;
    }
  }

  while (!options.signal?.aborted) {
    const sentAt = performance.now();
    let lease: LeaseRow | undefined;
    try {
      if (!migrated) {
        const pool = survivePoolErrors(new pg.Pool({ connectionString: databaseUrl, max: 1, application_name: "launchpad-engine-leader" }));
        await migrate(pool).finally(() => pool.end().catch(() => {}));
        migrated = true;
      }
      lease = await withSession((db) => tryAcquireLease(db, holder, ttlMs));
    } catch (error) {
      log.warn({ err: error instanceof Error ? error.message : String(error) }, "could not reach PostgreSQL for the leadership lease; retrying");
    }
    if (lease) return lead(lease, sentAt);
    if (options.once) break;
    if (!waitingLogged) {
      const current = await withSession((db) => readLease(db)).catch(() => undefined);
      log.info({ leader: current?.holder, epoch: current?.epoch.toString(), since: current?.acquiredAt }, "another engine leads; waiting as standby");
      waitingLogged = true;
    }
    await pause(pollMs, options.signal);
  }
  dropSession();
  return undefined;

  function lead(lease: LeaseRow, sentAt: number): Leadership {
    let resolveLost: (reason: string) => void = () => {};
    const lost = new Promise<string>((resolve) => (resolveLost = resolve));
    let released = false;
    const fence = new LeaseFence(holder, lease.epoch, ttlMs, sentAt, (reason) => {
      if (!released) resolveLost(reason);
    });
    log.info({ holder, epoch: lease.epoch.toString() }, `engine leadership acquired (epoch ${lease.epoch})`);

    let suspendedAt: number | undefined;
    const heartbeat = (async () => {
      while (!released && !fence.isLost) {
        await sleep(renewMs);
        if (released || fence.isLost) break;
        const sent = performance.now();
        try {
          if (await withSession((db) => renewLease(db, holder, lease.epoch, ttlMs))) {
            fence.renewed(sent);
            if (suspendedAt !== undefined) {
              log.info(
                { epoch: lease.epoch.toString(), suspendedMs: Math.round(performance.now() - suspendedAt) },
                `engine leadership renewed at epoch ${lease.epoch} (nobody took over); resuming`,
              );
              suspendedAt = undefined;
            }
          } else {
            const now = await withSession((db) => readLease(db)).catch(() => undefined);
            fence.lost(`another engine took the lease${now ? ` (${now.holder}, epoch ${now.epoch})` : ""}`);
          }
        } catch (error) {
          if (fence.remainingMs() > 0)
            log.warn({ err: error instanceof Error ? error.message : String(error) }, "could not renew the leadership lease; retrying");
        }
      }
    })();
    // The term also runs out by the local clock, even while a renewal hangs: suspended, told once.
    const watch = setInterval(() => {
      if (!released && !fence.isLost && suspendedAt === undefined && fence.remainingMs() <= 0) {
        suspendedAt = performance.now();
        log.warn(
          { epoch: lease.epoch.toString() },
          `the lease of epoch ${lease.epoch} ran out before it could be renewed; leadership suspended (nothing is signed or written) until a renewal succeeds`,
        );
      }
    }, WATCH_MS);
    watch.unref();

    return {
      holder,
      epoch: lease.epoch,
      acquiredAt: lease.acquiredAt,
      fence,
      lost,
      release: async () => {
        released = true;
        clearInterval(watch);
        await heartbeat.catch(() => {});
        if (!fence.isLost) await withSession((db) => releaseLease(db, holder, lease.epoch)).catch(() => {});
        dropSession();
      },
    };
  }
}
