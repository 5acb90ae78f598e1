/** `Agent`: an agent's public record (never its key), by id or token; also `Token.agent`. */
import { inArray } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { type Agent, getAgent } from "../../core/agents/store.js";
import { dbOf } from "../../core/db/client.js";
import { agents as agentsTable } from "../../schema/agents.js";
import type { AgentApiDeps } from "../agents/http.js";
import { agentJson } from "../agents/routes.js";
import { findAgent } from "../pages/prospectus-data.js";
import { type GraphqlContext, builder } from "./builder.js";
import { userError } from "./errors.js";
import { TokenRef } from "./refs.js";

export type AgentView = ReturnType<typeof agentJson>;

const AgentRef = builder.objectRef<AgentView>("Agent").implement({
  description: "An agent: its wallet, charter (engine, persona, mandate) and token. Status: draft → charter-ready → launched → running, or failed.",
  fields: (t) => ({
    id: t.exposeString("id"),
    owner: t.exposeString("owner"),
    wallet: t.exposeString("wallet"),
    status: t.exposeString("status"),
    statusReason: t.exposeString("statusReason", { nullable: true }),
    charter: t.field({ type: "JSON", nullable: true, resolve: (a) => a.charter }),
    charterHash: t.exposeString("charterHash", { nullable: true }),
    tokenAddress: t.exposeString("token", { nullable: true }),
    token: t.field({ type: TokenRef, nullable: true, resolve: (a, _args, ctx) => (a.token ? ctx.loaders.token.load(a.token.toLowerCase() as `0x${string}`) : null) }),
    prospectus: t.exposeString("prospectus", { description: "Path of the public prospectus page" }),
    createdAt: t.exposeString("createdAt"),
    launchedAt: t.exposeString("launchedAt", { nullable: true }),
  }),
});

async function agentBy(ctx: GraphqlContext, idOrToken: string): Promise<AgentView | null> {
  const agents = ctx.deps.agents;
  if (!agents) throw userError("agents are not served by this API");
  if (idOrToken.length > 64) return null;
  const agent: Agent | undefined = await findAgent(agents.services, idOrToken);
  return agent ? agentJson(agent) : null;
}

builder.queryField("agent", (t) =>
  t.field({
    type: AgentRef,
    nullable: true,
    description: "An agent by its id or its token's address (null when there is none).",
    args: { idOrToken: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => agentBy(ctx, args.idOrToken),
  }),
);

builder.objectField(TokenRef, "agent", (t) =>
  t.field({
    type: AgentRef,
    nullable: true,
    description: "The agent that launched this token, if an agent did.",
    resolve: (v, _args, ctx) => ctx.loaders.agentByToken.load(getAddress(v.token.address)),
  }),
);

/** Agents of many tokens: one query for which tokens have one, then each of those. */
export async function agentsOfTokens(agents: AgentApiDeps | undefined, tokens: readonly Address[]): Promise<(AgentView | null)[]> {
  if (!agents) return tokens.map(() => null);
  await agents.services.ready();
  const rows = await dbOf(agents.services.pool)
    .select({ id: agentsTable.id, token: agentsTable.token })
    .from(agentsTable)
    .where(inArray(agentsTable.token, tokens.map((t) => getAddress(t))));
  const ids = new Map(rows.map((r) => [getAddress(r.token!), r.id]));
  return Promise.all(
    tokens.map(async (t) => {
      const id = ids.get(getAddress(t));
      const agent = id ? await getAgent(agents.services.pool, id) : undefined;
      return agent ? agentJson(agent) : null;
    }),
  );
}
