/**
 * Per-client rate limits: a token bucket per client and rule. A refused request gets 429
 * with `Retry-After`; every answer carries `RateLimit-Limit` and `RateLimit-Remaining`.
 *
 * Where the buckets live: with a shared store installed on the app (`useRateLimitStore`,
 * PostgreSQL in production — see rate-limit-postgres.ts) every API replica takes from the
 * same bucket, so a client split across replicas is limited as one; without one (tests, no
 * database) each process keeps its buckets in memory. The in-memory bucket is also the
 * store's insurance while PostgreSQL cannot be reached.
 *
 * A token bucket rather than rate-limiter-flexible's fixed windows (its store, its table and
 * its insurance are used, its counting is not): with the same burst and average rate, a
 * window lets a client through twice the burst across a window boundary and refuses a client
 * that spent its burst until the window ends (Retry-After up to a minute instead of the next
 * token's 0.5 s), and its `BurstyRateLimiter` recipe raises the sustained rate to almost
 * twice the refill. Each would change the documented limits.
 */
import type { Context, MiddlewareHandler } from "hono";
import { tooManyRequests } from "./errors.js";

export type RateLimitRule = {
  /** Burst size: requests a fresh client may make at once. */
  capacity: number;
  /** Sustained rate. */
  refillPerSecond: number;
};

/** Defaults: public reads, GraphQL (each query also cost-limited), and the operator's launch routes. */
export const DEFAULT_RATE_LIMITS = {
  read: { capacity: 120, refillPerSecond: 2 },
  graphql: { capacity: 60, refillPerSecond: 1 },
  /** SQL over HTTP (/sql/db): each query may scan a table, so fewer than reads. */
  sql: { capacity: 30, refillPerSecond: 0.5 },
  write: { capacity: 5, refillPerSecond: 5 / 60 },
} satisfies Record<string, RateLimitRule>;

export type RateLimits = Record<keyof typeof DEFAULT_RATE_LIMITS, RateLimitRule>;

/** Every rule's burst and refill multiplied by `scale` (RATE_LIMIT_SCALE: load tests raise it). */
export function scaleRateLimits<T extends Record<string, RateLimitRule>>(limits: T, scale: number): T {
  return Object.fromEntries(
    Object.entries(limits).map(([name, rule]) => [name, { capacity: rule.capacity * scale, refillPerSecond: rule.refillPerSecond * scale }]),
  ) as T;
}

/** One take from a bucket: the whole tokens left, or how long until the next one. */
export type TakeResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

/** Clients remembered at once; the least recently seen is forgotten first. */
const MAX_CLIENTS = 100_000;

export class RateLimiter {
  /**
   * Names the limiter's buckets in a shared store: the same name on every replica means the
   * same buckets. Unnamed limiters are named after their rule, so limiters with the same rule
   * share a client's bucket there.
   */
  readonly name: string;
  /**
   * The routes behind this limiter only read (no side effects): with a shared store, the take
   * runs alongside the handler instead of before it, so its round trip adds no latency; a
   * refused request's answer is discarded for the 429. Streams (server-sent events) still
   * wait for the take first.
   */
  readonly overlap: boolean;
  private readonly now: () => number;
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly rule: RateLimitRule,
    options: { name?: string; overlap?: boolean; now?: () => number } | (() => number) = {},
  ) {
    const o = typeof options === "function" ? { now: options } : options;
    this.now = o.now ?? Date.now;
    this.name = o.name ?? `${rule.capacity}/${rule.refillPerSecond}`;
    this.overlap = o.overlap ?? false;
  }

  /** Takes one token for `client` from this process's own bucket. */
  take(client: string): TakeResult {
    const now = this.now();
    const previous = this.buckets.get(client);
    const refilled = previous ? Math.min(this.rule.capacity, previous.tokens + ((now - previous.at) / 1000) * this.rule.refillPerSecond) : this.rule.capacity;
    this.buckets.delete(client); // re-inserted below: Map order is recency
    if (refilled < 1) {
      this.buckets.set(client, { tokens: refilled, at: now });
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - refilled) / this.rule.refillPerSecond)) };
    }
    this.buckets.set(client, { tokens: refilled - 1, at: now });
    if (this.buckets.size > MAX_CLIENTS) this.buckets.delete(this.buckets.keys().next().value!);
    return { ok: true, remaining: Math.floor(refilled - 1) };
  }
}

