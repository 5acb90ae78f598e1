/**
 * SQL over HTTP for analysts: `@ponder/client`'s protocol (`GET /sql/db?sql=<superjson of
 * { sql, params }>` → `{ rows, fields, rowCount, command }`) on the views schema (`launchpad`:
 * stable views of the indexed tables, the same names as `ponder.schema.ts`). ponder's own
 * `client()` middleware answers the same protocol but only inside the ponder process, on the
 * build's hashed schema, without a row limit and with 500s for refusals; this one:
 *
 * - refuses anything but one SELECT over the indexed tables, with ponder's own validator
 *   (an allowlist of statement and expression kinds and of functions; no schema names, no
 *   system tables);
 * - runs it in a READ ONLY transaction on its own small pool, with `search_path` the views
 *   schema and a statement timeout;
 * - reads at most `maxRows` + 1 rows through a cursor, and refuses a larger result instead of
 *   cutting it short;
 * - answers every refusal as `{ error, code }` (400; 429 past its rate limit), which
 *   `@ponder/client` throws as an Error carrying that text.
 *
 * Live queries (`/sql/live`) are not served: poll, or subscribe over GraphQL.
 */
import { getTableName, isTable } from "drizzle-orm";
import { Hono, type MiddlewareHandler } from "hono";
import pg from "pg";
import superjson from "superjson";
import { VIEWS_SCHEMA } from "../../common/constants.js";
import { survivePoolErrors } from "../../core/db/client.js";
import { causeChain } from "../../core/errors.js";
import * as ponderSchema from "../../schema/ponder.js";
import { badRequest, notFound } from "../http/errors.js";

/** Longest a query may run. */
export const SQL_STATEMENT_TIMEOUT_MS = 5_000;
/** Most rows one answer holds (a larger result is refused, not truncated). */
export const SQL_MAX_ROWS = 10_000;
/** Longest query text (ponder's validator refuses longer ones too). */
const MAX_SQL_LENGTH = 5_000;
/** Connections of the SQL pool: analysts' queries never take the API's other connections. */
const SQL_POOL_SIZE = 3;

export type SqlOverHttpOptions = {
  /** The views schema the queries read (default `launchpad`). */
  schema?: string;
  statementTimeoutMs?: number;
  maxRows?: number;
};

export type SqlOverHttp = { app: Hono; close: () => Promise<void> };

type SqlParse = {
  validateAllowableSQLQuery: (sql: string) => Promise<void>;
  getSQLQueryRelations: (sql: string) => Promise<Set<string>>;
  parseSQLQuery: (sql: string) => Promise<unknown>;
};
let sqlParse: Promise<SqlParse> | undefined;

/**
 * ponder's parser and validator of `@ponder/client` queries (ponder 0.16.10, pinned exactly):
 * not among the package's exports, so loaded from its file.
 */
function ponderSqlParse(): Promise<SqlParse> {
  sqlParse ??= import(new URL("../../node_modules/ponder/dist/esm/utils/sql-parse.js", import.meta.url).href) as Promise<SqlParse>;
  return sqlParse;
}

/** The indexed tables' names: the views schema's relations, the only ones a query may read. */
const TABLES = new Set<string>(
  Object.values(ponderSchema)
    .filter(isTable)
    .map((t) => getTableName(t)),
);

/** Names the query's own WITH clauses define (they read as relations too). */
function cteNames(node: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) cteNames(n, out);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "CommonTableExpr" && value && typeof (value as { ctename?: unknown }).ctename === "string") out.add((value as { ctename: string }).ctename);
      cteNames(value, out);
    }
  }
  return out;
}

/** One SELECT of the indexed tables (ponder's allowlist), reading no relation but those tables and its own WITH names. */
async function validate(sql: string): Promise<void> {
  const parse = await ponderSqlParse();
  await parse.validateAllowableSQLQuery(sql);
  const own = cteNames(await parse.parseSQLQuery(sql));
  const other = [...(await parse.getSQLQueryRelations(sql))].filter((r) => !TABLES.has(r) && !own.has(r));
  if (other.length) throw new Error(`unknown table ${JSON.stringify(other[0])}; the tables are ${[...TABLES].sort().join(", ")}`);
}

