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
import { type View, type ViewFields, amountDecimals } from "../views/view.js";
import { checksum } from "../read/format.js";
import type { GraphqlContext, Types } from "./builder.js";
import { moneyFields } from "./money.js";

type FieldBuilder<Row> = PothosSchemaTypes.ObjectFieldBuilder<Types, Row>;
type AnyFieldRef = FieldRef<Types, unknown, "Object">;
/** A GraphQL enum of the same values as the view's. */
type EnumRef = Parameters<FieldBuilder<unknown>["field"]>[0]["type"];

/** A row's currency (by the address it names, through the request's loader), or none. */
const currencyOf = (ctx: GraphqlContext, address: unknown) =>
  typeof address === "string" ? ctx.loaders.currency.load(address.toLowerCase() as Hex) : Promise.resolve(undefined);

export function viewFields<F extends ViewFields, Row extends { [K in keyof F]: unknown }>(
  t: FieldBuilder<Row>,
  view: View<F>,
  enums: { [K in keyof F as F[K] extends { kind: "enum" } ? K : never]: EnumRef },
): Record<string, AnyFieldRef> {
  const out: Record<string, AnyFieldRef> = {};
  const get = (row: Row, name: string) => (row as Record<string, unknown>)[name];
  for (const [name, f] of Object.entries(view.fields)) {
    const key = f.graphqlName ?? name;
    const description = f.description;
    switch (f.kind) {
      case "text":
      case "hash":
        out[key] = t.string({ description, resolve: (r) => get(r, name) as string });
        break;
      case "address":
        out[key] = t.string({ description: `${description} (checksummed)`, resolve: (r) => checksum(get(r, name) as string) });
        break;
      case "enum":
        out[key] = t.field({ type: (enums as Record<string, EnumRef>)[name]!, description, resolve: (r) => get(r, name) as never });
        break;
      case "amount":
        if ("decimals" in f) {
          Object.assign(
            out,
            moneyFields(t, key, f.decimals, (r) => get(r, name) as bigint, description),
          );
          break;
        }
        out[key] = t.string({
          description: `${description} (exact decimal, whole units of ${f.currency})`,
          resolve: async (r, _a, ctx) => formatDecimal(get(r, name) as bigint, amountDecimals(f, await currencyOf(ctx, get(r, f.currency)))),
        });
        out[`${key}Raw`] = t.field({ type: "BigInt", description: `${description} (base units of ${f.currency})`, resolve: (r) => get(r, name) as bigint });
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
            ? t.field({ type: "BigInt", description, resolve: (r) => BigInt(get(r, name) as bigint | number) })
            : t.int({ description, resolve: (r) => Number(get(r, name)) });
        break;
      case "time":
        out[key] = t.field({ type: "DateTime", description, resolve: (r) => BigInt(get(r, name) as bigint) });
        break;
    }
  }
  return out;
}
