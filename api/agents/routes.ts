/**
 * The agent endpoints (under /api/v1):
 *
 *   POST /agents                        signed in → 201 { id, wallet, owner, status }
 *   GET  /agents/:id                    public    → the agent (charter, status, wallet, token, launch)
 *   POST /agents/:id/charter/default    owner     → the default charter
 *   POST /agents/:id/charter/submit     owner     → a custom charter (the body), validated
 *   POST /agents/:id/charter/chat       owner     → { messages } → a draft charter + open questions
 *   POST /agents/:id/charter/launch     owner     → fund-checked launch → 201
 *
 * A charter is immutable once the launch has begun (409). A wallet short of funds is a 422
 * naming the shortfall; a reverted step a 502 with its reason (the agent stays retryable).
 */
import { Hono } from "hono";
import { type Address, getAddress } from "viem";
import { z } from "zod";
import { charterSchema, defaultCharter } from "../../core/agents/charter.js";
import { Refusal } from "../../core/errors.js";
import { launchAgent } from "../../core/launch/agent.js";
import { type Agent, createAgent, getAgent, setCharter } from "../../core/agents/store.js";
import { MissingConfigError } from "../../common/config.js";
import { RateLimiter, rateLimit } from "../http/rate-limit.js";
import { type SessionEnv, requireSession } from "../auth/routes.js";
import { onHttpError } from "../http/errors.js";
import { type AgentApiDeps, DEFAULT_AGENT_RATE_LIMITS, jsonBody } from "../http/agent-api.js";
import { type RouteDoc, errorAnswer, jsonAnswer } from "../openapi/route-doc.js";
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// ------------------------------------------------------------------ OpenAPI entries

const agentParams = z.object({ id: z.string().uuid().describe("The agent id (UUID)") });
const owner = {
  401: errorAnswer("No valid session", ["UNAUTHORIZED"]),
  403: errorAnswer("Not the agent's owner", ["FORBIDDEN"]),
  404: errorAnswer("No such agent", ["NOT_FOUND"]),
  409: errorAnswer("The charter is fixed: the launch has begun", ["CONFLICT"]),
};
const json = (schema: z.ZodTypeAny) => ({ required: true, content: { "application/json": { schema } } });

/** The OpenAPI entries of these routes (assembled by api/openapi/document.ts). */
export const AGENT_ROUTE_DOCS: RouteDoc[] = [
  {
    method: "post",
    path: "/agents",
    tags: ["agents"],
    summary: "Create an agent (and its wallet) for the signed-in creator",
    auth: "session",
    responses: {
      201: jsonAnswer("Created", agentResponse.pick({ id: true, wallet: true, owner: true, status: true })),
      401: errorAnswer("No valid session", ["UNAUTHORIZED"]),
      503: errorAnswer("AGENT_KEY_SECRET is not set, or the database is unavailable", ["NOT_CONFIGURED", "DATABASE_UNAVAILABLE"]),
    },
  },
  {
    method: "get",
    path: "/agents/{id}",
    tags: ["agents"],
    summary: "The public record of an agent",
    request: { params: agentParams },
    responses: {
      200: jsonAnswer("The agent (never its key)", agentResponse),
      400: errorAnswer("Not a UUID", ["BAD_REQUEST"]),
      404: errorAnswer("No such agent", ["NOT_FOUND"]),
    },
  },
  {
    method: "post",
    path: "/agents/{id}/charter/default",
    tags: ["agents"],
    summary: "Adopt the default charter",
    auth: "session",
    request: { params: agentParams },
    responses: { 200: jsonAnswer("The charter", charterResponse), ...owner },
  },
  {
    method: "post",
    path: "/agents/{id}/charter/submit",
    tags: ["agents"],
    summary: "Submit a custom charter, validated",
    auth: "session",
    request: { params: agentParams, body: json(charterSchema) },
    responses: { 200: jsonAnswer("The charter", charterResponse), 400: errorAnswer("Invalid charter", ["BAD_REQUEST"]), ...owner },
  },
  {
    method: "post",
    path: "/agents/{id}/charter/chat",
    tags: ["agents"],
    summary: "Draft a charter from a conversation",
    description: "Give `messages` (a conversation) or `message` (one text); answers the draft charter and the questions still open.",
    auth: "session",
    request: { params: agentParams, body: json(chatBody) },
    responses: {
      200: jsonAnswer("The draft charter", chatResponse),
      400: errorAnswer("Invalid messages", ["BAD_REQUEST"]),
      ...owner,
      502: errorAnswer("The charter compiler failed", ["UPSTREAM_FAILED"]),
    },
  },
  {
    method: "post",
    path: "/agents/{id}/charter/launch",
    tags: ["agents"],
    summary: "Launch the agent's token (fund-checked)",
    description:
      "Pays the platform fee from the agent wallet, deploys through the launcher, optionally dev-buys, and enrols. A retry resumes where a failed attempt stopped.",
    auth: "session",
    request: { params: agentParams, body: json(agentLaunchBody) },
    responses: {
      201: jsonAnswer("Launched", launchedResponse),
      400: errorAnswer("Invalid launch parameters", ["BAD_REQUEST"]),
      ...owner,
      422: errorAnswer("The wallet is short of funds: names the shortfall", ["UNPROCESSABLE"]),
      502: errorAnswer("A launch step reverted: the reason (the agent stays retryable)", ["CHAIN_REFUSED"]),
      503: errorAnswer("Missing configuration or the chain is unavailable", ["NOT_CONFIGURED", "DATABASE_UNAVAILABLE", "CHAIN_UNAVAILABLE"]),
    },
  },
];

