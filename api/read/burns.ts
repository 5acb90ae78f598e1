/** Burns (transfers of launched tokens to the dead address): filters, orderings, pages. */
import { type SQL, and } from "drizzle-orm";
import { burn } from "../../schema/ponder.js";
import type { ReadDb } from "./db.js";
import { type EventFilter, eventConditions, eventOrderings } from "./events.js";
import { type Ordering, type PageWindow, keysetWindow } from "./keyset.js";

export type BurnRow = typeof burn.$inferSelect;

export const BURN_ORDERINGS = eventOrderings<BurnRow>("burn", burn, { column: burn.amount, of: (r) => r.amount });
export type BurnOrder = keyof typeof BURN_ORDERINGS;

export const burnConditions = (filter: EventFilter): SQL[] => eventConditions(burn, filter);

export async function listBurns(db: ReadDb, p: PageWindow & { filter: EventFilter; order: BurnOrder }) {
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
