/**
 * Subscriptions over server-sent events: new burns and new activity. Each subscriber polls
 * the indexed tables for rows after the last one it saw (every `pollIntervalMs`, 500 ms by
 * default), so any number of API replicas serve subscriptions without a message bus.
 */
import { encodeCursor } from "../http/cursor.js";
import { activitySince, latestActivityId } from "../read/activity.js";
import { BURN_ORDERINGS, listBurns } from "../read/burns.js";
import { cursorOf } from "../read/keyset.js";
import { builder } from "./builder.js";
import { ActivityKindEnum } from "./enums.js";
import { addressArg, userError } from "./errors.js";
import { BurnFilterInput, eventFilter } from "./filters.js";
import { ActivityRef, BurnRef } from "./refs.js";

export const DEFAULT_POLL_MS = 500;
/** Rows handed out per poll; a backlog drains over consecutive polls without waiting. */
const BATCH = 100;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** Yields what `next` returns, polling while it returns nothing, until the client goes away. */
async function* poll<T>(next: () => Promise<T[]>, intervalMs: number, signal: AbortSignal | undefined): AsyncGenerator<T> {
  while (!signal?.aborted) {
    const rows = await next();
    for (const row of rows) yield row;
    if (rows.length < BATCH) await pause(intervalMs, signal);
  }
}

builder.subscriptionField("burnCreated", (t) =>
  t.field({
    type: BurnRef,
    description: "Each new burn (optionally filtered by token and kinds; ranges are ignored), as it is indexed.",
    args: { filter: t.arg({ type: BurnFilterInput, required: false }) },
    subscribe: async (_root, args, ctx) => {
      const filter = eventFilter(args.filter);
      const ordering = BURN_ORDERINGS.OLDEST;
      const newest = await listBurns(ctx.deps.db, { filter: {}, order: "NEWEST", limit: 1 });
      let cursor = newest.rows[0] ? cursorOf(ordering, newest.rows[0]) : encodeCursor(ordering.name, [-1n, -1n]);
      return poll(
        async () => {
          const page = await listBurns(ctx.deps.db, { filter: { token: filter.token, kinds: filter.kinds }, order: "OLDEST", limit: BATCH, after: cursor });
          const last = page.rows.at(-1);
          if (last) cursor = cursorOf(ordering, last);
          return page.rows;
        },
        ctx.deps.pollIntervalMs ?? DEFAULT_POLL_MS,
        ctx.signal,
      );
    },
    resolve: (burn) => burn,
  }),
);

builder.subscriptionField("activityCreated", (t) =>
  t.field({
    type: ActivityRef,
    description: "Each new activity entry (optionally of some kinds and one token), as it is indexed.",
    args: { kinds: t.arg({ type: [ActivityKindEnum], required: false }), token: t.arg.string({ required: false }) },
    subscribe: async (_root, args, ctx) => {
      if (args.kinds && args.kinds.length === 0) throw userError("kinds: give at least one kind, or leave it out");
      const filter = { kinds: args.kinds ?? undefined, token: args.token ? addressArg(args.token, "token") : undefined };
      let lastId = await latestActivityId(ctx.deps.db);
      return poll(
        async () => {
          const rows = await activitySince(ctx.deps.db, filter, lastId, BATCH);
          if (rows.length) lastId = rows.at(-1)!.id;
          return rows;
        },
        ctx.deps.pollIntervalMs ?? DEFAULT_POLL_MS,
        ctx.signal,
      );
    },
    resolve: (row) => row,
  }),
);
