/**
 * Newly indexed burns and activity, pushed to every GraphQL subscriber of this API process.
 *
 * Where the push comes from: ponder itself. After its backfill, `ponder start` commits each
 * live block in one transaction that ends by updating `_ponder_checkpoint`, and a statement
 * trigger ponder installs on that table (its "live query" notification, used by
 * `@ponder/client`) calls `pg_notify('<schema>_live_query', '["burn","activity",…]')` with
 * the tables the block changed. PostgreSQL delivers a NOTIFY only when its transaction
 * commits, to every session listening in the database, so each replica hears of every block
 * once, after its rows are readable, whichever process indexed it. Nothing is added to the
 * indexing handlers (they stay pure: ponder replays them after reorgs) and no trigger of ours
 * is put on ponder's tables.
 *
 * Per process: one LISTEN connection, and on each notification one query per table for the
 * rows after the last one this process passed, fanned out in memory to every subscriber whose
 * filter matches (the same rows to all of them, in chain order). A slow poll of the same
 * queries (`pollIntervalMs`, 5 s; the only way when there is no LISTEN) covers blocks indexed
 * while the listening connection reconnects and the backfill, which ponder does not notify.
 * Nothing runs while nobody subscribes.
 *
 * Reorgs: ponder reverts the rows of blocks that leave the chain, then indexes the new
 * branch, whose blocks notify as usual. The feed keeps every row it passed that is not yet in
 * a finalized block (ponder's `finalized_checkpoint`: older rows can no longer be reverted)
 * and at each notification checks they are still there, in the same place. A row that is
 * gone (or moved to another block) is pushed as a `rolled-back` event, in order, to each
 * subscriber that was told of it; the feed then resumes after the newest row it passed that
 * survived, so the new branch's rows — even those sorting before the lost ones — arrive as
 * `created`. A subscriber is thus never told of a row that is later rolled back without being
 * told of the rollback in the same stream.
 */
import { sql } from "drizzle-orm";
import pg from "pg";
import type { Logger } from "../../common/logger.js";
import type { ReadDb } from "../read/db.js";
import type { ActivityRow } from "../read/activity.js";
import type { BurnRow } from "../read/burns.js";
import { type Stream, activityStream, burnStream } from "./streams.js";

/** How often the feed looks without a notification: insurance with LISTEN, the only way without. */
export const SAFETY_POLL_MS = 5_000;
export const POLL_WITHOUT_LISTEN_MS = 500;
/** Rows read per query; a backlog is drained by consecutive queries. */
const BATCH = 200;
/** Rows passed and not yet final that the feed remembers (reorg checks), per table. */
const MAX_TRACKED = 10_000;
/** Events waiting for one subscriber; past this it is told it lags and its stream ends. */
const MAX_QUEUE = 10_000;
/** The listening connection reconnects after this, doubling up to 5 s. */
const RECONNECT_MS = 250;
const RECONNECT_MAX_MS = 5_000;

/**
 * What a subscriber receives: a row as it is indexed (`created`), a row it was told of that a
 * reorg rolled back (`rolled-back`), or `lagging` before its stream ends because it did not
 * keep up. `batch` is the same object for every event of one read, across subscribers.
 */
export type FeedEvent<Row> = { type: "created" | "rolled-back"; row: Row; batch: object } | { type: "lagging" };

export type Topic<Row> = {
  /** Events of rows indexed from now on that match `filter`, until `signal` aborts or the iterator returns. */
  subscribe(p: { filter?: (row: Row) => boolean; signal?: AbortSignal }): Promise<AsyncIterableIterator<FeedEvent<Row>>>;
};

export type LiveFeedStats = {
  /** A LISTEN connection is open. */
  listening: boolean;
  channel: string | undefined;
  subscribers: number;
  /** Notifications heard and reads made (one per table per read, whatever the subscribers). */
  notifications: number;
  reads: number;
  rolledBack: number;
};

export type LiveFeed = {
  burns: Topic<BurnRow>;
  activity: Topic<ActivityRow>;
  stats(): LiveFeedStats;
  close(): Promise<void>;
};

