/** `Buyback`: an operator swap into a launched token (protocol or creator buyback); the `buybacks` connection. */
import type { Hex } from "viem";
import { type BuybackOrder, listBuybacks } from "../read/buybacks.js";
import { buybackView } from "../views/buyback.js";
import { type ArgBuilder, type GraphqlContext, builder } from "./builder.js";
import { type ConnectionArgs, connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { BuybackKindEnum, EventOrderEnum } from "./enums.js";
import { asUserErrors } from "./errors.js";
import { BuybackFilterInput, eventFilter } from "./filters.js";
import { BuybackConnection, BuybackRef, TokenRef } from "./refs.js";
import { viewFields } from "./view-fields.js";

BuybackRef.implement({
  description: buybackView.description,
  fields: (t) => ({
    ...viewFields(t, buybackView, { kind: BuybackKindEnum }),
    token: t.field({ type: TokenRef, nullable: true, description: "The token bought back", resolve: (r, _a, ctx) => ctx.loaders.token.load(r.token) }),
  }),
});

type BuybackArgs = ConnectionArgs & { filter?: Parameters<typeof eventFilter>[0]; orderBy?: string | null };

export function resolveBuybacks(ctx: GraphqlContext, args: BuybackArgs, token?: Hex) {
  return asUserErrors(async () => {
    const window = pageArgs(args);
    const page = await listBuybacks(ctx.deps.db, { filter: eventFilter(args.filter, token), order: (args.orderBy ?? "NEWEST") as BuybackOrder, ...window });
    return toConnection(page);
  });
}

export const buybackConnectionArgs = (arg: ArgBuilder) => ({
  filter: arg({ type: BuybackFilterInput, required: false }),
  orderBy: arg({ type: EventOrderEnum, required: false, defaultValue: "NEWEST" }),
});

builder.queryField("buybacks", (t) =>
  t.connection(
    {
      type: BuybackRef,
      description: "Buybacks with filters (token, kinds, block and time ranges), newest first by default. At most 200 a page.",
      args: buybackConnectionArgs(t.arg),
      complexity: connectionComplexity,
      resolve: (_root, args, ctx) => resolveBuybacks(ctx, args),
    },
    BuybackConnection,
  ),
);
