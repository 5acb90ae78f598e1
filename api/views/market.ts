/**
 * A token's market figures, each declared once: its pool's candles, its supply, price, market
 * cap and volume, and a burn's value at the price of its moment. A figure says what it is and
 * its unit. From the declaration come the figures' values (`figuresOf`), REST's schema
 * (`figureSchemas`) and GraphQL's fields (api/graphql/market.ts), under the same names:
 * `<name>` an exact decimal string in whole units, `<name>Raw` the integer in base units (REST
 * a string of digits, GraphQL `BigInt`). Prices are per whole token; their raw form is base
 * units of the currency per 1e18 whole tokens.
 */
import { z } from "zod";
import { json } from "../../common/edge.js";
import { TOKEN_DECIMALS, USDC_DECIMALS, formatDecimal } from "../../common/money.js";

/** A figure's unit: its raw form, and its decimals given the paired currency's. */
const UNITS = {
  price: { raw: "paired-currency base units per 1e18 whole tokens", decimals: (paired: number) => paired + 18 },
  usdcPrice: { raw: "USDC base units (1e-6) per 1e18 whole tokens", decimals: () => USDC_DECIMALS + 18 },
  token: { raw: "token base units (1e-18 token)", decimals: () => TOKEN_DECIMALS },
  paired: { raw: "base units of the paired currency (USDC 1e-6, WETH wei)", decimals: (paired: number) => paired },
  usdc: { raw: "USDC base units (1e-6 USDC)", decimals: () => USDC_DECIMALS },
};

export type MarketFigure = { what: string; unit: keyof typeof UNITS; nullable?: true };
export type Figures = Record<string, MarketFigure>;

const VOLUME = {
  volumeToken: { what: "Tokens traded (token, 18 decimals)", unit: "token" },
  volumePaired: { what: "Paired currency traded (in the paired currency's own decimals: USDC 6, WETH 18)", unit: "paired" },
  volumeUsdc: {
    what: "Paired legs in USDC (6 decimals): USDC as is, WETH at the WETH/USDC price of each swap; unpriced swaps left out",
    unit: "usdc",
  },
} as const satisfies Figures;

/** One bucket of the pool's price history. */
export const CANDLE_FIGURES = {
  open: { what: "Price at the bucket's start (the pool's price before its first swap), paired currency per whole token", unit: "price" },
  high: { what: "Highest price in the bucket, paired currency per whole token", unit: "price" },
  low: { what: "Lowest price in the bucket, paired currency per whole token", unit: "price" },
  close: { what: "Price after the bucket's last swap, paired currency per whole token", unit: "price" },
  ...VOLUME,
} as const satisfies Figures;

/** A token's supply, price, market cap and volume since launch. */
export const MARKET_FIGURES = {
  totalSupply: { what: "Tokens minted at launch (18 decimals)", unit: "token" },
  burned: { what: "Tokens held by the dead address 0x…dEaD (18 decimals)", unit: "token" },
  circulating: { what: "totalSupply − burned (18 decimals)", unit: "token" },
  pricePaired: { what: "Price after the pool's last swap, paired currency per whole token", unit: "price", nullable: true },
  priceUsdc: {
    what: "The same in USDC per whole token, WETH at the WETH/USDC price of that swap (null: no USDC price for the paired currency)",
    unit: "usdcPrice",
    nullable: true,
  },
  marketCapPaired: { what: "circulating × pricePaired, in the paired currency, rounded down to its base unit", unit: "paired", nullable: true },
  marketCapUsdc: { what: "circulating × priceUsdc, USDC (6 decimals), rounded down (null: no USDC price)", unit: "usdc", nullable: true },
  ...VOLUME,
} as const satisfies Figures;

/** A burn valued at the price of its moment. */
export const BURN_VALUE_FIGURES = {
  pricePairedAtBurn: {
    what: "The pool's price after the last swap before the burn, paired currency per whole token (null: no swap yet)",
    unit: "price",
    nullable: true,
  },
  priceUsdcAtBurn: { what: "The same in USDC per whole token (null: no swap yet, or no USDC price then)", unit: "usdcPrice", nullable: true },
  valuePaired: { what: "amount × pricePairedAtBurn, paired currency, rounded down", unit: "paired", nullable: true },
  valueUsdc: { what: "amount × priceUsdcAtBurn, USDC (6 decimals), rounded down", unit: "usdc", nullable: true },
} as const satisfies Figures;

/** A currency: its address (checksummed), symbol and the decimals of its amounts. */
export const currencySchema = z
  .object({ address: json.checksummed, symbol: z.string(), decimals: z.number().int() })
  .strict()
  .describe("A currency: address (checksummed), symbol and the decimals of its amounts.");

/** The swaps counted beside a volume. */
export const SWAP_COUNTS = {
  unpricedSwaps: "Swaps left out of volumeUsdc: their paired currency had no USDC price then",
  swaps: "Number of swaps",
};

type Value<F extends MarketFigure, T> = F extends { nullable: true } ? T | null : T;

/** The figures' values: `<name>` an exact decimal, `<name>Raw` the base units. */
export type FigureValues<F extends Figures> = { [K in keyof F & string]: Value<F[K], string> } & {
  [K in keyof F & string as `${K}Raw`]: Value<F[K], bigint>;
};

/** The base units of each figure (null only where the figure is nullable). */
export type FigureInputs<F extends Figures> = { [K in keyof F & string]: Value<F[K], bigint> };

/** The figures of one row, their decimals the paired currency's where their unit says so (18 without a pool). */
export function figuresOf<F extends Figures>(figures: F, values: FigureInputs<F>, pairedDecimals = TOKEN_DECIMALS): FigureValues<F> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(figures)) {
    const raw = (values as Record<string, bigint | null>)[name] ?? null;
    out[name] = raw === null ? null : formatDecimal(raw, UNITS[f.unit].decimals(pairedDecimals));
    out[`${name}Raw`] = raw;
  }
  return out as FigureValues<F>;
}

/** A figure's two descriptions: of its decimal and of its base units. */
export const describeFigure = (f: MarketFigure) => ({ what: f.what, raw: UNITS[f.unit].raw });

type Schema<F extends MarketFigure, T> = z.ZodType<Value<F, T>>;

/** REST's schema of the figures: each an exact decimal string and its base units as a string of digits. */
export function figureSchemas<F extends Figures>(
  figures: F,
): { [K in keyof F & string]: Schema<F[K], string> } & { [K in keyof F & string as `${K}Raw`]: Schema<F[K], string> } {
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const [name, f] of Object.entries(figures)) {
    const value = json.decimal.describe(`${f.what}: exact decimal string in whole units`);
    const raw = json.digits.describe(`${f.what}: integer in ${UNITS[f.unit].raw}`);
    shape[name] = f.nullable ? value.nullable() : value;
    shape[`${name}Raw`] = f.nullable ? raw.nullable() : raw;
  }
  return shape as never;
}
