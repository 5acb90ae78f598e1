/** `Burn`: a transfer of a launched token to the dead address; the `burns` connection. */
import type { Hex } from "viem";
import { TOKEN_DECIMALS } from "../../common/money.js";
import { type BurnOrder, listBurns } from "../read/burns.js";
import { checksum } from "../read/format.js";
import { type ArgBuilder, type GraphqlContext, builder } from "./builder.js";
import { type ConnectionArgs, connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { BurnKindEnum, EventOrderEnum } from "./enums.js";
import { asUserErrors } from "./errors.js";
import { BurnFilterInput, eventFilter } from "./filters.js";
import { moneyFields } from "./money.js";
import { BurnConnection, BurnRef, TokenRef } from "./refs.js";

BurnRef.implement({
  fields: (t) => ({
    id: t.exposeString("id"),
    tokenAddress: t.string({ description: "Checksummed", resolve: (r) => checksum(r.token) }),
    token: t.field({ type: TokenRef, nullable: true, resolve: (r, _a, ctx) => ctx.loaders.token.load(r.token) }),
    kind: t.field({ type: BurnKindEnum, resolve: (r) => r.kind as "organic" }),
    from: t.string({ description: "Holder whose tokens were burned (checksummed)", resolve: (r) => checksum(r.from) }),
    txFrom: t.string({ description: "Sender of the transaction (checksummed)", resolve: (r) => checksum(r.txFrom) }),
    ...moneyFields(t, "amount", TOKEN_DECIMALS, (r) => r.amount, "Tokens burned"),
    txHash: t.exposeString("txHash"),
    blockNumber: t.field({ type: "BigInt", resolve: (r) => r.blockNumber }),
    logIndex: t.exposeInt("logIndex"),
    timestamp: t.field({ type: "DateTime", resolve: (r) => r.timestamp }),
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
