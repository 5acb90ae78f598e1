/**
 * The REST shim's zod schemas: requests (validated at runtime) and responses (documented, and
 * checked by the tests). The OpenAPI document is generated from these.
 */
import { type Hex, isAddress } from "viem";
import { z } from "zod";
import { CONFIGURABLE_BPS, DEFAULT_SPLIT } from "../../common/constants.js";
import { formatDecimal } from "../../common/money.js";
import { textField, textProblem } from "../../common/text.js";
import { SERVICE_ERROR_CODES } from "../../core/errors.js";
import { ERROR_STATUS } from "../http/errors.js";
import { JsonNumber, exactDecimal, toScaledInteger } from "../http/json.js";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../read/keyset.js";
import { ACTIVITY_KINDS } from "../read/activity.js";
import { DESK_STATUSES } from "../read/desks.js";
import { documented } from "../openapi/zod-schema.js";
import { tokenFinalityResponse } from "../views/finality.js";
import { legsSchema } from "../views/legs.js";
import { auditBaseUnits } from "../views/trust.js";
import { deprecatedAs, viewSchema } from "../views/view.js";
import { decimalOf as decimal, json, usdcOf as usdc } from "../../common/edge.js";
import { activityDataSchema } from "../views/activity.js";
import { buybackSchema } from "../views/buyback.js";
import { deskSchema } from "../views/desk.js";
import { feeCurrencySchema, spendSchema } from "../views/fees.js";
import { statsSchema } from "../views/stats.js";
import {
  honouredSplitSchema,
  lockerShareSchema,
  poolSchema,
  poolView,
  splitView,
  tokenPendingSchema,
  tokenPendingView,
  tokenEnrollmentSchema,
  tokenSchema,
  tokenTotalsSchema,
  tokenTotalsView,
} from "../views/token.js";

// ------------------------------------------------------------------ scalars

/** A 0x address, checksummed or all one case; normalised to lowercase (as the tables store it). */
export const address = z
  .string()
  .max(42, "expected a 0x-prefixed 20-byte hex address")
  .refine((v) => isAddress(v), { message: "expected a 0x-prefixed 20-byte hex address with a valid checksum" })
  .transform((v) => v.toLowerCase() as Hex)
  .describe("0x-prefixed 20-byte address (EIP-55 checksummed or all lowercase)");

/** Well-formed Unicode without control characters, at most `maxBytes` UTF-8 bytes (common/text.ts). */
const text = (field: string, maxBytes: number) => textField(field, { min: 1, maxBytes });

/**
 * A percent of total fees as a JSON number: finite, ≥ 0, at most two decimals (0.01% = 1 bps),
 * read from the number's exact text. Output: basis points.
 */
export const percent = documented(
  z.unknown().transform((value, ctx) => {
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: "is required" });
      return z.NEVER;
    }
    if (!(value instanceof JsonNumber)) {
      ctx.addIssue({ code: "custom", message: `expected a number, got ${value === null ? "null" : Array.isArray(value) ? "array" : typeof value}` });
      return z.NEVER;
    }
    const exact = exactDecimal(value.text);
    if (exact.negative && exact.digits !== 0n) {
      ctx.addIssue({ code: "custom", message: "must not be negative" });
      return z.NEVER;
    }
    // Integer digits beyond 3 (a value of 1000 or more) need no further arithmetic.
    if (exact.digits.toString().length - exact.scale > 3) {
      ctx.addIssue({ code: "custom", message: "must be at most 95" });
      return z.NEVER;
    }
    const bps = toScaledInteger(value.text, 2);
    if (bps === undefined) {
      ctx.addIssue({ code: "custom", message: "must have at most two decimal places (0.01%)" });
      return z.NEVER;
    }
    if (bps > BigInt(CONFIGURABLE_BPS)) {
      ctx.addIssue({ code: "custom", message: "must be at most 95" });
      return z.NEVER;
    }
    return Number(bps);
  }),
  { type: "number", minimum: 0, maximum: 95, multipleOf: 0.01 },
);

