/**
 * Holds indexed activity rows to their kinds' schemas (`ACTIVITY_DATA`, common/activity.ts):
 * every fact the indexer writes is declared there (so it is scaled and documented as the
 * schema says), and the served facts parse with it.
 */
import { z } from "zod";
import { ACTIVITY_DATA, type ActivityKind, formatActivityData, unwrap } from "../../common/activity.js";

/** The paths of `value` no part of `schema` declares. */
function undeclared(value: unknown, schema: z.ZodTypeAny, path: string): string[] {
  const inner = unwrap(schema);
  if (Array.isArray(value)) return inner instanceof z.ZodArray ? value.flatMap((v, i) => undeclared(v, inner.element, `${path}[${i}]`)) : [path];
  if (value === null || typeof value !== "object") return [];
  if (!(inner instanceof z.ZodObject)) return [path];
  const shape = inner.shape as Record<string, z.ZodTypeAny>;
  return Object.entries(value).flatMap(([key, v]) => (key in shape ? undeclared(v, shape[key]!, `${path}.${key}`) : [`${path}.${key}`]));
}

/** Each row's problems with its kind's schema, as `kind: problem` lines (none when every row holds to it). */
export function activitySchemaProblems(rows: readonly { kind: string; data: unknown }[], usdc: string): string[] {
  return rows.flatMap((row) => {
    const schema = ACTIVITY_DATA[row.kind as ActivityKind];
    if (!schema) return [`${row.kind}: no such kind`];
    const served = formatActivityData(row.kind as ActivityKind, row.data, usdc);
    const parsed = schema.safeParse(served);
    return [
      ...undeclared(row.data, schema, "data").map((path) => `${row.kind}: ${path} is not declared`),
      ...(parsed.success ? [] : [`${row.kind}: ${parsed.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`]),
    ];
  });
}
