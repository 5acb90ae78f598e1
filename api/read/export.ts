/**
 * The exports' datasets (GET /export/{burns|buybacks|fees|activity}.{csv,ndjson}): what each
 * reads, in which keyset order, and the record each row becomes — the same facts and edge
 * formats as GraphQL (checksummed addresses, ISO-8601 times, exact decimals in whole units),
 * with every amount also in raw base units, and the row's cursor last (docs/api.md, "Exports").
 * A dataset is read in keyset pages, so memory holds one page whatever the export's length.
 */
import { type SQL, and, eq, gte, inArray, lt, lte } from "drizzle-orm";
import { type Hex, keccak256 } from "viem";
import type { Config } from "../../common/config.js";
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import { activity, burn, buyback, enrollment, feeCollection, pool, token as tokenTable } from "../../schema/ponder.js";
import type { ReadDb } from "../deps.js";
import { ACTIVITY_KINDS, ACTIVITY_ORDERING, type ActivityRow, formatActivityData } from "./activity.js";
import { BURN_KINDS, BURN_ORDERINGS, type BurnRow, type EventFilter, burnConditions } from "./burns.js";
import { BUYBACK_ORDERINGS, type BuybackRow, buybackConditions } from "./buybacks.js";
import { currencyInfos } from "./fees.js";
import { isoTime } from "./format.js";
import { type Ordering, after, cursorOf, orderBy } from "./keyset.js";

export const EXPORT_DATASETS = ["burns", "buybacks", "fees", "activity"] as const;
export type ExportDatasetName = (typeof EXPORT_DATASETS)[number];
export type ExportOrder = "oldest" | "newest";
export type ExportFilter = EventFilter & { kinds?: readonly string[] };

/** A cell: text, a number (block numbers, log indexes), null, or JSON (activity data; a quoted cell in CSV). */
export type Cell = string | number | null | Record<string, unknown>;

export type ExportDataset<Row> = {
  name: ExportDatasetName;
  description: string;
  /** Column names, in order; the last is always `cursor`. */
  columns: readonly string[];
  /** The kinds `kind=` accepts (none: the dataset has no kinds). */
  kinds?: readonly string[];
  orderings: Record<ExportOrder, Ordering<Row>>;
  /** Up to `limit` rows after `cursor` (or from the start), in the ordering's order. */
  page: (db: ReadDb, filter: ExportFilter, ordering: Ordering<Row>, cursor: string | undefined, limit: number) => Promise<Row[]>;
  /** The page's records (cells in column order, the row's cursor last): one lookup per page for what rows share. */
  records: (rows: Row[], ordering: Ordering<Row>, ctx: { db: ReadDb; config: Config }) => Promise<Cell[][]>;
};

// ------------------------------------------------------------------ addresses

/**
 * EIP-55 checksums, remembered for the last CHECKSUM_CACHE addresses: a keccak costs tens of
 * microseconds, and the same tokens, holders and senders recur row after row. The cache is
 * bounded (a Map in insertion order, the oldest entry dropped), so memory stays flat.
 */
const CHECKSUM_CACHE = 20_000;
const checksums = new Map<string, Hex>();
const utf8 = new TextEncoder();

export function fastChecksum(address: string): Hex {
  // The tables store lowercase addresses: look the given text up before lowercasing it.
  const known = checksums.get(address);
  if (known) return known;
  const lower = address.toLowerCase();
  const knownLower = checksums.get(lower);
  if (knownLower) return knownLower;
  const hex = lower.slice(2);
  const hash = keccak256(utf8.encode(hex), "bytes");
  let out = "0x";
  for (let i = 0; i < 40; i++) {
    const nibble = i % 2 === 0 ? hash[i >> 1]! >> 4 : hash[i >> 1]! & 15;
    out += nibble >= 8 ? hex[i]!.toUpperCase() : hex[i]!;
  }
  if (checksums.size >= CHECKSUM_CACHE) checksums.delete(checksums.keys().next().value!);
  checksums.set(lower, out as Hex);
  return out as Hex;
}

/**
 * `formatDecimal` of a base-unit integer given as its digits (what `toString()` gives for the
 * raw column): the same exact decimal, without bigint division (one per amount per row).
 */
export function decimalOfDigits(digits: string, decimals: number): string {
  const negative = digits.startsWith("-");
  const abs = negative ? digits.slice(1) : digits;
  const padded = abs.length <= decimals ? abs.padStart(decimals + 1, "0") : abs;
  const whole = padded.slice(0, padded.length - decimals);
  let end = padded.length;
  while (end > whole.length && padded.charCodeAt(end - 1) === 48) end--;
  const fraction = padded.slice(whole.length, end);
  const text = fraction ? `${whole}.${fraction}` : whole;
  return negative && text !== "0" ? `-${text}` : text;
}

