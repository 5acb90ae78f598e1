/**
 * The exports' datasets (GET /export/{burns|buybacks|fees|activity}.{csv,ndjson}): what each
 * reads, in which keyset order, and the record each row becomes — the same facts and edge
 * formats as GraphQL (checksummed addresses, ISO-8601 times, exact decimals in whole units),
 * with every amount also in raw base units, and the row's cursor last (docs/api.md, "Exports").
 * Burns, buybacks and fees are lists of columns whose lines PostgreSQL builds and COPY sends
 * (`CopyDataset`); the activity feed, whose records need the engine's bindings and per-kind
 * formatting, is read through a server-side cursor (`CursorDataset`, api/read/export-stream.ts)
 * as the database's own text (no drizzle row objects, no bigint per amount).
 */
import { type SQL, and, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import pg from "pg";
import { type Hex, keccak256 } from "viem";
import { type ZodTypeAny, z } from "zod";
import type { Config } from "../../common/config.js";
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import { activity, burn, buyback, enrollment, feeCollection, pool, token as tokenTable } from "../../schema/ponder.js";
import type { ReadDb } from "../deps.js";
import { encodeCursor } from "../http/cursor.js";
import { ACTIVITY_KINDS, ACTIVITY_ORDERING, activityTokenCondition, deskTokensByTrade, formatActivityData, unnamedDeskTradeId } from "./activity.js";
import type { EnginePort } from "../engine-port.js";
import { activityDataSchema } from "../views/activity.js";
import { burnView } from "../views/burn.js";
import { buybackView } from "../views/buyback.js";
import { documented as withJsonSchema } from "../openapi/zod-schema.js";
import { type View, viewSchema } from "../views/view.js";
import { json } from "../../common/edge.js";
import { BURN_ORDERINGS, burnConditions } from "./burns.js";
import { type ActivityKind, BURN_KINDS, BUYBACK_KINDS } from "../../common/activity.js";
import type { EventFilter } from "./events.js";
import { BUYBACK_ORDERINGS, buybackConditions } from "./buybacks.js";
import { type Ordering, after, orderBy } from "./keyset.js";

export const EXPORT_DATASETS = ["burns", "buybacks", "fees", "activity"] as const;
export type ExportDatasetName = (typeof EXPORT_DATASETS)[number];
export type ExportOrder = "oldest" | "newest";
export type ExportFilter = EventFilter & {
  /** With `token`, the activity dataset's desk rows of that token: the open order ids of the trades the engine opened for it. */
  deskOrderIds?: readonly bigint[];
};

/** A cell: text, a number (block numbers, log indexes), null, or JSON (activity data; a quoted cell in CSV). */
export type Cell = string | number | null | Record<string, unknown>;

/**
 * A row as the database sends it: every field in its text form (numeric as its digits, json as
 * its text), in the order of the dataset's `fields`; null for SQL NULL.
 */
export type TextRow = (string | null)[];

/** The query of an export: its SQL and parameters (drizzle's `toSQL()`). */
export type ExportSql = { sql: string; params: unknown[] };

/** What a dataset's records read besides its rows: the index, the configuration, the engine's bindings (desk rows' tokens). */
export type ExportContext = { db: ReadDb; config: Config; engine: EnginePort };

type DatasetBase = {
  name: ExportDatasetName;
  description: string;
  /** Column names, in order; the last is always `cursor`. */
  columns: readonly string[];
  /** One row as documented (the NDJSON line's schema in OpenAPI; a CSV row holds the same cells). */
  row: z.AnyZodObject;
  /** The kinds `kind=` accepts (none: the dataset has no kinds). */
  kinds?: readonly string[];
  /** The keyset orderings (their names and columns are GraphQL's, so cursors are shared). */
  orderings: Record<ExportOrder, Ordering<never>>;
};

/**
 * A dataset whose lines PostgreSQL builds, read with COPY (api/read/export-copy.ts): each row's
 * fields, every odd one an address the API writes checksummed. A bad cursor throws (400) when
 * the query is built, before anything is read.
 */
export type CopyDataset = DatasetBase & {
  lines: (
    db: ReadDb,
    filter: ExportFilter,
    ordering: Ordering<never>,
    cursor: string | undefined,
    format: "csv" | "ndjson",
    limit: number | undefined,
    config: ExportConfig,
  ) => ExportSql;
};

/** A dataset read through a server-side cursor (api/read/export-stream.ts), its records finished in JavaScript. */
export type CursorDataset = DatasetBase & {
  /** Every row after `cursor` (or from the start), in the ordering's order: only the fields the records need. A bad cursor throws (400) here. */
  query: (db: ReadDb, filter: ExportFilter, ordering: Ordering<never>, cursor: string | undefined, config: ExportConfig) => ExportSql;
  /** A batch's records (cells in column order, the row's cursor last): one lookup per batch for what rows share. */
  records: (rows: TextRow[], ordering: Ordering<never>, ctx: ExportContext) => Promise<Cell[][]>;
};

export type ExportDataset = CopyDataset | CursorDataset;

// ------------------------------------------------------------------ lines in SQL (COPY)

/**
 * A column of a line built in SQL, by what it holds: free text (CSV-quoted when it holds a quote,
 * comma or line end; a JSON string), an address (left to the API's checksum), an amount (its
 * exact decimal; `raw` its base units), an integer, a unix time (ISO-8601 with milliseconds, as
 * `isoTime`), or a row's cursor (text that never needs quoting).
 */
export type LineColumn =
  | { name: string; kind: "text" | "address" | "raw" | "int" | "iso" | "plain"; expr: SQL }
  | { name: string; kind: "decimal"; expr: SQL; decimals: Decimals }
  /** An address when `isAddress` holds (checksummed by the API), otherwise `text` as free text. */
  | { name: string; kind: "addressOrText"; isAddress: SQL; address: SQL; text: SQL };

/** Decimals of an amount: fixed, or chosen per row (`then` when `when` holds, otherwise `else`). */
export type Decimals = number | { when: SQL; yes: number; no: number };

const literal = (text: string) => sql.raw(pg.escapeLiteral(text));

/** `expr` (a numeric of base units) as `formatDecimal` writes it: scaled exactly (a multiplication, never a rounding division), trailing zeros trimmed. */
export const sqlDecimal = (expr: SQL, decimals: Decimals): SQL =>
  typeof decimals !== "number"
    ? sql`(CASE WHEN ${decimals.when} THEN ${sqlDecimal(expr, decimals.yes)} ELSE ${sqlDecimal(expr, decimals.no)} END)`
    : decimals === 0
      ? sql`(${expr})::text`
      : sql`trim_scale((${expr})::numeric * ${sql.raw(`0.${"0".repeat(decimals - 1)}1`)})::text`;

/** Decimals as an integer expression. */
export const sqlDecimals = (decimals: Decimals): SQL =>
  typeof decimals === "number"
    ? sql.raw(String(decimals))
    : sql`(CASE WHEN ${decimals.when} THEN ${sql.raw(String(decimals.yes))} ELSE ${sql.raw(String(decimals.no))} END)`;

/**
 * Unix seconds → ISO-8601 in UTC with milliseconds (`new Date(s * 1000).toISOString()`): whole
 * days and seconds added to the epoch in integers (exact at any size, unlike a float's
 * to_timestamp), written by the timestamp's own output (DateStyle ISO, set by the COPY's
 * transaction), its space made a `T`. Years past 9999 are written as PostgreSQL writes them.
 */
export const sqlIso = (expr: SQL): SQL =>
  sql`replace(('epoch'::timestamp + make_interval(days => ((${expr})::int8 / 86400)::int4, secs => (${expr})::int8 % 86400))::text, ' ', 'T') || '.000Z'`;

/**
 * `encodeCursor(ordering.name, keys)`: base64url of the JSON array `[name, ...keys as strings]`
 * (an integer key's digits written as they are, a text key as JSON).
 */
export const sqlCursor = (ordering: Pick<Ordering<unknown>, "name" | "types">, keys: SQL[]): SQL => {
  const json = sql.join(
    keys.map((k, i) => (ordering.types[i] === "int" ? sql`'"' || (${k})::text || '"'` : sql`to_json((${k})::text)::text`)),
    sql` || ',' || `,
  );
  return sql`rtrim(translate(encode(textsend(${literal(`[${JSON.stringify(ordering.name)},`)} || ${json} || ']'), 'base64'), E'+/\\n', '-_'), '=')`;
};

/** RFC 4180: quoted (its quotes doubled) when it holds a quote, comma, CR or LF. */
const csvText = (expr: SQL): SQL =>
  sql`(CASE WHEN strpos(${expr}, '"') > 0 OR strpos(${expr}, ',') > 0 OR strpos(${expr}, chr(13)) > 0 OR strpos(${expr}, chr(10)) > 0 THEN '"' || replace(${expr}, '"', '""') || '"' ELSE ${expr} END)`;

/**
 * One line per row as the fields COPY sends: text fields between the address slots (`0x` and
 * 40 hex digits, checksummed by the API). CSV: RFC 4180 with CRLF; NDJSON: one JSON object per
 * line, keys in column order (as `lineEncoder`).
 */
export function lineFields(columns: readonly LineColumn[], format: "csv" | "ndjson"): SQL[] {
  const json = format === "ndjson";
  const fields: SQL[] = [];
  let pieces: SQL[] = [];
  const text = (t: string) => pieces.push(literal(t));
  columns.forEach((c, i) => {
    text(json ? `${i ? "," : "{"}${JSON.stringify(c.name)}:` : i ? "," : "");
    switch (c.kind) {
      case "address":
        if (json) text('"');
        fields.push(pieces.length ? sql.join(pieces, sql` || `) : sql`''`);
        fields.push(sql`(${c.expr})::text`);
        pieces = [];
        if (json) text('"');
        return;
      case "addressOrText":
        // The slot holds the address or NULL (nothing); the text, when not an address, follows it.
        if (json) pieces.push(sql`(CASE WHEN ${c.isAddress} THEN '"' ELSE '' END)`);
        fields.push(pieces.length ? sql.join(pieces, sql` || `) : sql`''`);
        fields.push(sql`(CASE WHEN ${c.isAddress} THEN (${c.address})::text END)`);
        pieces = [
          json
            ? sql`(CASE WHEN ${c.isAddress} THEN '"' ELSE to_json((${c.text})::text)::text END)`
            : sql`(CASE WHEN ${c.isAddress} THEN '' ELSE ${csvText(sql`(${c.text})::text`)} END)`,
        ];
        return;
      case "text":
        pieces.push(json ? sql`to_json((${c.expr})::text)::text` : csvText(sql`(${c.expr})::text`));
        return;
      case "int":
        pieces.push(sql`(${c.expr})::text`);
        return;
      case "decimal":
        pieces.push(json ? sql`'"' || ${sqlDecimal(c.expr, c.decimals)} || '"'` : sqlDecimal(c.expr, c.decimals));
        return;
      case "raw":
        pieces.push(json ? sql`'"' || (${c.expr})::text || '"'` : sql`(${c.expr})::text`);
        return;
      case "iso":
        pieces.push(json ? sql`'"' || ${sqlIso(c.expr)} || '"'` : sqlIso(c.expr));
        return;
      case "plain":
        pieces.push(json ? sql`'"' || (${c.expr}) || '"'` : c.expr);
        return;
    }
  });
  text(json ? "}\n" : "\r\n");
  fields.push(sql.join(pieces, sql` || `));
  return fields;
}

/** `fields` as a select list of the sql fields `f0`, `f1`, … (in order). */
export const selectFields = (fields: SQL[]): Record<string, SQL<string>> => Object.fromEntries(fields.map((f, i) => [`f${i}`, f as SQL<string>]));

/**
 * A currency column's facts as `currencyInfos` gives them, in SQL: USDC and WETH (the configured
 * addresses) by name, a launched token by its symbol (`launched`: the token table joined on the
 * currency), anything else by its checksummed address; 6 decimals for USDC, 18 otherwise.
 */
function sqlCurrency(currency: SQL, launchedSymbol: SQL, config: Pick<Config, "contracts">) {
  const usdc = config.contracts.usdc?.toLowerCase();
  const weth = config.contracts.weth?.toLowerCase();
  const lower = sql`lower(${currency})`;
  const isUsdc = usdc ? sql`(${lower} = ${literal(usdc)})` : sql`false`;
  const isWeth = weth ? sql`(${lower} = ${literal(weth)})` : sql`false`;
  return {
    decimals: { when: isUsdc, yes: USDC_DECIMALS, no: TOKEN_DECIMALS } satisfies Decimals,
    symbol: {
      isAddress: sql`(NOT ${isUsdc} AND NOT ${isWeth} AND ${launchedSymbol} IS NULL)`,
      address: lower,
      text: sql`(CASE WHEN ${isUsdc} THEN 'USDC' WHEN ${isWeth} THEN 'WETH' ELSE ${launchedSymbol} END)`,
    },
  };
}

/** The token table again, joined on a currency (a launched token's symbol). */
const currencyToken = alias(tokenTable, "currency_token");

/** Key text that JSON writes as itself between quotes (digits, ids of hex, dashes and dots). */
const PLAIN_KEY = /^[\w.:-]*$/;

/**
 * A row's cursor: `encodeCursor` of the key fields' text (the digits `toString()` gives, the
 * text itself), its JSON written directly when every key is plain.
 */
function cursorOfText(name: string, keys: string[]): string {
  let text = `[${JSON.stringify(name)}`;
  for (const key of keys) {
    if (!PLAIN_KEY.test(key)) return encodeCursor(name, keys);
    text += `,"${key}"`;
  }
  return Buffer.from(`${text}]`, "latin1").toString("base64url");
}

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

/** Unix seconds (their digits) → ISO-8601, as `isoTime`. */
const isoOfText = (seconds: string) => new Date(Number(seconds) * 1000).toISOString();

// ------------------------------------------------------------------ datasets of columns

/** A column of a dataset's row: how SQL builds it, and the documented schema of its cell (by default its kind's). */
export type ExportColumn = LineColumn & { description?: string; schema?: ZodTypeAny };

/** The documented cell of each kind of column. */
const KIND_SCHEMAS: Record<LineColumn["kind"], ZodTypeAny> = {
  text: z.string(),
  address: json.checksummed,
  addressOrText: z.string().describe("EIP-55 checksummed address, or text"),
  decimal: json.decimal,
  raw: json.digits,
  int: z.number().int(),
  iso: json.iso,
  plain: z.string(),
};

const cursorSchema = z.string().describe("This row's cursor: `after=<cursor>` resumes after it");

/** The documented row of `columns` (then the cursor): each column's schema, or its kind's with its description. */
function rowSchema(columns: readonly ExportColumn[]): z.AnyZodObject {
  const shape = Object.fromEntries(
    columns.map((c) => [c.name, c.schema ?? (c.description ? KIND_SCHEMAS[c.kind].describe(c.description) : KIND_SCHEMAS[c.kind])]),
  );
  return z.object({ ...shape, cursor: cursorSchema }).strict();
}

/** The configuration columns may name (the currencies, the operator). */
export type ExportConfig = Pick<Config, "contracts" | "operator">;
/** No configuration: column names and kinds never depend on one (and burns' lines read none). */
export const NO_CONFIG = { contracts: {}, operator: undefined } as unknown as ExportConfig;

/** A select in the making: the table and its joins, before its conditions and order (drizzle's builder). */
type Selecting = {
  where(where: SQL | undefined): { orderBy(...columns: SQL[]): { toSQL(): ExportSql; limit(n: number): { toSQL(): ExportSql } } };
};

/** A dataset whose row is a list of columns: the lines COPY sends (`lineFields`) and its documented row both derive from it. */
function columnDataset(spec: {
  name: ExportDatasetName;
  description: string;
  kinds?: readonly string[];
  orderings: Record<ExportOrder, Ordering<never>>;
  /** The row's columns, in order, before the cursor. */
  columns: (config: ExportConfig) => ExportColumn[];
  /** The columns the cursor encodes: the orderings' columns. */
  cursorKeys: SQL[];
  /** `fields` read from the dataset's table and its joins. */
  from: (db: ReadDb, fields: Record<string, SQL<string>>) => Selecting;
  conditions: (filter: ExportFilter) => SQL[];
}): CopyDataset {
  const cursorColumn = (ordering: Ordering<never>): LineColumn => ({ name: "cursor", kind: "plain", expr: sqlCursor(ordering, spec.cursorKeys) });
  const columns = (config: ExportConfig, ordering: Ordering<never>) => [...spec.columns(config), cursorColumn(ordering)];
  const select = (db: ReadDb, filter: ExportFilter, ordering: Ordering<never>, cursor: string | undefined, fields: SQL[]) =>
    spec
      .from(db, selectFields(fields))
      .where(and(...spec.conditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering));
  const described = spec.columns(NO_CONFIG);
  return {
    name: spec.name,
    description: spec.description,
    columns: [...described.map((c) => c.name), "cursor"],
    row: rowSchema(described),
    kinds: spec.kinds,
    orderings: spec.orderings,
    lines: (db, filter, ordering, cursor, format, limit, config) => {
      const query = select(db, filter, ordering, cursor, lineFields(columns(config, ordering), format));
      return limit === undefined ? query.toSQL() : query.limit(limit).toSQL();
    },
  };
}

/**
 * A view's columns: an amount is its decimal and its raw units; each documented as the view's
 * JSON documents it. An amount or symbol of a row's currency reads that currency's facts in SQL
 * (`sqlCurrency`); `launchedSymbols` gives, per currency property, the symbol of the launched
 * token joined on it.
 */
function viewColumns(view: View, config: ExportConfig, launchedSymbols: Record<string, SQL> = {}): ExportColumn[] {
  const schema = viewSchema(view).shape as Record<string, ZodTypeAny>;
  const columns = view.columns;
  if (!columns) throw new Error(`the ${view.name} view reads no table: it has no export`);
  const currency = (key: string) => sqlCurrency(sql`${columns[key]}`, launchedSymbols[key] ?? sql`NULL`, config);
  return Object.entries(view.fields).flatMap(([name, f]): ExportColumn[] => {
    const expr = sql`${columns[name]}`;
    const described = { name, schema: schema[name] };
    switch (f.kind) {
      case "address":
        return [{ ...described, kind: "address", expr }];
      case "amount":
        return [
          { ...described, kind: "decimal", expr, decimals: "decimals" in f ? f.decimals : currency(f.currency).decimals },
          { name: `${name}Raw`, schema: schema[`${name}Raw`], kind: "raw", expr },
        ];
      case "symbol":
        return [{ ...described, kind: "addressOrText", ...currency(f.currency).symbol }];
      case "int":
        return [{ ...described, kind: "int", expr }];
      case "digits":
        return [{ ...described, kind: "raw", expr }];
      case "time":
        return [{ ...described, kind: "iso", expr }];
      default:
        return [{ ...described, kind: "text", expr }];
    }
  });
}

// ------------------------------------------------------------------ burns

const burns = columnDataset({
  name: "burns",
  description: "Burns: transfers of launched tokens to the dead address",
  kinds: BURN_KINDS,
  orderings: { oldest: BURN_ORDERINGS.OLDEST as Ordering<never>, newest: BURN_ORDERINGS.NEWEST as Ordering<never> },
  columns: (config) => viewColumns(burnView, config),
  cursorKeys: [sql`${burn.blockNumber}`, sql`${burn.logIndex}`],
  from: (db, fields) => db.select(fields).from(burn),
  conditions: burnConditions,
});

// ------------------------------------------------------------------ buybacks

const buybacks = columnDataset({
  name: "buybacks",
  description: "Buybacks: the operator's swaps into a launched token (protocol and creator buybacks)",
  kinds: BUYBACK_KINDS,
  orderings: { oldest: BUYBACK_ORDERINGS.OLDEST as Ordering<never>, newest: BUYBACK_ORDERINGS.NEWEST as Ordering<never> },
  columns: (config) => viewColumns(buybackView, config, { spentCurrency: sql`${currencyToken.symbol}` }),
  cursorKeys: [sql`${buyback.blockNumber}`, sql`${buyback.logIndex}`],
  from: (db, fields) =>
    db
      .select(fields)
      .from(buyback)
      .leftJoin(tokenTable, eq(tokenTable.address, buyback.token))
      .leftJoin(pool, eq(pool.poolId, tokenTable.poolId))
      .leftJoin(currencyToken, eq(currencyToken.address, sql`lower(${buyback.currencyIn})`)),
  conditions: buybackConditions,
});

// ------------------------------------------------------------------ fees

/** Chain order of collections: by block, then by id (`txHash-logIndex-rewardIndex-side`, unique). */
const feeOrdering = (name: string, direction: "asc" | "desc"): Ordering<never> => ({
  name,
  direction,
  columns: [feeCollection.blockNumber, feeCollection.id],
  types: ["int", "text"],
  key: () => [],
});

function feeConditions(filter: ExportFilter): SQL[] {
  const c: SQL[] = [];
  if (filter.token) c.push(eq(feeCollection.token, filter.token));
  if (filter.fromBlock !== undefined) c.push(gte(feeCollection.blockNumber, filter.fromBlock));
  if (filter.toBlock !== undefined) c.push(lte(feeCollection.blockNumber, filter.toBlock));
  if (filter.fromTime !== undefined) c.push(gte(feeCollection.timestamp, filter.fromTime));
  if (filter.toTime !== undefined) c.push(lt(feeCollection.timestamp, filter.toTime));
  return c;
}

const fees = columnDataset({
  name: "fees",
  description:
    "LP fees collected: one row per collection (the LP locker's ClaimedRewards), reward slot and currency, with the slot's recipient and its role (operator, creator or other)",
  orderings: { oldest: feeOrdering("fee-oldest", "asc"), newest: feeOrdering("fee-newest", "desc") },
  columns: (config) => {
    const currency = sqlCurrency(sql`${feeCollection.currency}`, sql`${currencyToken.symbol}`, config);
    const operator = config.operator?.toLowerCase();
    const recipient = sql`lower(${feeCollection.recipient})`;
    const role = sql`(CASE ${operator ? sql`WHEN ${recipient} = ${literal(operator)} THEN 'operator' ` : sql``}WHEN ${recipient} = lower(${enrollment.creator}) THEN 'creator' ELSE 'other' END)`;
    return [
      { name: "id", kind: "text", expr: sql`${feeCollection.id}` },
      { name: "token", kind: "address", expr: sql`${feeCollection.token}` },
      { name: "rewardIndex", kind: "int", expr: sql`${feeCollection.rewardIndex}` },
      {
        name: "recipient",
        kind: "addressOrText",
        isAddress: sql`(${feeCollection.recipient} ~ '^0x[0-9a-fA-F]{40}$')`,
        address: recipient,
        text: sql`${feeCollection.recipient}`,
        description: "The reward slot's recipient (checksummed)",
      },
      { name: "role", kind: "text", expr: role, schema: z.enum(["operator", "creator", "other"]) },
      { name: "currency", kind: "address", expr: sql`lower(${feeCollection.currency})` },
      { name: "symbol", kind: "addressOrText", ...currency.symbol },
      { name: "decimals", kind: "int", expr: sqlDecimals(currency.decimals) },
      { name: "amount", kind: "decimal", expr: sql`${feeCollection.amount}`, decimals: currency.decimals },
      { name: "amountRaw", kind: "raw", expr: sql`${feeCollection.amount}` },
      { name: "txHash", kind: "text", expr: sql`${feeCollection.txHash}`, schema: json.hash },
      { name: "blockNumber", kind: "int", expr: sql`${feeCollection.blockNumber}` },
      { name: "timestamp", kind: "iso", expr: sql`${feeCollection.timestamp}` },
    ];
  },
  cursorKeys: [sql`${feeCollection.blockNumber}`, sql`${feeCollection.id}`],
  from: (db, fields) =>
    db
      .select(fields)
      .from(feeCollection)
      .leftJoin(enrollment, eq(enrollment.token, feeCollection.token))
      .leftJoin(currencyToken, eq(currencyToken.address, sql`lower(${feeCollection.currency})`)),
  conditions: feeConditions,
});

// ------------------------------------------------------------------ activity

const A = { id: 0, kind: 1, token: 2, txHash: 3, blockNumber: 4, logIndex: 5, timestamp: 6, data: 7 } as const;

const ACTIVITY_NEWEST = ACTIVITY_ORDERING as Ordering<never>;
const ACTIVITY_OLDEST: Ordering<never> = { ...ACTIVITY_NEWEST, name: "activity-oldest", direction: "asc" };

function activityConditions(db: ReadDb, filter: ExportFilter): SQL[] {
  const c: SQL[] = [];
  if (filter.kinds?.length) c.push(inArray(activity.kind, [...filter.kinds]));
  // A token's rows include its desk rows, as GET /activity and GraphQL's activity take them in.
  if (filter.token) c.push(activityTokenCondition(db, filter.token, filter.deskOrderIds));
  if (filter.fromBlock !== undefined) c.push(gte(activity.blockNumber, filter.fromBlock));
  if (filter.toBlock !== undefined) c.push(lte(activity.blockNumber, filter.toBlock));
  if (filter.fromTime !== undefined) c.push(gte(activity.timestamp, filter.fromTime));
  if (filter.toTime !== undefined) c.push(lt(activity.timestamp, filter.toTime));
  return c;
}

const activityDataset: CursorDataset = {
  name: "activity",
  description: "The activity feed: one row per event of every kind, its facts as JSON (exact decimals in `data`, base units in `rawData`)",
  columns: ["id", "kind", "token", "txHash", "blockNumber", "logIndex", "timestamp", "data", "rawData", "cursor"],
  row: z
    .object({
      id: z.string().describe("Sorts in chain order"),
      kind: z.enum(ACTIVITY_KINDS),
      token: json.checksummed.nullable(),
      txHash: json.hash,
      blockNumber: z.number().int(),
      logIndex: z.number().int(),
      timestamp: json.iso,
      data: activityDataSchema,
      rawData: withJsonSchema(z.record(z.unknown()), { additionalProperties: {} }).describe("The event's facts as indexed (amounts in base units)"),
      cursor: cursorSchema,
    })
    .strict(),
  kinds: ACTIVITY_KINDS,
  // Newest first shares GraphQL's and GET /activity's ordering (and so their cursors).
  orderings: { oldest: ACTIVITY_OLDEST, newest: ACTIVITY_NEWEST },
  query: (db, filter, ordering, cursor) =>
    db
      .select({
        id: activity.id,
        kind: activity.kind,
        token: activity.token,
        txHash: activity.txHash,
        blockNumber: activity.blockNumber,
        logIndex: activity.logIndex,
        timestamp: activity.timestamp,
        data: activity.data,
      })
      .from(activity)
      .where(and(...activityConditions(db, filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering))
      .toSQL(),
  records: async (rows, ordering, { db, config, engine }) => {
    // The json column's text, parsed as drizzle's json column parses it.
    const parsed = rows.map((r) => JSON.parse(r[A.data]!) as Record<string, unknown>);
    // Desk rows name the engine's token of their trade, as the feed's other surfaces do (api/read/activity.ts).
    const deskIds = rows.map((r, i) => unnamedDeskTradeId(r[A.kind]!, r[A.token], parsed[i]));
    const deskTokens = await deskTokensByTrade(
      db,
      engine,
      deskIds.filter((id): id is string => id !== undefined),
    );
    return rows.map((r, i) => {
      const data = parsed[i]!;
      const token = r[A.token] ?? (deskIds[i] === undefined ? undefined : deskTokens.get(deskIds[i]!));
      return [
        r[A.id]!,
        r[A.kind]!,
        token ? fastChecksum(token) : null,
        r[A.txHash]!,
        Number(r[A.blockNumber]),
        Number(r[A.logIndex]),
        isoOfText(r[A.timestamp]!),
        formatActivityData(r[A.kind] as ActivityKind, data, config.contracts.usdc),
        data,
        cursorOfText(ordering.name, [r[A.id]!]),
      ];
    });
  },
};

export const DATASETS = { burns, buybacks, fees, activity: activityDataset } satisfies Record<ExportDatasetName, ExportDataset>;
