/**
 * The operator API key guarding the routes that spend operator gas (`POST /tokens/launch`,
 * `POST /tokens/register`): `Authorization: Bearer <OPERATOR_API_KEY>`, compared in constant
 * time. `LEGACY_LAUNCH_OPEN=true` opens them as in the spec's unauthenticated example.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { MissingConfigError } from "../../common/config.js";
import { forbidden, unauthorized } from "../http/errors.js";

export type OperatorAuthConfig = { operatorApiKey: string | undefined; legacyLaunchOpen: boolean };

/** Equal-length digests, so neither the key's length nor its prefix leaks through timing. */
export function keysMatch(given: string, expected: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

export function requireOperatorKey(config: OperatorAuthConfig): MiddlewareHandler {
  return async (c, next) => {
    if (!config.legacyLaunchOpen) {
      if (!config.operatorApiKey) throw new MissingConfigError("OPERATOR_API_KEY");
      const header = c.req.header("authorization");
      if (!header) throw unauthorized("missing Authorization: Bearer <operator API key>");
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw unauthorized("expected Authorization: Bearer <operator API key>");
      if (!keysMatch(match[1]!, config.operatorApiKey)) throw forbidden("invalid operator API key");
    }
    await next();
  };
}
