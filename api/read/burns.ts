/** Burns (transfers of launched tokens to the dead address): filters, orderings, pages. */
import { type SQL, and, eq, gte, inArray, lt, lte } from "drizzle-orm";
import type { Hex } from "viem";
import { burn } from "../../schema/ponder.js";
import type { ReadDb } from "./db.js";
import { type Ordering, type PageWindow, keysetWindow } from "./keyset.js";

export type BurnRow = typeof burn.$inferSelect;
export const BURN_KINDS = ["protocol-buyback", "creator-buyback", "organic"] as const;

/** Block bounds are inclusive; `fromTime` inclusive and `toTime` exclusive (unix seconds). */
export type EventFilter = { token?: Hex; fromBlock?: bigint; toBlock?: bigint; fromTime?: bigint; toTime?: bigint };

export const BURN_ORDERINGS = {
  NEWEST: {
    name: "burn-newest",
    direction: "desc",
    columns: [burn.blockNumber, burn.logIndex],
    types: ["int", "int"],
    key: (r) => [r.blockNumber, r.logIndex],
  },
  OLDEST: { name: "burn-oldest", direction: "asc", columns: [burn.blockNumber, burn.logIndex], types: ["int", "int"], key: (r) => [r.blockNumber, r.logIndex] },
  LARGEST: {
    name: "burn-largest",
    direction: "desc",
    columns: [burn.amount, burn.blockNumber, burn.logIndex],
    types: ["int", "int", "int"],
    key: (r) => [r.amount, r.blockNumber, r.logIndex],
  },
} satisfies Record<string, Ordering<BurnRow>>;
export type BurnOrder = keyof typeof BURN_ORDERINGS;

export function burnConditions(filter: EventFilter & { kinds?: readonly string[] }): SQL[] {
  const c: SQL[] = [];
  if (filter.token) c.push(eq(burn.token, filter.token));
  if (filter.kinds?.length) c.push(inArray(burn.kind, [...filter.kinds]));
  if (filter.fromBlock !== undefined) c.push(gte(burn.blockNumber, filter.fromBlock));
  if (filter.toBlock !== undefined) c.push(lte(burn.blockNumber, filter.toBlock));
  if (filter.fromTime !== undefined) c.push(gte(burn.timestamp, filter.fromTime));
  if (filter.toTime !== undefined) c.push(lt(burn.timestamp, filter.toTime));
  return c;
}

export async function listBurns(db: ReadDb, p: PageWindow & { filter: EventFilter & { kinds?: readonly string[] }; order: BurnOrder }) {
  const ordering: Ordering<BurnRow> = BURN_ORDERINGS[p.order];
  const w = keysetWindow(ordering, p);
  const rows = await db
    .select()
    .from(burn)
    .where(and(...burnConditions(p.filter), ...w.conditions))
    .orderBy(...w.order)
    .limit(w.fetch);
  return w.finish(rows);
}
