/**
 * The agent log (`engine.agent_log`): every decision a worker takes for a token, and every
 * step of an agent's launch, with its reason (served by the API and the prospectus page). Given the engine context, a decision is also logged; waits (the same
 * reason every cycle) at debug level, actions at info, as a sentence with whole-unit amounts
 * and the token's symbol (core/log-lines.ts) beside the structured fields. A decision for
 * an agent's token speaks as the agent: its persona's name and voice lead the reason
 * ("Ada (dry and patient): opened a long desk …").
 */
import { and, desc, eq, inArray, or, sql } from "drizzle-orm";
import type pg from "pg";
import { type Address, type PublicClient, getAddress } from "viem";
import type { Logger } from "../common/logger.js";
import { agents } from "../schema/agents.js";
import { type Queryable, dbOf, tables } from "./db/client.js";
import { describeDecision, shortAddress, tokenSymbol } from "./log-lines.js";
import { toJsonValue } from "../common/json.js";

export type Decision = { worker: string; token?: Address | null; decision: string; reason: string; data?: Record<string, unknown> };

/** Decisions that repeat every cycle while nothing changes. */
const QUIET = new Set(["wait", "skip"]);

/** bigint values become decimal strings (JSON has no bigint). */
function jsonSafe(data: Record<string, unknown> | undefined): Record<string, unknown> | null {
  if (!data) return null;
  return toJsonValue(data);
}

/**
 * The last quiet decision written per worker and token, per database handle: a "wait" or "skip"
 * that repeats the previous one word for word is not written again, so a token that waits for
 * days costs one row, not one per cycle (at 10,000 tokens, 10,000 rows a cycle). Any other
 * decision for the token clears it, so the next wait is written.
 */
const lastQuiet = new WeakMap<object, Map<string, string>>();

/** Personas found per database handle (a launched agent's charter never changes). */
const personas = new WeakMap<object, Map<string, string>>();

/** "Name (voice)" of the agent that launched `token`, or undefined for a token without an agent. */
export async function personaOf(q: Queryable, token: Address | string): Promise<string | undefined> {
  let known = personas.get(q);
  if (!known) personas.set(q, (known = new Map()));
  const address = getAddress(token);
  const cached = known.get(address);
  if (cached) return cached;
  const [row] = await q
    .select({ charter: agents.charter })
    .from(agents)
    .where(and(eq(agents.token, address), inArray(agents.status, ["launched", "running"])))
    .limit(1);
  const persona = (row?.charter as { persona?: { name?: string; voice?: string } } | null | undefined)?.persona;
  if (!persona?.name) return undefined;
  const text = persona.voice ? `${persona.name} (${persona.voice})` : persona.name;
  known.set(address, text);
  return text;
}

export async function logDecision(target: Queryable | { db: Queryable; log: Logger }, d: Decision): Promise<void> {
  const withLog = "log" in target && "db" in target ? (target as { db: Queryable; log: Logger }) : undefined;
  const q = withLog ? withLog.db : (target as Queryable);
  const persona = d.token ? await personaOf(q, d.token) : undefined;
  const speak = (text: string) => (persona ? `${persona}: ${text}` : text);
  const reason = speak(d.reason);
  let quiet = lastQuiet.get(q);
  if (!quiet) lastQuiet.set(q, (quiet = new Map()));
  const key = `${d.worker}:${d.token ?? ""}`;
  const said = `${d.decision}:${reason}`;
  const repeat = QUIET.has(d.decision) && quiet.get(key) === said;
  if (!repeat) await q.insert(tables.agentLog).values({ worker: d.worker, token: d.token ?? null, decision: d.decision, reason, data: jsonSafe(d.data) });
  if (QUIET.has(d.decision)) quiet.set(key, said);
  else quiet.delete(key);
  if (withLog) {
    const line = { worker: d.worker, token: d.token ?? undefined, decision: d.decision, reason, data: jsonSafe(d.data) ?? undefined };
    if (QUIET.has(d.decision)) {
      withLog.log.debug(line, speak(describeDecision(d, d.token ? shortAddress(d.token) : undefined)));
      return;
    }
    // The token's symbol, where the context can ask the chain for it.
    const client = "publicClient" in target ? (target as { publicClient?: PublicClient }).publicClient : undefined;
    const symbol = d.token ? (client ? await tokenSymbol(client, d.token) : shortAddress(d.token)) : undefined;
    withLog.log.info(line, speak(describeDecision(d, symbol)));
  }
}

export type AgentLogEntry = {
  id: number;
  token: Address | null;
  worker: string;
  decision: string;
  reason: string;
  data: Record<string, unknown> | null;
  createdAt: Date;
};

/** The worker name of the launch steps. */
export const LAUNCH_WORKER = "agent-launch";

/** Writes one launch step's entry, once: a step resumed after a crash does not log twice. */
export async function logOnce(
  pool: pg.Pool,
  p: { agentId: string; token: Address | null; worker?: string; decision: string; reason: string; data?: Record<string, unknown> },
): Promise<void> {
  const data = JSON.stringify({ ...p.data, agentId: p.agentId });
  const worker = p.worker ?? LAUNCH_WORKER;
  // Raw SQL: the insert and its "not logged yet" check are one statement (INSERT … SELECT …
  // WHERE NOT EXISTS), which drizzle's insert builder cannot express without a table source.
  await dbOf(pool).execute(sql`
    INSERT INTO engine.agent_log (token, worker, decision, reason, data)
    SELECT ${p.token}, ${worker}, ${p.decision}, ${p.reason}, ${data}::jsonb
     WHERE NOT EXISTS (SELECT 1 FROM engine.agent_log
                        WHERE worker = ${worker} AND decision = ${p.decision} AND data->>'agentId' = ${p.agentId} AND reason = ${p.reason})`);
}

/**
 * The newest entries of an agent: its launch steps and every decision for its token. With no
 * agent (`agentId` null), the decisions for the token alone.
 */
export async function readAgentLog(pool: pg.Pool, p: { agentId: string | null; token: Address | null; limit: number }): Promise<AgentLogEntry[]> {
  const t = tables.agentLog;
  const byAgent = p.agentId === null ? undefined : sql`${t.data}->>'agentId' = ${p.agentId}`;
  const byToken = p.token === null ? undefined : sql`lower(${t.token}) = lower(${p.token})`;
  if (!byAgent && !byToken) return [];
  const rows = await dbOf(pool).select().from(t).where(or(byAgent, byToken)).orderBy(desc(t.id)).limit(p.limit);
  return rows.map((r) => ({
    id: Number(r.id),
    token: r.token ? getAddress(r.token) : null,
    worker: r.worker,
    decision: r.decision,
    reason: r.reason,
    data: (r.data as Record<string, unknown> | null) ?? null,
    createdAt: r.createdAt,
  }));
}
