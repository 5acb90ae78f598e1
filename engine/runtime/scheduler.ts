/**
 * The scheduler: each worker on its own jittered interval (the spec's table, scaled by
 * `WORKER_INTERVAL_SCALE`), at most one run of a worker at a time, per-worker health in
 * `engine.worker_state`. A failed run is retried sooner, with exponential backoff and jitter,
 * never later than the worker's own interval. Run requests (`engine.run_requests`, written
 * by the operator endpoint or `npm run engine -- request <worker>`) run a cycle now.
 */
import { eq, isNull, sql } from "drizzle-orm";
import type { CycleOutcome, EngineContext, EngineLocal } from "../../core/context.js";
import { tables } from "../../core/db/client.js";
import { describeError } from "../../core/errors.js";
import type { Worker, WorkerName } from "../workers/types.js";
import { isWorkerName } from "../workers/types.js";
import { toJsonValue } from "../../common/json.js";

/** First retry after a failure waits this long (scaled), doubling per consecutive failure. */
export const FAILURE_BACKOFF_SECONDS = 5;
/** How often the leader looks for run requests. */
export const RUN_REQUEST_POLL_MS = 1_000;
/** Intervals never shrink below this, whatever the scale. */
const MIN_DELAY_MS = 50;

/** A random delay within the worker's interval, scaled. */
export function jitteredDelayMs(worker: Pick<Worker, "minSeconds" | "maxSeconds">, scale: number, random = Math.random): number {
  const seconds = worker.minSeconds + random() * (worker.maxSeconds - worker.minSeconds);
  return Math.max(MIN_DELAY_MS, Math.round(seconds * scale * 1000));
}

/** The delay after a run: the interval, or after failures a shorter jittered backoff. */
export function nextDelayMs(worker: Pick<Worker, "minSeconds" | "maxSeconds">, scale: number, consecutiveFailures: number, random = Math.random): number {
  const interval = jitteredDelayMs(worker, scale, random);
  if (consecutiveFailures === 0) return interval;
  const cap = FAILURE_BACKOFF_SECONDS * 1000 * scale * 2 ** Math.min(consecutiveFailures - 1, 10);
  const backoff = Math.max(MIN_DELAY_MS, Math.round(cap / 2 + (random() * cap) / 2));
  return Math.min(interval, backoff);
}

/** Registers the workers' schedule rows (idempotent; keeps counters). */
export async function registerWorkers(ctx: Pick<EngineContext, "db">, workers: Worker[]): Promise<void> {
  const { workerState } = tables;
  for (const w of workers) {
    await ctx.db
      .insert(workerState)
      .values({ name: w.name, minIntervalSeconds: w.minSeconds, maxIntervalSeconds: w.maxSeconds })
      .onConflictDoUpdate({ target: workerState.name, set: { minIntervalSeconds: w.minSeconds, maxIntervalSeconds: w.maxSeconds, running: false } });
  }
}

export type { CycleOutcome };

function jsonSafe(value: unknown): unknown {
  return toJsonValue(value ?? null);
}

/** Told of every finished cycle of an engine (the metrics' runs, failures and durations). */
export type CycleObserver = NonNullable<EngineLocal["cycleObserver"]>;

/** Attaches an observer to the cycles run with this engine context (one per context). */
export function observeCycles(ctx: EngineContext, observer: CycleObserver): void {
  ctx.local.cycleObserver = observer;
}

/**
 * Runs one cycle of a worker with its health bookkeeping (runs, failures, last error), told
 * to the context's cycle observer. Callers guarantee one run per worker at a time (the
 * scheduler's lock, or the CLI's leadership).
 */
export async function runWorkerCycle(ctx: EngineContext, worker: Worker): Promise<CycleOutcome> {
  const outcome = await runWorkerCycleUnobserved(ctx, worker);
  try {
    ctx.local.cycleObserver?.(worker.name, outcome);
  } catch (error) {
    ctx.log.warn({ worker: worker.name, err: describeError(error) }, "cycle observer failed");
  }
  return outcome;
}

async function runWorkerCycleUnobserved(ctx: EngineContext, worker: Worker): Promise<CycleOutcome> {
  const { workerState } = tables;
  const started = Date.now();
  try {
    // Inside the try: a database that cannot be reached fails this cycle, like any other step.
    await ctx.db.update(workerState).set({ running: true, lastRunAt: sql`now()` }).where(eq(workerState.name, worker.name));
    const result = await ctx.gate.shared(() => worker.run(ctx));
    const ms = Date.now() - started;
    await ctx.db
      .update(workerState)
      .set({ running: false, lastSuccessAt: sql`now()`, runs: sql`${workerState.runs} + 1`, consecutiveFailures: 0, lastResult: jsonSafe(result) })
      .where(eq(workerState.name, worker.name));
    ctx.log.debug({ worker: worker.name, ms }, "worker cycle done");
    return { ok: true, result, ms };
  } catch (error) {
    const ms = Date.now() - started;
    const message = describeError(error);
    ctx.log.error({ worker: worker.name, err: message, ms }, "worker cycle failed");
    await ctx.db
      .update(workerState)
      .set({
        running: false,
        lastErrorAt: sql`now()`,
        lastError: message,
        runs: sql`${workerState.runs} + 1`,
        failures: sql`${workerState.failures} + 1`,
        consecutiveFailures: sql`${workerState.consecutiveFailures} + 1`,
      })
      .where(eq(workerState.name, worker.name))
      .catch((e) => ctx.log.error({ err: String(e) }, "could not record the worker failure"));
    return { ok: false, error: message, ms };
  }
}