export type LiveFeedOptions = {
  /** The indexed tables (ponder's read-only `db`: its search path is ponder's schema). */
  db: ReadDb;
  /** Where to LISTEN; without it the feed only polls. */
  databaseUrl?: string;
  /** Poll period in ms (0: never); default 5 s with LISTEN, 0.5 s without. */
  pollIntervalMs?: number;
  log?: Logger;
};

type Tracked<Row> = { row: Row; seq: number; place: string };

class Subscriber<Row> implements AsyncIterableIterator<FeedEvent<Row>> {
  private readonly queue: FeedEvent<Row>[] = [];
  private waiting: ((result: IteratorResult<FeedEvent<Row>>) => void) | undefined;
  private done = false;

  constructor(
    /** Rows passed after this sequence number are news to it. */
    readonly joinedSeq: number,
    readonly filter: (row: Row) => boolean,
    private readonly onClose: (s: Subscriber<Row>) => void,
  ) {}

  push(event: FeedEvent<Row>): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
      return;
    }
    this.queue.push(event);
    if (this.queue.length > MAX_QUEUE) {
      this.queue.length = 0;
      this.queue.push({ type: "lagging" });
      this.finish();
    }
  }

  next(): Promise<IteratorResult<FeedEvent<Row>>> {
    const event = this.queue.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  return(): Promise<IteratorResult<FeedEvent<Row>>> {
    this.queue.length = 0;
    this.finish();
    return Promise.resolve({ value: undefined, done: true });
  }

  /** Ends the stream after what is queued. */
  finish(): void {
    if (this.done) return;
    this.done = true;
    this.waiting?.({ value: undefined, done: true });
    this.waiting = undefined;
    this.onClose(this);
  }

  [Symbol.asyncIterator]() {
    return this;
  }
}

class TopicState<Row> {
  position: Row | undefined;
  /** Rows passed that are not final yet, in chain order. */
  readonly tracked = new Map<string, Tracked<Row>>();
  readonly subscribers = new Set<Subscriber<Row>>();
  positioned: Promise<void> | undefined;
  ready = false;

  constructor(readonly stream: Stream<Row>) {}

  track(row: Row, seq: number): void {
    const id = this.stream.id(row);
    this.tracked.delete(id);
    this.tracked.set(id, { row, seq, place: this.stream.place(row) });
    if (this.tracked.size > MAX_TRACKED) this.tracked.delete(this.tracked.keys().next().value!);
  }

  reset(): void {
    this.position = undefined;
    this.tracked.clear();
    this.positioned = undefined;
    this.ready = false;
  }
}

/** The lowest finalized block of ponder's chains (undefined when the schema has none). */
async function finalizedBlock(db: ReadDb): Promise<bigint | undefined> {
  const result = await db.execute(sql`SELECT finalized_checkpoint FROM _ponder_checkpoint`);
  const blocks = (result.rows as { finalized_checkpoint: string }[]).map((r) => BigInt(r.finalized_checkpoint.slice(26, 42)));
  return blocks.length ? blocks.reduce((a, b) => (b < a ? b : a)) : undefined;
}

class PostgresLiveFeed implements LiveFeed {
  readonly burns: Topic<BurnRow>;
  readonly activity: Topic<ActivityRow>;
  // biome-ignore lint/suspicious/noExplicitAny: topics of different row types in one list; each is typed where it is made
  private readonly topics: TopicState<any>[];
  private readonly pollMs: number;
  /** Bumped on every start and stop: work of an older generation is dropped. */
  private generation = 0;
  private seq = 0;
  private starting: Promise<void> | undefined;
  private listener: pg.Client | undefined;
  private channel: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private pendingAll = false;
  private readonly pending = new Set<string>();
  private counters = { notifications: 0, reads: 0, rolledBack: 0 };

  constructor(private readonly options: LiveFeedOptions) {
    this.pollMs = options.pollIntervalMs ?? (options.databaseUrl ? SAFETY_POLL_MS : POLL_WITHOUT_LISTEN_MS);
    const burns = new TopicState(burnStream);
    const activity = new TopicState(activityStream);
    this.topics = [burns, activity];
    this.burns = { subscribe: (p) => this.subscribe(burns, p) };
    this.activity = { subscribe: (p) => this.subscribe(activity, p) };
  }

