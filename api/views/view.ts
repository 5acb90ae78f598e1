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
 * a string of digits) beside it; block numbers and log indexes are numbers; times are
 * ISO-8601 in UTC with milliseconds.
 */
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { z } from "zod";
import { formatDecimal } from "../../common/money.js";
import { checksum, isoTime } from "../read/format.js";

type Described = {
  description: string;
  /** GraphQL's name for the field, where it differs (a link's address, when the link's name is its object). */
  graphqlName?: string;
};

/** What a field holds. */
export type ViewField =
  | (Described & { kind: "text" | "hash" | "address" })
  | (Described & { kind: "enum"; values: readonly [string, ...string[]] })
  /** An amount in base units: `<name>` and `<name>Raw`. */
  | (Described & { kind: "amount"; decimals: number })
  /** An integer: a number in JSON; in GraphQL `Int`, or `BigInt` for a block number. */
  | (Described & { kind: "int"; graphql?: "Int" | "BigInt" })
  /** Unix seconds. */
  | (Described & { kind: "time" });

export type ViewFields = Record<string, ViewField>;

/** A view over a table's rows: its fields in order, each read from the row's property of the same name. */
export type View<F extends ViewFields = ViewFields> = {
  name: string;
  description: string;
  fields: F;
  /** The table column of each field (the property of the same name in a row). */
  columns: { [K in keyof F]: AnyPgColumn };
};

export function defineView<F extends ViewFields>(view: View<F>): View<F> {
  return view;
}

// ------------------------------------------------------------------ the schema of an item

/** The JSON convention's strings, each with its generic description (a field's own replaces it). */
export const json = {
  checksummed: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .describe("EIP-55 checksummed address"),
  hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
  decimal: z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .describe("Exact decimal string in whole units"),
  digits: z
    .string()
    .regex(/^-?\d+$/)
    .describe("Base units"),
  iso: z.string().datetime().describe("ISO-8601 timestamp"),
};

/** An amount as an exact decimal, described as `what` it is. */
export const decimalOf = (what: string) => json.decimal.describe(`${what}: exact decimal string in whole units`);
/** A USDC amount as an exact decimal. */
export const usdcOf = (what: string) => decimalOf(`${what} (USDC)`);

type ZodOf<F extends ViewField> = F extends { kind: "enum"; values: infer V extends readonly [string, ...string[]] }
  ? z.ZodEnum<[...V]>
  : F extends { kind: "int" }
    ? z.ZodNumber
    : z.ZodString;
type AmountKeys<F extends ViewFields> = { [K in keyof F & string]: F[K] extends { kind: "amount" } ? K : never }[keyof F & string];

/** The zod shape of a view's item: one key per field, and `<name>Raw` beside each amount. */
export type ViewShape<F extends ViewFields> = { [K in keyof F & string]: ZodOf<F[K]> } & { [K in AmountKeys<F> as `${K}Raw`]: z.ZodString };
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
        shape[`${name}Raw`] = json.digits.describe(`${f.description}: integer in base units (${f.decimals} decimals)`);
        break;
      case "int":
        shape[name] = z.number().int().describe(f.description);
        break;
      case "time":
        shape[name] = json.iso.describe(`${f.description} (ISO-8601, UTC)`);
        break;
    }
  }
  return z.object(shape).strict() as never;
}

// ------------------------------------------------------------------ one row as JSON

/** The names of a view's item, in order (`<name>Raw` right after each amount). */
export function viewKeys(view: View): string[] {
  return Object.entries(view.fields).flatMap(([name, f]) => (f.kind === "amount" ? [name, `${name}Raw`] : [name]));
}

/** A row (the table's select) as the view's JSON. */
export function viewJson<F extends ViewFields>(view: View<F>, row: { [K in keyof F]: unknown }): ViewJson<F> {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(view.fields)) {
    const v = (row as Record<string, unknown>)[name];
    switch (f.kind) {
      case "address":
        out[name] = checksum(v as string);
        break;
      case "amount":
        out[name] = formatDecimal(v as bigint, f.decimals);
        out[`${name}Raw`] = (v as bigint).toString();
        break;
      case "int":
        out[name] = Number(v);
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
