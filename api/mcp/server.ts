/**
 * The MCP server (Model Context Protocol, Streamable HTTP) at `/mcp`, with the official SDK
 * (docs/design.md §7.2, docs/api.md "MCP"). Stateless: each POST builds a server over the
 * same dependencies as REST and answers in JSON; there is no server-sent stream (GET and DELETE
 * answer 405).
 *
 * Read tools, for anyone: `stats`, `token` (a token's page data), `burns` (with the filters
 * GraphQL has), `fee_flow` and `audit_status`. They call the same reads as the REST routes
 * (api/read/*), so the answers are the same figures: exact decimals in whole units with base
 * units beside them (the page data is in base units).
 *
 * Creator tools, for a signed-in creator (the REST agent routes' Sign-In with Ethereum session,
 * `Authorization: Bearer <session token>` on the MCP request): `create_agent`, `agent`,
 * `charter_default`, `charter_submit`, `charter_chat` and `launch`, through the same core
 * functions as `/api/v1/agents/…`. A refusal is a tool error whose text is the REST body
 * `{ "error", "code" }`.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Context } from "hono";
import { type Address, type Hex, getAddress, isAddress } from "viem";
import { z } from "zod";
import { MissingConfigError } from "../../common/config.js";
import { toJsonValue } from "../../common/json.js";
import { charterSchema, defaultCharter } from "../../core/agents/charter.js";
import { type Agent, createAgent, getAgent, getAgentByToken, setCharter } from "../../core/agents/store.js";
import { Refusal } from "../../core/errors.js";
import { launchAgent } from "../../core/launch/agent.js";
import {
  agentJson,
  agentLaunchBody,
  agentResponse,
  charterJson,
  charterResponse,
  chatBody,
  chatJson,
  chatResponse,
  launchedJson,
  launchedResponse,
} from "../views/agent.js";
import { findSession } from "../auth/sessions.js";
import type { ApiDeps } from "../deps.js";
import { methodNotAllowed, notConfigured, notFound, toHttpError } from "../http/errors.js";
import { unauthorizedSession as unauthorized } from "../http/agent-api.js";
import { loadProspectus, loadTokenProspectus } from "../read/prospectus.js";
import { type BURN_ORDERINGS, listBurns } from "../read/burns.js";
import { BURN_KINDS } from "../../common/activity.js";
import { TOKEN_REPORTS, type TokenReport } from "../views/trust.js";
import { checksum } from "../read/format.js";
import { listBody } from "../read/keyset.js";
import { burnSchema, burnView } from "../views/burn.js";
import { viewJson } from "../views/view.js";
import { readStats } from "../read/stats.js";
import { statsJson } from "../views/stats.js";
import { knownToken } from "../read/tokens.js";

/** Largest MCP request body. */
export const MAX_MCP_BODY_BYTES = 64 * 1024;

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte hex address")
  .describe("0x-prefixed 20-byte address");
const agentId = z.string().uuid().describe("The agent id (UUID)");
const blockNumber = z.number().int().min(0).describe("Block number");
const unixTime = z.number().int().min(0).describe("Unix time in seconds");

/** The session behind an MCP request, as the SDK hands it to a tool. */
type Creator = { address: Address };

/** What a tool answers: its JSON as text (bigints as decimal strings), or `{ error, code }` as a tool error. */
type ToolBody = Promise<unknown>;

function valid(token: string): Hex {
  if (!isAddress(token)) throw new Refusal("invalid", "expected a 0x-prefixed 20-byte hex address with a valid checksum");
  return token.toLowerCase() as Hex;
}

const BURN_TOOL_INPUT = {
  token: address.optional().describe("Only burns of this token"),
  kinds: z
    .array(z.enum(BURN_KINDS))
    .optional()
    .describe(`Only these kinds: ${BURN_KINDS.join(", ")}`),
  fromBlock: blockNumber.optional(),
  toBlock: blockNumber.optional().describe("Last block, included"),
  fromTime: unixTime.optional(),
  toTime: unixTime.optional().describe("End time, excluded"),
  order: z.enum(["NEWEST", "OLDEST", "LARGEST"]).default("NEWEST"),
  limit: z.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional().describe("nextCursor of the previous page"),
};

/** The burns tool's answer: a page of burns as every surface writes them (api/views/burn.ts). */
const BURN_TOOL_OUTPUT = z.object({ items: z.array(burnSchema), nextCursor: z.string().nullable() }).strict();

