/** `Activity`: one feed entry; the `activity` connection. */
import type { Hex } from "viem";
import type { z } from "zod";
import type { ActivityKind } from "../../common/activity.js";
import { type ActivityRow, formatActivityData, listActivity } from "../read/activity.js";
import { ACTIVITY_DATA_TYPES } from "../views/activity.js";
import { ACTIVITY_DATA } from "../../common/activity.js";
import { zodObject } from "./zod-objects.js";
import { checksumOrNull } from "../read/format.js";
import { type GraphqlContext, builder } from "./builder.js";
import { connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { ActivityKindEnum } from "./enums.js";
import { addressArg, asUserErrors, userError } from "./errors.js";
import { ActivityRef, TokenRef } from "./refs.js";

/** The row's token: as indexed, or for a desk row the engine's (rows pushed by subscriptions come as indexed). */
const tokenOf = (r: ActivityRow, ctx: GraphqlContext): Promise<Hex | null> | Hex | null =>
  r.token ?? (r.kind.startsWith("desk-") ? ctx.loaders.activityToken.load(r) : null);

/** The kind a facts object was read for (resolveType's key; no field of any type). */
const KIND = Symbol("kind");
type Facts = Record<string, unknown> & { [KIND]: ActivityKind };

/** The kinds whose facts a type holds. */
const kindsOf = (type: string) => (Object.keys(ACTIVITY_DATA_TYPES) as ActivityKind[]).filter((k) => ACTIVITY_DATA_TYPES[k] === type);

const factTypes = (Object.entries(ACTIVITY_DATA) as [ActivityKind, z.AnyZodObject][]).map(([kind, schema]) =>
  zodObject(ACTIVITY_DATA_TYPES[kind], schema, `The facts of an activity entry of kind ${kindsOf(ACTIVITY_DATA_TYPES[kind]).join(", ")}`),
);

const ActivityDetails = builder.unionType("ActivityDetails", {
  description: "An activity entry's facts, one type per kind (the desk kinds share one)",
  types: [...new Set(factTypes)] as never,
  resolveType: (facts: Facts) => ACTIVITY_DATA_TYPES[facts[KIND]],
});

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
    details: t.field({
      type: ActivityDetails,
      description: "The event's facts, typed by kind: amounts as exact decimals in whole units (REST's `data`)",
      resolve: (r, _a, ctx) =>
        ({ ...formatActivityData(r.kind as ActivityKind, r.data, ctx.deps.config.contracts.usdc), [KIND]: r.kind as ActivityKind }) as never,
    }),
    data: t.field({
      type: "JSON",
      description: "The event's facts, amounts as exact decimals in whole units",
      deprecationReason: "Use details: the same facts, typed by kind",
      resolve: (r, _a, ctx) => formatActivityData(r.kind as ActivityKind, r.data, ctx.deps.config.contracts.usdc),
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
