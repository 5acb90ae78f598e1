/**
 * A strict JSON parser (RFC 8259) that keeps every number's source text, so a percent such as
 * `28.505` or `28.499999999999999999` is seen exactly as written, not as the nearest double.
 * It also rejects duplicate keys and nesting deeper than `MAX_JSON_DEPTH`.
 *
 * Kept rather than `lossless-json` (4.3, which does keep number text): that parser accepts a
 * key repeated with an equal value (`{"a":1,"a":1}`), has no nesting limit (recursion over a
 * 16 KiB body of brackets), and words its errors differently from the `invalid JSON at
 * position N: …` answers clients and tests rely on — each a loosening or a change of the API.
 */
import { ServiceError } from "../../core/errors.js";

/** A JSON number as written in the request. */
export class JsonNumber {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | { [key: string]: JsonValue };

export class JsonSyntaxError extends ServiceError {
  override name = "JsonSyntaxError";
  constructor(message: string) {
    super(message, { code: "BAD_REQUEST" });
  }
}

/** Deeper nesting than any request of this API needs. */
export const MAX_JSON_DEPTH = 32;

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

export function parseJson(text: string): JsonValue {
  let i = 0;

  const fail = (what: string): never => {
    throw new JsonSyntaxError(`invalid JSON at position ${i}: ${what}`);
  };
  const skipSpace = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const unexpected = (): never => fail(i >= text.length ? "unexpected end of input" : `unexpected character ${JSON.stringify(text[i])}`);

  function parseString(): string {
    i++; // opening quote
    let out = "";
    for (;;) {
      if (i >= text.length) fail("unterminated string");
      const ch = text[i]!;
      if (ch === '"') {
        i++;
        return out;
      }
      if (ch < " ") fail("control character in string");
      if (ch !== "\\") {
        out += ch;
        i++;
        continue;
      }
      const esc = text[i + 1];
      if (esc === "u") {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail("invalid unicode escape");
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 6;
      } else if (esc !== undefined && ESCAPES[esc] !== undefined) {
        out += ESCAPES[esc];
        i += 2;
      } else {
        fail("invalid escape");
      }
    }
  }

  function parseValue(depth: number): JsonValue {
    if (depth > MAX_JSON_DEPTH) fail(`nesting deeper than ${MAX_JSON_DEPTH}`);
    skipSpace();
    const ch = text[i];
    if (ch === "{") {
      i++;
      const obj: { [key: string]: JsonValue } = {};
      skipSpace();
      if (text[i] === "}") {
        i++;
        return obj;
      }
      for (;;) {
        skipSpace();
        if (text[i] !== '"') unexpected();
        const key = parseString();
        if (Object.hasOwn(obj, key)) fail(`duplicate key ${JSON.stringify(key)}`);
        skipSpace();
        if (text[i] !== ":") unexpected();
        i++;
        // defineProperty: a key named "__proto__" stays an own property, never a prototype.
        Object.defineProperty(obj, key, { value: parseValue(depth + 1), enumerable: true, writable: true, configurable: true });
        skipSpace();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") {
          i++;
          return obj;
        }
        unexpected();
      }
    }
    if (ch === "[") {
      i++;
      const arr: JsonValue[] = [];
      skipSpace();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        skipSpace();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") {
          i++;
          return arr;
        }
        unexpected();
      }
    }
    if (ch === '"') return parseString();
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return value;
      }
    }
    NUMBER_RE.lastIndex = i;
    const match = NUMBER_RE.exec(text);
    if (match) {
      i += match[0].length;
      return new JsonNumber(match[0]);
    }
    return unexpected();
  }

  const value = parseValue(0);
  skipSpace();
  if (i < text.length) unexpected();
  return value;
}

/** An exact decimal: `digits × 10^-scale` (scale may be negative), sign apart. */
export type ExactDecimal = { negative: boolean; digits: bigint; scale: number };

/** The exact value of a JSON number's text (exponent applied without rounding). */
export function exactDecimal(text: string): ExactDecimal {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new RangeError(`not a JSON number: ${text}`);
  const fraction = match[3] ?? "";
  const exponent = Number(match[4] ?? 0);
  return { negative: match[1] === "-", digits: BigInt(match[2]! + fraction), scale: fraction.length - exponent };
}

/**
 * The value of `text` in units of 10^-places (e.g. percent → bps with places = 2), or
 * undefined when it is not a whole number of those units.
 */
export function toScaledInteger(text: string, places: number): bigint | undefined {
  const { negative, digits, scale } = exactDecimal(text);
  const shift = places - scale;
  // An exponent this large cannot be a sensible amount; guard before 10n ** huge.
  if (digits !== 0n && shift > 400) return undefined;
  let value: bigint;
  if (shift >= 0 || digits === 0n) value = digits * 10n ** BigInt(Math.max(shift, 0));
  else {
    // More fractional places than digits: a non-zero value cannot be a whole number of units.
    if (-shift > digits.toString().length) return undefined;
    const divisor = 10n ** BigInt(-shift);
    if (digits % divisor !== 0n) return undefined;
    value = digits / divisor;
  }
  return negative ? -value : value;
}
