/**
 * What a dashboard charts, under the same names as REST: `Token.candles` (the pool's price
 * candles by hour or day), `Token.market` (supply, market cap, volume) and the value of each
 * `Burn` at the price of its moment. `<name>` is an exact decimal in whole units, `<name>Raw`
 * the integer in base units; each description names the unit.
 */
import { checksum } from "../read/format.js";
import {
  CANDLE_PERIODS,
  type CandleFigures,
  type CurrencyRef,
  DEFAULT_CANDLES,
  MAX_CANDLES,
  type MarketFigures,
  burnValueFigures,
  candleFigures,
  listCandles,
  marketFigures,
  marketView,
} from "../read/market.js";
import { BURN_VALUE_FIGURES, CANDLE_FIGURES, type Figures, MARKET_FIGURES, SWAP_COUNTS, currencySchema, describeFigure } from "../views/market.js";
import { zodObject } from "./zod-objects.js";
import { type GraphqlContext, type Types, builder } from "./builder.js";
import { userError } from "./errors.js";
import { BurnRef, TokenRef } from "./refs.js";

type FieldBuilder<Row> = PothosSchemaTypes.ObjectFieldBuilder<Types, Row>;

/**
 * The figures' fields (api/views/market.ts): `<name>` (String) and `<name>Raw` (BigInt), read
 * from the parent itself or, given `valuesOf`, from the figures it finds for the parent.
 */
function figureFields<Row, F extends Figures>(
  t: FieldBuilder<Row>,
  figures: F,
  valuesOf?: (row: Row, ctx: GraphqlContext) => Promise<Record<string, unknown>>,
) {
  // Looked-up figures are found once per parent object (one request's), whichever fields ask.
  const found = new WeakMap<object, Promise<Record<string, unknown>>>();
  const valuesFor = (r: Row, ctx: GraphqlContext) => {
    let values = found.get(r as object);
    if (!values) found.set(r as object, (values = valuesOf!(r, ctx)));
    return values;
  };
  const read = (key: string) =>
    valuesOf
      ? async (r: Row, _a: unknown, ctx: GraphqlContext) => (await valuesFor(r, ctx))[key] as never
      : (r: Row) => (r as Record<string, unknown>)[key] as never;
  const fields: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(figures)) {
    const { what, raw } = describeFigure(f);
    const nullable = f.nullable === true;
    fields[name] = t.string({ nullable, description: `${what} (exact decimal, whole units)`, resolve: read(name) });
    fields[`${name}Raw`] = t.field({ type: "BigInt", nullable, description: `${what} (integer in ${raw})`, resolve: read(`${name}Raw`) });
  }
  return fields as Record<string, ReturnType<FieldBuilder<Row>["string"]>>;
}

/** A period's swaps, and those left out of its USDC volume. */
const swapCountFields = <Row extends { unpricedSwaps: number; swaps: number }>(t: FieldBuilder<Row>) => ({
  unpricedSwaps: t.int({ description: SWAP_COUNTS.unpricedSwaps, resolve: (r) => r.unpricedSwaps }),
  swaps: t.int({ description: SWAP_COUNTS.swaps, resolve: (r) => r.swaps }),
});

export const CandlePeriodEnum = builder.enumType("CandlePeriod", {
  description: "Candle bucket length (UTC): an hour or a day.",
  values: Object.fromEntries(CANDLE_PERIODS.map((p) => [p.toUpperCase(), { value: p }])) as Record<"HOUR" | "DAY", { value: "hour" | "day" }>,
});

const Currency = zodObject("Currency", currencySchema);

const Candle = builder.objectRef<CandleFigures>("Candle").implement({
  description: "One bucket of the pool's price history: prices in the paired currency per whole token, volume in tokens, in the paired currency and in USDC.",
  fields: (t) => ({
    start: t.field({ type: "DateTime", description: "Bucket start (UTC)", resolve: (c) => c.start }),
    ...figureFields(t, CANDLE_FIGURES),
    ...swapCountFields(t),
  }),
});

type MarketRow = MarketFigures & { token: string; poolId: string | null; pairedToken: CurrencyRef | null };

const TokenMarket = builder.objectRef<MarketRow>("TokenMarket").implement({
  description: "The token's supply, price, market cap and volume since launch.",
  fields: (t) => ({
    token: t.string({ description: "Checksummed", resolve: (m) => checksum(m.token) }),
    poolId: t.string({ nullable: true, resolve: (m) => m.poolId }),
    pairedToken: t.field({
      type: Currency,
      nullable: true,
      description: "The currency pricePaired, marketCapPaired and volumePaired are in",
      resolve: (m) => m.pairedToken,
    }),
    ...figureFields(t, MARKET_FIGURES),
    ...swapCountFields(t),
  }),
});

builder.objectFields(TokenRef, (t) => ({
  candles: t.field({
    type: [Candle],
    description:
      "The token's pool price candles of one period, oldest first: the latest `limit` buckets starting in [from, to). Buckets without a swap have no candle.",
    args: {
      period: t.arg({ type: CandlePeriodEnum, required: false, defaultValue: "hour" }),
      from: t.arg({ type: "DateTime", required: false, description: "Buckets starting at or after this time" }),
      to: t.arg({ type: "DateTime", required: false, description: "Buckets starting before this time" }),
      limit: t.arg.int({ required: false, defaultValue: DEFAULT_CANDLES, description: `1 to ${MAX_CANDLES}` }),
    },
    complexity: { field: 10, multiplier: 1 },
    resolve: async (v, args, ctx) => {
      const limit = args.limit ?? DEFAULT_CANDLES;
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CANDLES) throw userError(`limit: expected an integer from 1 to ${MAX_CANDLES}`);
      if (args.from != null && args.to != null && args.from >= args.to) throw userError("from: must be before to");
      if (!v.pool) return [];
      const paired = await ctx.loaders.currency.load(v.pool.pairedToken);
      const rows = await listCandles(ctx.deps.db, v.pool.poolId, (args.period ?? "hour") as "hour", {
        from: args.from ?? undefined,
        to: args.to ?? undefined,
        limit,
      });
      return rows.map((r) => candleFigures(r, paired));
    },
  }),
  market: t.field({
    type: TokenMarket,
    description: "The token's supply, price, market cap and volume.",
    resolve: async (v, _a, ctx) => {
      const paired = v.pool ? await ctx.loaders.currency.load(v.pool.pairedToken) : null;
      const volume = v.pool ? await ctx.loaders.poolVolume.load(v.pool.poolId) : undefined;
      const m = marketView(ctx.deps.config, v, volume ?? undefined);
      return { ...marketFigures(m, paired), token: v.token.address, poolId: m.poolId, pairedToken: paired };
    },
  }),
}));

builder.objectFields(BurnRef, (t) =>
  figureFields(t, BURN_VALUE_FIGURES, async (r, ctx) => {
    const [v, view] = await Promise.all([ctx.loaders.burnValue.load(r.id), ctx.loaders.token.load(r.token)]);
    const paired = view?.pool ? await ctx.loaders.currency.load(view.pool.pairedToken) : null;
    return burnValueFigures(v, paired);
  }),
);
