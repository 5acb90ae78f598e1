/**
 * The rate limits' buckets in PostgreSQL, shared by every API replica: rate-limiter-flexible's
 * `RateLimiterPostgres` keeps them in its table layout (`engine.api_rate_limits`, columns key,
 * points, expire; declared in schema/engine.ts and made by the engine's migrations) and falls
 * back to an in-memory insurance limiter while the database cannot be reached.
 *
 * The counting is a token bucket, written as GCRA (the generic cell rate algorithm): a bucket
 * is one number, the theoretical arrival time `tat` — the moment it is full again — kept in the
 * `expire` column in microseconds. A take at `now` with emission interval `T = 1 / refill` and
 * burst window `B = capacity × T` succeeds when `max(tat, now) + T − now ≤ B` and moves `tat`
 * there; it is refused otherwise (Retry-After `tat + T − B − now`). That is exactly the
 * in-memory bucket of rate-limit.ts (tokens = (B − (tat − now)) / T), in one upsert, one round
 * trip, timed by the database's clock so replicas agree. A row whose `tat` has passed is a
 * full bucket: the library's hourly sweep of expired rows forgets it.
 *
 * A refused client is also blocked in this process's memory until its Retry-After (no take
 * can succeed before then, whichever replica it asks), so a client hammering a replica past
 * its limit costs no database round trips.
 *
 * Takes from one bucket are batched: while one is in flight, the takes that arrive wait and go
 * together as one take of `n` cells (`tat` moves by as many emissions as fit, at most `n`), and
 * each request gets the answer it would have had taking alone, in order. One client's 16
 * concurrent requests cost one or two upserts of its row instead of 16 contending for it.
 */
