/**
 * The activity feed: one indexed row per event, newest first. `data` holds the event's facts
 * with amounts in base units; `formatActivityData` (common/activity.ts, shared with the
 * engine's webhooks) turns them into exact decimals in whole units of their currency and
 * checksums the addresses.
 */
import { type SQL, and, eq, gt, inArray } from "drizzle-orm";
import type { Hex } from "viem";
import { activity } from "../../schema/ponder.js";
import type { ReadDb } from "./db.js";
import { type Ordering, type PageWindow, keysetWindow, orderBy } from "./keyset.js";

export type ActivityRow = typeof activity.$inferSelect;

export { ACTIVITY_KINDS, type ActivityKind, formatActivityData } from "../../common/activity.js";

export const ACTIVITY_ORDERING: Ordering<ActivityRow> = {
  name: "activity",
  direction: "desc",
  columns: [activity.id],
  types: ["text"],
  key: (r) => [r.id],
};

export type ActivityFilter = { kinds?: readonly string[]; token?: Hex };

function conditions(filter: ActivityFilter): SQL[] {
  const c: SQL[] = [];
  if (filter.kinds?.length) c.push(inArray(activity.kind, [...filter.kinds]));
  if (filter.token) c.push(eq(activity.token, filter.token));
  return c;
}

export async function listActivity(db: ReadDb, p: PageWindow & { filter: ActivityFilter }) {
  const w = keysetWindow(ACTIVITY_ORDERING, p);
  const rows = await db
    .select()
    .from(activity)
    .where(and(...conditions(p.filter), ...w.conditions))
    .orderBy(...w.order)
    .limit(w.fetch);
  return w.finish(rows);
}

/** Rows added after `lastId` (oldest first), for subscriptions. */
export async function activitySince(db: ReadDb, filter: ActivityFilter, lastId: string, limit = 100): Promise<ActivityRow[]> {
  return db
    .select()
    .from(activity)
    .where(and(gt(activity.id, lastId), ...conditions(filter)))
    .orderBy(activity.id)
    .limit(limit);
}

/** The id of the newest row (`""` when none): subscriptions start after it. */
export async function latestActivityId(db: ReadDb): Promise<string> {
  const [row] = await db
    .select({ id: activity.id })
    .from(activity)
    .orderBy(...orderBy(ACTIVITY_ORDERING))
    .limit(1);
  return row?.id ?? "";
}
