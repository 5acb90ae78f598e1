/** The agent log: every decision a worker takes, with its reason (served by the API and prospectus pages). */
import type { Address } from "viem";
import { type Queryable, tables } from "./db/client.js";

export type Decision = { worker: string; token?: Address | null; decision: string; reason: string; data?: Record<string, unknown> };

/** bigint values become decimal strings (JSON has no bigint). */
function jsonSafe(data: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (!data) return null;
  return JSON.parse(JSON.stringify(data, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
}

export async function logDecision(q: Queryable, d: Decision): Promise<void> {
  await q.insert(tables.agentLog).values({ worker: d.worker, token: d.token ?? null, decision: d.decision, reason: d.reason, data: jsonSafe(d.data) });
}
