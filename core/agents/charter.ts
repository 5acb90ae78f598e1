/**
 * An agent's charter (docs/design.md §8): engine, persona and mandate. Pure: the zod schema, the
 * default charter, the canonical form whose keccak256 the registry stores, and the mandate
 * the token's workers obey.
 *
 * Percentages are JSON numbers with at most two decimals (0.01% = 1 bps); amounts are exact
 * decimal strings.
 */
import { type Hex, keccak256, stringToBytes } from "viem";
import { z } from "zod";
import { textField } from "../../common/text.js";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { CONFIGURABLE_BPS, DEFAULT_SPLIT } from "../../common/constants.js";
import { USDC_DECIMALS, formatDecimal, parseDecimal } from "../../common/money.js";
import type { Split } from "../../common/split.js";
import { DEFAULT_MANDATE, type Mandate } from "../mandate.js";

export const CHARTER_VERSION = 1;

/** Desk markets by name → perps pair index (Avantis: 0 = ETH/USD, 1 = BTC/USD). */
export const DESK_MARKETS = { "ETH/USD": 0, "BTC/USD": 1 } as const;
export type DeskMarket = keyof typeof DESK_MARKETS;
export const MARKET_NAMES = Object.keys(DESK_MARKETS) as [DeskMarket, ...DeskMarket[]];

/**
 * Strategies of the desk: `momentum` trades its market in the direction of the price
 * momentum; `hold` goes long its market and holds (adds with new perp USDC, exits only by
 * take-profit or the drawdown halt).
 */
export const STRATEGIES = ["momentum", "hold"] as const;
export type Strategy = (typeof STRATEGIES)[number];

export const LEVERAGE_RANGE = { min: 1, max: 50 } as const;
export const BUYBACK_MIN_RANGE_USDC = { min: 1n, max: 1_000_000n * 10n ** 6n } as const;

/** The default charter's conservative limits. */
export const DEFAULT_LIMITS = { market: "ETH/USD" as DeskMarket, maxLeverage: 3, maxDrawdownPct: 20, takeProfitPct: 10 } as const;

/** Whether `value` has at most two decimals (exactly representable as an integer number of hundredths). */
export function hasTwoDecimals(value: number): boolean {
  return Number.isFinite(value) && Math.abs(value * 100 - Math.round(value * 100)) < 1e-7;
}

/** Percent (two decimals at most) → basis points. */
export const pctToBps = (pct: number): number => Math.round(pct * 100);

const hundredths = (field: string, min: number, max: number, exclusiveMin = false) =>
  z
    .number({ invalid_type_error: `${field} must be a number`, required_error: `${field} is required` })
    .finite()
    .refine((v) => (exclusiveMin ? v > min : v >= min), { message: `${field} must be ${exclusiveMin ? "greater than" : "at least"} ${min}` })
    .refine((v) => v <= max, { message: `${field} must be at most ${max}` })
    .refine(hasTwoDecimals, { message: `${field} must have at most two decimal places` });

/** Well-formed Unicode without control characters, `min` characters to `maxBytes` UTF-8 bytes. */
const text = (field: string, min: number, maxBytes: number) => textField(field, { min, maxBytes });

const usdcAmount = z
  .string({ invalid_type_error: 'buybackMinUsdc must be a decimal string such as "5"', required_error: "buybackMinUsdc is required" })
  .refine((v) => /^\d{1,12}(\.\d{1,6})?$/.test(v), { message: 'buybackMinUsdc must be a decimal string with at most 6 decimals, such as "5" or "2.5"' })
  .refine((v) => /^\d{1,12}(\.\d{1,6})?$/.test(v) && parseDecimal(v, USDC_DECIMALS) >= BUYBACK_MIN_RANGE_USDC.min, {
    message: "buybackMinUsdc must be positive",
  })
  .refine((v) => /^\d{1,12}(\.\d{1,6})?$/.test(v) && parseDecimal(v, USDC_DECIMALS) <= BUYBACK_MIN_RANGE_USDC.max, {
    message: "buybackMinUsdc must be at most 1000000",
  })
  // Canonical form: "5.50" and "5.5" are one charter.
  .transform((v) => formatDecimal(parseDecimal(v, USDC_DECIMALS), USDC_DECIMALS));