  stats(): LiveFeedStats {
    return {
      listening: this.listener !== undefined,
      channel: this.channel,
      subscribers: this.subscriberCount(),
      ...this.counters,
    };
  }

  async close(): Promise<void> {
    for (const topic of this.topics) for (const s of [...topic.subscribers]) s.finish();
    await this.stop();
  }

  private subscriberCount(): number {
    return this.topics.reduce((n, t) => n + t.subscribers.size, 0);
  }

  private async subscribe<Row>(topic: TopicState<Row>, p: { filter?: (row: Row) => boolean; signal?: AbortSignal }): Promise<Subscriber<Row>> {
    this.starting ??= this.start().catch((error) => {
      this.starting = undefined;
      throw error;
    });
    // Listening before the starting point is read: a block committed after it is heard.
    await this.starting;
    const started = this.generation;
    topic.positioned ??= (async () => {
      const generation = this.generation;
      const newest = await topic.stream.newest(this.options.db);
      if (generation !== this.generation) return;
      topic.position = newest;
      if (newest) topic.track(newest, 0); // passed, never told: a reorg of it only moves the position
      topic.ready = true;
    })().catch((error) => {
      topic.positioned = undefined;
      throw error;
    });
    await topic.positioned;
    // The feed stopped meanwhile (its last subscriber left): start it again.
    if (started !== this.generation || !topic.ready) return this.subscribe(topic, p);
    const subscriber: Subscriber<Row> = new Subscriber(this.seq, p.filter ?? (() => true), (s) => this.unsubscribe(topic, s));
    topic.subscribers.add(subscriber);
    if (p.signal?.aborted) subscriber.finish();
    else p.signal?.addEventListener("abort", () => subscriber.finish(), { once: true });
    return subscriber;
  }

  private unsubscribe<Row>(topic: TopicState<Row>, subscriber: Subscriber<Row>): void {
    topic.subscribers.delete(subscriber);
    if (this.subscriberCount() === 0) void this.stop();
  }

  private async start(): Promise<void> {
    const generation = ++this.generation;
    if (this.pollMs > 0) {
      this.timer = setInterval(() => this.schedule(), this.pollMs);
      this.timer.unref();
    }
    if (!this.options.databaseUrl) return;
    if (this.channel === undefined) {
      const result = await this.options.db.execute(sql`SELECT current_schema() AS schema`);
      this.channel = `${(result.rows[0] as { schema: string }).schema}_live_query`;
    }
    await this.listen(generation, 0);
  }

  private async stop(): Promise<void> {
    this.generation++;
    this.starting = undefined;
    clearInterval(this.timer);
    clearTimeout(this.reconnectTimer);
    for (const topic of this.topics) topic.reset();
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
  }

