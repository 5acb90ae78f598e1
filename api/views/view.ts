/**
 * A public view: a resource's fields declared once, each with what it holds, its description
 * and the table column it comes from. Every surface derives from it:
 *
 * - `viewSchema`: the zod schema of one item (REST responses, MCP tool output, the exports'
 *   documented rows), and through it the TypeScript type of the JSON (`ViewJson`);
 * - `viewJson`: one row as that JSON, typed from that schema;
 * - the export's columns and documented row (api/read/export.ts: `viewColumns`) and GraphQL's
 *   object fields (api/graphql/view-fields.ts).
 *
 * The JSON convention is the glossary's (docs/glossary.md): addresses EIP-55 checksummed; an
 * amount is `<name>` (exact decimal string in whole units) with `<name>Raw` (its base units,
 * a string of digits) beside it; block numbers and log indexes are numbers, an integer past a
 * JSON number's range (a pool's uint160 price) a string of digits; times are ISO-8601 in UTC
 * with milliseconds.
 *
 * An amount whose currency varies by row (what a buyback paid in) names the row's property
 * holding the currency's address: its decimals, and a symbol field's symbol, are that
 * currency's (`currencyInfos`: USDC 6 decimals, everything else 18; no currency: 18).
 */
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { type ZodTypeAny, z } from "zod";
import { documented } from "../openapi/zod-schema.js";
import { TOKEN_DECIMALS, USDC_DECIMALS, formatDecimal } from "../../common/money.js";
import type { CurrencyInfo } from "../read/fees.js";
import { checksum, isoTime } from "../read/format.js";
import { decimalOf, json } from "../../common/edge.js";

type Described = {
  description: string;
  /** GraphQL's name for the field, where it differs (a link's address, when the link's name is its object). */
  graphqlName?: string;
  /** The field may be null (an amount's `<name>Raw` with it). */
  nullable?: true;
};

/** What a field holds. */
export type ViewField =
  | (Described & { kind: "text" | "hash" | "address" | "bool" })
  | (Described & { kind: "enum"; values: readonly [string, ...string[]] })
  /** An amount in base units: `<name>` and `<name>Raw`; in a fixed number of decimals, or the decimals of the currency in the row's property `currency`. */
  | (Described & { kind: "amount"; decimals: number })
  | (Described & { kind: "amount"; currency: string })
  /** The symbol of the currency in the row's property `currency`. */
  | (Described & { kind: "symbol"; currency: string })
  /** An integer: a number in JSON; in GraphQL `Int`, or `BigInt` for a block number. */
  | (Described & { kind: "int"; graphql?: "Int" | "BigInt" })
  /** An integer past a JSON number's range (a uint160 price, a pool's liquidity): a string of digits; in GraphQL `BigInt`. */
  | (Described & { kind: "digits" })
  /** Unix seconds. */
  | (Described & { kind: "time" });

export type ViewFields = Record<string, ViewField>;
/** The fields a row holds: all but the symbols, which are their currency's. */
export type ReadKeys<F extends ViewFields> = { [K in keyof F]: F[K] extends { kind: "symbol" } ? never : K }[keyof F];

/** A view over a table's rows: its fields in order, each read from the row's property of the same name. */
export type View<F extends ViewFields = ViewFields> = {
  name: string;
  description: string;
  fields: F;
  /**
   * The table column of each field (the property of the same name in a row), and of each
   * currency the fields name that is no field; none for a view of computed rows (a desk), which
   * has no export.
   */
  columns?: { [K in ReadKeys<F>]: AnyPgColumn } & Record<string, AnyPgColumn>;
};

/** A view, its columns' own types kept: `db.select(view.columns)` reads rows under the view's keys. A view of computed rows has no columns. */
export function defineView<F extends ViewFields, C extends { [K in ReadKeys<F>]: AnyPgColumn } & Record<string, AnyPgColumn> = never>(
  view: Omit<View<F>, "columns"> & { columns?: C },
): Omit<View<F>, "columns"> & { columns: [C] extends [never] ? undefined : C } {
  return view as never;
}

// ------------------------------------------------------------------ the schema of an item

/** The fields `deprecatedAs` made, each with the name to use instead (GraphQL types derived from a view's schema read it). */
export const deprecations = new WeakMap<ZodTypeAny, string>();

/**
 * A field kept under an older name for the clients that read it: the same figure as `use`
 * (the glossary's name, docs/glossary.md "Public figures"), marked deprecated in OpenAPI.
 */
export function deprecatedAs<T extends ZodTypeAny>(schema: T, use: string): T {
  const kept = documented(schema, { deprecated: true, description: `${schema.description ?? ""} Deprecated: the same figure as ${use}.`.trim() });
  deprecations.set(kept, use);
  return kept;
}

/** A view's amount field in fixed decimals (under `graphqlName` in GraphQL, where given). */
export const amountField = <const G extends string | undefined = undefined>(decimals: number, description: string, graphqlName?: G) =>
  ({ kind: "amount", decimals, description, graphqlName }) as const;
/** A view's USDC amount field, described as USDC. */
export const usdcField = <const G extends string | undefined = undefined>(description: string, graphqlName?: G) =>
  amountField(USDC_DECIMALS, `${description} (USDC)`, graphqlName);

type BaseZodOf<F extends ViewField> = F extends { kind: "enum"; values: infer V extends readonly [string, ...string[]] }
  ? z.ZodEnum<[...V]>
  : F extends { kind: "int" }
    ? z.ZodNumber
    : F extends { kind: "bool" }
      ? z.ZodBoolean
      : z.ZodString;
