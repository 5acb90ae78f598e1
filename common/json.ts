/**
 * JSON with bigints. JSON has no bigint and `JSON.stringify` throws on one; money is bigint in
 * base units everywhere inside, so wherever a value leaves as JSON (a jsonb column, a log
 * line, the CLI's `--json`) its bigints are written as decimal strings, exact to the unit.
 */

/** A `JSON.stringify` replacer: every bigint as its decimal string, everything else as it is. */
export function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? value.toString() : value;
}

/** `JSON.stringify` that writes bigints as decimal strings. */
export function stringifyJson(value: unknown, space?: number): string {
  return JSON.stringify(value, bigintReplacer, space);
}

/** A plain JSON copy of `value` (for a jsonb column): bigints as decimal strings, dates as ISO text. */
export function toJsonValue<T = unknown>(value: unknown): T {
  return JSON.parse(JSON.stringify(value, bigintReplacer)) as T;
}