export function agentRoutes(deps: AgentApiDeps): Hono<SessionEnv> {
  const app = new Hono<SessionEnv>();
  app.onError(onHttpError(deps));
  const limits = { ...DEFAULT_AGENT_RATE_LIMITS, ...deps.rateLimits };
  const write = rateLimit(new RateLimiter(limits.agentWrite, { name: "agent-write" }));
  const launching = rateLimit(new RateLimiter(limits.launch, { name: "agent-launch" }));
  const read = rateLimit(new RateLimiter(limits.read, { name: "agent-read", overlap: true }));
  const session = requireSession(deps);
  const s = deps.services;

  async function load(id: string): Promise<Agent> {
    if (!UUID.test(id)) throw new Refusal("invalid", "expected an agent id (a UUID)");
    await s.ready();
    const agent = await getAgent(s.pool, id);
    if (!agent) throw new Refusal("not-found", `no agent ${id}`);
    return agent;
  }
  async function owned(id: string, caller: Address): Promise<Agent> {
    const agent = await load(id);
    if (agent.owner !== getAddress(caller)) throw new Refusal("forbidden", "only the agent's owner may do this");
    return agent;
  }
  const defaults = () => defaultCharter({ buybackMinUsdc: s.config.creatorBuybackMinUsdc });

  app.post("/agents", write, session, async (c) => {
    if (!s.config.agentKeySecret) throw new MissingConfigError("AGENT_KEY_SECRET");
    await s.ready();
    const agent = await createAgent(s.pool, { owner: c.get("session").address, secret: s.config.agentKeySecret });
    return c.json({ id: agent.id, wallet: agent.wallet, owner: agent.owner, status: agent.status }, 201);
  });

  app.get("/agents/:id", read, async (c) => c.json(agentJson(await load(c.req.param("id")))));

  app.post("/agents/:id/charter/default", write, session, async (c) => {
    const agent = await owned(c.req.param("id"), c.get("session").address);
    return c.json(charterJson(await setCharter(s.pool, agent.id, defaults(), "default")));
  });

  app.post("/agents/:id/charter/submit", write, session, async (c) => {
    const agent = await owned(c.req.param("id"), c.get("session").address);
    const charter = await jsonBody(c, charterSchema);
    return c.json(charterJson(await setCharter(s.pool, agent.id, charter, "submit")));
  });

  app.post("/agents/:id/charter/chat", write, session, async (c) => {
    const agent = await owned(c.req.param("id"), c.get("session").address);
    const messages = await jsonBody(c, chatBody);
    const compiled = await s.compiler.compile(messages, defaults());
    const saved = await setCharter(s.pool, agent.id, compiled.charter, "chat");
    return c.json(chatJson(saved, compiled, s.compiler.source));
  });

  app.post("/agents/:id/charter/launch", launching, session, async (c) => {
    const agent = await owned(c.req.param("id"), c.get("session").address);
    const body = await jsonBody(c, agentLaunchBody);
    const result = await launchAgent(s, agent.id, {
      name: body.name,
      symbol: body.symbol,
      image: body.image,
      description: body.description,
      devBuyWei: body.devBuyEth,
    });
    return c.json(launchedJson(result), 201);
  });
  return app;
}
