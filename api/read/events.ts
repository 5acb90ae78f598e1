/**
 * What the event tables (burns, buybacks) share: their filter (token, kinds, block and time
 * ranges), and their keyset orderings (newest and oldest by chain position, largest by an
 * amount with ties in chain order). Cursor names are `<table>-newest` and so on, the same for
 * REST, GraphQL and the exports.
 */
import { type SQL, eq, gte, inArray, lt, lte } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { Hex } from "viem";
import type { Ordering } from "./keyset.js";

/** Block bounds are inclusive; `fromTime` inclusive and `toTime` exclusive (unix seconds). */
export type EventFilter = { token?: Hex; fromBlock?: bigint; toBlock?: bigint; fromTime?: bigint; toTime?: bigint; kinds?: readonly string[] };

/** The columns of an event table the filter and the orderings read. */
type EventTable = { token: PgColumn; kind: PgColumn; blockNumber: PgColumn; logIndex: PgColumn; timestamp: PgColumn };
type EventRow = { blockNumber: bigint; logIndex: number };

export function eventConditions(t: EventTable, filter: EventFilter): SQL[] {
  const c: SQL[] = [];
  if (filter.token) c.push(eq(t.token, filter.token));
  if (filter.kinds?.length) c.push(inArray(t.kind, [...filter.kinds]));
  if (filter.fromBlock !== undefined) c.push(gte(t.blockNumber, filter.fromBlock));
  if (filter.toBlock !== undefined) c.push(lte(t.blockNumber, filter.toBlock));
  if (filter.fromTime !== undefined) c.push(gte(t.timestamp, filter.fromTime));
  if (filter.toTime !== undefined) c.push(lt(t.timestamp, filter.toTime));
  return c;
}

/** NEWEST, OLDEST and LARGEST (by `amount`) of an event table named `name`. */
export function eventOrderings<R extends EventRow>(name: string, t: EventTable, amount: { column: PgColumn; of: (r: R) => bigint }) {
  const chain = [t.blockNumber, t.logIndex];
  const at = (r: R) => [r.blockNumber, r.logIndex];
  return {
    NEWEST: { name: `${name}-newest`, direction: "desc", columns: chain, types: ["int", "int"], key: at },
    OLDEST: { name: `${name}-oldest`, direction: "asc", columns: chain, types: ["int", "int"], key: at },
    LARGEST: {
      name: `${name}-largest`,
      direction: "desc",
      columns: [amount.column, ...chain],
      types: ["int", "int", "int"],
      key: (r) => [amount.of(r), ...at(r)],
    },
  } satisfies Record<string, Ordering<R>>;
}