const pctDoc = (leg: string, fallback: string) =>
  `${leg} leg, in percent of total fees (at most two decimals); assetPct + perpPct + creatorPct = 95. Default ${fallback}.`;

type Percents = { assetPct?: number; perpPct?: number; creatorPct?: number };

/** The three legs must sum to 95% (9500 bps); the protocol's 5% is added automatically. */
function checkSplit(body: Percents, ctx: z.RefinementCtx) {
  const legs = [body.assetPct, body.perpPct, body.creatorPct];
  // A leg that failed its own check is reported by its field.
  if (legs.some((v) => v !== undefined && typeof v !== "number")) return;
  const given = legs.filter((v) => v !== undefined).length;
  if (given === 0) return;
  if (given < 3) {
    ctx.addIssue({ code: "custom", message: "invalid split: give all of assetPct, perpPct and creatorPct, or none for the default 28.5/57/9.5" });
    return;
  }
  const sum = body.assetPct! + body.perpPct! + body.creatorPct!;
  if (sum !== CONFIGURABLE_BPS) {
    ctx.addIssue({ code: "custom", message: `invalid split: assetPct + perpPct + creatorPct must equal 95 (got ${formatDecimal(BigInt(sum), 2)})` });
  }
}

const splitOf = (body: Percents) =>
  body.assetPct === undefined ? { ...DEFAULT_SPLIT } : { assetBps: body.assetPct, perpBps: body.perpPct!, creatorBps: body.creatorPct! };

// ------------------------------------------------------------------ request bodies

export const launchBody = z
  .object({
    name: text("name", 64).describe("Token name"),
    symbol: text("symbol", 32).describe("Token symbol"),
    image: z
      .string()
      .max(2048)
      .url("image must be a URL")
      .refine((v) => textProblem(v) === undefined, "image must be well-formed Unicode without control characters")
      .optional()
      .describe("Image URL"),
    description: textField("description", { maxBytes: 2000, multiline: true })
      .optional()
      .describe("Stored in the token's metadata (at most 2000 bytes of UTF-8)"),
    creator: address.optional().describe("Receives the creator leg and is the token admin; default: the operator wallet"),
    assetPct: percent.optional().describe(pctDoc("Secondary-asset", "28.5")),
    perpPct: percent.optional().describe(pctDoc("Perp-desk", "57")),
    creatorPct: percent.optional().describe(pctDoc("Creator USDC", "9.5")),
  })
  .strict()
  .superRefine(checkSplit)
  .transform((body) => ({
    name: body.name,
    symbol: body.symbol,
    image: body.image ?? "",
    description: body.description,
    creator: body.creator,
    split: splitOf(body),
  }));

export const registerBody = z
  .object({
    token: address.describe("A token launched through the launcher whose LP rewards pay the operator"),
    creator: address.optional().describe("Receives the creator leg; default: the operator wallet"),
    assetPct: percent.describe(pctDoc("Secondary-asset", "none")),
    perpPct: percent.describe(pctDoc("Perp-desk", "none")),
    creatorPct: percent.describe(pctDoc("Creator USDC", "none")),
  })
  .strict()
  .superRefine(checkSplit)
  .transform((body) => ({ token: body.token, creator: body.creator, split: splitOf(body) }));

// ------------------------------------------------------------------ query strings and paths

/**
 * A whole number in a query string or a path: validated from its digits, documented as an
 * OpenAPI `integer` with its range and default, so a generated client sends a number.
 */
export function integerParam<T extends z.ZodTypeAny>(schema: T, range: { minimum: number; maximum?: number; default?: number }): T {
  return documented(schema, { type: "integer", ...range });
}