/** Buckets shared by every API replica: one take is one round trip to the store. */
export interface RateLimitStore {
  take(limiter: RateLimiter, client: string): Promise<TakeResult>;
  /** Seconds before `client` may try again, when this process already knows it is refused (else 0); no round trip. */
  refusedFor?(limiter: RateLimiter, client: string): number;
}

const STORE = "rateLimitStore";

/**
 * Makes every `rateLimit` middleware after it on this app take from `store` instead of its
 * process's memory (sub-apps mounted later included).
 */
export function useRateLimitStore(store: RateLimitStore): MiddlewareHandler {
  return async (c, next) => {
    c.set(STORE, store);
    await next();
  };
}

const IPV4_PRIVATE = [/^127\./, /^10\./, /^192\.168\./, /^172\.(1[6-9]|2\d|3[01])\./, /^169\.254\./];

/** Loopback and private addresses: peers that may be our own reverse proxy. */
export function isTrustedProxy(address: string): boolean {
  const a = address.replace(/^::ffff:/i, "");
  if (IPV4_PRIVATE.some((re) => re.test(a))) return true;
  const lower = a.toLowerCase();
  return lower === "::1" || lower.startsWith("fc") || lower.startsWith("fd") || lower.startsWith("fe80:");
}

/**
 * Who is asking: the TCP peer, or — when the peer is a loopback/private proxy — the nearest
 * untrusted address of `X-Forwarded-For` (so a client cannot choose its own bucket by
 * prepending addresses). In-process requests (tests) have no peer and are treated as proxied.
 */
export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  const peer = env?.incoming?.socket?.remoteAddress;
  if (peer !== undefined && !isTrustedProxy(peer)) return peer;
  const forwarded = (c.req.header("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = forwarded.length - 1; i >= 0; i--) if (!isTrustedProxy(forwarded[i]!)) return forwarded[i]!;
  return forwarded[0] ?? peer ?? "local";
}

/**
 * Sets a header of the answer in place once the handler has answered: hono's `c.header` then
 * copies the whole Response (and its body into a stream) on every call. Headers that cannot be
 * changed in place (a fetched Response's) fall back to `c.header`.
 */
function setHeader(c: Context, name: string, value: string): void {
  if (!c.finalized) {
    c.header(name, value);
    return;
  }
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

export function rateLimit(limiter: RateLimiter): MiddlewareHandler {
  return async (c, next) => {
    const client = clientAddress(c);
    const store = c.get(STORE) as RateLimitStore | undefined;
    const refuse = (retryAfterSeconds: number) => {
      c.header("RateLimit-Limit", String(limiter.rule.capacity));
      c.header("RateLimit-Remaining", "0");
      return tooManyRequests(retryAfterSeconds);
    };
    const allow = (remaining: number) => {
      setHeader(c, "RateLimit-Limit", String(limiter.rule.capacity));
      setHeader(c, "RateLimit-Remaining", String(remaining));
    };
    if (store && limiter.overlap && !/event-stream|multipart/i.test(c.req.header("accept") ?? "")) {
      const known = store.refusedFor?.(limiter, client) ?? 0;
      if (known > 0) throw refuse(known);
      const taking = store.take(limiter, client);
      taking.catch(() => {}); // awaited below, after the handler
      await next();
      const result = await taking;
      if (!result.ok) {
        // The handler's answer, headers included, gives way to the 429.
        void c.res.body?.cancel().catch(() => {});
        for (const name of [...c.res.headers.keys()]) c.header(name, undefined);
        throw refuse(result.retryAfterSeconds);
      }
      allow(result.remaining);
      return;
    }
    const result = store ? await store.take(limiter, client) : limiter.take(client);
    if (!result.ok) throw refuse(result.retryAfterSeconds);
    allow(result.remaining);
    await next();
  };
}
