/** Buybacks (the operator's swaps into a launched token): filters, orderings, pages, totals. */
import { type SQL, and, eq } from "drizzle-orm";
import type { Hex } from "viem";
import { buyback, pool, protocolTotals, token, tokenTotals } from "../../schema/ponder.js";
import { buybackView } from "../views/buyback.js";
import type { ReadDb } from "./db.js";
import { type EventFilter, eventConditions, eventOrderings } from "./events.js";
import { type Ordering, type PageWindow, keysetWindow } from "./keyset.js";

/** A buyback as its view reads it (api/views/buyback.ts): with its token's pool's paired currency. */
export type BuybackRow = Awaited<ReturnType<typeof selectBuybacks>>[number];

const selectBuybacks = (db: ReadDb, where: SQL | undefined, order: SQL[], limit: number) =>
  db
    .select(buybackView.columns)
    .from(buyback)
    .leftJoin(token, eq(token.address, buyback.token))
    .leftJoin(pool, eq(pool.poolId, token.poolId))
    .where(where)
    .orderBy(...order)
    .limit(limit);

export const BUYBACK_ORDERINGS = eventOrderings<BuybackRow>("buyback", buyback, { column: buyback.usdcIn, of: (r) => r.usdcIn });
export type BuybackOrder = keyof typeof BUYBACK_ORDERINGS;

export const buybackConditions = (filter: EventFilter): SQL[] => eventConditions(buyback, filter);

export async function listBuybacks(db: ReadDb, p: PageWindow & { filter: EventFilter; order: BuybackOrder }) {
  const ordering: Ordering<BuybackRow> = BUYBACK_ORDERINGS[p.order];
  const w = keysetWindow(ordering, p);
  return w.finish(await selectBuybacks(db, and(...buybackConditions(p.filter), ...w.conditions), w.order, w.fetch));
}

export type BuybackTotals = { count: number; usdcIn: bigint; tokensBought: bigint; tokensBurned: bigint };

/**
 * Protocol-token buyback totals from the incremental aggregates (one row each): burned counts
 * the bought tokens since burned, as recorded on the protocol token's own totals.
 */
export async function protocolBuybackTotals(db: ReadDb, protocolToken: Hex | undefined): Promise<BuybackTotals> {
  const [row] = await db.select().from(protocolTotals).where(eq(protocolTotals.id, "protocol"));
  const burned = protocolToken ? (await tokenBuybackTotals(db, protocolToken)).tokensBurned : (row?.protocolTokensBurned ?? 0n);
  return {
    count: row?.protocolBuybacks ?? 0,
    usdcIn: row?.protocolBuybackUsdc ?? 0n,
    tokensBought: row?.protocolTokensBought ?? 0n,
    tokensBurned: burned,
  };
}

/** One token's buyback totals (`tokensBurned`: bought tokens since burned). */
export async function tokenBuybackTotals(db: ReadDb, token: Hex): Promise<BuybackTotals> {
  const [row] = await db.select().from(tokenTotals).where(eq(tokenTotals.token, token));
  return { count: row?.buybacks ?? 0, usdcIn: row?.buybackUsdc ?? 0n, tokensBought: row?.tokensBought ?? 0n, tokensBurned: row?.buybackBurned ?? 0n };
}
