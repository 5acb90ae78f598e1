/** The price-sampler's persisted window: samples per feed, and the momentum/volatility read from them. */
import { sql } from "drizzle-orm";
import type { Queryable } from "../../core/db/client.js";
import { type PriceWindow, priceWindow } from "../decisions/window.js";

/** Samples a decision looks back over. */
export const WINDOW_SAMPLES = 30;
/** Samples kept per feed (older ones are pruned). */
export const KEEP_SAMPLES = 2_000;

/** The latest `n` samples of a feed, oldest first, as a momentum/volatility window. */
export async function priceWindowFor(q: Queryable, feed: string, n = WINDOW_SAMPLES): Promise<PriceWindow> {
  const { rows } = await q.execute<{ price: string; decimals: number }>(
    sql`SELECT price::text AS price, decimals FROM engine.price_samples WHERE feed = ${feed} ORDER BY id DESC LIMIT ${n}`,
  );
  return priceWindow(rows.reverse().map((r) => Number(r.price) / 10 ** r.decimals));
}