  /** Opens the listening connection; on failure, tries again in the background. */
  private async listen(generation: number, attempt: number): Promise<void> {
    const client = new pg.Client({ connectionString: this.options.databaseUrl, application_name: "launchpad-api-listen" });
    let lost = false;
    const reconnect = (error?: Error) => {
      if (lost) return;
      lost = true;
      if (this.listener === client) this.listener = undefined;
      client.end().catch(() => {});
      if (generation !== this.generation) return;
      const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_MS * 2 ** attempt);
      this.options.log?.warn({ err: error?.message, retryInMs: delay }, "live feed: listening connection lost; reconnecting");
      this.reconnectTimer = setTimeout(() => void this.listen(generation, attempt + 1), delay);
      this.reconnectTimer.unref();
    };
    client.on("error", reconnect);
    client.on("end", () => reconnect());
    client.on("notification", (message) => {
      if (generation !== this.generation) return;
      this.counters.notifications++;
      this.schedule(parseTables(message.payload));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel!)}`);
    } catch (error) {
      reconnect(error as Error);
      return;
    }
    if (generation !== this.generation) {
      lost = true;
      await client.end().catch(() => {});
      return;
    }
    this.listener = client;
    attempt = 0;
    // Blocks committed while no connection listened.
    this.schedule();
  }

  /** Asks for a read of these tables (all without a list); reads never overlap. */
  private schedule(tables?: string[]): void {
    if (tables === undefined) this.pendingAll = true;
    else for (const t of tables) this.pending.add(t);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  private async drain(): Promise<void> {
    while (this.pendingAll || this.pending.size) {
      const tables = this.pendingAll ? undefined : new Set(this.pending);
      this.pendingAll = false;
      this.pending.clear();
      try {
        await this.read(tables);
      } catch (error) {
        // The next notification or poll reads again from the same position.
        this.options.log?.warn({ err: error instanceof Error ? error.message : String(error) }, "live feed: read failed");
        return;
      }
    }
  }

  private async read(tables: Set<string> | undefined): Promise<void> {
    const generation = this.generation;
    const topics = this.topics.filter((t) => t.ready && t.subscribers.size > 0);
    if (!topics.length) return;
    const finalized = topics.some((t) => t.tracked.size > 0) ? await finalizedBlock(this.options.db).catch(() => undefined) : undefined;
    for (const topic of topics) {
      if (generation !== this.generation) return;
      const movedBack = await this.checkRollbacks(topic, finalized, generation);
      if (!tables || tables.has(topic.stream.table) || movedBack) await this.pullNew(topic, finalized, generation);
    }
  }

  /** Tells subscribers of rows a reorg took away; true when the position moved back. */
  private async checkRollbacks<Row>(topic: TopicState<Row>, finalized: bigint | undefined, generation: number): Promise<boolean> {
    const { stream, tracked } = topic;
    if (finalized !== undefined) for (const [id, t] of tracked) if (stream.block(t.row) <= finalized) tracked.delete(id);
    if (!tracked.size) return false;
    this.counters.reads++;
    const places = await stream.places(this.options.db, [...tracked.keys()]);
    if (generation !== this.generation) return false;
    const gone = [...tracked.values()].filter((t) => places.get(stream.id(t.row)) !== t.place);
    if (!gone.length) return false;
    const batch = {};
    for (const t of gone) {
      tracked.delete(stream.id(t.row));
      this.counters.rolledBack++;
      for (const s of topic.subscribers) if (s.joinedSeq < t.seq && s.filter(t.row)) s.push({ type: "rolled-back", row: t.row, batch });
    }
    // Every row passed above the fork is gone: resume after the newest that survived, or after
    // the last final block (everything between it and the fork was passed, so it survived).
    const lowest = gone.reduce((min, t) => (stream.block(t.row) < min ? stream.block(t.row) : min), stream.block(gone[0]!.row));
    const survivor = [...tracked.values()].at(-1)?.row;
    topic.position = survivor ?? (await stream.newest(this.options.db, finalized ?? lowest - 1n));
    this.options.log?.info({ table: stream.table, rows: gone.length, fromBlock: String(lowest) }, "live feed: rows rolled back by a reorg");
    return true;
  }

  /** Reads the rows after the position and hands each to the subscribers it matches. */
  private async pullNew<Row>(topic: TopicState<Row>, finalized: bigint | undefined, generation: number): Promise<void> {
    const { stream } = topic;
    const batch = {};
    for (;;) {
      this.counters.reads++;
      const rows = await stream.after(this.options.db, topic.position, BATCH);
      if (generation !== this.generation) return;
      for (const row of rows) {
        const seq = ++this.seq;
        if (finalized === undefined || stream.block(row) > finalized) topic.track(row, seq);
        for (const s of topic.subscribers) if (s.filter(row)) s.push({ type: "created", row, batch });
      }
      if (rows.length) topic.position = rows.at(-1);
      if (rows.length < BATCH) return;
    }
  }
}

/** Table names of a ponder notification (undefined, meaning all, when it cannot be read). */
function parseTables(payload: string | undefined): string[] | undefined {
  try {
    const tables = JSON.parse(payload ?? "");
    return Array.isArray(tables) && tables.every((t) => typeof t === "string") ? tables : undefined;
  } catch {
    return undefined;
  }
}

export function createLiveFeed(options: LiveFeedOptions): LiveFeed {
  return new PostgresLiveFeed(options);
}
