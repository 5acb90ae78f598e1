/** `Buyback`: an operator swap into a launched token (protocol or creator buyback); the `buybacks` connection. */
import { listBuybacks } from "../read/buybacks.js";
import { buybackView } from "../views/buyback.js";
import { type ArgBuilder, builder } from "./builder.js";
import { connectionComplexity } from "./connection.js";
import { BuybackKindEnum, EventOrderEnum } from "./enums.js";
import { BuybackFilterInput, eventConnection } from "./filters.js";
import { BuybackConnection, BuybackRef, TokenRef } from "./refs.js";
import { viewFields } from "./view-fields.js";

BuybackRef.implement({
  description: buybackView.description,
  fields: (t) => ({
    ...viewFields(t, buybackView, { kind: BuybackKindEnum }),
    token: t.field({ type: TokenRef, nullable: true, description: "The token bought back", resolve: (r, _a, ctx) => ctx.loaders.token.load(r.token) }),
  }),
});

export const resolveBuybacks = eventConnection(listBuybacks);

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
