/** `Desk`: a perps position of the operator for a token; the `desks` connection. */
import { USDC_DECIMALS } from "../../common/money.js";
import { type DeskStatus, listDesks } from "../read/desks.js";
import { perpsDecimal } from "../read/format.js";
import { builder } from "./builder.js";
import { connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { DeskSideEnum, DeskStatusEnum } from "./enums.js";
import { addressArg, asUserErrors } from "./errors.js";
import { moneyFields, optionalMoneyFields } from "./money.js";
import { DeskRef, TokenRef } from "./refs.js";

DeskRef.implement({
  description: "A leveraged perps position funded by a token's perp leg (notional = collateral × leverage).",
  fields: (t) => ({
    id: t.exposeString("id"),
    tokenAddress: t.string({ nullable: true, description: "The token the engine opened it for (checksummed)", resolve: (d) => d.token }),
    token: t.field({
      type: TokenRef,
      nullable: true,
      resolve: (d, _a, ctx) => (d.token ? ctx.loaders.token.load(d.token.toLowerCase() as `0x${string}`) : null),
    }),
    venue: t.string({ description: "The perps venue it trades on (PERPS_VENUE: avantis-v1, gains-v10)", resolve: (d) => d.venue.id }),
    protocol: t.string({ description: "The exchange and version of that venue, e.g. Avantis v1, Gains Network gTrade v10", resolve: (d) => d.venue.protocol }),
    pairIndex: t.field({ type: "BigInt", resolve: (d) => d.pairIndex }),
    tradeIndex: t.field({ type: "BigInt", resolve: (d) => d.tradeIndex }),
    side: t.field({ type: DeskSideEnum, resolve: (d) => d.side }),
    status: t.field({ type: DeskStatusEnum, resolve: (d) => d.status }),
    halted: t.exposeBoolean("halted"),
    haltReason: t.exposeString("haltReason", { nullable: true }),
    ...moneyFields(t, "collateral", USDC_DECIMALS, (d) => d.collateral, "Collateral (USDC)"),
    leverage: t.string({ description: "Leverage (×, exact decimal)", resolve: (d) => perpsDecimal(d.leverage) }),
    leverageRaw: t.field({ type: "BigInt", description: "Leverage at 1e10", resolve: (d) => d.leverage }),
    ...moneyFields(t, "notional", USDC_DECIMALS, (d) => d.notional, "Collateral × leverage (USDC)"),
    entryPrice: t.string({ resolve: (d) => perpsDecimal(d.entryPrice) }),
    entryPriceRaw: t.field({ type: "BigInt", description: "1e10", resolve: (d) => d.entryPrice }),
    markPrice: t.string({
      nullable: true,
      description: "Latest oracle price, when known",
      resolve: (d) => (d.markPrice === null ? null : perpsDecimal(d.markPrice)),
    }),
    liquidationPrice: t.string({
      nullable: true,
      description:
        "Where the venue liquidates the open desk: the venue's own figure at the engine's latest mark of it (gains-v10: the diamond's getTradeLiquidationPrice, fees included), or before that mark its formula (90% of the collateral lost, before fees); null once closed",
      resolve: (d) => (d.liquidationPrice === null ? null : perpsDecimal(d.liquidationPrice)),
    }),
    liquidationPriceRaw: t.field({ type: "BigInt", nullable: true, description: "1e10", resolve: (d) => d.liquidationPrice }),
    ...optionalMoneyFields(t, "unrealisedPnl", USDC_DECIMALS, (d) => d.unrealisedPnl, "PnL at the mark price (USDC)"),
    ...moneyFields(t, "realisedPnl", USDC_DECIMALS, (d) => d.realisedPnl, "Realised PnL (USDC)"),
    ...moneyFields(t, "usdcReturned", USDC_DECIMALS, (d) => d.usdcReturned, "USDC paid back by closes"),
    openedAt: t.field({ type: "DateTime", resolve: (d) => d.openedAt }),
    closedAt: t.field({ type: "DateTime", nullable: true, resolve: (d) => d.closedAt }),
    openTx: t.exposeString("openTx"),
  }),
});

builder.queryField("desks", (t) =>
  t.connection(
    {
      type: DeskRef,
      description: "Desks, newest first: filter by status (OPEN for the open ones), token and halt state.",
      args: {
        status: t.arg({ type: [DeskStatusEnum], required: false }),
        token: t.arg.string({ required: false }),
        halted: t.arg.boolean({ required: false }),
      },
      complexity: connectionComplexity,
      resolve: (_root, args, ctx) =>
        asUserErrors(async () => {
          const window = pageArgs(args);
          const deskCtx = await ctx.loaders.deskContext();
          const filter = {
            statuses: (args.status ?? undefined) as DeskStatus[] | undefined,
            token: args.token ? addressArg(args.token, "token") : undefined,
            halted: args.halted,
          };
          return toConnection(await listDesks(ctx.deps.db, deskCtx, { ...window, filter }));
        }),
    },
    { name: "DeskConnection" },
    { name: "DeskEdge" },
  ),
);
