/**
 * Per-token mandates. The agent launch flow stores a token's charter limits with
 * `setTokenMandate`; the desk and buyback workers read them with `mandateFor` (the launched
 * agent's charter first, then the stored row, over the defaults).
 */
import { type Address, getAddress } from "viem";
import type { Config } from "../common/config.js";
import { type Queryable, tables } from "./db/client.js";
import { mandateForToken } from "./agents/mandate.js";
import { type Mandate, defaultMandate } from "./decisions/mandate.js";

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
  await q.insert(tables.tokenMandates).values(values).onConflictDoUpdate({ target: tables.tokenMandates.token, set: values });
}
