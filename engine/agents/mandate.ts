/**
 * The mandate a token's workers obey (desk market, leverage cap, drawdown halt, take-profit,
 * buyback minimum), looked up per token: the launched agent's charter when the token is an
 * agent's, else the stored `engine.token_mandates` row over the defaults, else the defaults.
 *
 * Workers call `mandateForToken(db, token, defaultMandate(config.creatorBuybackMinUsdc))`
 * and pass the result to the decision functions (`decideDeskEntry`, `decideRisk`, …).
 */
import { and, eq, inArray } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { agents } from "../../schema/agents.js";
import { tokenMandates } from "../../schema/engine.js";
import type { Queryable } from "../db/client.js";
import { DEFAULT_MANDATE, type Mandate, mergeMandate } from "../decisions/mandate.js";
import { type Strategy, charterMandate, charterSchema } from "./charter.js";

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
