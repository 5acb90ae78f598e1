/**
 * Subscriptions over server-sent events: new burns and new activity, pushed by this process's
 * live feed (api/push/live-feed.ts: one PostgreSQL LISTEN per process, one read per indexed
 * block, fanned out to every subscriber), so any number of API replicas and subscribers cost
 * the database the same.
 *
 * A row a reorg rolls back after a subscriber was told of it comes in the same stream, in
 * order, as an error result: `{ "data": null, "errors": [{ "extensions": { "code":
 * "ROLLED_BACK", "id", "txHash", "blockNumber", … } }] }`; the stream goes on, and the new
 * branch's rows follow as new events. A subscriber that falls 10,000 events behind gets a
 * `LAGGING` error and its stream ends.
 */
import { GraphQLError } from "graphql";
import { checksum } from "../read/format.js";
import type { FeedEvent } from "../push/live-feed.js";
import { builder } from "./builder.js";
import { ActivityKindEnum } from "./enums.js";
import { addressArg, userError } from "./errors.js";
import { BurnFilterInput, eventFilter } from "./filters.js";
import { type Loaders, createLoaders } from "./loaders.js";
import { ActivityRef, BurnRef } from "./refs.js";
import type { GraphqlContext } from "./builder.js";

/** One set of loaders per read of the feed, shared by every subscriber it reaches (never stale across reads). */
const loadersOfBatch = new WeakMap<object, Loaders>();

/**
 * The row of a `created` event, resolved with its read's shared loaders; a rolled-back row or
 * a lagging subscriber as an error result.
 */
function eventRow<Row extends { id: string; txHash: string; blockNumber: bigint; logIndex: number; token: string | null }>(
  event: FeedEvent<Row>,
  ctx: GraphqlContext,
  what: string,
): Row {
  if (event.type === "lagging") {
    throw new GraphQLError("this subscriber fell too far behind; subscribe again", { extensions: { code: "LAGGING" } });
  }
  if (event.type === "rolled-back") {
    const { row } = event;
    throw new GraphQLError(`${what} ${row.id} (block ${row.blockNumber}) was rolled back by a chain reorganisation`, {
      extensions: {
        code: "ROLLED_BACK",
        id: row.id,
        txHash: row.txHash,
        blockNumber: String(row.blockNumber),
        logIndex: row.logIndex,
        tokenAddress: row.token ? checksum(row.token) : null,
      },
    });
  }
  let loaders = loadersOfBatch.get(event.batch);
  if (!loaders) loadersOfBatch.set(event.batch, (loaders = createLoaders(ctx.deps)));
  ctx.loaders = loaders;
  return event.row;
}

builder.subscriptionField("burnCreated", (t) =>
  t.field({
    type: BurnRef,
    description: "Each new burn (optionally filtered by token and kinds; ranges are ignored), as it is indexed.",
    args: { filter: t.arg({ type: BurnFilterInput, required: false }) },
    subscribe: (_root, args, ctx) => {
      const { token, kinds } = eventFilter(args.filter);
      return ctx.deps.live!.burns.subscribe({
        filter: (row) => (!token || row.token === token) && (!kinds?.length || kinds.includes(row.kind)),
        signal: ctx.signal,
      });
    },
    resolve: (event, _args, ctx) => eventRow(event, ctx, "burn"),
  }),
);

builder.subscriptionField("activityCreated", (t) =>
  t.field({
    type: ActivityRef,
    description: "Each new activity entry (optionally of some kinds and one token), as it is indexed.",
    args: { kinds: t.arg({ type: [ActivityKindEnum], required: false }), token: t.arg.string({ required: false }) },
    subscribe: (_root, args, ctx) => {
      if (args.kinds && args.kinds.length === 0) throw userError("kinds: give at least one kind, or leave it out");
      const kinds = args.kinds ?? undefined;
      const token = args.token ? addressArg(args.token, "token") : undefined;
      return ctx.deps.live!.activity.subscribe({
        filter: (row) => (!kinds || kinds.includes(row.kind as never)) && (!token || row.token === token),
        signal: ctx.signal,
      });
    },
    resolve: (event, _args, ctx) => eventRow(event, ctx, "activity"),
  }),
);
