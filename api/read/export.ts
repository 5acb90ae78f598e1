/**
 * The exports' datasets (GET /export/{burns|buybacks|fees|activity}.{csv,ndjson}): what each
 * reads, in which keyset order, and the record each row becomes — the same facts and edge
 * formats as GraphQL (checksummed addresses, ISO-8601 times, exact decimals in whole units),
 * with every amount also in raw base units, and the row's cursor last (docs/api.md, "Exports").
 * A dataset is one query, read through a server-side cursor (api/read/export-stream.ts): its
 * fields come as the database's own text (no drizzle row objects, no bigint per amount), and
 * each row becomes its cells from those strings.
 */
import { type SQL, and, eq, gte, inArray, lt, lte, sql } from "drizzle-orm";
import { type AnyPgColumn, alias } from "drizzle-orm/pg-core";
import pg from "pg";
import { type Hex, keccak256 } from "viem";
import type { Config } from "../../common/config.js";
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import { activity, burn, buyback, enrollment, feeCollection, pool, token as tokenTable } from "../../schema/ponder.js";
import type { ReadDb } from "../deps.js";
import { encodeCursor } from "../http/cursor.js";
import { ACTIVITY_KINDS, ACTIVITY_ORDERING, activityTokenCondition, deskTokensByTrade, formatActivityData, unnamedDeskTradeId } from "./activity.js";
import type { EnginePort } from "../engine-port.js";
import { burnView } from "../views/burn.js";
import { type View, type ViewFields, viewKeys } from "../views/view.js";
import { BURN_KINDS, BURN_ORDERINGS, type EventFilter, burnConditions } from "./burns.js";
import { BUYBACK_ORDERINGS, buybackConditions } from "./buybacks.js";
import { currencyInfos } from "./fees.js";
import { type Ordering, after, orderBy } from "./keyset.js";