export type SchedulerOptions = {
  scale: number;
  random?: () => number;
  firstRunImmediately?: boolean;
  /** The leader's fence: while its term is suspended (the lease ran out unrenewed), no cycle starts. */
  fence?: { readonly held?: boolean };
};

/** While the leadership is suspended, a due worker looks again this often (ms). */
const SUSPENDED_RECHECK_MS = 500;

export class Scheduler {
  private stopped = false;
  private readonly timers = new Map<WorkerName, NodeJS.Timeout>();
  private readonly running = new Map<WorkerName, Promise<CycleOutcome>>();
  private readonly consecutiveFailures = new Map<WorkerName, number>();
  private requestTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: EngineContext,
    private readonly workers: Worker[],
    private readonly options: SchedulerOptions,
  ) {}

  async start(): Promise<void> {
    await registerWorkers(this.ctx, this.workers);
    for (const w of this.workers) {
      // First runs spread over the first interval so the workers do not all start at once.
      const first = this.options.firstRunImmediately
        ? 0
        : Math.round(jitteredDelayMs(w, this.options.scale, this.options.random) * (this.options.random ?? Math.random)());
      await this.schedule(w, first);
    }
    this.pollRequests();
  }

  /** Stops scheduling and waits for the cycles in progress to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    if (this.requestTimer) clearTimeout(this.requestTimer);
    await Promise.allSettled([...this.running.values()]);
  }

  /** Runs one cycle now; if one is in progress, waits for it and returns its outcome. */
  runNow(name: WorkerName): Promise<CycleOutcome> {
    const w = this.workers.find((x) => x.name === name);
    if (!w) return Promise.resolve({ ok: false, error: `unknown worker ${name}`, ms: 0 });
    const current = this.running.get(name);
    if (current) return current;
    const started = Date.now();
    const run = runWorkerCycle(this.ctx, w)
      // Never a rejection: a cycle that fails outside its own bookkeeping is a failed cycle.
      .catch((error): CycleOutcome => {
        this.ctx.log.error({ worker: name, err: describeError(error) }, "worker cycle failed");
        return { ok: false, error: describeError(error), ms: Date.now() - started };
      })
      .then((outcome) => {
        this.consecutiveFailures.set(name, outcome.ok ? 0 : (this.consecutiveFailures.get(name) ?? 0) + 1);
        return outcome;
      });
    this.running.set(name, run);
    return run.finally(() => this.running.delete(name));
  }

  private async schedule(w: Worker, delayMs: number): Promise<void> {
    if (this.stopped) return;
    const at = new Date(Date.now() + delayMs);
    await this.ctx.db
      .update(tables.workerState)
      .set({ nextRunAt: at })
      .where(eq(tables.workerState.name, w.name))
      .catch(() => {});
    const timer = setTimeout(() => {
      // Suspended leadership (the database unreachable past the lease term): look again soon.
      if (this.options.fence && this.options.fence.held === false) {
        void this.schedule(w, Math.min(SUSPENDED_RECHECK_MS, jitteredDelayMs(w, this.options.scale, this.options.random)));
        return;
      }
      void this.runNow(w.name)
        .then(() => this.schedule(w, nextDelayMs(w, this.options.scale, this.consecutiveFailures.get(w.name) ?? 0, this.options.random)))
        .catch((error) => {
          // Whatever failed, the worker stays scheduled.
          this.ctx.log.error({ worker: w.name, err: describeError(error) }, "could not schedule the next cycle; retrying");
          this.timers.delete(w.name);
          setTimeout(() => void this.schedule(w, nextDelayMs(w, this.options.scale, 1, this.options.random)).catch(() => {}), MIN_DELAY_MS);
        });
    }, delayMs);
    this.timers.set(w.name, timer);
  }

  private pollRequests(): void {
    if (this.stopped) return;
    this.requestTimer = setTimeout(async () => {
      try {
        const { runRequests } = tables;
        const rows = await this.ctx.db
          .update(runRequests)
          .set({ startedAt: sql`now()` })
          .where(isNull(runRequests.startedAt))
          .returning({ id: runRequests.id, worker: runRequests.worker });
        for (const r of rows) {
          const name = r.worker;
          const outcome: CycleOutcome = isWorkerName(name) ? await this.runNow(name) : { ok: false, error: `unknown worker ${name}`, ms: 0 };
          await this.ctx.db
            .update(runRequests)
            .set({ finishedAt: sql`now()`, ok: outcome.ok, result: jsonSafe(outcome.ok ? outcome.result : { error: outcome.error }) })
            .where(eq(runRequests.id, r.id));
        }
      } catch (error) {
        this.ctx.log.warn({ err: describeError(error) }, "run requests poll failed");
      }
      this.pollRequests();
    }, RUN_REQUEST_POLL_MS);
  }
}