export const splitSchema = z
  .object({
    assetPct: hundredths("assetPct", 0, 95),
    perpPct: hundredths("perpPct", 0, 95),
    creatorPct: hundredths("creatorPct", 0, 95),
  })
  .strict()
  .superRefine((s, ctx) => {
    const sum = pctToBps(s.assetPct) + pctToBps(s.perpPct) + pctToBps(s.creatorPct);
    if (sum !== CONFIGURABLE_BPS) {
      ctx.addIssue({ code: "custom", message: `invalid split: assetPct + perpPct + creatorPct must equal 95 (got ${formatDecimal(BigInt(sum), 2)})` });
    }
  });

export const charterSchema = z
  .object({
    version: z.literal(CHARTER_VERSION, { errorMap: () => ({ message: `version must be ${CHARTER_VERSION}` }) }).default(CHARTER_VERSION),
    engine: z
      .object({
        strategy: z.enum(STRATEGIES, { errorMap: () => ({ message: `strategy must be one of ${STRATEGIES.join(", ")}` }) }),
      })
      .strict(),
    persona: z
      .object({
        name: text("persona.name", 1, 48),
        voice: text("persona.voice", 0, 280).default(""),
      })
      .strict(),
    mandate: z
      .object({
        split: splitSchema,
        desk: z
          .object({
            market: z.enum(MARKET_NAMES, { errorMap: () => ({ message: `market must be one of ${MARKET_NAMES.join(", ")}` }) }),
            maxLeverage: hundredths("maxLeverage", LEVERAGE_RANGE.min, LEVERAGE_RANGE.max),
            maxDrawdownPct: hundredths("maxDrawdownPct", 0, 100, true),
            takeProfitPct: hundredths("takeProfitPct", 0, 1000, true).default(DEFAULT_LIMITS.takeProfitPct),
          })
          .strict(),
        buybackMinUsdc: usdcAmount,
      })
      .strict(),
  })
  .strict();

/** A validated charter. */
export type Charter = z.output<typeof charterSchema>;
/** What a client submits (defaults not yet applied). */
export type CharterInput = z.input<typeof charterSchema>;

/** The spec's default split (28.5 / 57 / 9.5) and conservative desk limits. */
export function defaultCharter(p: { buybackMinUsdc: bigint; personaName?: string }): Charter {
  return {
    version: CHARTER_VERSION,
    engine: { strategy: "momentum" },
    persona: { name: p.personaName ?? "Steward", voice: "plain and factual" },
    mandate: {
      split: { assetPct: DEFAULT_SPLIT.assetBps / 100, perpPct: DEFAULT_SPLIT.perpBps / 100, creatorPct: DEFAULT_SPLIT.creatorBps / 100 },
      desk: {
        market: DEFAULT_LIMITS.market,
        maxLeverage: DEFAULT_LIMITS.maxLeverage,
        maxDrawdownPct: DEFAULT_LIMITS.maxDrawdownPct,
        takeProfitPct: DEFAULT_LIMITS.takeProfitPct,
      },
      buybackMinUsdc: formatDecimal(p.buybackMinUsdc, USDC_DECIMALS),
    },
  };
}

/** The JSON with object keys sorted at every level and no whitespace: one text per charter. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError("non-finite number in canonical JSON");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** keccak256 of the canonical JSON of the charter: the hash the registry stores at enrolment. */
export function charterHash(charter: Charter): Hex {
  return keccak256(stringToBytes(canonicalJson(charter)));
}

/** The charter's fee split in bps (protocol 500 apart). */
export function charterSplit(charter: Charter): Split {
  const s = charter.mandate.split;
  return { assetBps: pctToBps(s.assetPct), perpBps: pctToBps(s.perpPct), creatorBps: pctToBps(s.creatorPct) };
}

/** The limits the token's workers obey (desk pair, leverage cap, drawdown halt, take-profit, buyback minimum). */
export function charterMandate(charter: Charter): Mandate & { strategy: Strategy } {
  const desk = charter.mandate.desk;
  return {
    ...DEFAULT_MANDATE,
    strategy: charter.engine.strategy,
    deskPairIndex: DESK_MARKETS[desk.market],
    maxLeverage: (BigInt(pctToBps(desk.maxLeverage)) * PERPS_PRECISION) / 100n,
    maxDrawdownBps: pctToBps(desk.maxDrawdownPct),
    takeProfitBps: pctToBps(desk.takeProfitPct),
    buybackMinUsdc: parseDecimal(charter.mandate.buybackMinUsdc, USDC_DECIMALS),
  };
}

/** Whether the split is the spec's default. */
export function isDefaultSplit(split: Split): boolean {
  return split.assetBps === DEFAULT_SPLIT.assetBps && split.perpBps === DEFAULT_SPLIT.perpBps && split.creatorBps === DEFAULT_SPLIT.creatorBps;
}
