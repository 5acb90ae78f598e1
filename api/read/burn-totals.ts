/**
 * Burn totals per UTC day, ISO week (Monday) or month, summed from the indexer's daily
 * buckets (`burn_daily`): the cost follows the number of days asked for, not the number of burns.
 */
import { type SQL, and, eq, gte, lt, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { burnDaily } from "../../schema/ponder.js";
import type { ReadDb } from "./db.js";
import { ValidationError } from "../http/validation.js";

export const BURN_GROUPS = ["DAY", "WEEK", "MONTH"] as const;
export type BurnGroup = (typeof BURN_GROUPS)[number];
export const MAX_BUCKETS = 1000;
export const DAY_SECONDS = 86_400n;

export type BurnBucket = { start: bigint; end: bigint; burned: bigint; burns: number };

const bucketStart: Record<BurnGroup, SQL> = {
  DAY: sql`${burnDaily.day}`,
  // 1970-01-01 was a Thursday: day number + 3, mod 7, is the days since Monday.
  WEEK: sql`${burnDaily.day} - mod(div(${burnDaily.day}, 86400) + 3, 7) * 86400`,
  MONTH: sql`extract(epoch from date_trunc('month', to_timestamp(${burnDaily.day}::double precision) at time zone 'UTC'))::numeric`,
};

/** The first second after the bucket starting at `start`. */
export function bucketEnd(group: BurnGroup, start: bigint): bigint {
  if (group === "DAY") return start + DAY_SECONDS;
  if (group === "WEEK") return start + 7n * DAY_SECONDS;
  const d = new Date(Number(start) * 1000);
  return BigInt(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000);
}

/** Days in [from, to) (unix seconds), optionally of one token; buckets in ascending order. */
export async function burnTotals(db: ReadDb, p: { token?: Hex; groupBy: BurnGroup; from?: bigint; to?: bigint }): Promise<BurnBucket[]> {
  const c: SQL[] = [];
  if (p.token) c.push(eq(burnDaily.token, p.token));
  // A day bucket counts when its day starts inside the range; `from` rounds down to its day.
  if (p.from !== undefined) c.push(gte(burnDaily.day, (p.from / DAY_SECONDS) * DAY_SECONDS));
  if (p.to !== undefined) c.push(lt(burnDaily.day, p.to));
  const start = bucketStart[p.groupBy];
  const rows = await db
    .select({ start: sql<string>`(${start})::text`, burned: sql<string>`sum(${burnDaily.burned})::text`, burns: sql<string>`sum(${burnDaily.burns})::text` })
    .from(burnDaily)
    .where(and(...c))
    .groupBy(start)
    .orderBy(start)
    .limit(MAX_BUCKETS + 1);
  if (rows.length > MAX_BUCKETS) {
    throw new ValidationError(`more than ${MAX_BUCKETS} buckets: narrow from/to or group by a longer period`);
  }
  return rows.map((r) => {
    const s = BigInt(r.start.replace(/\.0*$/, ""));
    return { start: s, end: bucketEnd(p.groupBy, s), burned: BigInt(r.burned), burns: Number(r.burns) };
  });
}
