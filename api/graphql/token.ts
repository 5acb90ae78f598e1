/** `Token` with its pool, enrolment, totals and desk; the `token` and `tokens` queries. */
import { type Hex, getAddress } from "viem";
import { formatDecimal } from "../../common/money.js";
import type { EnrollmentRow, PoolRow, TokenTotalsRow } from "../read/tokens.js";
import { type HonouredView, type LockerShareView, type TokenOrder, countTokens, honouredView, listTokens, lockerSharesOf } from "../read/tokens.js";
import { builder } from "./builder.js";
import { burnTotalsArgs, resolveBurnTotals } from "./burn-totals.js";
import { burnsField, buybacksField } from "./events.js";
import { connectionComplexity, pageArgs, toConnection } from "./connection.js";
import { TokenOrderEnum } from "./enums.js";
import { addressArg, asUserErrors } from "./errors.js";
import { CurrencySpendRef, FeeCurrencyRef, FeeLegsRef, legacyLegFields } from "./fees.js";
import { legsRow, legsSchema } from "../views/legs.js";
import { feeCurrencyRow, spendRow } from "../views/fees.js";
import { BurnBucketRef, DeskRef, TokenRef } from "./refs.js";
import { readFinality, tokenFinalityJson } from "../read/finality.js";
import { tokenFigures, tokenFinalityResponse } from "../views/finality.js";
import { reportFields, zodObject } from "./zod-objects.js";
import {
  enrollmentView,
  honouredSplitRow,
  honouredSplitView,
  lockerShareRow,
  lockerShareView,
  poolView,
  poolViewRow,
  splitView,
  tokenPendingView,
  tokenTotalsView,
  tokenView,
} from "../views/token.js";
import { viewFields } from "./view-fields.js";
import type { TokenPending } from "../engine-port.js";

const Split = builder.objectRef<Pick<EnrollmentRow, "protocolBps" | "assetBps" | "perpBps" | "creatorBps">>("Split").implement({
  description: "Fee split in basis points of total LP fees (sums to 10000), and the same in percent.",
  fields: (t) => ({
    ...viewFields(t, splitView, {}),
    protocolPct: t.string({ resolve: (s) => formatDecimal(BigInt(s.protocolBps), 2) }),
    assetPct: t.string({ resolve: (s) => formatDecimal(BigInt(s.assetBps), 2) }),
    perpPct: t.string({ resolve: (s) => formatDecimal(BigInt(s.perpBps), 2) }),
    creatorPct: t.string({ resolve: (s) => formatDecimal(BigInt(s.creatorBps), 2) }),
  }),
});

const HonouredSplit = builder.objectRef<NonNullable<HonouredView>>("HonouredSplit").implement({
  description: `${honouredSplitView.description}.`,
  fields: (t) => viewFields(t, honouredSplitView, {}, honouredSplitRow),
});

const LockerShare = builder.objectRef<LockerShareView>("LockerShare").implement({
  description: `${lockerShareView.description}.`,
  fields: (t) => viewFields(t, lockerShareView, {}, lockerShareRow),
});

const Enrollment = builder.objectRef<EnrollmentRow>("Enrollment").implement({
  description: `${enrollmentView.description}.`,
  fields: (t) => ({ ...viewFields(t, enrollmentView, {}), split: t.field({ type: Split, resolve: (e) => e }) }),
});

const Pool = builder.objectRef<PoolRow>("Pool").implement({
  description: `${poolView.description}.`,
  fields: (t) => viewFields(t, poolView, {}, poolViewRow),
});

zodObject("FinalityLegs", legsSchema);
zodObject("TokenFigures", tokenFigures, "A token's totals, or their final or pending part");
const TokenFinality = zodObject("TokenFinality", tokenFinalityResponse, "A token's totals as a final part and a pending part");

const TokenTotals = builder.objectRef<TokenTotalsRow>("TokenTotals").implement({
  description: "The token's running totals (incremental aggregates).",
  fields: (t) => ({
    ...viewFields(t, tokenTotalsView, {}),
    ...legacyLegFields(t, (r, leg) => r[leg]),
    legs: t.field({
      type: FeeLegsRef,
      description: "The legs under REST's names (`totals.legs`): the same figures as the *LegUsdc fields, the same type as `Stats.legs`",
      resolve: (r) => legsRow((leg) => r[leg]),
    }),
    feesByCurrency: t.field({
      type: [FeeCurrencyRef],
      description: "The token's fees per currency (USDC first): the amount in its currency and its USDC at the realised rate",
      resolve: async (r, _a, ctx) => (await ctx.loaders.tokenFees.load(r.token)).map(feeCurrencyRow),
    }),
    buybackSpent: t.field({
      type: [CurrencySpendRef],
      description: "The token's buybacks per currency paid in",
      resolve: async (r, _a, ctx) => (await ctx.loaders.tokenSpend.load(r.token)).map(spendRow),
    }),
    ...reportFields(t, "finality", TokenFinality, {
      description: "The totals as a final part and a pending part by CONFIRMATIONS, as `totals.finality` of GET /api/v1/tokens",
      resolve: async (r, _a, ctx) => tokenFinalityJson(await readFinality(ctx.deps.db, ctx.deps.config, [r.token.toLowerCase()]), r.token, r),
    }),
  }),
});

