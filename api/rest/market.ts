/**
 * What a dashboard charts, under the same names as in GraphQL: a token's pool candles
 * (GET /tokens/:token/candles), its supply, market cap and volume (GET /tokens/:token/market),
 * and its burns valued at the price of their moment (GET /burns/:token). Every amount is an
 * exact decimal string in whole units with `<name>Raw` beside it in base units (a string of
 * digits); each figure's unit is in the schema's descriptions.
 */
import type { Hex } from "viem";
import { z } from "zod";
import type { ApiDeps } from "../deps.js";
import { badRequest, notFound } from "../http/errors.js";
import { listBurns } from "../read/burns.js";
import { currencyInfos } from "../read/fees.js";
import { checksum, isoTime } from "../read/format.js";
import { listBody } from "../read/keyset.js";
import {
  CANDLE_PERIODS,
  DEFAULT_CANDLES,
  MAX_CANDLES,
  burnValueFigures,
  burnValues,
  candleFigures,
  listCandles,
  marketFigures,
  marketView,
  poolVolumes,
} from "../read/market.js";
import { BURN_VALUE_FIGURES, CANDLE_FIGURES, MARKET_FIGURES, SWAP_COUNTS, currencySchema, figureSchemas } from "../views/market.js";
import { json } from "../../common/edge.js";
import { type TokenView, getTokens } from "../read/tokens.js";
import { burnSchema, burnView } from "../views/burn.js";
import { viewJson } from "../views/view.js";
import { defineRoute, respond } from "./route.js";
import { integerParam, pageQuery, tokenParam } from "./schemas.js";

// ------------------------------------------------------------------ schemas

const { checksummed, hash } = json;

/** A period's swaps, and those left out of its USDC volume. */
const swapCounts = {
  unpricedSwaps: z.number().int().describe(SWAP_COUNTS.unpricedSwaps),
  swaps: z.number().int().describe(SWAP_COUNTS.swaps),
};

export const candleItem = z
  .object({ start: z.string().datetime().describe("Bucket start (UTC), ISO-8601"), ...figureSchemas(CANDLE_FIGURES), ...swapCounts })
  .strict();

export const candlesResponse = z
  .object({
    token: checksummed,
    poolId: hash,
    pairedToken: currencySchema.describe("The currency prices and volumePaired are in"),
    period: z.enum(CANDLE_PERIODS),
    items: z.array(candleItem).describe("Oldest first; buckets without a swap have no candle"),
  })
  .strict();

export const marketResponse = z
  .object({
    token: checksummed,
    poolId: hash.nullable(),
    pairedToken: currencySchema.nullable(),
    ...figureSchemas(MARKET_FIGURES),
    ...swapCounts,
  })
  .strict();

/** A burn (api/views/burn.ts), valued at the price of its moment. */
export const burnItem = burnSchema.extend(figureSchemas(BURN_VALUE_FIGURES));

export const burnsResponse = z.object({ pairedToken: currencySchema.nullable(), items: z.array(burnItem), nextCursor: z.string().nullable() }).strict();

/** Unix seconds from an ISO-8601 time or a count of seconds. */
export const time = z
  .string()
  .max(40)
  .transform((v, ctx) => {
    if (/^\d{1,12}$/.test(v)) return BigInt(v);
    const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(v) ? Date.parse(v) : Number.NaN;
    if (!Number.isFinite(ms) || ms < 0) {
      ctx.addIssue({ code: "custom", message: "expected an ISO-8601 time (2025-01-31T00:00:00Z) or unix seconds" });
      return z.NEVER;
    }
    return BigInt(Math.floor(ms / 1000));
  });

export const candlesQuery = z.object({
  period: z.enum(CANDLE_PERIODS).default("hour").describe("Bucket length: hour or day (UTC)"),
  from: time.optional().describe("Buckets starting at or after this time (ISO-8601 or unix seconds)"),
  to: time.optional().describe("Buckets starting before this time (ISO-8601 or unix seconds)"),
  limit: integerParam(
    z
      .string()
      .regex(/^\d{1,4}$/, `expected an integer from 1 to ${MAX_CANDLES}`)
      .transform(Number)
      .refine((n) => n >= 1 && n <= MAX_CANDLES, `expected an integer from 1 to ${MAX_CANDLES}`)
      .default(String(DEFAULT_CANDLES))
      .describe(`At most this many candles, the latest in the range; 1 to ${MAX_CANDLES}`),
    { minimum: 1, maximum: MAX_CANDLES, default: DEFAULT_CANDLES },
  ),
});