/** An amount as its exact decimal and its raw base units. */
function amount(value: bigint, decimals: number): [string, string] {
  const raw = value.toString();
  return [decimalOfDigits(raw, decimals), raw];
}

// ------------------------------------------------------------------ burns

const burns: ExportDataset<BurnRow> = {
  name: "burns",
  description: "Burns: transfers of launched tokens to the dead address",
  columns: ["id", "token", "kind", "from", "txFrom", "amount", "amountRaw", "txHash", "blockNumber", "logIndex", "timestamp", "cursor"],
  kinds: BURN_KINDS,
  orderings: { oldest: BURN_ORDERINGS.OLDEST, newest: BURN_ORDERINGS.NEWEST },
  page: (db, filter, ordering, cursor, limit) =>
    db
      .select()
      .from(burn)
      .where(and(...burnConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering))
      .limit(limit),
  records: async (rows, ordering) =>
    rows.map((r) => [
      r.id,
      fastChecksum(r.token),
      r.kind,
      fastChecksum(r.from),
      fastChecksum(r.txFrom),
      ...amount(r.amount, TOKEN_DECIMALS),
      r.txHash,
      Number(r.blockNumber),
      r.logIndex,
      isoTime(r.timestamp),
      cursorOf(ordering, r),
    ]),
};

// ------------------------------------------------------------------ buybacks

type BuybackExportRow = BuybackRow & { pairedToken: Hex | null };

const buybacks: ExportDataset<BuybackExportRow> = {
  name: "buybacks",
  description: "Buybacks: the operator's swaps into a launched token (protocol and creator buybacks)",
  columns: [
    "id",
    "token",
    "kind",
    "usdcIn",
    "usdcInRaw",
    "pairedIn",
    "pairedInRaw",
    "spentCurrency",
    "spentSymbol",
    "spent",
    "spentRaw",
    "tokensBought",
    "tokensBoughtRaw",
    "tokensBurned",
    "tokensBurnedRaw",
    "txHash",
    "blockNumber",
    "logIndex",
    "timestamp",
    "cursor",
  ],
  kinds: BURN_KINDS.filter((k) => k !== "organic"),
  orderings: { oldest: BUYBACK_ORDERINGS.OLDEST, newest: BUYBACK_ORDERINGS.NEWEST } as Record<ExportOrder, Ordering<BuybackExportRow>>,
  page: async (db, filter, ordering, cursor, limit) => {
    const rows = await db
      .select({ row: buyback, pairedToken: pool.pairedToken })
      .from(buyback)
      .leftJoin(tokenTable, eq(tokenTable.address, buyback.token))
      .leftJoin(pool, eq(pool.poolId, tokenTable.poolId))
      .where(and(...buybackConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering))
      .limit(limit);
    return rows.map((r) => ({ ...r.row, pairedToken: r.pairedToken }));
  },
  records: async (rows, ordering, { db, config }) => {
    const currencies = await currencyInfos(db, config, rows.map((r) => r.currencyIn));
    const usdc = config.contracts.usdc?.toLowerCase();
    return rows.map((r) => {
      const spent = currencies.get(r.currencyIn.toLowerCase())!;
      // As GraphQL: the pool's paired currency's decimals (USDC 6, otherwise 18).
      const pairedDecimals = r.pairedToken?.toLowerCase() === usdc ? USDC_DECIMALS : TOKEN_DECIMALS;
      return [
        r.id,
        fastChecksum(r.token),
        r.kind,
        ...amount(r.usdcIn, USDC_DECIMALS),
        ...amount(r.pairedIn, pairedDecimals),
        spent.address,
        spent.symbol,
        ...amount(r.amountIn, spent.decimals),
        ...amount(r.tokensBought, TOKEN_DECIMALS),
        ...amount(r.tokensBurned, TOKEN_DECIMALS),
        r.txHash,
        Number(r.blockNumber),
        r.logIndex,
        isoTime(r.timestamp),
        cursorOf(ordering, r),
      ];
    });
  },
};

// ------------------------------------------------------------------ fees

type FeeRow = typeof feeCollection.$inferSelect & { creator: Hex | null };

/** Chain order of collections: by block, then by id (`txHash-logIndex-rewardIndex-side`, unique). */
const FEE_ORDERINGS: Record<ExportOrder, Ordering<FeeRow>> = {
  oldest: { name: "fee-oldest", direction: "asc", columns: [feeCollection.blockNumber, feeCollection.id], types: ["int", "text"], key: (r) => [r.blockNumber, r.id] },
  newest: { name: "fee-newest", direction: "desc", columns: [feeCollection.blockNumber, feeCollection.id], types: ["int", "text"], key: (r) => [r.blockNumber, r.id] },
};

