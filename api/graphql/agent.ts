/** `Agent`: an agent's public record (never its key), by id or token; also `Token.agent`. */
import { getAddress } from "viem";
import { type Charter, charterSchema } from "../../core/agents/charter.js";
import type { Agent } from "../../core/agents/store.js";
import { type AgentView, agentJson } from "../views/agent.js";
import { findAgent } from "../read/prospectus.js";
import { type GraphqlContext, builder } from "./builder.js";
import { userError } from "./errors.js";
import { TokenRef } from "./refs.js";
import { reportFields, zodObject } from "./zod-objects.js";

/** The charter as REST serves it (core/agents/charter.ts), typed: percentages and leverage as `Float`, USDC as an exact decimal. */
const CharterRef = zodObject("Charter", charterSchema, "An agent's charter: its engine, persona and mandate (split, desk limits, creator-buyback minimum)", {
  floats: true,
});

const AgentRef = builder.objectRef<AgentView>("Agent").implement({
  description: "An agent: its wallet, charter (engine, persona, mandate) and token. Status: draft → charter-ready → launched → running, or failed.",
  fields: (t) => ({
    id: t.exposeString("id"),
    owner: t.exposeString("owner"),
    wallet: t.exposeString("wallet"),
    status: t.exposeString("status"),
    statusReason: t.exposeString("statusReason", { nullable: true }),
    ...reportFields(t, "charter", CharterRef, {
      description: "The agent's charter, once set (null before)",
      nullable: true,
      resolve: (a) => a.charter as Charter | null,
    }),
    charterHash: t.exposeString("charterHash", { nullable: true }),
    tokenAddress: t.exposeString("token", { nullable: true }),
    token: t.field({
      type: TokenRef,
      nullable: true,
      resolve: (a, _args, ctx) => (a.token ? ctx.loaders.token.load(a.token.toLowerCase() as `0x${string}`) : null),
    }),
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