/** Builds the server for one request: the read tools, and the creator tools (which need the request's session). */
export function mcpServer(deps: ApiDeps, creator: Creator | undefined, report: (error: unknown) => void): McpServer {
  const server = new McpServer({ name: "tithe-launchpad", version: "0.1.0" }, { capabilities: { tools: {} } });

  /** A tool; with `output` (a view's schema), its answer is also structured content the client can check against it. */
  const tool = <S extends z.ZodRawShape>(
    name: string,
    description: string,
    input: S,
    run: (args: z.objectOutputType<S, z.ZodTypeAny>) => ToolBody,
    readOnly = true,
    output?: z.ZodObject<z.ZodRawShape>,
  ) =>
    server.registerTool(
      name,
      { description, inputSchema: input, outputSchema: output?.shape, annotations: { readOnlyHint: readOnly, openWorldHint: false } },
      (async (args: z.objectOutputType<S, z.ZodTypeAny>): Promise<CallToolResult> => {
        try {
          const body = toJsonValue(await run(args));
          return { content: [{ type: "text", text: JSON.stringify(body) }], ...(output ? { structuredContent: body as Record<string, unknown> } : {}) };
        } catch (error) {
          const e = toHttpError(error);
          if (e.unexpected) report(error);
          return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: e.message, code: e.code }) }] };
        }
      }) as never,
    );

  // ------------------------------------------------------------------ read tools

  tool(
    "stats",
    "Protocol totals: fees per currency and in USDC, the legs, buybacks, burns, pending accumulators, a fixed-size summary of the open desks (exact decimals; every desk: GET /api/v1/desks).",
    {},
    async () => statsJson(await readStats(deps)),
  );

  tool(
    "token",
    "A token's page data, as its prospectus page shows it: the token, its enrolment and split (honoured by the locker), the agent and mandate if an agent launched it, its ledger (fees, buybacks, burns, desk; amounts in base units) and the agent log.",
    { token: address },
    async ({ token }) => {
      const hex = valid(token);
      const services = deps.agents?.services;
      if (!services) throw notConfigured("the agent flow's database is not configured (DATABASE_URL)");
      await services.ready();
      const agent = await getAgentByToken(services.pool, getAddress(hex));
      const data = agent ? await loadProspectus(services, deps.db, agent) : await loadTokenProspectus(services, deps.db, getAddress(hex));
      if (!data) throw notFound(`unknown token ${checksum(hex)}`);
      return { ...data, agent: data.agent ? agentJson(data.agent) : null, now: data.now.toISOString() };
    },
  );

  tool(
    "burns",
    "Burns (transfers of a launched token to 0x…dEaD), with the filters GraphQL has: token, kinds, block range, time range; a page of at most 200 with a cursor.",
    BURN_TOOL_INPUT,
    async (a) => {
      const page = await listBurns(deps.db, {
        filter: {
          token: a.token ? valid(a.token) : undefined,
          kinds: a.kinds,
          fromBlock: a.fromBlock === undefined ? undefined : BigInt(a.fromBlock),
          toBlock: a.toBlock === undefined ? undefined : BigInt(a.toBlock),
          fromTime: a.fromTime === undefined ? undefined : BigInt(a.fromTime),
          toTime: a.toTime === undefined ? undefined : BigInt(a.toTime),
        },
        order: a.order as keyof typeof BURN_ORDERINGS,
        limit: a.limit,
        after: a.cursor,
      });
      return listBody(page, (r) => viewJson(burnView, r)) satisfies z.input<typeof BURN_TOOL_OUTPUT>;
    },
    true,
    BURN_TOOL_OUTPUT,
  );

  // A launched token's reports (api/views/trust.ts), each with its schema as the tool's output.
  for (const report of TOKEN_REPORTS as readonly TokenReport[])
    tool(
      report.tool,
      `${report.summary} (GET /api/v1/tokens/{token}/${report.path}).`,
      { token: address },
      async ({ token }) => {
        const hex = valid(token);
        await knownToken(deps, hex);
        return report.read(deps, hex);
      },
      true,
      report.schema,
    );

  // ------------------------------------------------------------------ creator tools

  const services = () => {
    const s = deps.agents?.services;
    if (!s) throw notConfigured("the agent flow's database is not configured (DATABASE_URL)");
    return s;
  };
  const signedIn = (): Creator => {
    if (!creator)
      throw unauthorized("sign in first: send the MCP requests with Authorization: Bearer <session token> (GET /api/v1/auth/nonce, POST /api/v1/auth/verify)");
    return creator;
  };
  async function owned(id: string): Promise<Agent> {
    const who = signedIn();
    const s = services();
    await s.ready();
    const agent = await getAgent(s.pool, id);
    if (!agent) throw new Refusal("not-found", `no agent ${id}`);
    if (agent.owner !== getAddress(who.address)) throw new Refusal("forbidden", "only the agent's owner may do this");
    return agent;
  }
  const defaults = () => defaultCharter({ buybackMinUsdc: services().config.creatorBuybackMinUsdc });

  tool(
    "create_agent",
    "Create an agent (and its wallet, whose key stays on the server) for the signed-in creator. Fund the wallet before launching.",
    {},
    async () => {
      const who = signedIn();
      const s = services();
      if (!s.config.agentKeySecret) throw new MissingConfigError("AGENT_KEY_SECRET");
      await s.ready();
      const agent = await createAgent(s.pool, { owner: who.address, secret: s.config.agentKeySecret });
      return { id: agent.id, wallet: agent.wallet, owner: agent.owner, status: agent.status };
    },
    false,
  );

  tool(
    "agent",
    "One of the signed-in creator's agents: its charter, status, wallet, token and launch transactions.",
    { agentId },
    async ({ agentId: id }) => agentJson(await owned(id)),
    true,
    agentResponse,
  );

  tool(
    "charter_default",
    "Adopt the default charter for an agent (before its launch begins).",
    { agentId },
    async ({ agentId: id }) => {
      const agent = await owned(id);
      return charterJson(await setCharter(services().pool, agent.id, defaults(), "default"));
    },
    false,
    charterResponse,
  );

  tool(
    "charter_submit",
    "Submit a custom charter (engine, persona, mandate), validated; fixed once the launch begins.",
    { agentId, charter: z.record(z.unknown()).describe("The charter, as POST /agents/{id}/charter/submit takes it") },
    async ({ agentId: id, charter }) => {
      const agent = await owned(id);
      const parsed = charterSchema.parse(charter);
      return charterJson(await setCharter(services().pool, agent.id, parsed, "submit"));
    },
    false,
    charterResponse,
  );

  tool(
    "charter_chat",
    "Draft an agent's charter from a conversation: the draft, the questions still open, and whether it is ready.",
    {
      agentId,
      message: z.string().min(1).max(4000).optional().describe("One message"),
      messages: z
        .array(z.object({ role: z.enum(["user", "assistant", "system"]), content: z.string().max(4000) }))
        .min(1)
        .max(50)
        .optional()
        .describe("A conversation"),
    },
    async ({ agentId: id, message, messages }) => {
      const agent = await owned(id);
      const s = services();
      const conversation = chatBody.parse(message === undefined ? { messages } : { message, ...(messages ? { messages } : {}) });
      const compiled = await s.compiler.compile(conversation, defaults());
      const saved = await setCharter(s.pool, agent.id, compiled.charter, "chat");
      return chatJson(saved, compiled, s.compiler.source);
    },
    false,
    chatResponse,
  );

  tool(
    "launch",
    "Launch an agent's token: checks the agent wallet's funds (naming the shortfall), pays the platform fee, deploys through the launcher, optionally dev-buys, and enrols with the charter's split and hash. A retry resumes where a failed attempt stopped.",
    {
      agentId,
      name: z.string().min(1).max(64),
      symbol: z.string().min(1).max(32),
      image: z.string().max(2048).optional(),
      description: z.string().max(2000).optional(),
      devBuyEth: z.string().max(40).optional().describe('ETH to buy at launch, exact decimal ("0.01")'),
    },
    async ({ agentId: id, ...input }) => {
      const agent = await owned(id);
      const body = agentLaunchBody.parse(input);
      const result = await launchAgent(services(), agent.id, {
        name: body.name,
        symbol: body.symbol,
        image: body.image,
        description: body.description,
        devBuyWei: body.devBuyEth,
      });
      return launchedJson(result);
    },
    false,
    launchedResponse,
  );

  return server;
}

