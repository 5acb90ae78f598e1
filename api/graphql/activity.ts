/** `Activity`: one feed entry; the `activity` connection. */
import { formatActivityData, listActivity } from "../read/activity.js";
import { checksumOrNull } from "../read/format.js";
import { builder } from "./builder.js";
import { connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { ActivityKindEnum } from "./enums.js";
import { addressArg, asUserErrors, userError } from "./errors.js";
import { ActivityRef, TokenRef } from "./refs.js";

ActivityRef.implement({
  fields: (t) => ({
    id: t.exposeString("id", { description: "Sorts in chain order" }),
    kind: t.field({ type: ActivityKindEnum, resolve: (r) => r.kind as "burn" }),
    tokenAddress: t.string({ nullable: true, resolve: (r) => checksumOrNull(r.token) }),
    token: t.field({ type: TokenRef, nullable: true, resolve: (r, _a, ctx) => (r.token ? ctx.loaders.token.load(r.token) : null) }),
    txHash: t.exposeString("txHash"),
    blockNumber: t.field({ type: "BigInt", resolve: (r) => r.blockNumber }),
    logIndex: t.exposeInt("logIndex"),
    timestamp: t.field({ type: "DateTime", resolve: (r) => r.timestamp }),
    data: t.field({
      type: "JSON",
      description: "The event's facts, amounts as exact decimals in whole units",
      resolve: (r, _a, ctx) => formatActivityData(r.data, ctx.deps.config.contracts.usdc),
    }),
    rawData: t.field({ type: "JSON", description: "The event's facts as indexed (amounts in base units)", resolve: (r) => r.data }),
  }),
});

builder.queryField("activity", (t) =>
  t.connection(
    {
      type: ActivityRef,
      description: "The activity feed, newest first, optionally of some kinds and one token.",
      args: { kinds: t.arg({ type: [ActivityKindEnum], required: false }), token: t.arg.string({ required: false }) },
      complexity: connectionComplexity,
      resolve: (_root, args, ctx) =>
        asUserErrors(async () => {
          if (args.kinds && args.kinds.length === 0) throw userError("kinds: give at least one kind, or leave it out");
          const window = pageArgs(args);
          const filter = { kinds: args.kinds ?? undefined, token: args.token ? addressArg(args.token, "token") : undefined };
          return toConnection(await listActivity(ctx.deps.db, { ...window, filter }));
        }),
    },
    { name: "ActivityConnection" },
    { name: "ActivityEdge" },
  ),
);