type ZodOf<F extends ViewField> = F extends { nullable: true } ? z.ZodNullable<BaseZodOf<F>> : BaseZodOf<F>;
type RawOf<F extends ViewField> = F extends { nullable: true } ? z.ZodNullable<z.ZodString> : z.ZodString;
type AmountKeys<F extends ViewFields> = { [K in keyof F & string]: F[K] extends { kind: "amount" } ? K : never }[keyof F & string];

/** The zod shape of a view's item: one key per field, and `<name>Raw` beside each amount. */
export type ViewShape<F extends ViewFields> = { [K in keyof F & string]: ZodOf<F[K]> } & { [K in AmountKeys<F> as `${K}Raw`]: RawOf<F[K]> };
/** The JSON of one item, as every surface writes it. */
export type ViewJson<F extends ViewFields> = z.infer<z.ZodObject<ViewShape<F>>>;

/** The zod object of one item (strict: no key the view does not declare). */
export function viewSchema<F extends ViewFields>(view: View<F>): z.ZodObject<ViewShape<F>, "strict"> {
  const shape: Record<string, z.ZodTypeAny> = {};
  for (const [name, f] of Object.entries(view.fields)) {
    switch (f.kind) {
      case "text":
        shape[name] = z.string().describe(f.description);
        break;
      case "hash":
        shape[name] = json.hash.describe(f.description);
        break;
      case "address":
        shape[name] = json.checksummed.describe(`${f.description} (EIP-55 checksummed)`);
        break;
      case "enum":
        shape[name] = z.enum(f.values).describe(f.description);
        break;
      case "amount":
        shape[name] = decimalOf(f.description);
        shape[`${name}Raw`] = json.digits.describe(
          `${f.description}: integer in base units (${"decimals" in f ? `${f.decimals} decimals` : `of the currency ${f.currency}`})`,
        );
        break;
      case "symbol":
        shape[name] = z.string().describe(`${f.description}: USDC, WETH, a launched token's symbol, or else its address`);
        break;
      case "bool":
        shape[name] = z.boolean().describe(f.description);
        break;
      case "int":
        shape[name] = z.number().int().describe(f.description);
        break;
      case "digits":
        shape[name] = json.digits.describe(`${f.description} (an integer as a string of digits)`);
        break;
      case "time":
        shape[name] = json.iso.describe(`${f.description} (ISO-8601, UTC)`);
        break;
    }
    if (f.nullable) {
      shape[name] = shape[name]!.nullable();
      if (f.kind === "amount") shape[`${name}Raw`] = shape[`${name}Raw`]!.nullable();
    }
  }
  return z.object(shape).strict() as never;
}

// ------------------------------------------------------------------ one row as JSON

/** The names of a view's item, in order (`<name>Raw` right after each amount). */
export function viewKeys(view: View): string[] {
  return Object.entries(view.fields).flatMap(([name, f]) => (f.kind === "amount" ? [name, `${name}Raw`] : [name]));
}

/** The currency addresses a page of rows names (for `currencyInfos`), lowercase. */
export function viewCurrencies(view: View, rows: readonly Record<string, unknown>[]): string[] {
  const keys = [...new Set(Object.values(view.fields).flatMap((f) => ("currency" in f ? [f.currency] : [])))];
  return [...new Set(rows.flatMap((r) => keys.map((k) => r[k]).filter((a): a is string => typeof a === "string")).map((a) => a.toLowerCase()))];
}

/** The decimals of a row's amount: fixed, or its currency's (18 when the row names none). */
export function amountDecimals(f: Extract<ViewField, { kind: "amount" }>, currency: CurrencyInfo | undefined): number {
  return "decimals" in f ? f.decimals : (currency?.decimals ?? TOKEN_DECIMALS);
}

/** A row (the table's select) as the view's JSON; `currencies` (by lowercase address) for the amounts whose currency varies by row. */
export function viewJson<F extends ViewFields>(
  view: View<F>,
  row: { [K in ReadKeys<F>]: unknown },
  currencies: ReadonlyMap<string, CurrencyInfo> = new Map(),
): ViewJson<F> {
  const out: Record<string, unknown> = {};
  const currencyOf = (f: ViewField) => {
    const address = "currency" in f ? (row as Record<string, unknown>)[f.currency] : undefined;
    return typeof address === "string" ? currencies.get(address.toLowerCase()) : undefined;
  };
  for (const [name, f] of Object.entries(view.fields)) {
    const v = (row as Record<string, unknown>)[name];
    if (v === null && f.nullable) {
      out[name] = null;
      if (f.kind === "amount") out[`${name}Raw`] = null;
      continue;
    }
    switch (f.kind) {
      case "address":
        out[name] = checksum(v as string);
        break;
      case "amount":
        out[name] = formatDecimal(v as bigint, amountDecimals(f, currencyOf(f)));
        out[`${name}Raw`] = (v as bigint).toString();
        break;
      case "symbol": {
        const currency = currencyOf(f);
        if (!currency) throw new Error(`${view.name}.${name}: no currency info for the row's ${f.currency}`);
        out[name] = currency.symbol;
        break;
      }
      case "int":
        out[name] = Number(v);
        break;
      case "digits":
        out[name] = (v as bigint).toString();
        break;
      case "time":
        out[name] = isoTime(v as bigint);
        break;
      default:
        out[name] = v;
    }
  }
  return out as ViewJson<F>;
}
