/**
 * Keyset pagination shared by REST lists and GraphQL connections: an ordering is a list of
 * columns (the last ones make it unique) and a direction; a page is the rows after the cursor's
 * key (or, paging backward, the last rows before it), one more fetched to know whether another
 * page follows in the direction of travel. Latency depends on the page size, not on how deep
 * the page is, in either direction.
 */
import { type SQL, asc, desc, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { type CursorKeyType, decodeCursor, encodeCursor } from "../http/cursor.js";

export type Ordering<Row> = {
  /** Named in cursors: a cursor is only valid for the ordering that made it. */
  name: string;
  columns: PgColumn[];
  types: CursorKeyType[];
  direction: "asc" | "desc";
  key: (row: Row) => (bigint | string | number)[];
};

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export function orderBy<Row>(ordering: Ordering<Row>): SQL[] {
  return ordering.columns.map((c) => (ordering.direction === "desc" ? desc(c) : asc(c)));
}

/** `(c1, c2, …) < (k1, k2, …)` (or `>`), the rows strictly after `cursor`. */
export function after<Row>(ordering: Ordering<Row>, cursor: string): SQL {
  return compare(ordering, cursor, ordering.direction === "desc" ? "<" : ">");
}

/** The rows strictly before `cursor` in the ordering. */
export function before<Row>(ordering: Ordering<Row>, cursor: string): SQL {
  return compare(ordering, cursor, ordering.direction === "desc" ? ">" : "<");
}

function compare<Row>(ordering: Ordering<Row>, cursor: string, op: "<" | ">"): SQL {
  const keys = decodeCursor(cursor, ordering.name, ordering.types);
  return sql`(${sql.join(ordering.columns, sql`, `)}) ${sql.raw(op)} (${sql.join(
    keys.map((k) => sql`${k}`),
    sql`, `,
  )})`;
}

export const cursorOf = <Row>(ordering: Ordering<Row>, row: Row) => encodeCursor(ordering.name, ordering.key(row));

/**
 * A page in the ordering's order. `hasNext`/`hasPrevious` say whether rows exist past its last
 * and before its first row; the side a page was not fetched from is known only from its cursor
 * (a page fetched after a cursor has rows before it), as Relay allows.
 */
export type Page<Row> = { rows: Row[]; hasNext: boolean; hasPrevious: boolean; cursorOf: (row: Row) => string };

/**
 * Which rows a page holds: the first `limit` rows after `after` (or from the start), or with
 * `backward` the last `limit` rows before `before` (or up to the end). `after` and `before`
 * may be combined to page inside a range.
 */
export type PageWindow = { limit: number; after?: string | null; before?: string | null; backward?: boolean };

/**
 * The keyset query of a window: its conditions, its ORDER BY (reversed when paging backward,
 * so the database reads from the right end of the index) and the number of rows to fetch;
 * `finish` turns the fetched rows into a page in the ordering's own order.
 */
export function keysetWindow<Row>(ordering: Ordering<Row>, w: PageWindow) {
  const conditions: SQL[] = [];
  if (w.after) conditions.push(after(ordering, w.after));
  if (w.before) conditions.push(before(ordering, w.before));
  const fetchOrdering: Ordering<Row> = w.backward ? { ...ordering, direction: ordering.direction === "desc" ? "asc" : "desc" } : ordering;
  return {
    conditions,
    order: orderBy(fetchOrdering),
    fetch: w.limit + 1,
    finish: (rows: Row[]): Page<Row> => toPage(rows, w, ordering),
  };
}

/** Trims the one extra row fetched to detect a further page, and restores the ordering's order of a backward page. */
export function toPage<Row>(rows: Row[], w: PageWindow, ordering: Ordering<Row>): Page<Row> {
  const more = rows.length > w.limit;
  const kept = rows.slice(0, w.limit);
  const cursor = (row: Row) => cursorOf(ordering, row);
  if (w.backward) return { rows: kept.reverse(), hasNext: Boolean(w.before), hasPrevious: more, cursorOf: cursor };
  return { rows: kept, hasNext: more, hasPrevious: Boolean(w.after), cursorOf: cursor };
}

/** REST list body: `{ items, nextCursor }`. */
export function listBody<Row, Item>(page: Page<Row>, item: (row: Row) => Item) {
  const last = page.rows.at(-1);
  return { items: page.rows.map(item), nextCursor: page.hasNext && last ? page.cursorOf(last) : null };
}
