/**
 * Burns over time for a chart whose time axis fits its data (docs/design.md §7): from the
 * bucket of the first burn to the bucket of now, in hours while that spans at most two days,
 * in days up to 90 days, in weeks beyond. Hourly buckets come from the burns of those two days;
 * daily and weekly ones from the daily aggregate (`burn_daily`), so no read scans history.
 */
import { type SQL, and, asc, eq, gte, min, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { burn, burnDaily } from "../../schema/ponder.js";
import type { ReadDb } from "./db.js";

export const HOUR = 3_600n;
export const DAY = 86_400n;
export const WEEK = 7n * DAY;
/** Hourly buckets while the data spans at most this. */
const HOURLY_UP_TO = 2n * DAY;
/** Daily buckets while the data spans at most this; weekly beyond. */
const DAILY_UP_TO = 90n * DAY;

export type Series = {
  /** Bucket width, seconds. */
  bucket: bigint;
  /** First bucket's start and the last bucket's start (unix seconds): the axis. */
  from: bigint;
  to: bigint;
  /** Buckets with burns, oldest first (buckets without stay off the list). */
  points: { start: bigint; value: bigint }[];
};

const floorTo = (t: bigint, step: bigint) => (t / step) * step;

/**
 * Tokens burned per bucket, of one token or of all, up to `now` (unix seconds; the chain's own
 * time when the index is ahead of the clock). Null without a burn.
 */
export async function burnSeries(db: ReadDb, token: Hex | null, now: bigint): Promise<Series | null> {
  const byToken: SQL[] = token ? [eq(burnDaily.token, token)] : [];
  const [first] = await db
    .select({ day: min(burnDaily.day) })
    .from(burnDaily)
    .where(and(...byToken));
  if (first?.day === null || first?.day === undefined) return null;
  const firstDay = BigInt(first.day);
  const newest = await db
    .select({ day: burnDaily.day })
    .from(burnDaily)
    .where(and(...byToken))
    .orderBy(sql`${burnDaily.day} DESC`)
    .limit(1);
  // Now, or the newest burn's day when the chain's time is ahead of the clock (a devnet moved forward).
  const newestDay = BigInt(newest[0]!.day);
  const end = now >= newestDay ? now : newestDay + DAY - 1n;
  const last = (points: { start: bigint }[], bucket: bigint) => [floorTo(end, bucket), points[points.length - 1]!.start].reduce((a, b) => (a > b ? a : b));
  if (end - firstDay <= HOURLY_UP_TO) {
    const since = floorTo(end, HOUR) - HOURLY_UP_TO;
    const conditions: SQL[] = [gte(burn.timestamp, since > firstDay ? since : firstDay)];
    if (token) conditions.push(eq(burn.token, token));
    const hour = sql<string>`(div(${burn.timestamp}, 3600) * 3600)::text`;
    const rows = await db
      .select({ start: hour, value: sql<string>`sum(${burn.amount})::text` })
      .from(burn)
      .where(and(...conditions))
      .groupBy(hour)
      .orderBy(asc(hour));
    const points = rows.map((r) => ({ start: BigInt(r.start), value: BigInt(r.value) })).filter((p) => p.value > 0n);
    if (!points.length) return null;
    return { bucket: HOUR, from: points[0]!.start, to: last(points, HOUR), points };
  }
  const rows = await db
    .select({ day: burnDaily.day, value: sql<string>`sum(${burnDaily.burned})::text` })
    .from(burnDaily)
    .where(and(...byToken))
    .groupBy(burnDaily.day)
    .orderBy(asc(burnDaily.day));
  const bucket = end - firstDay <= DAILY_UP_TO ? DAY : WEEK;
  const sums = new Map<bigint, bigint>();
  for (const r of rows) {
    const start = floorTo(BigInt(r.day), bucket);
    sums.set(start, (sums.get(start) ?? 0n) + BigInt(r.value));
  }
  const points = [...sums].map(([start, value]) => ({ start, value })).filter((p) => p.value > 0n);
  if (!points.length) return null;
  return { bucket, from: points[0]!.start, to: last(points, bucket), points };
}
