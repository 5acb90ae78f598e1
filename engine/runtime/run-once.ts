/**
 * One worker cycle on demand. In the leader process: `runWorkerOnce(name, ctx)`. From another
 * process (the API's operator endpoint, the CLI while an engine runs): `requestWorkerRun`
 * queues a request the leader's scheduler picks up within a second, and
 * `awaitWorkerRun` waits for its outcome.
 */
import { eq } from "drizzle-orm";
import type pg from "pg";
import { sleep } from "../../common/async.js";
import type { EngineContext } from "../../core/context.js";
import { dbOf, tables } from "../../core/db/client.js";
import { type CycleOutcome, runWorkerCycle } from "./scheduler.js";
import { WORKERS, type WorkerName, isWorkerName } from "../workers/index.js";
import { ServiceError } from "../../core/errors.js";

export function runWorkerOnce(name: WorkerName, ctx: EngineContext): Promise<CycleOutcome> {
  return runWorkerCycle(ctx, WORKERS[name]);
}

export class UnknownWorkerError extends ServiceError {
  override name = "UnknownWorkerError";
  constructor(readonly worker: string) {
    super(`unknown worker "${worker}" (known: ${Object.keys(WORKERS).join(", ")})`, { code: "NOT_FOUND" });
  }
}

/** Queues a run of `name` for the leader; returns the request id. */
export async function requestWorkerRun(pool: pg.Pool, name: string): Promise<number> {
  if (!isWorkerName(name)) throw new UnknownWorkerError(name);
  const [row] = await dbOf(pool).insert(tables.runRequests).values({ worker: name }).returning({ id: tables.runRequests.id });
  return row!.id;
}

export type RunRequestState = {
  id: number;
  worker: string;
  requestedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  ok: boolean | null;
  result: unknown;
};

export async function readWorkerRun(pool: pg.Pool, id: number): Promise<RunRequestState | undefined> {
  const [r] = await dbOf(pool).select().from(tables.runRequests).where(eq(tables.runRequests.id, id));
  if (!r) return undefined;
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: r.id,
    worker: r.worker,
    requestedAt: r.requestedAt.toISOString(),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
    ok: r.ok,
    result: r.result,
  };
}

/** Waits for a requested run to finish (or the timeout). */
export async function awaitWorkerRun(pool: pg.Pool, id: number, timeoutMs = 120_000, pollMs = 250): Promise<RunRequestState> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await readWorkerRun(pool, id);
    if (state?.finishedAt || Date.now() > deadline) return state!;
    await sleep(pollMs);
  }
}
