/** `Buyback`: an operator swap into a launched token (protocol or creator buyback); the `buybacks` connection. */
import type { Hex } from "viem";
import { TOKEN_DECIMALS, USDC_DECIMALS, formatDecimal } from "../../common/money.js";
import { type BuybackOrder, listBuybacks } from "../read/buybacks.js";
import { checksum } from "../read/format.js";
import { type ArgBuilder, type GraphqlContext, builder } from "./builder.js";
import { type ConnectionArgs, connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { BuybackKindEnum, EventOrderEnum } from "./enums.js";
import { asUserErrors } from "./errors.js";
import { BuybackFilterInput, eventFilter } from "./filters.js";
import { moneyFields } from "./money.js";
import { BuybackConnection, BuybackRef, TokenRef } from "./refs.js";

BuybackRef.implement({
  fields: (t) => ({
    id: t.exposeString("id"),
    tokenAddress: t.string({ description: "Checksummed", resolve: (r) => checksum(r.token) }),
    token: t.field({ type: TokenRef, nullable: true, resolve: (r, _a, ctx) => ctx.loaders.token.load(r.token) }),
    kind: t.field({ type: BuybackKindEnum, resolve: (r) => r.kind as "protocol-buyback" }),
    ...moneyFields(t, "usdcIn", USDC_DECIMALS, (r) => r.usdcIn, "USDC spent: paid in, or what the WETH paid in was sold for in the same transaction"),
    pairedIn: t.string({
      description: "Paired currency paid into the pool: USDC, or WETH for a WETH-paired token (exact decimal, whole units)",
      resolve: async (r, _a, ctx) => {
        const view = await ctx.loaders.token.load(r.token);
        const usdc = ctx.deps.config.contracts.usdc?.toLowerCase();
        return formatDecimal(r.pairedIn, view?.pool?.pairedToken.toLowerCase() === usdc ? USDC_DECIMALS : TOKEN_DECIMALS);
      },
    }),
    pairedInRaw: t.field({ type: "BigInt", description: "Paired currency paid into the pool (base units)", resolve: (r) => r.pairedIn }),
    spentCurrency: t.string({
      description: "What the operator paid in: USDC, or WETH for a legacy-WETH buyback (checksummed address)",
      resolve: (r) => checksum(r.currencyIn),
    }),
    spentSymbol: t.string({ resolve: async (r, _a, ctx) => (await ctx.loaders.currency.load(r.currencyIn)).symbol }),
    spent: t.string({
      description: "Paid in (exact decimal, whole units of spentCurrency); usdcIn is its USDC",
      resolve: async (r, _a, ctx) => formatDecimal(r.amountIn, (await ctx.loaders.currency.load(r.currencyIn)).decimals),
    }),
    spentRaw: t.field({ type: "BigInt", description: "Paid in (base units of spentCurrency)", resolve: (r) => r.amountIn }),
    ...moneyFields(t, "tokensBought", TOKEN_DECIMALS, (r) => r.tokensBought, "Tokens bought"),
    ...moneyFields(t, "tokensBurned", TOKEN_DECIMALS, (r) => r.tokensBurned, "Of those, burned"),
    txHash: t.exposeString("txHash"),
    blockNumber: t.field({ type: "BigInt", resolve: (r) => r.blockNumber }),
    logIndex: t.exposeInt("logIndex"),
    timestamp: t.field({ type: "DateTime", resolve: (r) => r.timestamp }),
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
