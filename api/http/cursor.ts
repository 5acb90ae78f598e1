/**
 * Opaque pagination cursors: base64url of `[order, ...keys]`, the sort key of the last item
 * of a page. A cursor is only valid for the ordering that made it; anything else (bad base64,
 * bad JSON, wrong ordering, wrong key types) is an "invalid cursor" (400).
 */
import { ValidationError } from "./validation.js";

/** Key types: `int` (bigint), `text` (printable ASCII), `hex` (lowercase 0x hex). */
export type CursorKeyType = "int" | "text" | "hex";
type KeyValue<T extends CursorKeyType> = T extends "int" ? bigint : string;
type Keys<T extends readonly CursorKeyType[]> = { [I in keyof T]: KeyValue<T[I]> };

const MAX_CURSOR_LENGTH = 512;
const CHECKS: Record<CursorKeyType, RegExp> = {
  int: /^-?\d{1,78}$/,
  text: /^[\x20-\x7e]{0,200}$/,
  hex: /^0x[0-9a-f]{0,128}$/,
};

export function encodeCursor(order: string, keys: readonly (bigint | string | number)[]): string {
  return Buffer.from(JSON.stringify([order, ...keys.map(String)])).toString("base64url");
}

export function decodeCursor<const T extends readonly CursorKeyType[]>(cursor: string, order: string, types: T): Keys<T> {
  const invalid = () => new ValidationError("invalid cursor");
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== types.length + 1 || parsed[0] !== order) throw invalid();
  return types.map((type, i) => {
    const value = parsed[i + 1];
    if (typeof value !== "string" || !CHECKS[type].test(value)) throw invalid();
    return type === "int" ? BigInt(value) : value;
  }) as Keys<T>;
}
