/** `Agent`: an agent's public record (never its key), by id or token; also `Token.agent`. */
import { getAddress } from "viem";
import type { ObjectRef } from "@pothos/core";
import { charterSchema } from "../../core/agents/charter.js";
import type { Agent } from "../../core/agents/store.js";
import { type AgentView, agentJson, agentResponse } from "../views/agent.js";
import { findAgent } from "../read/prospectus.js";
import { type GraphqlContext, type Types, builder } from "./builder.js";
import { userError } from "./errors.js";
import { TokenRef } from "./refs.js";
import { reportFields, zodObject } from "./zod-objects.js";

/** The charter as REST serves it (core/agents/charter.ts), typed: percentages and leverage as `Float`, USDC as an exact decimal. */
const CharterRef = zodObject("Charter", charterSchema, "An agent's charter: its engine, persona and mandate (split, desk limits, creator-buyback minimum)", {
  floats: true,
});

/**
 * REST's agent (api/views/agent.ts), but for its charter, a JSON field kept beside the typed
 * `charterReport`, and its token: an address there, the `Token` here beside `tokenAddress`.
 * Its rows are the whole view.
 */
const AgentRef = zodObject(
  "Agent",
  agentResponse.omit({ charter: true, token: true }),
  "An agent: its wallet, charter (engine, persona, mandate) and token. Status: draft → charter-ready → launching → launched → running, or failed.",
) as ObjectRef<Types, AgentView>;

builder.objectFields(AgentRef, (t) => ({
  ...reportFields(t, "charter", CharterRef, {
    description: "The agent's charter, once set (null before)",
    nullable: true,
    resolve: (a) => a.charter,
  }),
  tokenAddress: t.string({ nullable: true, description: "The agent's token, once launched (checksummed)", resolve: (a) => a.token }),
  token: t.field({
    type: TokenRef,
    nullable: true,
    resolve: (a, _args, ctx) => (a.token ? ctx.loaders.token.load(a.token.toLowerCase() as `0x${string}`) : null),
  }),
}));

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