const limit = integerParam(
  z
    .string()
    .regex(/^\d{1,4}$/, `expected an integer from 1 to ${MAX_LIMIT}`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_LIMIT, `expected an integer from 1 to ${MAX_LIMIT}`)
    .default(String(DEFAULT_LIMIT))
    .describe(`Page size, 1 to ${MAX_LIMIT}`),
  { minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
);
const cursor = z.string().max(512).optional().describe("Opaque cursor: the nextCursor of the previous page");

export const pageQuery = z.object({ limit, cursor });

/** A comma-separated list of some of `values` in a query string (`noun`: what one value is), each checked. */
function commaListOf<V extends string>(noun: string, values: readonly V[], maxLength: number) {
  return z
    .string()
    .max(maxLength)
    .transform((v, ctx) => {
      const listed = v.split(",").map((k) => k.trim());
      const unknown = listed.filter((k) => !(values as readonly string[]).includes(k));
      if (unknown.length) {
        ctx.addIssue({
          code: "custom",
          message: `unknown ${noun} ${JSON.stringify(unknown[0])}; expected one or more (comma-separated) of ${values.join(", ")}`,
        });
        return z.NEVER;
      }
      return listed as V[];
    })
    .optional();
}

export const activityQuery = z.object({
  limit,
  cursor,
  kind: commaListOf("kind", ACTIVITY_KINDS, 1000).describe(`Only these kinds, comma-separated: ${ACTIVITY_KINDS.join(", ")}`),
  token: address.optional().describe("Only activity of this token"),
});

export const tokenParam = z.object({ token: address });

/** `true` or `false` in a query string. */
const booleanQuery = (what: string) =>
  z
    .enum(["true", "false"])
    .transform((v) => v === "true")
    .optional()
    .describe(what);

export const desksQuery = z.object({
  limit,
  cursor,
  status: commaListOf("status", DESK_STATUSES, 100).describe(`Only desks in these states, comma-separated: ${DESK_STATUSES.join(", ")}`),
  token: address.optional().describe("Only the desks of this token"),
  halted: booleanQuery("true: only open desks halted by the engine or the registry; false: every other desk"),
});

export const tokensQuery = z.object({
  limit,
  cursor,
  enrolled: booleanQuery(
    "true: only tokens enrolled in the registry; false: only tokens not enrolled (ours by launch: the protocol token, launches paying the operator). Default: every token of ours, as GraphQL `tokens`",
  ),
});

// ------------------------------------------------------------------ responses

const { checksummed, hash, iso } = json;
const int = z.number().int();

/** Every error answer: `error` for people, `code` for programs (each route's answers list the codes they carry). */
export const errorBodySchema = z
  .object({
    error: z.string().describe("What went wrong, for people (may change: branch on `code`)"),
    code: z.enum(SERVICE_ERROR_CODES).describe(`Stable machine code; its status: ${SERVICE_ERROR_CODES.map((c) => `${c} ${ERROR_STATUS[c]}`).join(", ")}`),
  })
  .strict();

/** A split as enrolled (api/views/token.ts). */
export const splitResponse = viewSchema(splitView).describe(splitView.description);

const baseUnits = auditBaseUnits;
/** One comparison of the audit: a check of a token's leg in a currency, what was expected and what was found (base units). */
const auditComparison = {
  check: z.string(),
  token: checksummed.nullable(),
  leg: z.string().nullable(),
  currency: z.string().nullable(),
  expected: baseUnits,
  actual: baseUnits,
};

export const auditResponse = z
  .object({
    ok: z.boolean(),
    block: int.describe("Chain block the balances were read at"),
    indexedBlock: int.nullable().describe("Newest block with an indexed event"),
    indexedTo: int.nullable().describe("Block the indexer has indexed to (its checkpoint); null without an index"),
    engineBlock: int.nullable().describe("Newest block of a transaction the engine mined: the index checks are final once the index reaches it"),
    settled: z.boolean().describe("Nothing in flight and the index at or past engineBlock: every check is final"),
    inFlight: z.array(z.string()).describe("Work the engine has not settled"),
    inFlightWork: z
      .array(
        z
          .object({
            what: z.string(),
            area: z.enum(["claims", "buybacks", "desks", "other"]).describe("Which checks it can move"),
            amount: baseUnits.nullable().describe("The amount it moves, when the engine's tables know it"),
            currency: z.string().nullable().describe("USDC, WETH, or the token's address for bought tokens"),
          })
          .strict(),
      )
      .describe("The same work with its amounts"),
    pending: z
      .array(
        z
          .object({
            ...auditComparison,
            amount: baseUnits.describe("actual − expected: what the unsettled work accounts for"),
            what: z.array(z.string()).describe("The work in flight, or the index's lag, that explains it"),
          })
          .strict(),
      )
      .describe("Amounts explained by work in flight or blocks not indexed yet: not differences, and `ok` stays true"),
    deficits: z
      .array(z.string())
      .describe("Legs a reorg deeper than CONFIRMATIONS left short (inflows already spent were taken back); their next inflows repay them"),
    checks: z.array(z.string()).describe("Checks that ran"),
    differences: z.array(
      z
        .object({
          ...auditComparison,
          difference: baseUnits.describe("actual − expected"),
          detail: z.string().optional(),
        })
        .strict(),
    ),
  })
  .strict();

/** A desk (api/views/desk.ts). */
export const deskResponse = deskSchema;

/** GET /stats (api/views/stats.ts). */
export const statsResponse = statsSchema;

export const activityItem = z
  .object({
    id: z.string(),
    kind: z.enum(ACTIVITY_KINDS),
    token: checksummed.nullable(),
    txHash: hash,
    blockNumber: int,
    timestamp: iso,
    data: activityDataSchema,
  })
  .strict();

const list = <T extends z.ZodTypeAny>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() }).strict();

