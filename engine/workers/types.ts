/** What a worker is: a name of the spec's table, its interval, and one cycle. */
import type { EngineContext } from "../../core/context.js";

export const WORKER_NAMES = [
  "price-sampler",
  "fee-claimer",
  "desk-manager",
  "profit-checker",
  "creator-buyback",
  "buyback-engine",
  "asset-engine",
  "desk-risk",
  "auditor",
  "webhooks",
] as const;
export type WorkerName = (typeof WORKER_NAMES)[number];

export type WorkerResult = Record<string, unknown>;

export type Worker = {
  name: WorkerName;
  /** Interval bounds of the spec's schedule, in seconds (scaled by WORKER_INTERVAL_SCALE). */
  minSeconds: number;
  maxSeconds: number;
  run: (ctx: EngineContext) => Promise<WorkerResult>;
};

export function isWorkerName(name: string): name is WorkerName {
  return (WORKER_NAMES as readonly string[]).includes(name);
}
