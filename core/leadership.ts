/**
 * Engine leadership as a lease with a fencing epoch (docs/design.md §3.1).
 *
 * One row, `engine.leadership`, names the engine that leads, the epoch of its term, its lease
 * session and when the term expires. Taking the lease is one statement that succeeds only on
 * an expired lease or one whose holder's session is gone, and raises the epoch; the leader
 * renews it every few seconds. A killed leader's session closes with it, so a standby takes
 * over at its next poll; a leader that stops renewing but keeps its session (frozen by
 * SIGSTOP or a long pause, its link to the database cut) loses the lease when the TTL runs
 * out, measured by the database's clock.
 *
 * Fencing: every write of the leader's transaction pipeline carries `fenceGuard(fence)`, an
 * `EXISTS` over the lease row at the leader's epoch taken `FOR SHARE`. A takeover updates that
 * row, so it waits for any write in progress and every later write of the old leader finds
 * another epoch and changes nothing; the pipeline then raises `FencedError` and the process
 * stands down. Before it signs or broadcasts, the pipeline also checks the lease on its own
 * monotonic clock (`assertHeld`), so a leader thawed after its term stops without a round trip.
 *
 * A term that runs out unrenewed (the database unreachable for longer than the TTL) is
 * suspended, not ended: nothing is signed, sent or written under the fence, and the leader
 * keeps trying to renew. A renewal at the same epoch means nobody took over meanwhile (a
 * takeover raises the epoch), so the term resumes; a renewal that finds another epoch ends it
 * for good and the process stands down. A database outage of any length is waited out so.
 */
import { eq, sql } from "drizzle-orm";
import type { SQL } from "drizzle-orm";
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import { type Queryable, tables } from "./db/client.js";
import { ServiceError } from "./errors.js";

/** The lease of the engine process (one leader per database). */
export const ENGINE_LEASE = "engine";

/** Defaults for a live deployment: a frozen leader is replaced within about TTL + poll. */
export const DEFAULT_LEASE_TTL_MS = 10_000;
export const DEFAULT_LEASE_RENEW_MS = 2_000;

/** Stop signing this long before the lease's expiry by the local clock (clock-rate drift, a slow round trip). */
const LOCAL_MARGIN_MS = 1_000;

/** Another engine took the lease (or it expired) while this one believed it led: stand down. */
export class FencedError extends ServiceError {
  override name = "FencedError";
  constructor(message: string) {
    super(message, { code: "CONFLICT" });
  }
}

/** The leader's side of the fence: its term, and what its pipeline checks before each step. */
export interface Fence {
  readonly holder: string;
  readonly epoch: bigint;
  /** Throws FencedError when the lease may have expired by the local clock, or was lost. */
  assertHeld(): void;
  /** Records that a fenced write found another epoch: the process must stand down. */
  lost(reason: string): FencedError;
  /**
   * False while the term has run out unrenewed by the local clock (the database unreachable,
   * the process frozen) or was lost: nothing may start that signs or writes under the fence.
   */
  readonly held?: boolean;
}

export type LeaseRow = { name: string; holder: string; epoch: bigint; sessionPid: number | null; acquiredAt: Date; renewedAt: Date; expiresAt: Date };

/** A holder id naming the process: host, pid and a random suffix (a restarted process is a new holder). */
export function holderId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}

/**
 * The SQL condition that the lease is still this fence's term (true when `fence` is undefined,
 * for pipelines that are not the engine's: the API's launches and agent wallets).
 */
export function fenceGuard(fence: Fence | undefined): SQL {
  if (!fence) return sql`TRUE`;
  // Raw SQL: a locking sub-select (FOR SHARE) inside the guarded write's WHERE clause.
  return sql`EXISTS (SELECT 1 FROM engine.leadership l
                      WHERE l.name = ${ENGINE_LEASE} AND l.holder = ${fence.holder} AND l.epoch = ${fence.epoch.toString()}::bigint
                        AND l.expires_at > clock_timestamp()
                      FOR SHARE)`;
}

function toRow(r: typeof tables.leadership.$inferSelect): LeaseRow {
  return {
    name: r.name,
    holder: r.holder,
    epoch: BigInt(r.epoch),
    sessionPid: r.sessionPid,
    acquiredAt: r.acquiredAt,
    renewedAt: r.renewedAt,
    expiresAt: r.expiresAt,
  };
}

/** The lease as stored (for health and the CLI), or undefined when no engine ever led. */
export async function readLease(q: Queryable, name = ENGINE_LEASE): Promise<LeaseRow | undefined> {
  const [row] = await q.select().from(tables.leadership).where(eq(tables.leadership.name, name)).limit(1);
  return row ? toRow(row) : undefined;
}

