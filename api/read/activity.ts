/**
 * The activity feed: one indexed row per event, newest first. `data` holds the event's facts
 * with amounts in base units; `formatActivityData` turns them into exact decimals in whole
 * units of their currency and checksums the addresses.
 */
import { type SQL, and, eq, gt, inArray } from "drizzle-orm";
import type { Hex } from "viem";
import { TOKEN_DECIMALS, USDC_DECIMALS, formatDecimal } from "../../common/money.js";
import { activity } from "../../schema/ponder.js";
import type { ReadDb } from "../deps.js";
import { checksum } from "./format.js";
import { type Ordering, type PageWindow, keysetWindow, orderBy } from "./keyset.js";

export type ActivityRow = typeof activity.$inferSelect;

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

export const ACTIVITY_ORDERING: Ordering<ActivityRow> = {
  name: "activity",
  direction: "desc",
  columns: [activity.id],
  types: ["text"],
  key: (r) => [r.id],
};

export type ActivityFilter = { kinds?: readonly string[]; token?: Hex };

function conditions(filter: ActivityFilter): SQL[] {
  const c: SQL[] = [];
  if (filter.kinds?.length) c.push(inArray(activity.kind, [...filter.kinds]));
  if (filter.token) c.push(eq(activity.token, filter.token));
  return c;
}

export async function listActivity(db: ReadDb, p: PageWindow & { filter: ActivityFilter }) {
  const w = keysetWindow(ACTIVITY_ORDERING, p);
  const rows = await db
    .select()
    .from(activity)
    .where(and(...conditions(p.filter), ...w.conditions))
    .orderBy(...w.order)
    .limit(w.fetch);
  return w.finish(rows);
}

/** Rows added after `lastId` (oldest first), for subscriptions. */
export async function activitySince(db: ReadDb, filter: ActivityFilter, lastId: string, limit = 100): Promise<ActivityRow[]> {
  return db
    .select()
    .from(activity)
    .where(and(gt(activity.id, lastId), ...conditions(filter)))
    .orderBy(activity.id)
    .limit(limit);
}

/** The id of the newest row (`""` when none): subscriptions start after it. */
export async function latestActivityId(db: ReadDb): Promise<string> {
  const [row] = await db.select({ id: activity.id }).from(activity).orderBy(...orderBy(ACTIVITY_ORDERING)).limit(1);
  return row?.id ?? "";
}

const USDC_FIELDS = new Set(["usdcIn", "usdcOut", "usdc", "collateralDelta", "realisedPnl", "usdcReturned", "marginFees", "protocolUsdc", "assetUsdc", "perpUsdc", "operatorUsdc"]);
const TOKEN_FIELDS = new Set(["tokensBought", "assetBought"]);
const PERPS_FIELDS = new Set(["price", "leverage"]);
/** Amount field → the field naming its currency. */
const CURRENCY_OF: Record<string, string> = { amount: "currency", amountIn: "currencyIn", pairedIn: "pairedToken", amountSwapped: "rewardToken", amountOut: "swappedToken" };
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const INTEGER_RE = /^-?\d+$/;

/**
 * Exact decimals in whole units for the amounts of an activity's data (USDC 6 decimals,
 * tokens and WETH 18, perps prices and leverage 10), checksummed addresses; other values as
 * indexed.
 */
export function formatActivityData(data: unknown, usdc: string | undefined): unknown {
  const usdcLower = usdc?.toLowerCase();
  const decimalsOf = (currency: unknown) => (typeof currency === "string" && currency.toLowerCase() === usdcLower ? USDC_DECIMALS : TOKEN_DECIMALS);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return typeof value === "string" && ADDRESS_RE.test(value) ? checksum(value) : value;
    const obj = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(obj)) {
      let decimals: number | undefined;
      if (USDC_FIELDS.has(key)) decimals = USDC_DECIMALS;
      else if (TOKEN_FIELDS.has(key)) decimals = TOKEN_DECIMALS;
      else if (PERPS_FIELDS.has(key)) decimals = 10;
      else if (key in CURRENCY_OF) decimals = decimalsOf(obj[CURRENCY_OF[key]!]);
      out[key] = decimals !== undefined && typeof v === "string" && INTEGER_RE.test(v) ? formatDecimal(BigInt(v), decimals) : walk(v);
    }
    return out;
  };
  return walk(data);
}