function feeConditions(filter: ExportFilter): SQL[] {
  const c: SQL[] = [];
  if (filter.token) c.push(eq(feeCollection.token, filter.token));
  if (filter.fromBlock !== undefined) c.push(gte(feeCollection.blockNumber, filter.fromBlock));
  if (filter.toBlock !== undefined) c.push(lte(feeCollection.blockNumber, filter.toBlock));
  if (filter.fromTime !== undefined) c.push(gte(feeCollection.timestamp, filter.fromTime));
  if (filter.toTime !== undefined) c.push(lt(feeCollection.timestamp, filter.toTime));
  return c;
}

const fees: ExportDataset<FeeRow> = {
  name: "fees",
  description:
    "LP fees collected: one row per collection (the LP locker's ClaimedRewards), reward slot and currency, with the slot's recipient and its role (operator, creator or other)",
  columns: ["id", "token", "rewardIndex", "recipient", "role", "currency", "symbol", "decimals", "amount", "amountRaw", "txHash", "blockNumber", "timestamp", "cursor"],
  orderings: FEE_ORDERINGS,
  page: async (db, filter, ordering, cursor, limit) => {
    const rows = await db
      .select({ row: feeCollection, creator: enrollment.creator })
      .from(feeCollection)
      .leftJoin(enrollment, eq(enrollment.token, feeCollection.token))
      .where(and(...feeConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering))
      .limit(limit);
    return rows.map((r) => ({ ...r.row, creator: r.creator }));
  },
  records: async (rows, ordering, { db, config }) => {
    const currencies = await currencyInfos(db, config, rows.map((r) => r.currency));
    const operator = config.operator?.toLowerCase();
    return rows.map((r) => {
      const currency = currencies.get(r.currency.toLowerCase())!;
      const recipient = r.recipient.toLowerCase();
      const role = recipient === operator ? "operator" : recipient === r.creator?.toLowerCase() ? "creator" : "other";
      return [
        r.id,
        fastChecksum(r.token),
        r.rewardIndex,
        /^0x[0-9a-fA-F]{40}$/.test(r.recipient) ? fastChecksum(r.recipient) : r.recipient,
        role,
        currency.address,
        currency.symbol,
        currency.decimals,
        ...amount(r.amount, currency.decimals),
        r.txHash,
        Number(r.blockNumber),
        isoTime(r.timestamp),
        cursorOf(ordering, r),
      ];
    });
  },
};

// ------------------------------------------------------------------ activity

const ACTIVITY_OLDEST: Ordering<ActivityRow> = { ...ACTIVITY_ORDERING, name: "activity-oldest", direction: "asc" };

function activityConditions(filter: ExportFilter): SQL[] {
  const c: SQL[] = [];
  if (filter.kinds?.length) c.push(inArray(activity.kind, [...filter.kinds]));
  if (filter.token) c.push(eq(activity.token, filter.token));
  if (filter.fromBlock !== undefined) c.push(gte(activity.blockNumber, filter.fromBlock));
  if (filter.toBlock !== undefined) c.push(lte(activity.blockNumber, filter.toBlock));
  if (filter.fromTime !== undefined) c.push(gte(activity.timestamp, filter.fromTime));
  if (filter.toTime !== undefined) c.push(lt(activity.timestamp, filter.toTime));
  return c;
}

const activityDataset: ExportDataset<ActivityRow> = {
  name: "activity",
  description: "The activity feed: one row per event of every kind, its facts as JSON (exact decimals in `data`, base units in `rawData`)",
  columns: ["id", "kind", "token", "txHash", "blockNumber", "logIndex", "timestamp", "data", "rawData", "cursor"],
  kinds: ACTIVITY_KINDS,
  // Newest first shares GraphQL's and GET /activity's ordering (and so their cursors).
  orderings: { oldest: ACTIVITY_OLDEST, newest: ACTIVITY_ORDERING },
  page: (db, filter, ordering, cursor, limit) =>
    db
      .select()
      .from(activity)
      .where(and(...activityConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering))
      .limit(limit),
  records: async (rows, ordering, { config }) =>
    rows.map((r) => [
      r.id,
      r.kind,
      r.token ? fastChecksum(r.token) : null,
      r.txHash,
      Number(r.blockNumber),
      r.logIndex,
      isoTime(r.timestamp),
      formatActivityData(r.data, config.contracts.usdc) as Record<string, unknown>,
      r.data as Record<string, unknown>,
      cursorOf(ordering, r),
    ]),
};

// biome-ignore lint/suspicious/noExplicitAny: datasets of different row types, used through their own functions
export const DATASETS: Record<ExportDatasetName, ExportDataset<any>> = { burns, buybacks, fees, activity: activityDataset };
