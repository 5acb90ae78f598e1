/**
 * HTTP plumbing of the agent routes: plain JSON from the exact parser's values, and the
 * dependencies the routes share. Their errors go through the service's one mapper
 * (`onHttpError`, api/http/errors.ts).
 */
import type { Context } from "hono";
import type { ZodTypeAny, z } from "zod";
import type { ReadDb } from "../read/db.js";
import type { AgentServices } from "../../core/agents/services.js";
import { ApiError } from "./errors.js";
import { JsonNumber, type JsonValue, exactDecimal } from "./json.js";
import type { RateLimitRule } from "./rate-limit.js";
import { ValidationError, readJsonBody, validate } from "./validation.js";

export const DEFAULT_AGENT_RATE_LIMITS = {
  /** Nonces and sign-ins. */
  auth: { capacity: 30, refillPerSecond: 0.5 },
  /** Agent creation and charter changes. */
  agentWrite: { capacity: 60, refillPerSecond: 1 },
  /** Launches (each may send transactions). */
  launch: { capacity: 10, refillPerSecond: 10 / 60 },
  /** Public agent reads and prospectus pages. */
  read: { capacity: 120, refillPerSecond: 2 },
} satisfies Record<string, RateLimitRule>;
export type AgentRateLimits = Record<keyof typeof DEFAULT_AGENT_RATE_LIMITS, RateLimitRule>;

export type AgentApiDeps = {
  services: AgentServices;
  /** Read access to the indexed tables (ponder's `db`), for the prospectus ledger. */
  db?: ReadDb;
  rateLimits?: Partial<AgentRateLimits>;
  now?: () => Date;
  /** Where unexpected errors are reported (never to the client). */
  logError?: (error: unknown, context: string) => void;
};

export const sessionRealm = 'Bearer realm="agents"';
export const unauthorizedSession = (message: string) => new ApiError("UNAUTHORIZED", message, { "WWW-Authenticate": sessionRealm });

/**
 * The exact parser's value as plain JSON: numbers become JS numbers only when the double is
 * exactly the decimal written (so `28.499999999999999999` is not silently read as 28.5).
 */
export function plainJson(value: JsonValue, path = "body"): unknown {
  if (value instanceof JsonNumber) {
    const n = Number(value.text);
    const same = (a: string, b: string) => {
      const x = exactDecimal(a);
      const y = exactDecimal(b);
      const norm = (d: typeof x) => {
        let digits = d.digits;
        let scale = d.scale;
        while (digits !== 0n && digits % 10n === 0n) {
          digits /= 10n;
          scale -= 1;
        }
        return digits === 0n ? "0" : `${d.negative ? "-" : ""}${digits}e${-scale}`;
      };
      return norm(x) === norm(y);
    };
    if (!Number.isFinite(n) || !same(value.text, String(n))) throw new ValidationError(`${path}: the number ${value.text} cannot be represented exactly`);
    return n;
  }
  if (Array.isArray(value)) return value.map((v, i) => plainJson(v, `${path}[${i}]`));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: plainJson(v, path === "body" ? k : `${path}.${k}`), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return value;
}

/** The JSON body, exactly parsed and size-limited, validated against `schema` (400 naming the field otherwise). */
export async function jsonBody<S extends ZodTypeAny>(c: Context, schema: S): Promise<z.output<S>> {
  return validate(schema, plainJson(await readJsonBody(c)), "body");
}
