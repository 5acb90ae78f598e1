/**
 * Converts the zod schemas of the REST shim into OpenAPI 3.0 schema objects, so the document
 * at /api/v1/openapi.json is generated from the very schemas that validate requests. Covers
 * the zod types this API uses; a schema whose runtime form differs from its JSON form (an
 * exact JSON number parsed into bps) carries its documented form through `documented()`.
 */
import {
  type ZodTypeAny,
  ZodArray,
  ZodBoolean,
  ZodDefault,
  ZodEffects,
  ZodEnum,
  ZodLiteral,
  ZodNull,
  ZodNullable,
  ZodNumber,
  ZodObject,
  ZodOptional,
  ZodRecord,
  ZodString,
  ZodUnion,
  ZodUnknown,
  ZodAny,
} from "zod";

export type SchemaObject = {
  type?: "string" | "number" | "integer" | "boolean" | "object" | "array";
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  multipleOf?: number;
  enum?: unknown[];
  nullable?: boolean;
  default?: unknown;
  description?: string;
  example?: unknown;
  items?: SchemaObject;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  additionalProperties?: boolean | SchemaObject;
  oneOf?: SchemaObject[];
};

/**
 * Documents `schema` as `json` (used where the accepted JSON differs from zod's view of it).
 * Kept in `_def`, which zod copies into the clones `.describe()` and friends make.
 */
export function documented<T extends ZodTypeAny>(schema: T, json: SchemaObject): T {
  (schema._def as { openapi?: SchemaObject }).openapi = json;
  return schema;
}

/** `direction`: "input" documents what a request may send (defaults optional), "output" what a response holds. */
export function toSchemaObject(schema: ZodTypeAny, direction: "input" | "output" = "input"): SchemaObject {
  const override = (schema._def as { openapi?: SchemaObject }).openapi;
  const description = schema.description;
  const out = override ? { ...override } : convert(schema, direction);
  // The outermost description is the most specific (a field's, over its type's).
  if (description) out.description = description;
  return out;
}

function convert(schema: ZodTypeAny, direction: "input" | "output"): SchemaObject {
  if (schema instanceof ZodEffects) return toSchemaObject(schema.innerType(), direction);
  if (schema instanceof ZodOptional) return toSchemaObject(schema.unwrap(), direction);
  if (schema instanceof ZodDefault) return { ...toSchemaObject(schema._def.innerType, direction), default: schema._def.defaultValue() };
  if (schema instanceof ZodNullable) return { ...toSchemaObject(schema.unwrap(), direction), nullable: true };
  if (schema instanceof ZodString) {
    const out: SchemaObject = { type: "string" };
    for (const check of schema._def.checks) {
      if (check.kind === "min") out.minLength = check.value;
      else if (check.kind === "max") out.maxLength = check.value;
      else if (check.kind === "regex") out.pattern = check.regex.source;
      else if (check.kind === "datetime") out.format = "date-time";
      else if (check.kind === "url") out.format = "uri";
    }
    return out;
  }
  if (schema instanceof ZodNumber) {
    const out: SchemaObject = { type: schema.isInt ? "integer" : "number" };
    for (const check of schema._def.checks) {
      if (check.kind === "min") out.minimum = check.value;
      else if (check.kind === "max") out.maximum = check.value;
      else if (check.kind === "multipleOf") out.multipleOf = check.value;
    }
    return out;
  }
  if (schema instanceof ZodBoolean) return { type: "boolean" };
  if (schema instanceof ZodEnum) return { type: "string", enum: [...schema.options] };
  if (schema instanceof ZodLiteral) {
    const value = schema.value;
    return { type: typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : "string", enum: [value] };
  }
  if (schema instanceof ZodNull) return { nullable: true, enum: [null] };
  if (schema instanceof ZodArray) return { type: "array", items: toSchemaObject(schema.element, direction) };
  if (schema instanceof ZodRecord) return { type: "object", additionalProperties: toSchemaObject(schema.valueSchema, direction) };
  if (schema instanceof ZodUnion) return { oneOf: (schema.options as ZodTypeAny[]).map((o) => toSchemaObject(o, direction)) };
  if (schema instanceof ZodObject) {
    const properties: Record<string, SchemaObject> = {};
    const required: string[] = [];
    for (const [key, value] of Object.entries(schema.shape as Record<string, ZodTypeAny>)) {
      properties[key] = toSchemaObject(value, direction);
      // A defaulted field may be left out of a request but is always present in a response.
      const optional = direction === "input" ? value.isOptional() : value.isOptional() && !(value instanceof ZodDefault);
      if (!optional) required.push(key);
    }
    const out: SchemaObject = { type: "object", properties };
    if (required.length) out.required = required;
    if (schema._def.unknownKeys === "strict") out.additionalProperties = false;
    return out;
  }
  if (schema instanceof ZodUnknown || schema instanceof ZodAny) return {};
  throw new TypeError(`no OpenAPI conversion for ${schema.constructor.name}`);
}