/** SQLSTATE classes of a query's own fault: data (22), syntax or access (42), feature (0A), cardinality (21), transaction state (25), limits (54). */
const QUERY_FAULT = /^(22|42|0A|21|25|54)/;

function queryFault(error: unknown): string | undefined {
  for (const e of causeChain(error)) {
    const code = e && typeof e === "object" ? (e as { code?: unknown }).code : undefined;
    if (typeof code !== "string") continue;
    if (code === "57014") return "timeout";
    if (QUERY_FAULT.test(code)) return (e as Error).message;
  }
  return undefined;
}

type Query = { sql: string; params: unknown[] };

function parseQuery(text: string | undefined): Query {
  if (text === undefined) throw badRequest('missing "sql" query parameter (a @ponder/client query)');
  let parsed: unknown;
  try {
    parsed = superjson.parse(text);
  } catch {
    throw badRequest('"sql" is not a @ponder/client query (superjson of { sql, params })');
  }
  const q = parsed as { sql?: unknown; params?: unknown };
  if (!q || typeof q.sql !== "string" || (q.params !== undefined && !Array.isArray(q.params)))
    throw badRequest('"sql" is not a @ponder/client query (superjson of { sql, params })');
  if (q.sql.length > MAX_SQL_LENGTH) throw badRequest(`query longer than ${MAX_SQL_LENGTH} characters`);
  const params = (q.params ?? []).map((p) => (typeof p === "bigint" ? p.toString() : p));
  return { sql: q.sql, params };
}

/**
 * The `/sql/*` sub-app (mount at `/`), behind `limit` (its own rate-limit bucket). Its pool
 * connects lazily and lets the process exit when idle.
 */
export function sqlOverHttp(databaseUrl: string | undefined, limit: MiddlewareHandler, options: SqlOverHttpOptions = {}): SqlOverHttp {
  const schema = options.schema ?? VIEWS_SCHEMA;
  const timeoutMs = options.statementTimeoutMs ?? SQL_STATEMENT_TIMEOUT_MS;
  const maxRows = options.maxRows ?? SQL_MAX_ROWS;
  // A client's error (a server restart, idle or checked out) must not crash the API; the next query reconnects.
  const pool = databaseUrl
    ? survivePoolErrors(new pg.Pool({ connectionString: databaseUrl, max: SQL_POOL_SIZE, application_name: "launchpad-sql", allowExitOnIdle: true }))
    : undefined;
  const app = new Hono();

  app.get("/sql/db", limit, async (c) => {
    const query = parseQuery(c.req.query("sql"));
    try {
      await validate(query.sql);
    } catch (error) {
      throw badRequest(`query refused: ${(error as Error).message} (SQL over HTTP reads only: one SELECT over the indexed tables, without schema names)`);
    }
    if (!pool) throw notFound("SQL over HTTP needs DATABASE_URL");
    const client = await pool.connect();
    let broken = false;
    let rows: Record<string, unknown>[];
    let fields: pg.FieldDef[];
    try {
      await client.query("BEGIN READ ONLY");
      await client.query(`SET LOCAL statement_timeout = ${Math.floor(timeoutMs)}`);
      await client.query(`SET LOCAL search_path = ${client.escapeIdentifier(schema)}`);
      await client.query({ text: `DECLARE analyst_query NO SCROLL CURSOR FOR ${query.sql}`, values: query.params });
      ({ rows, fields } = await client.query(`FETCH FORWARD ${maxRows + 1} FROM analyst_query`));
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      const fault = queryFault(error);
      if (fault === "timeout")
        throw badRequest(`query ran past the ${timeoutMs} ms statement timeout: narrow it (a WHERE on indexed columns, a LIMIT) or use the exports`);
      if (fault) throw badRequest(`query failed: ${fault}`);
      throw error;
    } finally {
      client.release(broken);
    }
    if (rows.length > maxRows) {
      throw badRequest(
        `result larger than ${maxRows} rows: add a LIMIT (at most ${maxRows}) or aggregate (the exports at /api/v1/export/* stream whole tables)`,
      );
    }
    return c.json({ command: "SELECT", rowCount: rows.length, rows, fields: fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })) });
  });

  app.get("/sql/live", limit, () => {
    throw notFound("live queries are not served: poll /sql/db, or subscribe over GraphQL at /graphql");
  });

  return { app, close: async () => pool?.end() };
}
