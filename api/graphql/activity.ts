/** `Activity`: one feed entry; the `activity` connection. */
import type { Hex } from "viem";
import { type ActivityRow, formatActivityData, listActivity } from "../read/activity.js";
import { checksumOrNull } from "../read/format.js";
import { type GraphqlContext, builder } from "./builder.js";
import { connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { ActivityKindEnum } from "./enums.js";
import { addressArg, asUserErrors, userError } from "./errors.js";
import { ActivityRef, TokenRef } from "./refs.js";

/** The row's token: as indexed, or for a desk row the engine's (rows pushed by subscriptions come as indexed). */
const tokenOf = (r: ActivityRow, ctx: GraphqlContext): Promise<Hex | null> | Hex | null =>
  r.token ?? (r.kind.startsWith("desk-") ? ctx.loaders.activityToken.load(r) : null);

ActivityRef.implement({
  fields: (t) => ({
    id: t.exposeString("id", { description: "Sorts in chain order" }),
    kind: t.field({ type: ActivityKindEnum, resolve: (r) => r.kind as "burn" }),
    tokenAddress: t.string({
      nullable: true,
      description: "The token the entry is about; a desk entry's is the token the engine opened its trade for (null while no token owns the trade)",
      resolve: async (r, _a, ctx) => checksumOrNull(await tokenOf(r, ctx)),
    }),
    token: t.field({
      type: TokenRef,
      nullable: true,
      resolve: async (r, _a, ctx) => {
        const token = await tokenOf(r, ctx);
        return token ? ctx.loaders.token.load(token) : null;
      },
    }),
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
      description:
        "The activity feed, newest first, optionally of some kinds and one token (a token's entries include its desks' entries: the trades the engine opened for it).",
      args: { kinds: t.arg({ type: [ActivityKindEnum], required: false }), token: t.arg.string({ required: false }) },
      complexity: connectionComplexity,
      resolve: (_root, args, ctx) =>
        asUserErrors(async () => {
          if (args.kinds && args.kinds.length === 0) throw userError("kinds: give at least one kind, or leave it out");
          const window = pageArgs(args);
          const filter = { kinds: args.kinds ?? undefined, token: args.token ? addressArg(args.token, "token") : undefined };
          return toConnection(await listActivity(ctx.deps.db, { ...window, filter, engine: ctx.deps.engine }));
        }),
    },
    { name: "ActivityConnection" },
    { name: "ActivityEdge" },
  ),
);
