/** `Burn`: a transfer of a launched token to the dead address; the `burns` connection. */
import type { Hex } from "viem";
import { type BurnOrder, listBurns } from "../read/burns.js";
import { burnView } from "../views/burn.js";
import { type ArgBuilder, type GraphqlContext, builder } from "./builder.js";
import { type ConnectionArgs, connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { BurnKindEnum, EventOrderEnum } from "./enums.js";
import { asUserErrors } from "./errors.js";
import { BurnFilterInput, eventFilter } from "./filters.js";
import { BurnConnection, BurnRef, TokenRef } from "./refs.js";
import { viewFields } from "./view-fields.js";

BurnRef.implement({
  description: burnView.description,
  fields: (t) => ({
    ...viewFields(t, burnView, { kind: BurnKindEnum }),
    token: t.field({ type: TokenRef, nullable: true, description: "The token burned", resolve: (r, _a, ctx) => ctx.loaders.token.load(r.token) }),
  }),
});

type BurnArgs = ConnectionArgs & { filter?: Parameters<typeof eventFilter>[0]; orderBy?: string | null };

export function resolveBurns(ctx: GraphqlContext, args: BurnArgs, token?: Hex) {
  return asUserErrors(async () => {
    const window = pageArgs(args);
    const page = await listBurns(ctx.deps.db, { filter: eventFilter(args.filter, token), order: (args.orderBy ?? "NEWEST") as BurnOrder, ...window });
    return toConnection(page);
  });
}

export const burnConnectionArgs = (arg: ArgBuilder) => ({
  filter: arg({ type: BurnFilterInput, required: false }),
  orderBy: arg({ type: EventOrderEnum, required: false, defaultValue: "NEWEST" }),
});

builder.queryField("burns", (t) =>
  t.connection(
    {
      type: BurnRef,
      description: "Burns with filters (token, kinds, block and time ranges), newest first by default. At most 200 a page.",
      args: burnConnectionArgs(t.arg),
      complexity: connectionComplexity,
      resolve: (_root, args, ctx) => resolveBurns(ctx, args),
    },
    BurnConnection,
  ),
);
