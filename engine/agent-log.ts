/**
 * The agent log: every decision a worker takes, with its reason (served by the API and
 * prospectus pages). Given the engine context, a decision is also logged; waits (the same
 * reason every cycle) at debug level, actions at info, as a sentence with whole-unit amounts
 * and the token's symbol (engine/log-lines.ts) beside the structured fields.
 */
import type { Address, PublicClient } from "viem";
import type { Logger } from "../common/logger.js";
import { type Queryable, tables } from "./db/client.js";
import { describeDecision, shortAddress, tokenSymbol } from "./log-lines.js";

export type Decision = { worker: string; token?: Address | null; decision: string; reason: string; data?: Record<string, unknown> };

/** Decisions that repeat every cycle while nothing changes. */
const QUIET = new Set(["wait", "skip"]);

/** bigint values become decimal strings (JSON has no bigint). */
function jsonSafe(data: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (!data) return null;
  return JSON.parse(JSON.stringify(data, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
}

export async function logDecision(target: Queryable | { db: Queryable; log: Logger }, d: Decision): Promise<void> {
  const withLog = "log" in target && "db" in target ? (target as { db: Queryable; log: Logger }) : undefined;
  const q = withLog ? withLog.db : (target as Queryable);
  await q.insert(tables.agentLog).values({ worker: d.worker, token: d.token ?? null, decision: d.decision, reason: d.reason, data: jsonSafe(d.data) });
  if (withLog) {
    const line = { worker: d.worker, token: d.token ?? undefined, decision: d.decision, reason: d.reason, data: jsonSafe(d.data) ?? undefined };
    if (QUIET.has(d.decision)) {
      withLog.log.debug(line, describeDecision(d, d.token ? shortAddress(d.token) : undefined));
      return;
    }
    // The token's symbol, where the context can ask the chain for it.
    const client = "publicClient" in target ? (target as { publicClient?: PublicClient }).publicClient : undefined;
    const symbol = d.token ? (client ? await tokenSymbol(client, d.token) : shortAddress(d.token)) : undefined;
    withLog.log.info(line, describeDecision(d, symbol));
  }
}
