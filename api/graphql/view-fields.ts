/**
 * GraphQL's fields of a public view (api/views/view.ts): one per field, under the view's name
 * (or its `graphqlName`), with the view's description. Addresses are checksummed strings, an
 * amount is `<name>` and `<name>Raw` (`moneyFields`; an amount in the row's currency reads that
 * currency's decimals through the request's loader, as a symbol field its symbol), an integer
 * `Int` (or `BigInt` where the view says so), a time `DateTime`; an enum takes the GraphQL enum
 * the caller passes.
 */
import type { FieldRef } from "@pothos/core";
import type { Hex } from "viem";
import { formatDecimal } from "../../common/money.js";
import { type ReadKeys, type View, type ViewFields, amountDecimals } from "../views/view.js";
import { checksum } from "../read/format.js";
import type { GraphqlContext, Types } from "./builder.js";
import { moneyFields, optionalMoneyFields } from "./money.js";

type FieldBuilder<Row> = PothosSchemaTypes.ObjectFieldBuilder<Types, Row>;
type AnyFieldRef = FieldRef<Types, unknown, "Object">;
/** A GraphQL enum of the same values as the view's. */
type EnumRef = Parameters<FieldBuilder<unknown>["field"]>[0]["type"];

/** A row's currency (by the address it names, through the request's loader), or none. */
const currencyOf = (ctx: GraphqlContext, address: unknown) =>
  typeof address === "string" ? ctx.loaders.currency.load(address.toLowerCase() as Hex) : Promise.resolve(undefined);

type Enums<F extends ViewFields> = { [K in keyof F as F[K] extends { kind: "enum" } ? K : never]?: EnumRef };
type ViewRow<F extends ViewFields> = { [K in ReadKeys<F>]: unknown };

/** The fields of a view over the object's rows; or, with `rowOf`, over the row `rowOf` reads from the object (a group of its figures). */
export function viewFields<F extends ViewFields, Row extends ViewRow<F>>(t: FieldBuilder<Row>, view: View<F>, enums: Enums<F>): Record<string, AnyFieldRef>;
export function viewFields<F extends ViewFields, Parent>(
  t: FieldBuilder<Parent>,
  view: View<F>,
  enums: Enums<F>,
  rowOf: (parent: Parent) => ViewRow<F>,
): Record<string, AnyFieldRef>;
export function viewFields<F extends ViewFields, Row>(
  t: FieldBuilder<Row>,
  view: View<F>,
  enums: Enums<F>,
  rowOf: (parent: Row) => unknown = (row) => row,
): Record<string, AnyFieldRef> {
  const out: Record<string, AnyFieldRef> = {};
  const get = (row: Row, name: string) => (rowOf(row) as Record<string, unknown>)[name];
  for (const [name, f] of Object.entries(view.fields)) {
    const key = f.graphqlName ?? name;
    const description = f.description;
    const nullable = f.nullable === true;
    switch (f.kind) {
      case "text":
      case "hash":
        out[key] = t.string({ description, nullable, resolve: (r) => get(r, name) as string });
        break;
      case "bool":
        out[key] = t.boolean({ description, nullable, resolve: (r) => get(r, name) as boolean });
        break;
      case "address":
        out[key] = t.string({
          description: `${description} (checksummed)`,
          nullable,
          resolve: (r) => (get(r, name) === null ? null : checksum(get(r, name) as string)) as never,
        });
        break;
      case "enum": {
        // An enum the caller gives no GraphQL enum for is a String.
        const type = (enums as Record<string, EnumRef>)[name];
        out[key] = type
          ? t.field({ type, description, nullable, resolve: (r) => get(r, name) as never })
          : t.string({ description, nullable, resolve: (r) => get(r, name) as string });
        break;
      }
      case "amount":
        if ("decimals" in f) {
          const amount = (r: Row) => get(r, name) as bigint;
          Object.assign(out, nullable ? optionalMoneyFields(t, key, f.decimals, amount, description) : moneyFields(t, key, f.decimals, amount, description));
          break;
        }
        out[key] = t.string({
          description: `${description} (exact decimal, whole units of ${f.currency})`,
          nullable,
          resolve: async (r, _a, ctx) =>
            (get(r, name) === null ? null : formatDecimal(get(r, name) as bigint, amountDecimals(f, await currencyOf(ctx, get(r, f.currency))))) as never,
        });
        out[`${key}Raw`] = t.field({
          type: "BigInt",
          description: `${description} (base units of ${f.currency})`,
          nullable,
          resolve: (r) => get(r, name) as bigint,
        });
        break;
      case "symbol":
        out[key] = t.string({
          description: `${description}: USDC, WETH, a launched token's symbol, or else its address`,
          resolve: async (r, _a, ctx) => (await currencyOf(ctx, get(r, f.currency)))!.symbol,
        });
        break;
      case "int":
        out[key] =
          f.graphql === "BigInt"
            ? t.field({
                type: "BigInt",
                description,
                nullable,
                resolve: (r) => (get(r, name) === null ? null : BigInt(get(r, name) as bigint | number)) as never,
              })
            : t.int({ description, nullable, resolve: (r) => (get(r, name) === null ? null : Number(get(r, name))) as never });
        break;
      case "digits":
        out[key] = t.field({ type: "BigInt", description, nullable, resolve: (r) => get(r, name) as bigint });
        break;
      case "time":
        out[key] = t.field({
          type: "DateTime",
          description,
          nullable,
          resolve: (r) => (get(r, name) === null ? null : BigInt(get(r, name) as bigint)) as never,
        });
        break;
    }
  }
  return out;
}
