/**
 * The indexed tables the live feed pushes from, each read in chain order: where a row sits
 * (its block, its place after another row) and whether a row the feed passed is still there
 * as it was. One query per call, whatever the number of subscribers.
 */
import { desc, inArray, lte } from "drizzle-orm";
import { activity, burn } from "../../schema/ponder.js";
import type { ReadDb } from "../read/db.js";
import { type ActivityRow, activitySince } from "../read/activity.js";
import { BURN_ORDERINGS, type BurnRow, listBurns } from "../read/burns.js";
import { cursorOf } from "../read/keyset.js";

export type Stream<Row> = {
  /** The table's name as ponder's notifications name it. */
  table: string;
  id: (row: Row) => string;
  /** Where the row sits: a row found again under the same id but elsewhere was rolled back and re-indexed. */
  place: (row: Row) => string;
  block: (row: Row) => bigint;
  /** Rows strictly after `row` (from the start without one), oldest first. */
  after: (db: ReadDb, row: Row | undefined, limit: number) => Promise<Row[]>;
  /** The newest row, or the newest in a block at or below `block`. */
  newest: (db: ReadDb, block?: bigint) => Promise<Row | undefined>;
  /** Where each of these rows sits now (absent: no longer indexed). */
  places: (db: ReadDb, ids: string[]) => Promise<Map<string, string>>;
};

const burnPlace = (r: { blockNumber: bigint; logIndex: number }) => `${r.blockNumber}:${r.logIndex}`;

export const burnStream: Stream<BurnRow> = {
  table: "burn",
  id: (r) => r.id,
  place: burnPlace,
  block: (r) => r.blockNumber,
  after: async (db, row, limit) =>
    (await listBurns(db, { filter: {}, order: "OLDEST", limit, after: row ? cursorOf(BURN_ORDERINGS.OLDEST, row) : undefined })).rows,
  newest: async (db, block) => (await listBurns(db, { filter: { toBlock: block }, order: "NEWEST", limit: 1 })).rows[0],
  places: async (db, ids) => {
    const rows = await db.select({ id: burn.id, blockNumber: burn.blockNumber, logIndex: burn.logIndex }).from(burn).where(inArray(burn.id, ids));
    return new Map(rows.map((r) => [r.id, burnPlace(r)]));
  },
};

/** Activity ids sort in chain order (block, log index, entry) and carry their place. */
export const activityStream: Stream<ActivityRow> = {
  table: "activity",
  id: (r) => r.id,
  place: (r) => r.id,
  block: (r) => r.blockNumber,
  after: (db, row, limit) => activitySince(db, {}, row?.id ?? "", limit),
  newest: async (db, block) => {
    const [row] = await db
      .select()
      .from(activity)
      .where(block === undefined ? undefined : lte(activity.blockNumber, block))
      .orderBy(desc(activity.id))
      .limit(1);
    return row;
  },
  places: async (db, ids) => {
    const rows = await db.select({ id: activity.id }).from(activity).where(inArray(activity.id, ids));
    return new Map(rows.map((r) => [r.id, r.id]));
  },
};
