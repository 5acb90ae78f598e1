/**
 * Sign-In with Ethereum routes and the session guard of the agent endpoints.
 *
 *   GET  /auth/nonce   → { nonce, expiresAt }            single use, valid 5 minutes
 *   POST /auth/verify  { message, signature } → { token, address, chainId, expiresAt }
 *   POST /auth/logout  (Authorization: Bearer <token>) → 204
 *
 * Verify checks the message's domain and URI (the configured public origin, PUBLIC_URL: never
 * the request's Host or X-Forwarded-* headers, which a relaying site controls), chain ID, version and times,
 * that the nonce is one we issued, unused and unexpired, and the signature through the chain
 * (viem's `verifySiweMessage`: ECDSA for accounts, ERC-1271 / ERC-6492 for smart-contract
 * wallets). Every rejection is a 401 with its reason; only then is the nonce consumed.
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { type Hex, isHex } from "viem";
import { z } from "zod";
import { classifyError } from "../../core/errors.js";
import { RateLimiter, rateLimit } from "../http/rate-limit.js";
import { onHttpError } from "../http/errors.js";
import { type AgentApiDeps, DEFAULT_AGENT_RATE_LIMITS, jsonBody, unauthorizedSession } from "../http/agent-api.js";
import { type Session, consumeNonce, createSession, findSession, issueNonce, nonceState, revokeSession } from "./sessions.js";
import { checkSiweMessage, expectationsFor, sessionExpiry } from "./siwe.js";
import { type RouteDoc, errorAnswer, jsonAnswer } from "../openapi/route-doc.js";

export type SessionEnv = { Variables: { session: Session } };

export const verifyBody = z
  .object({
    message: z.string().min(1, "message must not be empty").max(4096, "message must be at most 4096 characters"),
    signature: z
      .string()
      .max(100_000, "signature too long")
      .refine((v) => isHex(v) && v.length > 2, "signature must be 0x-prefixed hex"),
  })
  .strict();

const bearer = (c: Context) => /^Bearer\s+([A-Za-z0-9_-]{20,200})\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];

/** Requires a live session; sets `session`. */
export function requireSession(deps: AgentApiDeps): MiddlewareHandler<SessionEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (!header) throw unauthorizedSession("sign in first: Authorization: Bearer <session token> (GET /api/v1/auth/nonce, POST /api/v1/auth/verify)");
    const token = bearer(c);
    if (!token) throw unauthorizedSession("expected Authorization: Bearer <session token>");
    await deps.services.ready();
    const session = await findSession(deps.services.pool, token, deps.now?.() ?? new Date());
    if (!session) throw unauthorizedSession("invalid or expired session: sign in again");
    c.set("session", session);
    await next();
  };
}

const iso = z.string().datetime().describe("ISO-8601 timestamp");
const checksummed = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .describe("EIP-55 checksummed address");

/** The OpenAPI entries of these routes (assembled by api/openapi/document.ts). */
export const AUTH_ROUTE_DOCS: RouteDoc[] = [
  {
    method: "get",
    path: "/auth/nonce",
    tags: ["auth"],
    summary: "A Sign-In with Ethereum nonce",
    description:
      "Crypto-random, single use, valid 5 minutes; with the domain, URI origin and chain id the EIP-4361 message must carry (the service's configured public origin, whatever Host the request came with).",
    responses: {
      200: jsonAnswer("A fresh nonce", z.object({ nonce: z.string(), expiresAt: iso, domain: z.string(), uri: z.string(), chainId: z.number().int() })),
      429: errorAnswer("Rate limited", ["RATE_LIMITED"]),
      503: errorAnswer("The database is unavailable", ["DATABASE_UNAVAILABLE"]),
    },
  },
  {
    method: "post",
    path: "/auth/verify",
    tags: ["auth"],
    summary: "Sign in: a signed EIP-4361 message for a bearer session",
    description:
      "Checks the domain, URI, chain id, version, times and the nonce (issued here, unused, unexpired), then the signature (ECDSA, ERC-1271 or ERC-6492).",
    request: { body: { required: true, content: { "application/json": { schema: verifyBody } } } },
    responses: {
      200: jsonAnswer(
        "Signed in",
        z.object({ token: z.string().describe("Bearer session token"), address: checksummed, chainId: z.number().int(), expiresAt: iso }),
      ),
      400: errorAnswer("Malformed body", ["BAD_REQUEST"]),
      401: errorAnswer("Rejected: the reason (domain, nonce, expiry, signature …)", ["UNAUTHORIZED"]),
      503: errorAnswer("The chain or database is unavailable", ["DATABASE_UNAVAILABLE", "CHAIN_UNAVAILABLE"]),
    },
  },
  {
    method: "post",
    path: "/auth/logout",
    tags: ["auth"],
    summary: "Sign out: revoke the session",
    auth: "session",
    responses: { 204: { description: "Session revoked" }, 401: errorAnswer("No valid session", ["UNAUTHORIZED"]) },
  },
];

export function authRoutes(deps: AgentApiDeps): Hono {
  const app = new Hono();
  app.onError(onHttpError(deps));
  const limits = { ...DEFAULT_AGENT_RATE_LIMITS, ...deps.rateLimits };
  const limited = rateLimit(new RateLimiter(limits.auth, { name: "auth" }));
  const now = () => deps.now?.() ?? new Date();

  app.get("/auth/nonce", limited, async (c) => {
    await deps.services.ready();
    const { nonce, expiresAt } = await issueNonce(deps.services.pool, now());
    c.header("Cache-Control", "no-store");
    const { publicUrl, chainId } = deps.services.config;
    return c.json({ nonce, expiresAt: expiresAt.toISOString(), domain: publicUrl.host, uri: publicUrl.origin, chainId });
  });

  app.post("/auth/verify", limited, async (c) => {
    const body = await jsonBody(c, verifyBody);
    const { pool, config, publicClient } = deps.services;
    await deps.services.ready();
    const at = now();
    const checked = checkSiweMessage(body.message, expectationsFor(config.publicUrl, config.chainId, at));
    if (!checked.ok) throw unauthorizedSession(checked.reason);
    const message = checked.message;
    const state = await nonceState(pool, message.nonce, at);
    if (state === "unknown") throw unauthorizedSession("unknown nonce: get one from GET /api/v1/auth/nonce");
    if (state === "used") throw unauthorizedSession("nonce already used");
    if (state === "expired") throw unauthorizedSession("nonce expired: get a new one");
    let valid = false;
    try {
      valid = await publicClient.verifySiweMessage({ message: body.message, signature: body.signature as Hex, time: at });
    } catch (error) {
      // An unreachable chain is not a bad signature.
      const e = classifyError(error);
      if (e.retryable) throw e;
      valid = false;
    }
    if (!valid) throw unauthorizedSession("invalid signature");
    if (!(await consumeNonce(pool, message.nonce, message.address, at))) throw unauthorizedSession("nonce already used");
    const expiresAt = sessionExpiry(message, at);
    const token = await createSession(pool, { address: message.address, chainId: message.chainId, nonce: message.nonce, expiresAt });
    c.header("Cache-Control", "no-store");
    return c.json({ token, address: message.address, chainId: message.chainId, expiresAt: expiresAt.toISOString() });
  });

  app.post("/auth/logout", limited, requireSession(deps), async (c) => {
    await revokeSession(deps.services.pool, bearer(c)!);
    return c.body(null, 204);
  });
  return app;
}