import { createHash } from "node:crypto";
import pg from "pg";
import { RateLimiterCompatibleAbstract, RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import type { Logger } from "../../common/logger.js";
import { survivePoolErrors } from "../../core/db/client.js";
import type { RateLimitStore, RateLimiter, TakeResult } from "./rate-limit.js";

/** Where the buckets live: the engine's schema (made by its migrations), a table of the library's. */
export const RATE_LIMIT_SCHEMA = "engine";
export const RATE_LIMIT_TABLE = "api_rate_limits";

/** A take slower than this (database overloaded or gone) is answered by the in-memory insurance. */
const TAKE_TIMEOUT_MS = 1_000;
/** Connections of the limiter's pool: one statement each, held for well under a millisecond. */
const POOL_SIZE = 4;
/** Retries of the table's creation while the database is unreachable: doubling up to this. */
const RETRY_MAX_MS = 30_000;
/** Longer client keys (anything in X-Forwarded-For) are stored as their hash. */
const MAX_CLIENT_KEY = 100;

type TakeOptions = { limiter: RateLimiter; client: string };

/** A take of several cells: the tokens left after each granted one, in order; the rest are refused. */
type Granted = { granted: number[] };

/** The database's clock, in microseconds (the same value everywhere in one statement). */
const NOW_US = "floor(extract(epoch from now()) * 1000000)::bigint";

/** What rate-limiter-flexible's PostgreSQL store calls on itself (not in its typings). */
type StoreInternals = {
  _getTableIdentifier(): string;
  _query(q: { name?: string; text: string; values?: unknown[] }): Promise<pg.QueryResult>;
  tableCreated: boolean;
};

/** The library's in-memory block of refused keys (not in its typings). */
type InMemoryBlocks = { getInMemoryBlockMsBeforeExpire(key: string): number };

/** A bucket's key: the limiter's name and the client (hashed when long: anything in X-Forwarded-For). */
function bucketKey(limiter: RateLimiter, client: string): string {
  return `${limiter.name}:${client.length > MAX_CLIENT_KEY ? createHash("sha256").update(client).digest("hex") : client}`;
}

/** `points`: the cells granted. */
type TakeRow = { points: number; expire: string; now: string };
type TakeResultRows = pg.QueryResult<TakeRow> & { rule: { emissionUs: number; burstUs: number } };

/** Emission interval and burst window of a rule, in whole microseconds. */
function gcra(limiter: RateLimiter) {
  const emissionUs = Math.max(1, Math.round(1_000_000 / limiter.rule.refillPerSecond));
  return { emissionUs, burstUs: Math.round(limiter.rule.capacity * emissionUs) };
}

/** RateLimiterPostgres counting GCRA token buckets instead of fixed windows (see above). */
class TokenBuckets extends RateLimiterPostgres {
  _upsert(key: string, points: number, _msDuration: number, forceExpire: boolean, options: TakeOptions): Promise<TakeResultRows> {
    const self = this as unknown as StoreInternals;
    if (!self.tableCreated) return Promise.reject(new Error("rate limit table is not ready yet"));
    // `set` and `block` of the library's API are not part of a token bucket.
    if (forceExpire) return Promise.reject(new Error("token buckets are only taken from"));
    const rule = gcra(options.limiter);
    const table = self._getTableIdentifier();
    // The cells that fit: each advances the bucket by one emission, which must stay within the
    // burst window (integer division of a non-negative room rounds down); at most $4 of them.
    const granted = (tat: string) => `least($4::bigint, greatest(0, (${NOW_US} + $3::bigint - ${tat}) / $2::bigint))`;
    const start = `greatest(b.expire, ${NOW_US})`;
    return self
      ._query({
        name: "gcra-take-n",
        text: `
INSERT INTO ${table} AS b (key, points, expire)
VALUES ($1, ${granted(NOW_US)}, ${NOW_US} + ${granted(NOW_US)} * $2::bigint)
ON CONFLICT (key) DO UPDATE SET
  points = ${granted(start)},
  expire = CASE WHEN ${granted(start)} > 0 THEN ${start} + ${granted(start)} * $2::bigint ELSE b.expire END
RETURNING points, expire, ${NOW_US} AS now`,
        values: [key, rule.emissionUs, rule.burstUs, points],
      })
      .then((result) => Object.assign(result as pg.QueryResult<TakeRow>, { rule }));
  }

  /**
   * `points` of the row is the cells granted; the rest follows from `tat`. All granted: the
   * library resolves (consumed 1); fewer: it blocks the key in memory until Retry-After and
   * rejects (consumed 2). Either way the answer carries each granted cell's tokens left.
   */
  _getRateLimiterRes(_key: string, changedPoints: number, result: TakeResultRows): RateLimiterRes & Granted {
    const row = result.rows[0]!;
    const { emissionUs, burstUs } = result.rule;
    const ahead = Number(row.expire) - Number(row.now); // how far `tat` is ahead of now, after the take
    const granted = Number(row.points);
    // The last granted cell leaves `left` tokens; each earlier one left one more.
    const left = Math.max(0, Math.floor((burstUs - ahead) / emissionUs));
    const res = { granted: Array.from({ length: granted }, (_, i) => left + granted - 1 - i) };
    if (granted === changedPoints) return Object.assign(new RateLimiterRes(left, Math.max(0, ahead / 1000), 1), res);
    return Object.assign(new RateLimiterRes(0, Math.max(1, (ahead + emissionUs - burstUs) / 1000), 2), res);
  }

  /** The library's sweep passes milliseconds; `expire` holds microseconds. */
  clearExpired(expireMs: number): Promise<void> {
    return (RateLimiterPostgres.prototype as unknown as { clearExpired(expire: number): Promise<void> }).clearExpired.call(this, expireMs * 1000);
  }
}

/** The in-memory bucket of each limiter (rate-limit.ts), as rate-limiter-flexible's insurance. */
class InMemoryInsurance extends RateLimiterCompatibleAbstract {
  readonly keyPrefix = "memory";
  blockDuration = 0;
  execEvenly = false;

  consume(_key: string | number, points = 1, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    const { limiter, client } = options as TakeOptions;
    const granted: number[] = [];
    for (let i = 0; i < points; i++) {
      const result = limiter.take(client);
      if (!result.ok) return Promise.reject(Object.assign(new RateLimiterRes(0, result.retryAfterSeconds * 1000, 2), { granted }));
      granted.push(result.remaining);
    }
    return Promise.resolve(Object.assign(new RateLimiterRes(granted.at(-1) ?? 0, 0, 1), { granted }));
  }
}

export type PostgresRateLimitStoreOptions = {
  pool: pg.Pool;
  log?: Logger;
  /** Resolves once the schema exists (the engine's migrations); the table is made after it. */
  ready?: () => Promise<void>;
};

/** Buckets shared through PostgreSQL; in memory until the table is ready or while it is unreachable. */
type TakeQueue = {
  limiter: RateLimiter;
  client: string;
  waiting: { resolve: (result: TakeResult) => void; reject: (error: unknown) => void }[];
  busy?: boolean;
};

export class PostgresRateLimitStore implements RateLimitStore {
  private buckets: TokenBuckets | undefined;
  /** Per bucket: the takes waiting for the one in flight. */
  private readonly queues = new Map<string, TakeQueue>();
  private readonly insurance = new InMemoryInsurance();
  private retry: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: PostgresRateLimitStoreOptions) {
    void this.open(0);
  }

  /** Whether takes go to PostgreSQL (false while the table is not ready). */
  get shared(): boolean {
    return this.buckets !== undefined;
  }

  /** One take from `client`'s bucket, batched with the takes from it already waiting (see above). */
  take(limiter: RateLimiter, client: string): Promise<TakeResult> {
    const key = bucketKey(limiter, client);
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = { limiter, client, waiting: [] }));
    const taken = new Promise<TakeResult>((resolve, reject) => queue.waiting.push({ resolve, reject }));
    if (queue.waiting.length === 1 && !queue.busy) void this.drain(key, queue);
    return taken;
  }

  /** Sends the waiting takes of a bucket, one batch at a time, until none is left. */
  private async drain(key: string, queue: TakeQueue): Promise<void> {
    queue.busy = true;
    while (queue.waiting.length) {
      const batch = queue.waiting.splice(0);
      try {
        const results = await this.takeCells(key, queue.limiter, queue.client, batch.length);
        for (const [i, w] of batch.entries()) w.resolve(results[i]!);
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    this.queues.delete(key);
  }

  /** Takes `n` cells at once: the first ones granted (each with the tokens it left), the rest refused. */
  private async takeCells(key: string, limiter: RateLimiter, client: string, n: number): Promise<TakeResult[]> {
    let res: RateLimiterRes & Partial<Granted>;
    try {
      res = await (this.buckets ?? this.insurance).consume(key, n, { limiter, client } satisfies TakeOptions);
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      res = error;
    }
    // Refused before any take (a key blocked in memory) when the answer says nothing granted.
    const granted = res.granted ?? [];
    const retryAfterSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
    return Array.from({ length: n }, (_, i): TakeResult => (i < granted.length ? { ok: true, remaining: granted[i]! } : { ok: false, retryAfterSeconds }));
  }

  /** A client refused by this process stays refused here until its Retry-After. */
  refusedFor(limiter: RateLimiter, client: string): number {
    const ms = (this.buckets as unknown as InMemoryBlocks | undefined)?.getInMemoryBlockMsBeforeExpire(bucketKey(limiter, client)) ?? 0;
    return ms > 0 ? Math.ceil(ms / 1000) : 0;
  }

  /** Stops retrying the table; the pool is the caller's. */
  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
  }

  private async open(attempt: number): Promise<void> {
    if (this.closed) return;
    try {
      await this.options.ready?.();
      // The table is declared in schema/engine.ts and made by the engine's migrations (`ready`);
      // takes go to PostgreSQL once it answers for it.
      await this.options.pool.query(`SELECT 1 FROM "${RATE_LIMIT_SCHEMA}"."${RATE_LIMIT_TABLE}" LIMIT 0`);
      this.buckets = new TokenBuckets({
        storeClient: this.options.pool,
        storeType: "pool",
        schemaName: RATE_LIMIT_SCHEMA,
        tableName: RATE_LIMIT_TABLE,
        tableCreated: true,
        keyPrefix: "",
        points: 1,
        duration: 0,
        // A refused take is blocked here until its Retry-After (see the file's comment).
        inMemoryBlockOnConsumed: 2,
        insuranceLimiter: this.insurance,
      });
      if (attempt > 0) this.options.log?.info("rate limits shared through PostgreSQL again");
    } catch (error) {
      const delay = Math.min(RETRY_MAX_MS, 1_000 * 2 ** attempt);
      this.options.log?.warn(
        { err: error instanceof Error ? error.message : String(error), retryInMs: delay },
        "rate limits kept in memory: their PostgreSQL table is not ready",
      );
      this.retry = setTimeout(() => void this.open(attempt + 1), delay);
      this.retry.unref();
    }
  }
}

