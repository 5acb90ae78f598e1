/**
 * Keyset pagination shared by REST lists and GraphQL connections: an ordering is a list of
 * columns (the last ones make it unique) and a direction; a page is the rows after the cursor's
 * key, one more fetched to know whether another page follows. Latency depends on the page
 * size, not on how deep the page is.
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
  const keys = decodeCursor(cursor, ordering.name, ordering.types);
  const op = ordering.direction === "desc" ? sql`<` : sql`>`;
  return sql`(${sql.join(ordering.columns, sql`, `)}) ${op} (${sql.join(
    keys.map((k) => sql`${k}`),
    sql`, `,
  )})`;
}

export const cursorOf = <Row>(ordering: Ordering<Row>, row: Row) => encodeCursor(ordering.name, ordering.key(row));

export type Page<Row> = { rows: Row[]; hasMore: boolean; cursorOf: (row: Row) => string };

/** Trims the one extra row fetched to detect a following page. */
export function toPage<Row>(rows: Row[], limit: number, ordering: Ordering<Row>): Page<Row> {
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit, cursorOf: (row) => cursorOf(ordering, row) };
}

/** REST list body: `{ items, nextCursor }`. */
export function listBody<Row, Item>(page: Page<Row>, item: (row: Row) => Item) {
  const last = page.rows.at(-1);
  return { items: page.rows.map(item), nextCursor: page.hasMore && last ? page.cursorOf(last) : null };
}
