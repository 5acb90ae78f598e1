/**
 * The agent log: every decision a worker takes, with its reason (served by the API and
 * prospectus pages). Given the engine context, a decision is also logged; waits (the same
 * reason every cycle) at debug level, actions at info, as a sentence with whole-unit amounts
 * and the token's symbol (engine/log-lines.ts) beside the structured fields. A decision for
 * an agent's token speaks as the agent: its persona's name and voice lead the reason
 * ("Ada (dry and patient): opened a long desk …").
 */
import { and, eq, inArray } from "drizzle-orm";
import { type Address, type PublicClient, getAddress } from "viem";
import type { Logger } from "../common/logger.js";
import { agents } from "../schema/agents.js";
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
  await q.insert(tables.agentLog).values({ worker: d.worker, token: d.token ?? null, decision: d.decision, reason, data: jsonSafe(d.data) });
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