export const activityResponse = list(activityItem);

/** A buyback (api/views/buyback.ts), with `spent` in this route's first shape: the currency's facts beside the amount. */
export const buybackItem = buybackSchema.omit({ spent: true }).extend({
  spent: spendSchema
    .pick({ currency: true, symbol: true, decimals: true, amount: true })
    .describe("What the operator paid in: USDC, or WETH for a legacy-WETH buyback (spentCurrency, spentSymbol and the amount, together)"),
});

export const buybacksResponse = z
  .object({
    items: z.array(buybackItem),
    nextCursor: z.string().nullable(),
    totals: z
      .object({
        count: int,
        usdcIn: usdc("Spent"),
        tokensBought: decimal("Bought"),
        tokensBurned: decimal("Burned"),
        spent: z.array(spendSchema).describe("Spent per currency paid in"),
      })
      .strict(),
  })
  .strict();

/** The split the locker and the engine really honour, from the locker's indexed reward slots. */
export const honouredSplitResponse = honouredSplitSchema
  .nullable()
  .describe("The split really honoured, to the bps (null until the locker's slots are indexed)");

export const lockerSharesResponse = z.array(lockerShareSchema).describe("The LP locker's reward slots for the token");

export const tokenItem = tokenSchema
  .extend({
    enrolled: z.boolean().describe("Enrolled in the registry (the enrolment fields below are null otherwise)"),
    split: splitResponse.nullable().describe("The enrolment's split (null when not enrolled)"),
    honouredSplit: honouredSplitResponse,
    lockerShares: lockerSharesResponse,
    pool: poolSchema.nullable().describe(poolView.description),
    ...tokenEnrollmentSchema,
    totals: tokenTotalsSchema
      .extend({
        creatorLegUsdc: deprecatedAs(usdc("LP fees paid to the creator in USDC (in WETH: feesByCurrency)"), "legs.creatorUsdc"),
        legs: legsSchema,
        feesByCurrency: z.array(feeCurrencySchema).describe("The token's fees per currency (USDC first)"),
        buybackSpent: z.array(spendSchema).describe("The token's buybacks per currency paid in"),
        finality: tokenFinalityResponse.nullable().describe("The totals as a final part and a pending part, by CONFIRMATIONS"),
      })
      .describe(tokenTotalsView.description),
    pending: tokenPendingSchema.describe(tokenPendingView.description),
    desk: deskResponse.nullable().describe("The token's latest desk"),
  })
  .strict();

export const tokensResponse = list(tokenItem);

export const desksResponse = list(deskResponse);

export const launchResponse = z
  .object({ token: checksummed, txHash: hash, poolId: hash, split: splitResponse, creator: checksummed, enrollTxHash: hash })
  .strict();

export const registerResponse = z.object({ token: checksummed, txHash: hash, creator: checksummed, split: splitResponse }).strict();
