/** The agents of many tokens at once, as the API serves them (api/views/agent.ts). */
import { inArray } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { getAgent } from "../../core/agents/store.js";
import { dbOf } from "../../core/db/client.js";
import { agents as agentsTable } from "../../schema/agents.js";
import type { AgentApiDeps } from "../http/agent-api.js";
import { type AgentView, agentJson } from "../views/agent.js";

/** Agents of many tokens: one query for which tokens have one, then each of those. */
export async function agentsOfTokens(agents: AgentApiDeps | undefined, tokens: readonly Address[]): Promise<(AgentView | null)[]> {
  if (!agents) return tokens.map(() => null);
  await agents.services.ready();
  const rows = await dbOf(agents.services.pool)
    .select({ id: agentsTable.id, token: agentsTable.token })
    .from(agentsTable)
    .where(
      inArray(
        agentsTable.token,
        tokens.map((t) => getAddress(t)),
      ),
    );
  const ids = new Map(rows.map((r) => [getAddress(r.token!), r.id]));
  return Promise.all(
    tokens.map(async (t) => {
      const id = ids.get(getAddress(t));
      const agent = id ? await getAgent(agents.services.pool, id) : undefined;
      return agent ? agentJson(agent) : null;
    }),
  );
}