// ------------------------------------------------------------------ JSON

/** Raw bigints as strings of digits; everything else as it is. */
function rawAsText<T extends Record<string, unknown>>(
  o: T,
): { [K in keyof T]: T[K] extends bigint ? string : T[K] extends bigint | null ? string | null : T[K] } {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : v])) as never;
}

async function tokenOr404(deps: ApiDeps, address: Hex): Promise<TokenView> {
  const [view] = await getTokens(deps.db, [address]);
  if (!view) throw notFound(`unknown token ${checksum(address)}`);
  return view;
}

async function pairedOf(deps: ApiDeps, view: TokenView) {
  if (!view.pool) return null;
  const infos = await currencyInfos(deps.db, deps.config, [view.pool.pairedToken]);
  const info = infos.get(view.pool.pairedToken.toLowerCase())!;
  return { address: info.address, symbol: info.symbol, decimals: info.decimals };
}

// ------------------------------------------------------------------ routes

export const candlesRoute = defineRoute({
  method: "get",
  path: "/tokens/:token/candles",
  tag: "market",
  summary: "Price candles of the token's pool by hour or day, oldest first",
  description: "Open, high, low and close in the paired currency per whole token, with the volume in tokens, in the paired currency and in USDC.",
  params: tokenParam,
  query: candlesQuery,
  responses: { 200: { description: "The pool's candles", schema: candlesResponse }, 404: { description: "Not a launched token, or its pool not indexed" } },
  handler: async (c, { params, query }, deps) => {
    if (query.from !== undefined && query.to !== undefined && query.from >= query.to) throw badRequest("from: must be before to");
    const view = await tokenOr404(deps, params.token);
    if (!view.pool) throw notFound(`the pool of ${checksum(params.token)} is not indexed yet`);
    const paired = (await pairedOf(deps, view))!;
    const rows = await listCandles(deps.db, view.pool.poolId, query.period, { from: query.from, to: query.to, limit: query.limit });
    return respond(c, candlesResponse, {
      token: checksum(view.token.address),
      poolId: view.pool.poolId,
      pairedToken: paired,
      period: query.period,
      items: rows.map((r) => {
        const f = candleFigures(r, paired);
        return { ...rawAsText(f), start: isoTime(f.start) };
      }),
    });
  },
});

export const marketRoute = defineRoute({
  method: "get",
  path: "/tokens/:token/market",
  tag: "market",
  summary: "The token's supply, burned and circulating tokens, price, market cap and volume (in tokens, paired currency and USDC)",
  params: tokenParam,
  responses: { 200: { description: "The token's market figures", schema: marketResponse }, 404: { description: "Not a launched token" } },
  handler: async (c, { params }, deps) => {
    const view = await tokenOr404(deps, params.token);
    const [paired, volumes] = await Promise.all([pairedOf(deps, view), poolVolumes(deps.db, view.pool ? [view.pool.poolId] : [])]);
    const m = marketView(deps.config, view, view.pool ? volumes.get(view.pool.poolId.toLowerCase()) : undefined);
    return respond(c, marketResponse, {
      token: checksum(view.token.address),
      poolId: m.poolId,
      pairedToken: paired,
      ...rawAsText(marketFigures(m, paired)),
    });
  },
});

export const tokenBurnsRoute = defineRoute({
  method: "get",
  path: "/burns/:token",
  tag: "market",
  summary: "Burns of one token, newest first, each valued at the price of its moment (in the paired currency and in USDC)",
  params: tokenParam,
  query: pageQuery,
  responses: { 200: { description: "A page of burns", schema: burnsResponse }, 404: { description: "Not a launched token" } },
  handler: async (c, { params, query }, deps) => {
    const view = await tokenOr404(deps, params.token);
    const page = await listBurns(deps.db, { filter: { token: params.token }, order: "NEWEST", limit: query.limit, after: query.cursor });
    const [paired, values] = await Promise.all([pairedOf(deps, view), burnValues(deps.db, page.rows)]);
    return respond(c, burnsResponse, {
      pairedToken: paired,
      ...listBody(page, (r) => ({ ...viewJson(burnView, r), ...rawAsText(burnValueFigures(values.get(r.id) ?? null, paired)) })),
    });
  },
});
