/**
 * The agent flow's public shapes, for REST (api/agents/routes.ts), MCP and GraphQL alike: an
 * agent as served (never its key), its charter, the answer to a launch, and the launch and chat
 * bodies. Each answer is one schema: its builder returns that schema's type, REST's OpenAPI
 * documents it, and GraphQL's `Agent` is made from it (api/graphql/agent.ts).
 */
import { z } from "zod";
import { ETH_DECIMALS, formatDecimal, parseDecimal } from "../../common/money.js";
import { type Charter, charterSchema } from "../../core/agents/charter.js";
import type { ChatMessage, CompiledCharter } from "../../core/agents/compiler.js";
import { type Agent, CHARTER_SOURCES } from "../../core/agents/store.js";
import type { launchAgent } from "../../core/launch/agent.js";
import { textField, textProblem } from "../../common/text.js";
import { decimalOf, json } from "../../common/edge.js";
import { AGENT_STATUSES } from "../../schema/agents.js";

/** Well-formed Unicode without control characters, at most `maxBytes` UTF-8 bytes (as the launcher stores it). */
const text = (field: string, maxBytes: number) => textField(field, { min: 1, maxBytes });

const { checksummed, hash, iso } = json;
const uuid = z.string().uuid();
const status = z.enum(AGENT_STATUSES).describe("draft → charter-ready → launching → launched → running, or failed");
const charterSource = z.enum(CHARTER_SOURCES).describe("How the charter was set: the default, submitted, or drafted in a chat");
const prospectus = z.string().describe("Path of the public prospectus page");

/** An agent's charter as served after it is set or read (REST and MCP alike). */
export const charterResponse = z.object({
  id: uuid,
  status,
  charter: charterSchema,
  charterHash: hash.nullable(),
  charterSource: charterSource.nullable(),
});

export const charterJson = (agent: Agent): z.infer<typeof charterResponse> => ({
  id: agent.id,
  status: agent.status,
  charter: agent.charter as Charter,
  charterHash: agent.charterHash,
  charterSource: agent.charterSource,
});

/** A charter drafted from a conversation: the draft, the questions still open, and where the compiler runs. */
export const chatResponse = charterResponse.extend({
  questions: z.array(z.string()).describe("What the conversation left open (a default was assumed)"),
  ready: z.boolean().describe("Whether no question is open"),
  understood: z.array(z.string()).describe("The charter's parts the conversation set"),
  source: z.string().describe("The charter compiler that drafted it"),
});

export const chatJson = (agent: Agent, compiled: CompiledCharter, source: string): z.infer<typeof chatResponse> => ({
  ...charterJson(agent),
  questions: compiled.questions,
  ready: compiled.questions.length === 0,
  understood: compiled.understood,
  source,
});

/** The transactions of a launch, by step (null for a step not taken yet, or not needed). */
const launchTxs = z.object({ platformFee: hash.nullable(), deploy: hash.nullable(), devBuy: hash.nullable(), enroll: hash.nullable() });

/** The answer to an agent's launch (REST and MCP alike). */
export const launchedResponse = z.object({
  id: uuid,
  status,
  wallet: checksummed,
  token: checksummed,
  poolId: hash,
  charterHash: hash.nullable(),
  txs: launchTxs,
  prospectus,
});

export function launchedJson(result: Awaited<ReturnType<typeof launchAgent>>): z.infer<typeof launchedResponse> {
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

/** The public record of an agent (never its key): REST, MCP and GraphQL's `Agent`. */
export const agentResponse = z.object({
  id: uuid,
  owner: checksummed,
  wallet: checksummed,
  status,
  statusReason: z.string().nullable().describe("Why the agent is in its status (a failed launch's reason)"),
  charter: charterSchema.nullable(),
  charterHash: hash.nullable(),
  charterSource: charterSource.nullable(),
  token: checksummed.nullable(),
  poolId: hash.nullable().describe("The token's Uniswap v4 pool"),
  launch: z
    .object({
      name: z.string(),
      symbol: z.string(),
      image: z.string(),
      description: z.string(),
      devBuyEth: decimalOf("ETH"),
      attempt: z.number().int().describe("Launch attempts so far (a retry resumes where the last one stopped)"),
      txs: launchTxs,
    })
    .nullable()
    .describe("The launch's parameters and transactions, once a launch began"),
  prospectus,
  createdAt: iso,
  updatedAt: iso,
  launchedAt: iso.nullable(),
});

export type AgentView = z.infer<typeof agentResponse>;

export function agentJson(agent: Agent): AgentView {
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
