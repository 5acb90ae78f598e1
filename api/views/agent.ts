/**
 * The agent flow's public shapes, for REST (api/agents/routes.ts), MCP and GraphQL alike: an
 * agent as served (never its key), the answer to a launch, and the launch and chat bodies.
 */
import { z } from "zod";
import { ETH_DECIMALS, formatDecimal, parseDecimal } from "../../common/money.js";
import type { Charter } from "../../core/agents/charter.js";
import type { ChatMessage } from "../../core/agents/compiler.js";
import type { Agent } from "../../core/agents/store.js";
import type { launchAgent } from "../../core/launch/agent.js";
import { textField, textProblem } from "../../common/text.js";

/** Well-formed Unicode without control characters, at most `maxBytes` UTF-8 bytes (as the launcher stores it). */
const text = (field: string, maxBytes: number) => textField(field, { min: 1, maxBytes });

/** An agent's charter as served after it is set or read (REST and MCP alike). */
export const charterJson = (agent: Agent) => ({
  id: agent.id,
  status: agent.status,
  charter: agent.charter as Charter,
  charterHash: agent.charterHash,
  charterSource: agent.charterSource,
});

/** The answer to an agent's launch (REST and MCP alike). */
export function launchedJson(result: Awaited<ReturnType<typeof launchAgent>>) {
  return {
    id: result.agent.id,
    status: result.agent.status,
    wallet: result.agent.wallet,
    token: result.token,
    poolId: result.poolId,
    charterHash: result.agent.charterHash,
    txs: result.txs,
    prospectus: `/p/${result.agent.id}`,
  };
}

export const agentLaunchBody = z
  .object({
    name: text("name", 64),
    symbol: text("symbol", 32).refine((v) => !/\s/.test(v), "symbol must not contain spaces"),
    image: z
      .string({ invalid_type_error: "image must be a string" })
      .max(2048, "image must be at most 2048 characters")
      .refine((v) => textProblem(v) === undefined, "image must be well-formed Unicode without control characters")
      .refine((v) => {
        if (v === "") return true;
        try {
          return ["http:", "https:", "ipfs:"].includes(new URL(v).protocol);
        } catch {
          return false;
        }
      }, "image must be an http(s) or ipfs URL")
      .default(""),
    description: textField("description", { maxBytes: 2000, multiline: true }).default(""),
    devBuyEth: z
      .union([z.string(), z.number()], { invalid_type_error: 'devBuyEth must be a decimal amount of ETH such as "0.01"' })
      .transform((v, ctx) => {
        try {
          return parseDecimal(String(v), ETH_DECIMALS);
        } catch {
          ctx.addIssue({ code: "custom", message: "devBuyEth must be a non-negative decimal amount of ETH with at most 18 decimals" });
          return z.NEVER;
        }
      })
      .refine((wei) => wei <= 100n * 10n ** 18n, "devBuyEth must be at most 100")
      .default("0"),
  })
  .strict();

const chatMessage = z
  .object({
    role: z.enum(["user", "assistant", "system"], { errorMap: () => ({ message: "role must be user, assistant or system" }) }),
    content: z
      .string({ required_error: "content is required" })
      .max(4000, "content must be at most 4000 characters")
      .refine((v) => textProblem(v, true) === undefined, "content must be well-formed Unicode without control characters"),
  })
  .strict();
export const chatBody = z
  .object({
    messages: z.array(chatMessage).min(1, "messages must not be empty").max(50, "at most 50 messages").optional(),
    message: z
      .string()
      .min(1)
      .max(4000)
      .refine((v) => textProblem(v, true) === undefined, "message must be well-formed Unicode without control characters")
      .optional(),
  })
  .strict()
  .refine((b) => (b.messages === undefined) !== (b.message === undefined), "give messages (a conversation) or message (one text), not both")
  .transform((b): ChatMessage[] => b.messages ?? [{ role: "user", content: b.message! }]);

/** The public JSON of an agent (never its key). */
export function agentJson(agent: Agent) {
  const launch = agent.launch;
  return {
    id: agent.id,
    owner: agent.owner,
    wallet: agent.wallet,
    status: agent.status,
    statusReason: agent.statusReason,
    charter: agent.charter,
    charterHash: agent.charterHash,
    charterSource: agent.charterSource,
    token: agent.token,
    poolId: agent.poolId,
    launch: launch
      ? {
          name: launch.name,
          symbol: launch.symbol,
          image: launch.image,
          description: launch.description,
          devBuyEth: formatDecimal(launch.devBuyWei, ETH_DECIMALS),
          attempt: agent.launchAttempt,
          txs: { platformFee: agent.feeTx, deploy: agent.deployTx, devBuy: agent.devBuyTx, enroll: agent.enrollTx },
        }
      : null,
    prospectus: `/p/${agent.id}`,
    createdAt: agent.createdAt.toISOString(),
    updatedAt: agent.updatedAt.toISOString(),
    launchedAt: agent.launchedAt?.toISOString() ?? null,
  };
}

export type AgentView = ReturnType<typeof agentJson>;