export const EXPORT_DATASETS = ["burns", "buybacks", "fees", "activity"] as const;
export type ExportDatasetName = (typeof EXPORT_DATASETS)[number];
export type ExportOrder = "oldest" | "newest";
export type ExportFilter = EventFilter & {
  kinds?: readonly string[];
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

export type ExportDataset = {
  name: ExportDatasetName;
  description: string;
  /** Column names, in order; the last is always `cursor`. */
  columns: readonly string[];
  /** The kinds `kind=` accepts (none: the dataset has no kinds). */
  kinds?: readonly string[];
  /** The keyset orderings (their names and columns are GraphQL's, so cursors are shared); `key` reads a TextRow. */
  orderings: Record<ExportOrder, Ordering<TextRow>>;
  /**
   * Every row after `cursor` (or from the start), in the ordering's order, as one query: only the
   * fields the records need. A bad cursor throws (400) here, before anything is read.
   */
  query: (db: ReadDb, filter: ExportFilter, ordering: Ordering<TextRow>, cursor: string | undefined) => ExportSql;
  /** A batch's records (cells in column order, the row's cursor last): one lookup per batch for what rows share. */
  records: (rows: TextRow[], ordering: Ordering<TextRow>, ctx: ExportContext) => Promise<Cell[][]>;
  /**
   * The same rows as ready lines, built in SQL for COPY (api/read/export-copy.ts): each row's
   * fields, every odd one an address the API writes checksummed. Absent: the dataset is read
   * through the cursor (`records`).
   */
  lines?: (
    db: ReadDb,
    filter: ExportFilter,
    ordering: Ordering<TextRow>,
    cursor: string | undefined,
    format: "csv" | "ndjson",
    limit: number | undefined,
    config: Pick<Config, "contracts" | "operator">,
  ) => ExportSql;
};

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

/** `expr` (a numeric of base units) as `decimalOfDigits` writes it: scaled exactly (a multiplication, never a rounding division), trailing zeros trimmed. */
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

/** `limit` rows at most, when given. */
function limited<Q extends { limit(n: number): unknown; toSQL(): ExportSql }>(query: Q, limit: number | undefined): ExportSql {
  return limit === undefined ? query.toSQL() : (query.limit(limit) as Q).toSQL();
}

/** An ordering of GraphQL's (same name, columns and key types) whose key is read from a TextRow's fields. */
function textOrdering(ordering: Ordering<never>, keyFields: readonly number[]): Ordering<TextRow> {
  return { ...ordering, key: (r) => keyFields.map((i) => r[i]!) };
}

/** Key text that JSON writes as itself between quotes (digits, ids of hex, dashes and dots). */
const PLAIN_KEY = /^[\w.:-]*$/;

/**
 * A row's cursor: `encodeCursor` of the key fields' text (the digits `toString()` gives, the
 * text itself), its JSON written directly when every key is plain.
 */
function cursorOfText(ordering: Ordering<TextRow>, row: TextRow): string {
  const keys = ordering.key(row) as string[];
  let json = `[${JSON.stringify(ordering.name)}`;
  for (const key of keys) {
    if (!PLAIN_KEY.test(key)) return encodeCursor(ordering.name, keys);
    json += `,"${key}"`;
  }
  return Buffer.from(`${json}]`, "latin1").toString("base64url");
}

/** Unix seconds (their digits) → ISO-8601, as `isoTime`. */
const isoOfText = (seconds: string) => new Date(Number(seconds) * 1000).toISOString();

const num = (text: string | null) => Number(text);

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

/** An amount (its digits) as its exact decimal and its raw base units. */
function amount(raw: string | null, decimals: number): [string, string] {
  return [decimalOfDigits(raw!, decimals), raw!];
}

// ------------------------------------------------------------------ views

/** Each field of a view by its index in a row of `viewSelect`. */
function fieldIndex<F extends ViewFields>(view: View<F>): { [K in keyof F]: number } {
  return Object.fromEntries(Object.keys(view.fields).map((name, i) => [name, i])) as never;
}

/** A view's columns as a select, in the view's order (one TextRow field per view field). */
function viewSelect(view: View): Record<string, AnyPgColumn> {
  return Object.fromEntries(Object.keys(view.fields).map((name) => [name, view.columns[name]!]));
}

/** A view's columns as lines built in SQL: an amount is its decimal and its raw units. */
function viewLineColumns(view: View): LineColumn[] {
  return Object.entries(view.fields).flatMap(([name, f]): LineColumn[] => {
    const expr = sql`${view.columns[name]}`;
    switch (f.kind) {
      case "address":
        return [{ name, kind: "address", expr }];
      case "amount":
        return [
          { name, kind: "decimal", expr, decimals: f.decimals },
          { name: `${name}Raw`, kind: "raw", expr },
        ];
      case "int":
        return [{ name, kind: "int", expr }];
      case "time":
        return [{ name, kind: "iso", expr }];
      default:
        return [{ name, kind: "text", expr }];
    }
  });
}

/** A TextRow of `viewSelect` as the view's cells, as `viewJson` writes them (the fields read once, not per row). */
function viewCells(view: View): (row: TextRow) => Cell[] {
  const fields = Object.values(view.fields);
  return (row) => {
    const cells: Cell[] = [];
    fields.forEach((f, i) => {
      const text = row[i]!;
      switch (f.kind) {
        case "address":
          cells.push(fastChecksum(text));
          break;
        case "amount":
          cells.push(decimalOfDigits(text, f.decimals), text);
          break;
        case "int":
          cells.push(num(text));
          break;
        case "time":
          cells.push(isoOfText(text));
          break;
        default:
          cells.push(text);
      }
    });
    return cells;
  };
}

// ------------------------------------------------------------------ burns

const B = fieldIndex(burnView);
const burnCells = viewCells(burnView);

const burns: ExportDataset = {
  name: "burns",
  description: "Burns: transfers of launched tokens to the dead address",
  columns: [...viewKeys(burnView), "cursor"],
  kinds: BURN_KINDS,
  orderings: {
    oldest: textOrdering(BURN_ORDERINGS.OLDEST as never, [B.blockNumber, B.logIndex]),
    newest: textOrdering(BURN_ORDERINGS.NEWEST as never, [B.blockNumber, B.logIndex]),
  },
  query: (db, filter, ordering, cursor) =>
    db
      .select(viewSelect(burnView))
      .from(burn)
      .where(and(...burnConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering))
      .toSQL(),
  lines: (db, filter, ordering, cursor, format, limit) => {
    const cursorColumn: LineColumn = { name: "cursor", kind: "plain", expr: sqlCursor(ordering, [sql`${burn.blockNumber}`, sql`${burn.logIndex}`]) };
    const query = db
      .select(selectFields(lineFields([...viewLineColumns(burnView), cursorColumn], format)))
      .from(burn)
      .where(and(...burnConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering));
    return limited(query, limit);
  },
  records: async (rows, ordering) => rows.map((r) => [...burnCells(r), cursorOfText(ordering, r)]),
};

// ------------------------------------------------------------------ buybacks

const Y = {
  id: 0,
  token: 1,
  kind: 2,
  usdcIn: 3,
  pairedIn: 4,
  currencyIn: 5,
  amountIn: 6,
  tokensBought: 7,
  tokensBurned: 8,
  txHash: 9,
  blockNumber: 10,
  logIndex: 11,
  timestamp: 12,
  pairedToken: 13,
} as const;

const buybacks: ExportDataset = {
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
  orderings: {
    oldest: textOrdering(BUYBACK_ORDERINGS.OLDEST as never, [Y.blockNumber, Y.logIndex]),
    newest: textOrdering(BUYBACK_ORDERINGS.NEWEST as never, [Y.blockNumber, Y.logIndex]),
  },
  query: (db, filter, ordering, cursor) =>
    db
      .select({
        id: buyback.id,
        token: buyback.token,
        kind: buyback.kind,
        usdcIn: buyback.usdcIn,
        pairedIn: buyback.pairedIn,
        currencyIn: buyback.currencyIn,
        amountIn: buyback.amountIn,
        tokensBought: buyback.tokensBought,
        tokensBurned: buyback.tokensBurned,
        txHash: buyback.txHash,
        blockNumber: buyback.blockNumber,
        logIndex: buyback.logIndex,
        timestamp: buyback.timestamp,
        pairedToken: pool.pairedToken,
      })
      .from(buyback)
      .leftJoin(tokenTable, eq(tokenTable.address, buyback.token))
      .leftJoin(pool, eq(pool.poolId, tokenTable.poolId))
      .where(and(...buybackConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering))
      .toSQL(),
  lines: (db, filter, ordering, cursor, format, limit, config) => {
    const spent = sqlCurrency(sql`${buyback.currencyIn}`, sql`${currencyToken.symbol}`, config);
    const usdc = config.contracts.usdc?.toLowerCase();
    // As `records`: the pool's paired currency's decimals (USDC 6, otherwise 18; no pool and no USDC configured compare equal).
    const pairedIsUsdc = usdc ? sql`(lower(${pool.pairedToken}) = ${literal(usdc)})` : sql`(${pool.pairedToken} IS NULL)`;
    const query = db
      .select(
        selectFields(
          lineFields(
            [
              { name: "id", kind: "text", expr: sql`${buyback.id}` },
              { name: "token", kind: "address", expr: sql`${buyback.token}` },
              { name: "kind", kind: "text", expr: sql`${buyback.kind}` },
              { name: "usdcIn", kind: "decimal", expr: sql`${buyback.usdcIn}`, decimals: USDC_DECIMALS },
              { name: "usdcInRaw", kind: "raw", expr: sql`${buyback.usdcIn}` },
              {
                name: "pairedIn",
                kind: "decimal",
                expr: sql`${buyback.pairedIn}`,
                decimals: { when: sql`coalesce(${pairedIsUsdc}, false)`, yes: USDC_DECIMALS, no: TOKEN_DECIMALS },
              },
              { name: "pairedInRaw", kind: "raw", expr: sql`${buyback.pairedIn}` },
              { name: "spentCurrency", kind: "address", expr: sql`lower(${buyback.currencyIn})` },
              { name: "spentSymbol", kind: "addressOrText", ...spent.symbol },
              { name: "spent", kind: "decimal", expr: sql`${buyback.amountIn}`, decimals: spent.decimals },
              { name: "spentRaw", kind: "raw", expr: sql`${buyback.amountIn}` },
              { name: "tokensBought", kind: "decimal", expr: sql`${buyback.tokensBought}`, decimals: TOKEN_DECIMALS },
              { name: "tokensBoughtRaw", kind: "raw", expr: sql`${buyback.tokensBought}` },
              { name: "tokensBurned", kind: "decimal", expr: sql`${buyback.tokensBurned}`, decimals: TOKEN_DECIMALS },
              { name: "tokensBurnedRaw", kind: "raw", expr: sql`${buyback.tokensBurned}` },
              { name: "txHash", kind: "text", expr: sql`${buyback.txHash}` },
              { name: "blockNumber", kind: "int", expr: sql`${buyback.blockNumber}` },
              { name: "logIndex", kind: "int", expr: sql`${buyback.logIndex}` },
              { name: "timestamp", kind: "iso", expr: sql`${buyback.timestamp}` },
              { name: "cursor", kind: "plain", expr: sqlCursor(ordering, [sql`${buyback.blockNumber}`, sql`${buyback.logIndex}`]) },
            ],
            format,
          ),
        ),
      )
      .from(buyback)
      .leftJoin(tokenTable, eq(tokenTable.address, buyback.token))
      .leftJoin(pool, eq(pool.poolId, tokenTable.poolId))
      .leftJoin(currencyToken, eq(currencyToken.address, sql`lower(${buyback.currencyIn})`))
      .where(and(...buybackConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering));
    return limited(query, limit);
  },
  records: async (rows, ordering, { db, config }) => {
    const currencies = await currencyInfos(
      db,
      config,
      rows.map((r) => r[Y.currencyIn]!),
    );
    const usdc = config.contracts.usdc?.toLowerCase();
    return rows.map((r) => {
      const spent = currencies.get(r[Y.currencyIn]!.toLowerCase())!;
      // As GraphQL: the pool's paired currency's decimals (USDC 6, otherwise 18).
      const pairedDecimals = r[Y.pairedToken]?.toLowerCase() === usdc ? USDC_DECIMALS : TOKEN_DECIMALS;
      return [
        r[Y.id]!,
        fastChecksum(r[Y.token]!),
        r[Y.kind]!,
        ...amount(r[Y.usdcIn]!, USDC_DECIMALS),
        ...amount(r[Y.pairedIn]!, pairedDecimals),
        spent.address,
        spent.symbol,
        ...amount(r[Y.amountIn]!, spent.decimals),
        ...amount(r[Y.tokensBought]!, TOKEN_DECIMALS),
        ...amount(r[Y.tokensBurned]!, TOKEN_DECIMALS),
        r[Y.txHash]!,
        num(r[Y.blockNumber]),
        num(r[Y.logIndex]),
        isoOfText(r[Y.timestamp]!),
        cursorOfText(ordering, r),
      ];
    });
  },
};

// ------------------------------------------------------------------ fees

const F = { id: 0, token: 1, rewardIndex: 2, recipient: 3, currency: 4, amount: 5, txHash: 6, blockNumber: 7, timestamp: 8, creator: 9 } as const;

/** Chain order of collections: by block, then by id (`txHash-logIndex-rewardIndex-side`, unique). */
const FEE_ORDERINGS: Record<ExportOrder, Ordering<TextRow>> = {
  oldest: {
    name: "fee-oldest",
    direction: "asc",
    columns: [feeCollection.blockNumber, feeCollection.id],
    types: ["int", "text"],
    key: (r) => [r[F.blockNumber]!, r[F.id]!],
  },
  newest: {
    name: "fee-newest",
    direction: "desc",
    columns: [feeCollection.blockNumber, feeCollection.id],
    types: ["int", "text"],
    key: (r) => [r[F.blockNumber]!, r[F.id]!],
  },
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

const fees: ExportDataset = {
  name: "fees",
  description:
    "LP fees collected: one row per collection (the LP locker's ClaimedRewards), reward slot and currency, with the slot's recipient and its role (operator, creator or other)",
  columns: [
    "id",
    "token",
    "rewardIndex",
    "recipient",
    "role",
    "currency",
    "symbol",
    "decimals",
    "amount",
    "amountRaw",
    "txHash",
    "blockNumber",
    "timestamp",
    "cursor",
  ],
  orderings: FEE_ORDERINGS,
  query: (db, filter, ordering, cursor) =>
    db
      .select({
        id: feeCollection.id,
        token: feeCollection.token,
        rewardIndex: feeCollection.rewardIndex,
        recipient: feeCollection.recipient,
        currency: feeCollection.currency,
        amount: feeCollection.amount,
        txHash: feeCollection.txHash,
        blockNumber: feeCollection.blockNumber,
        timestamp: feeCollection.timestamp,
        creator: enrollment.creator,
      })
      .from(feeCollection)
      .leftJoin(enrollment, eq(enrollment.token, feeCollection.token))
      .where(and(...feeConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering))
      .toSQL(),
  lines: (db, filter, ordering, cursor, format, limit, config) => {
    const currency = sqlCurrency(sql`${feeCollection.currency}`, sql`${currencyToken.symbol}`, config);
    const operator = config.operator?.toLowerCase();
    const recipient = sql`lower(${feeCollection.recipient})`;
    const role = sql`(CASE ${operator ? sql`WHEN ${recipient} = ${literal(operator)} THEN 'operator' ` : sql``}WHEN ${recipient} = lower(${enrollment.creator}) THEN 'creator' ELSE 'other' END)`;
    const query = db
      .select(
        selectFields(
          lineFields(
            [
              { name: "id", kind: "text", expr: sql`${feeCollection.id}` },
              { name: "token", kind: "address", expr: sql`${feeCollection.token}` },
              { name: "rewardIndex", kind: "int", expr: sql`${feeCollection.rewardIndex}` },
              {
                name: "recipient",
                kind: "addressOrText",
                isAddress: sql`(${feeCollection.recipient} ~ '^0x[0-9a-fA-F]{40}$')`,
                address: recipient,
                text: sql`${feeCollection.recipient}`,
              },
              { name: "role", kind: "text", expr: role },
              { name: "currency", kind: "address", expr: sql`lower(${feeCollection.currency})` },
              { name: "symbol", kind: "addressOrText", ...currency.symbol },
              { name: "decimals", kind: "int", expr: sqlDecimals(currency.decimals) },
              { name: "amount", kind: "decimal", expr: sql`${feeCollection.amount}`, decimals: currency.decimals },
              { name: "amountRaw", kind: "raw", expr: sql`${feeCollection.amount}` },
              { name: "txHash", kind: "text", expr: sql`${feeCollection.txHash}` },
              { name: "blockNumber", kind: "int", expr: sql`${feeCollection.blockNumber}` },
              { name: "timestamp", kind: "iso", expr: sql`${feeCollection.timestamp}` },
              { name: "cursor", kind: "plain", expr: sqlCursor(ordering, [sql`${feeCollection.blockNumber}`, sql`${feeCollection.id}`]) },
            ],
            format,
          ),
        ),
      )
      .from(feeCollection)
      .leftJoin(enrollment, eq(enrollment.token, feeCollection.token))
      .leftJoin(currencyToken, eq(currencyToken.address, sql`lower(${feeCollection.currency})`))
      .where(and(...feeConditions(filter), ...(cursor ? [after(ordering, cursor)] : [])))
      .orderBy(...orderBy(ordering));
    return limited(query, limit);
  },
  records: async (rows, ordering, { db, config }) => {
    const currencies = await currencyInfos(
      db,
      config,
      rows.map((r) => r[F.currency]!),
    );
    const operator = config.operator?.toLowerCase();
    return rows.map((r) => {
      const currency = currencies.get(r[F.currency]!.toLowerCase())!;
      const recipientText = r[F.recipient]!;
      const recipient = recipientText.toLowerCase();
      const role = recipient === operator ? "operator" : recipient === r[F.creator]?.toLowerCase() ? "creator" : "other";
      return [
        r[F.id]!,
        fastChecksum(r[F.token]!),
        num(r[F.rewardIndex]),
        /^0x[0-9a-fA-F]{40}$/.test(recipientText) ? fastChecksum(recipientText) : recipientText,
        role,
        currency.address,
        currency.symbol,
        currency.decimals,
        ...amount(r[F.amount]!, currency.decimals),
        r[F.txHash]!,
        num(r[F.blockNumber]),
        isoOfText(r[F.timestamp]!),
        cursorOfText(ordering, r),
      ];
    });
  },
};

// ------------------------------------------------------------------ activity

const A = { id: 0, kind: 1, token: 2, txHash: 3, blockNumber: 4, logIndex: 5, timestamp: 6, data: 7 } as const;

const ACTIVITY_NEWEST = textOrdering(ACTIVITY_ORDERING as never, [A.id]);
const ACTIVITY_OLDEST: Ordering<TextRow> = { ...ACTIVITY_NEWEST, name: "activity-oldest", direction: "asc" };

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

const activityDataset: ExportDataset = {
  name: "activity",
  description: "The activity feed: one row per event of every kind, its facts as JSON (exact decimals in `data`, base units in `rawData`)",
  columns: ["id", "kind", "token", "txHash", "blockNumber", "logIndex", "timestamp", "data", "rawData", "cursor"],
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
        num(r[A.blockNumber]),
        num(r[A.logIndex]),
        isoOfText(r[A.timestamp]!),
        formatActivityData(data as never, config.contracts.usdc) as Record<string, unknown>,
        data,
        cursorOfText(ordering, r),
      ];
    });
  },
};

export const DATASETS: Record<ExportDatasetName, ExportDataset> = { burns, buybacks, fees, activity: activityDataset };