const bearer = (header: string | undefined) => /^Bearer\s+([A-Za-z0-9_-]{20,200})\s*$/i.exec(header ?? "")?.[1];

/** The `/mcp` handler: the caller's session (when it sends one), then one stateless exchange. */
export function mcpHandler(deps: ApiDeps) {
  const report = (error: unknown) => deps.logError?.(error, "mcp");
  return async (c: Context): Promise<Response> => {
    if (c.req.method !== "POST") throw methodNotAllowed("the MCP endpoint is stateless: POST JSON-RPC messages (there is no server-sent stream)", "POST");
    const header = c.req.header("authorization");
    let creator: Creator | undefined;
    let authInfo: AuthInfo | undefined;
    if (header) {
      const token = bearer(header);
      const services = deps.agents?.services;
      if (!token || !services) throw unauthorized("expected Authorization: Bearer <session token> (GET /api/v1/auth/nonce, POST /api/v1/auth/verify)");
      await services.ready();
      const session = await findSession(services.pool, token);
      if (!session) throw unauthorized("invalid or expired session: sign in again");
      creator = { address: session.address };
      authInfo = { token, clientId: session.address, scopes: ["creator"], expiresAt: Math.floor(session.expiresAt.getTime() / 1000) };
    }
    const server = mcpServer(deps, creator, report);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { authInfo });
    } finally {
      await server.close().catch(() => {});
    }
  };
}
