/** `burnTotals`: burns summed per UTC day, ISO week or month, from the daily aggregate. */
import type { Hex } from "viem";
import { TOKEN_DECIMALS } from "../../common/money.js";
import { type BurnGroup, MAX_BUCKETS, burnTotals } from "../read/burn-totals.js";
import { type ArgBuilder, type GraphqlContext, builder } from "./builder.js";
import { BurnGroupEnum } from "./enums.js";
import { addressArg, asUserErrors, userError } from "./errors.js";
import { moneyFields } from "./money.js";
import { BurnBucketRef } from "./refs.js";

BurnBucketRef.implement({
  description: "Burns in one period [start, end).",
  fields: (t) => ({
    start: t.field({ type: "DateTime", resolve: (b) => b.start }),
    end: t.field({ type: "DateTime", resolve: (b) => b.end }),
    ...moneyFields(t, "burned", TOKEN_DECIMALS, (b) => b.burned, "Tokens burned"),
    burns: t.exposeInt("burns", { description: "Number of burns" }),
  }),
});

export const burnTotalsArgs = (arg: ArgBuilder) => ({
  groupBy: arg({ type: BurnGroupEnum, required: false, defaultValue: "DAY" }),
  from: arg({ type: "DateTime", required: false, description: "From this day (a time inside a day counts the whole day)" }),
  to: arg({ type: "DateTime", required: false, description: "Before this time (days starting before it count)" }),
});

type Args = { groupBy?: string | null; from?: bigint | null; to?: bigint | null };

export function resolveBurnTotals(ctx: GraphqlContext, args: Args, token?: Hex) {
  return asUserErrors(async () => {
    if (args.from != null && args.to != null && args.from >= args.to) throw userError("from must be before to");
    return burnTotals(ctx.deps.db, { token, groupBy: (args.groupBy ?? "DAY") as BurnGroup, from: args.from ?? undefined, to: args.to ?? undefined });
  });
}

builder.queryField("burnTotals", (t) =>
  t.field({
    type: [BurnBucketRef],
    description: `Burned amounts and counts per period, oldest first, of one token (or all tokens). At most ${MAX_BUCKETS} buckets.`,
    args: { token: t.arg.string({ required: false }), ...burnTotalsArgs(t.arg) },
    complexity: { field: 10, multiplier: 1 },
    resolve: (_root, args, ctx) => resolveBurnTotals(ctx, args, args.token ? addressArg(args.token, "token") : undefined),
  }),
);