const TokenPendingType = builder.objectRef<TokenPending>("TokenPending").implement({
  description: `${tokenPendingView.description}.`,
  fields: (t) => viewFields(t, tokenPendingView, {}),
});

TokenRef.implement({
  description: "A token of ours: the protocol token, a launch that pays the operator, or a token enrolled in the registry (docs/design.md §4.6).",
  fields: (t) => ({
    ...viewFields(t, tokenView, {}, (v) => v.token),
    pool: t.field({ type: Pool, nullable: true, resolve: (v) => v.pool }),
    enrollment: t.field({ type: Enrollment, nullable: true, resolve: (v) => v.enrollment }),
    honouredSplit: t.field({
      type: HonouredSplit,
      nullable: true,
      description: "The split really honoured, to the bps (null when not enrolled or before the locker's slots are indexed)",
      resolve: async (v, _a, ctx) => honouredView(v.enrollment, await ctx.loaders.rewardSlots.load(v.token.address), ctx.deps.config.operator),
    }),
    lockerShares: t.field({
      type: [LockerShare],
      description: "The LP locker's reward slots for the token, with their current fee preference and admin",
      resolve: async (v, _a, ctx) =>
        lockerSharesOf(await ctx.loaders.rewardSlots.load(v.token.address), ctx.deps.config.operator, v.enrollment?.creator ?? null),
    }),
    totals: t.field({ type: TokenTotals, nullable: true, description: "Null until the token has had a fee, buyback or burn", resolve: (v) => v.totals }),
    pending: t.field({
      type: TokenPendingType,
      resolve: (v, _a, ctx) => ctx.loaders.tokenPending.load(v.token.address),
    }),
    desk: t.field({
      type: DeskRef,
      nullable: true,
      description: "The token's latest desk (open or not)",
      resolve: (v, _a, ctx) => ctx.loaders.latestDesk.load(getAddress(v.token.address)),
    }),
    burns: burnsField(t, "This token's burns (filter.token is ignored).", (v) => v.token.address as Hex),
    buybacks: buybacksField(t, "This token's buybacks (filter.token is ignored).", (v) => v.token.address as Hex),
    burnTotals: t.field({
      type: [BurnBucketRef],
      args: burnTotalsArgs(t.arg),
      complexity: { field: 10, multiplier: 1 },
      resolve: (v, args, ctx) => resolveBurnTotals(ctx, args, v.token.address),
    }),
  }),
});

builder.queryField("token", (t) =>
  t.field({
    type: TokenRef,
    nullable: true,
    description: "A token by address (null when not launched through the launcher).",
    args: { address: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.loaders.token.load(addressArg(args.address, "address")),
  }),
);

builder.queryField("tokens", (t) =>
  t.connection(
    {
      type: TokenRef,
      description:
        "Every token of ours (the protocol token, launches that pay the operator, enrolled tokens), newest launch first by default: the same set as REST GET /tokens. `enrolled: true` keeps only enrolled tokens, `enrolled: false` only the others.",
      args: {
        enrolled: t.arg.boolean({ required: false }),
        protocolToken: t.arg.boolean({ required: false }),
        orderBy: t.arg({ type: TokenOrderEnum, required: false, defaultValue: "NEWEST" }),
      },
      complexity: connectionComplexity,
      resolve: (_root, args, ctx) =>
        asUserErrors(async () => {
          const window = pageArgs(args);
          const page = await listTokens(ctx.deps.db, {
            enrolled: args.enrolled,
            protocolToken: args.protocolToken,
            order: (args.orderBy ?? "NEWEST") as TokenOrder,
            ...window,
          });
          for (const view of page.rows) ctx.loaders.token.prime(view.token.address, view);
          const filter = { enrolled: args.enrolled, protocolToken: args.protocolToken };
          return { ...toConnection(page), totalCount: () => countTokens(ctx.deps.db, filter) };
        }),
    },
    {
      name: "TokenConnection",
      fields: (c) => ({
        totalCount: c.int({
          description: "Tokens matching the filter, across all pages (one count; the token table grows with launches only).",
          resolve: (conn) => (conn as unknown as { totalCount: () => Promise<number> }).totalCount(),
        }),
      }),
    },
    { name: "TokenEdge" },
  ),
);
