/**
 * The activity feed (one indexed row per event): its kinds, and each kind's facts declared
 * once (`ACTIVITY_DATA`): the zod schema of the facts as served, whose amounts say how they
 * are scaled. `formatActivityData` writes an indexed row's facts by that schema, so the API
 * (REST `data`, GraphQL `details`, exports) and the engine's webhooks (the same payload) write
 * what the schema documents: amounts as exact decimals in whole units of their currency (USDC 6
 * decimals, tokens and WETH 18, perps prices and leverage 10), addresses checksummed, other
 * values as indexed.
 */
import { getAddress } from "viem";
import { z } from "zod";
import { decimalOf, json, usdcOf } from "./edge.js";
import { TOKEN_DECIMALS, USDC_DECIMALS, formatDecimal } from "./money.js";

export const ACTIVITY_KINDS = [
  "token-launched",
  "token-enrolled",
  "fees-collected",
  "auction-won",
  "auction-fees",
  "fees-swapped",
  "fees-claimed",
  "fees-converted",
  "fees-attributed",
  "protocol-buyback",
  "creator-buyback",
  "burn",
  "asset-purchased",
  "desk-opened",
  "desk-increased",
  "desk-decreased",
  "desk-closed",
  "desk-liquidated",
  "desk-halted",
  "desk-unhalted",
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/** The operator's buybacks, by whose token they buy: each burns what it bought. */
export const BUYBACK_KINDS = ["protocol-buyback", "creator-buyback"] as const;
export type BuybackKind = (typeof BUYBACK_KINDS)[number];
/** Who burned: a buyback of either kind, or anyone else. */
export const BURN_KINDS = [...BUYBACK_KINDS, "organic"] as const;

// ------------------------------------------------------------------ amounts and their scale

/** Decimals of a perps venue's prices and leverage. */
const PERPS_DECIMALS = 10;

/** How an amount's base units become whole units: fixed decimals, or those of the currency another field of its object names. */
type Scale = { decimals: number } | { currencyOf: string };
const scales = new WeakMap<z.ZodTypeAny, Scale>();
const scaled = <T extends z.ZodTypeAny>(schema: T, scale: Scale): T => {
  scales.set(schema, scale);
  return schema;
};
const usdc = (what: string) => scaled(usdcOf(what), { decimals: USDC_DECIMALS });
const tokens = (what: string) => scaled(decimalOf(what), { decimals: TOKEN_DECIMALS });
const perps = (what: string) => scaled(decimalOf(what), { decimals: PERPS_DECIMALS });
/** An amount in the currency its object's field `currency` names (USDC's 6 decimals, anything else 18). */
const inCurrency = (what: string, currency: string) => scaled(decimalOf(what), { currencyOf: currency });

// ------------------------------------------------------------------ each kind's facts

const { checksummed: address, hash } = json;
const int = z.number().int();
/** An integer the indexer keeps as a string of digits (a chain's uint256). */
const digits = json.digits.describe("An integer as a string of digits");
/** An amount in the currency its object names (`currency`). */
const amount = (what: string) => inCurrency(`${what} (in currency)`, "currency");

const legs = z
  .object({
    protocolUsdc: usdc("Protocol leg"),
    assetUsdc: usdc("Asset leg"),
    perpUsdc: usdc("Perp leg"),
    operatorUsdc: usdc("Operator leg (fees the service does not split)"),
  })
  .describe("How the USDC split into the operator's legs");

const paid = { recipient: address.describe("Who the fees went to"), currency: address, amount: amount("Fees") };

const buyback = z.object({
  usdcIn: usdc("USDC spent"),
  pairedIn: inCurrency("Paid into the pool (in pairedToken)", "pairedToken"),
  pairedToken: address.describe("The pool's paired currency"),
  amountIn: inCurrency("Paid in (in currencyIn)", "currencyIn"),
  currencyIn: address.describe("What the operator paid in"),
  tokensBought: tokens("Tokens bought"),
});

const desk = z.object({
  tradeId: z.string().describe("The desk trade (pair, trade index, open order id)"),
  collateralDelta: usdc("Collateral added (negative: removed)"),
  price: perps("The fill's price (USD per unit of the pair's asset)"),
  realisedPnl: usdc("PnL realised by this event"),
  usdcReturned: usdc("USDC the venue paid back"),
  pairIndex: digits.optional().describe("The venue's pair index"),
  tradeIndex: digits.optional().describe("The venue's trade index"),
  buy: z.boolean().optional().describe("Long (an open)"),
  leverage: perps("Leverage after the event").optional(),
  openOrderId: digits.optional().describe("The open's order id (an open)"),
  full: z.boolean().optional().describe("The whole trade closed (a close)"),
  cancelReason: int.optional().describe("gTrade's reason for a refused order"),
  fee: usdc("The fee a refused order paid").optional(),
  openingFees: usdc("Opening fees of a margin top-up").optional(),
  closingFee: usdc("Closing fee of a margin withdrawal").optional(),
  marginFees: usdc("Avantis v1's margin fees").optional(),
});

const halt = z.object({ halted: z.boolean().describe("Halted in the registry") });

/** Each kind's facts, as served. */
export const ACTIVITY_DATA = {
  "token-launched": z.object({
    name: z.string(),
    symbol: z.string(),
    admin: address,
    poolId: hash,
    pairedToken: address,
    isProtocolToken: z.boolean(),
  }),
  "token-enrolled": z.object({
    creator: address,
    split: z.object({ protocolBps: int, assetBps: int, perpBps: int, creatorBps: int }).describe("The split in basis points"),
    charterHash: hash,
  }),
  "fees-collected": z.object({
    collected: z
      .array(z.object({ rewardIndex: int, recipient: address, currency: address, amount: amount("Collected") }))
      .describe("What each reward slot was paid"),
  }),
  "auction-won": z.object({ payee: address, currency: address, amount: amount("Paid for the round"), round: digits }),
  "auction-fees": z.object({ ...paid, auctionTx: hash.optional().describe("The auction's transaction, when paid later") }),
  "fees-swapped": z.object({
    rewardToken: address,
    amountSwapped: inCurrency("Swapped (in rewardToken)", "rewardToken"),
    swappedToken: address,
    amountOut: inCurrency("Received (in swappedToken)", "swappedToken"),
  }),
  "fees-claimed": z.object({ owner: address, currency: address, amount: amount("Claimed") }),
  "fees-converted": z.object({
    currencyIn: address,
    amountIn: inCurrency("Converted (in currencyIn)", "currencyIn"),
    usdcOut: usdc("USDC received"),
    shares: z.array(z.object({ token: address, currency: address, amount: amount("The token's share"), usdc: usdc("Its USDC") })),
  }),
  "fees-attributed": z.object({
    currency: address,
    amount: amount("Settled for the token"),
    usdc: usdc("Its USDC (converted fees)").optional(),
    legs: legs.optional(),
    awaitingConversion: z.boolean().optional().describe("Waiting to be converted to USDC (no legs yet)"),
  }),
  "protocol-buyback": buyback,
  "creator-buyback": buyback,
  burn: z.object({ amount: tokens("Tokens burned"), kind: z.enum(BURN_KINDS), from: address }),
  "asset-purchased": z.object({ usdcIn: usdc("USDC spent"), assetBought: tokens("Secondary asset bought") }),
  "desk-opened": desk,
  "desk-increased": desk,
  "desk-decreased": desk,
  "desk-closed": desk,
  "desk-liquidated": desk,
  "desk-halted": halt,
  "desk-unhalted": halt,
} satisfies Record<ActivityKind, z.AnyZodObject>;

/** A kind's facts as served. */
export type ActivityData<K extends ActivityKind = ActivityKind> = z.infer<(typeof ACTIVITY_DATA)[K]>;

// ------------------------------------------------------------------ writing an indexed row's facts

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const INTEGER_RE = /^-?\d+$/;

/** The schema a field holds, past optional, nullable and described wrappers. */
export function unwrap(schema: z.ZodTypeAny): z.ZodTypeAny {
  let inner = schema;
  while (inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) inner = inner.unwrap();
  return inner;
}

/**
 * An indexed row's facts (amounts in base units) as `ACTIVITY_DATA[kind]` serves them: each
 * amount the schema declares scaled to whole units, every address checksummed, other values
 * as indexed. A field the schema does not declare keeps its value (addresses checksummed).
 */
export function formatActivityData<K extends ActivityKind>(kind: K, data: unknown, usdc: string | undefined): ActivityData<K> {
  const usdcLower = usdc?.toLowerCase();
  const decimalsOf = (scale: Scale, object: Record<string, unknown>) => {
    if ("decimals" in scale) return scale.decimals;
    const currency = object[scale.currencyOf];
    return typeof currency === "string" && currency.toLowerCase() === usdcLower ? USDC_DECIMALS : TOKEN_DECIMALS;
  };
  const walk = (value: unknown, schema: z.ZodTypeAny | undefined): unknown => {
    if (Array.isArray(value)) return value.map((item) => walk(item, schema instanceof z.ZodArray ? unwrap(schema.element) : undefined));
    if (value === null || typeof value !== "object") return typeof value === "string" && ADDRESS_RE.test(value) ? getAddress(value) : value;
    const object = value as Record<string, unknown>;
    const shape: Record<string, z.ZodTypeAny> = schema instanceof z.ZodObject ? schema.shape : {};
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(object)) {
      const field = shape[key] && unwrap(shape[key]);
      const scale = field && scales.get(field);
      out[key] = scale && typeof v === "string" && INTEGER_RE.test(v) ? formatDecimal(BigInt(v), decimalsOf(scale, object)) : walk(v, field);
    }
    return out;
  };
  // An event's data is always a JSON object (the indexer writes one per event).
  return walk(data, ACTIVITY_DATA[kind]) as ActivityData<K>;
}