/**
 * A connection whose session settings are applied before the pool hands it out. Settings of
 * the session rather than startup options, which connection poolers refuse. (Sent from the
 * pool's `connect` event instead, the SET was still queued when the pool ran the first take on
 * the new connection: two queries at once on one client, which pg deprecates.)
 */
class SessionClient extends pg.Client {
  override connect(): Promise<pg.Client>;
  override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
  // biome-ignore lint/suspicious/noConfusingVoidType: pg.Pool's own overload returns nothing when given a callback
  override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
    const ready = super
      .connect()
      .then(() => this.query(`SET synchronous_commit = off; SET statement_timeout = ${TAKE_TIMEOUT_MS}`))
      .then(() => this as pg.Client);
    if (!callback) return ready;
    const done = callback as (err: Error | null, c?: pg.Client) => void;
    ready.then(
      (c) => done(null, c),
      (error: Error) => done(error),
    );
  }
}

/**
 * The limiter's own small pool: commits without waiting for the disk (a bucket a crash forgets
 * only lets a client through early), and a bound on every take so a stalled database falls
 * back to the insurance instead of holding requests.
 */
export function rateLimitPool(databaseUrl: string, log?: Logger): pg.Pool {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: POOL_SIZE,
    application_name: "launchpad-api-limits",
    connectionTimeoutMillis: TAKE_TIMEOUT_MS,
    query_timeout: TAKE_TIMEOUT_MS,
    Client: SessionClient,
  });
  return survivePoolErrors(pool, (error) => log?.warn({ err: error.message }, "rate limit pool error"));
}