/**
 * Takes the lease if it is free, expired, or its holder's session is gone (a process that
 * died closes its connection; a frozen or cut-off one keeps its session and is waited out to
 * the end of its term), with the next epoch; undefined while another holder's term runs. The
 * expiry is the database's clock plus `ttlMs`. Run it on the session that will renew the
 * lease: that session's backend pid is recorded.
 *
 * A lease `holder` already holds keeps its epoch: it comes from an earlier attempt of this
 * same standby whose answer never arrived (a timed-out statement the server still committed).
 * Nothing was done under that epoch, and raising it again would count takeovers that never
 * happened.
 */
export async function tryAcquireLease(q: Queryable, holder: string, ttlMs: number, name = ENGINE_LEASE): Promise<LeaseRow | undefined> {
  const t = tables.leadership;
  const expires = sql`clock_timestamp() + ${`${ttlMs} milliseconds`}::interval`;
  const now = sql`clock_timestamp()`;
  const session = sql`pg_backend_pid()`;
  const rows = await q
    .insert(t)
    .values({ name, holder, epoch: 1n, sessionPid: session, acquiredAt: now, renewedAt: now, expiresAt: expires })
    .onConflictDoUpdate({
      target: t.name,
      set: {
        holder,
        epoch: sql`CASE WHEN ${t.holder} = ${holder} THEN ${t.epoch} ELSE ${t.epoch} + 1 END`,
        sessionPid: session,
        acquiredAt: now,
        renewedAt: now,
        expiresAt: expires,
      },
      // Raw SQL: the holder's session looked up in pg_stat_activity (a catalog view).
      setWhere: sql`${t.expiresAt} <= clock_timestamp()
        OR ${t.holder} = ${holder}
        OR ${t.sessionPid} IS NULL
        OR NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = ${t.sessionPid})`,
    })
    .returning();
  return rows[0] ? toRow(rows[0]) : undefined;
}

/**
 * Extends this term by `ttlMs`; false when the lease has another holder or epoch (taken over).
 * An expired lease nobody took is still this term (a takeover would have raised the epoch).
 */
export async function renewLease(q: Queryable, holder: string, epoch: bigint, ttlMs: number, name = ENGINE_LEASE): Promise<boolean> {
  const t = tables.leadership;
  const rows = await q
    .update(t)
    .set({ sessionPid: sql`pg_backend_pid()`, renewedAt: sql`clock_timestamp()`, expiresAt: sql`clock_timestamp() + ${`${ttlMs} milliseconds`}::interval` })
    .where(sql`${t.name} = ${name} AND ${t.holder} = ${holder} AND ${t.epoch} = ${epoch.toString()}::bigint`)
    .returning({ epoch: t.epoch });
  return rows.length > 0;
}

/** Ends this term now, so a standby takes over at once (a clean shutdown). */
export async function releaseLease(q: Queryable, holder: string, epoch: bigint, name = ENGINE_LEASE): Promise<void> {
  const t = tables.leadership;
  await q
    .update(t)
    .set({ expiresAt: sql`clock_timestamp()` })
    .where(sql`${t.name} = ${name} AND ${t.holder} = ${holder} AND ${t.epoch} = ${epoch.toString()}::bigint`);
}

/**
 * The fence of a term, valid on the local monotonic clock until `ttlMs` (less a margin) after
 * the last renewal was sent. `renewed(sentAt)` moves that point; `lost` ends the term for good.
 */
export class LeaseFence implements Fence {
  private validUntil: number;
  private lostReason: string | undefined;
  private readonly onLost: (reason: string) => void;

  constructor(
    readonly holder: string,
    readonly epoch: bigint,
    private readonly ttlMs: number,
    sentAt: number,
    onLost: (reason: string) => void = () => {},
  ) {
    this.validUntil = sentAt + ttlMs - LOCAL_MARGIN_MS;
    this.onLost = onLost;
  }

  /** A renewal sent at `sentAt` (performance.now()) succeeded. */
  renewed(sentAt: number): void {
    if (!this.lostReason) this.validUntil = Math.max(this.validUntil, sentAt + this.ttlMs - LOCAL_MARGIN_MS);
  }

  get isLost(): boolean {
    return this.lostReason !== undefined;
  }

  /** Milliseconds of the term left by the local clock (negative once it ran out). */
  remainingMs(now = performance.now()): number {
    return this.validUntil - now;
  }

  /** The term is current by the local clock and was not lost. */
  get held(): boolean {
    return !this.lostReason && performance.now() <= this.validUntil;
  }

  /** The term ran out unrenewed by the local clock (suspended until a renewal at this epoch), and was not lost. */
  get lapsed(): boolean {
    return !this.lostReason && performance.now() > this.validUntil;
  }

  assertHeld(): void {
    if (this.lostReason) throw new FencedError(`leadership lost: ${this.lostReason}`);
    if (performance.now() > this.validUntil) throw new FencedError(`leadership suspended: the lease of epoch ${this.epoch} ran out before it was renewed`);
  }

  lost(reason: string): FencedError {
    if (!this.lostReason) {
      this.lostReason = reason;
      this.onLost(reason);
    }
    return new FencedError(`leadership lost: ${this.lostReason}`);
  }
}
