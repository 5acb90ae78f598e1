/**
 * GraphQL object types derived from the zod schemas of api/views/: the typed form of an answer
 * REST already documents (a proof, a fee flow, an audit, a desk statement, final and pending
 * totals), so GraphQL serves the same JSON field for field with no `JSON` scalar and no second
 * definition to keep in step.
 *
 * A schema maps field by field: strings (addresses, hashes, decimals, times, enums of names
 * GraphQL cannot spell, like `protocol-buyback`) are `String`, an enum made a GraphQL enum
 * (`zodEnum`) that enum, integers `Int`, booleans
 * `Boolean`, a literal its value's type, arrays lists, nullable or optional fields nullable;
 * refinements, transforms and defaults are read through to the type they hold. A number that
 * is not an integer is `Float` only where the caller allows it (a charter's percentages and
 * leverage, written with two decimals): never money, which is an exact decimal string. Each object becomes a type
 * named after where it first appears (`FeeFlowCollected`; `BurnProofPaidByBuyback` for an item
 * of `paidBy.buybacks`), or by the name given for a shared one (`Money`); an object met again
 * (its `.describe()`d and `.nullable()` copies included) is the same type. Anything else (a number that is not an
 * integer, a record, an unknown) throws when the schema is built, so a view cannot reach
 * GraphQL half-typed.
 */
import type { EnumRef, ObjectRef } from "@pothos/core";
import { z } from "zod";
import { deprecations } from "../views/view.js";
import { type GraphqlContext, type Types, builder } from "./builder.js";
import { valuesOf } from "./enums.js";

type Row = Record<string, unknown>;
type Ref = ObjectRef<Types, Row>;
/** A field's GraphQL type: a scalar's name, an object, or a list of either. */
type Scalar = "String" | "Int" | "Float" | "Boolean";
type Enum = EnumRef<Types, string>;
type Output = Scalar | Ref | Enum | [Scalar | Ref | Enum];
/** Whether numbers that are not integers may be `Float` (never for money). */
type Options = { floats?: boolean };
type Nullable = boolean | { list: boolean; items: boolean };

/** Object types made so far, by their schema's shape (shared by a schema's described and nullable copies). */
const made = new Map<unknown, Ref>();

/** GraphQL enums made from zod enums (`zodEnum`): a field of that enum is typed by it, any other enum is a `String`. */
const enums = new Map<z.ZodEnum<[string, ...string[]]>, Enum>();

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/**
 * The GraphQL enum of a zod enum: each value upper-cased, dashes as underscores (`in-flight` is
 * `IN_FLIGHT`), serving the value itself. Made before the objects that hold it, a field of that
 * enum is typed by it.
 */
export function zodEnum<V extends string>(name: string, schema: z.ZodEnum<[V, ...V[]]>, description?: string): EnumRef<Types, V> {
  const ref = builder.enumType(name, {
    description: description ?? schema.description,
    values: valuesOf(schema.options),
  });
  enums.set(schema as never, ref as never);
  return ref as EnumRef<Types, V>;
}

/** The shape function zod keeps for an object: the same for every copy `.describe()` or `.nullable()` makes. */
const shapeKey = (schema: z.AnyZodObject) => (schema._def as { shape: unknown }).shape;

/**
 * The object type of `schema`, named `name` unless it was made before. A shared object is named
 * by calling this for it first (`Money`), before any answer that holds it.
 */
export function zodObject<S extends z.AnyZodObject>(name: string, schema: S, description?: string, options: Options = {}): ObjectRef<Types, z.infer<S>> {
  const known = made.get(shapeKey(schema));
  if (known) return known as never;
  const ref = builder.objectRef<Row>(name);
  made.set(shapeKey(schema), ref);
  const fields = Object.entries(schema.shape as Record<string, z.ZodTypeAny>).map(([key, field]) => ({
    key,
    ...fieldType(`${name}${pascal(key)}`, field, options),
  }));
  ref.implement({
    description: description ?? schema.description,
    fields: (t) =>
      Object.fromEntries(
        fields.map(({ key, type, nullable, description, use }) => [
          key,
          t.field({
            type: type as never,
            nullable: nullable as never,
            description,
            deprecationReason: use && `Use ${use}`,
            resolve: (row: Row) => row[key] as never,
          }),
        ]),
      ),
  });
  return ref as never;
}

/** A field's type and nullability, its description the outermost one zod holds, and the name to use instead of a deprecated one. */
function fieldType(name: string, schema: z.ZodTypeAny, options: Options): { type: Output; nullable: Nullable; description?: string; use?: string } {
  const description = schema.description;
  const use = deprecations.get(schema);
  let inner = schema;
  let nullable = false;
  for (;;) {
    if (inner instanceof z.ZodNullable || inner instanceof z.ZodOptional) {
      nullable = true;
      inner = inner.unwrap();
    } else if (inner instanceof z.ZodEffects) inner = inner.innerType();
    // A default fills what a client left out: the answer always holds the field.
    else if (inner instanceof z.ZodDefault) inner = inner.removeDefault();
    else break;
  }
  if (inner instanceof z.ZodArray) {
    // An item is named in the singular: `…Buybacks` holds `…Buyback`s.
    const item = fieldType(name.replace(/s$/, ""), inner.element, options);
    if (Array.isArray(item.type)) throw new Error(`${name}: a list of lists has no GraphQL type here`);
    return { type: [item.type], nullable: { list: nullable, items: item.nullable === true }, description, use };
  }
  return { type: scalarOrObject(name, inner, options), nullable, description, use };
}

function scalarOrObject(name: string, schema: z.ZodTypeAny, options: Options): Scalar | Ref | Enum {
  if (schema instanceof z.ZodEnum) return enums.get(schema) ?? "String";
  if (schema instanceof z.ZodString) return "String";
  if (schema instanceof z.ZodBoolean) return "Boolean";
  if (schema instanceof z.ZodLiteral) {
    const value: unknown = schema.value;
    if (typeof value === "string") return "String";
    if (typeof value === "boolean") return "Boolean";
    if (Number.isInteger(value)) return "Int";
  }
  if (schema instanceof z.ZodNumber) {
    if (schema.isInt) return "Int";
    if (options.floats) return "Float";
    throw new Error(`${name}: a number that is not an integer (money is an exact decimal string)`);
  }
  if (schema instanceof z.ZodObject) return zodObject(name, schema, undefined, options);
  throw new Error(`${name}: ${schema.constructor.name} has no GraphQL type here`);
}

/** The JSON field of the old name, deprecated for its typed `…Report` beside it: one resolver for both. */
export function reportFields<R, T>(
  t: PothosSchemaTypes.ObjectFieldBuilder<Types, R>,
  name: string,
  type: ObjectRef<Types, T>,
  field: {
    description: string;
    nullable?: boolean;
    complexity?: number;
    resolve: (parent: R, args: object, ctx: GraphqlContext) => Promise<T | null> | T | null;
  },
) {
  const common = { nullable: field.nullable ?? false, complexity: field.complexity, resolve: field.resolve as never };
  return {
    [name]: t.field({ ...common, type: "JSON", description: field.description, deprecationReason: `Use ${name}Report: the same answer, typed` }),
    [`${name}Report`]: t.field({ ...common, type, description: field.description }),
  };
}
