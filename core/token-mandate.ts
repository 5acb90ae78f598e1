/**
 * The mandate that applies to a token, looked up in order: the launched agent's charter when
 * the token is an agent's, else the stored `engine.token_mandates` row over the defaults, else
 * the defaults.
 *
 * Workers call `mandateFor(db, config, token)` (or `mandateForToken` for the charter's
 * strategy too); the launch flow stores a token's limits with `setTokenMandate`.
 */
import { and, eq, inArray } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import type { Config } from "../common/config.js";
import { agents } from "../schema/agents.js";
import { tokenMandates } from "../schema/engine.js";
import { type Strategy, charterMandate, charterSchema } from "./agents/charter.js";
import type { Queryable } from "./db/client.js";
import { DEFAULT_MANDATE, type Mandate, defaultMandate, mergeMandate } from "./mandate.js";

/** A token's mandate, with the strategy of its agent's charter (null for a token without an agent). */
export type TokenMandate = Mandate & { strategy: Strategy | null; agentId: string | null };

/** The default creator buyback minimum (`CREATOR_BUYBACK_MIN_USDC`), when no fallback is given. */
const DEFAULT_FALLBACK: Mandate = { ...DEFAULT_MANDATE, buybackMinUsdc: 5_000_000n };

export async function mandateForToken(db: Queryable, token: Address | string, fallback: Mandate = DEFAULT_FALLBACK): Promise<TokenMandate> {
  const address = getAddress(token);
  const [agent] = await db
    .select({ id: agents.id, charter: agents.charter })
    .from(agents)
    .where(and(eq(agents.token, address), inArray(agents.status, ["launched", "running"])))
    .limit(1);
  if (agent?.charter) {
    const parsed = charterSchema.safeParse(agent.charter);
    if (parsed.success) {
      const { strategy, ...mandate } = charterMandate(parsed.data);
      return { ...fallback, ...mandate, liquidationBufferBps: fallback.liquidationBufferBps, maxDeskUsdc: fallback.maxDeskUsdc, strategy, agentId: agent.id };
    }
  }
  const [stored] = await db.select().from(tokenMandates).where(eq(tokenMandates.token, address)).limit(1);
  if (!stored) return { ...fallback, strategy: null, agentId: null };
  const merged = mergeMandate(fallback, {
    deskPairIndex: stored.deskPairIndex,
    maxLeverage: stored.maxLeverage === null ? null : BigInt(stored.maxLeverage),
    maxDrawdownBps: stored.maxDrawdownBps,
    takeProfitBps: stored.takeProfitBps,
    buybackMinUsdc: stored.buybackMinUsdc === null ? null : BigInt(stored.buybackMinUsdc),
    maxDeskUsdc: stored.maxDeskUsdc === null ? null : BigInt(stored.maxDeskUsdc),
  });
  return { ...merged, strategy: null, agentId: null };
}

export async function mandateFor(q: Queryable, config: Pick<Config, "creatorBuybackMinUsdc">, token: Address): Promise<Mandate> {
  const { strategy: _strategy, agentId: _agentId, ...mandate } = await mandateForToken(q, token, defaultMandate(config.creatorBuybackMinUsdc));
  return mandate;
}

/** Launch hook: stores (or replaces) the mandate fields of a token's charter; unset fields keep the defaults. */
export async function setTokenMandate(q: Queryable, token: Address, m: Partial<Omit<Mandate, "liquidationBufferBps">>): Promise<void> {
  const values = {
    token: getAddress(token),
    deskPairIndex: m.deskPairIndex ?? null,
    maxLeverage: m.maxLeverage === undefined ? null : m.maxLeverage.toString(),
    maxDrawdownBps: m.maxDrawdownBps ?? null,
    takeProfitBps: m.takeProfitBps ?? null,
    buybackMinUsdc: m.buybackMinUsdc === undefined ? null : m.buybackMinUsdc.toString(),
    maxDeskUsdc: m.maxDeskUsdc === undefined || m.maxDeskUsdc === null ? null : m.maxDeskUsdc.toString(),
    updatedAt: new Date(),
  };
  await q.insert(tokenMandates).values(values).onConflictDoUpdate({ target: tokenMandates.token, set: values });
}
