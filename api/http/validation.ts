/**
 * Request validation with zod: readable messages naming the field (`assetPct: expected a
 * number, got string`), JSON bodies parsed exactly (see json.ts), query strings and path
 * parameters checked against the same schemas the OpenAPI document is generated from.
 */
import type { Context } from "hono";
import { type ZodError, type ZodErrorMap, type ZodTypeAny, type z, ZodIssueCode } from "zod";
import { JsonNumber, type JsonValue, JsonSyntaxError, parseJson } from "./json.js";

/** Largest JSON body any REST route accepts. */
export const MAX_BODY_BYTES = 16 * 1024;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (value instanceof JsonNumber) return "number";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

const errorMap: ZodErrorMap = (issue, ctx) => {
  if (issue.code === ZodIssueCode.invalid_type) {
    if (issue.received === "undefined") return { message: "is required" };
    return { message: `expected ${issue.expected === "object" ? "an object" : `a ${issue.expected}`}, got ${describe(ctx.data)}` };
  }
  if (issue.code === ZodIssueCode.unrecognized_keys) {
    return { message: `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}` };
  }
  if (issue.code === ZodIssueCode.invalid_enum_value) {
    return { message: `expected one of ${issue.options.map(String).join(", ")}, got ${JSON.stringify(String(ctx.data))}` };
  }
  return { message: ctx.defaultError };
};

function formatPath(path: (string | number)[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `.${p}`)).join("");
}

/** One line for the `{ error }` body: every issue, each prefixed by its field. */
export function formatZodError(error: ZodError, what = "body"): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      if (issue.path.length) return `${formatPath(issue.path)}: ${issue.message}`;
      // Root-level refinements (an invalid split) read on their own; type errors name the input.
      return issue.code === ZodIssueCode.custom ? issue.message : `${what}: ${issue.message}`;
    })
    .join("; ");
}

export class ValidationError extends Error {
  override name = "ValidationError";
}

/** Parses with readable messages; throws ValidationError (→ 400) on failure. */
export function validate<S extends ZodTypeAny>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input, { errorMap });
  if (!result.success) throw new ValidationError(formatZodError(result.error, what));
  return result.data;
}

/** The request's JSON body, exactly parsed, size-limited and content-typed; throws ValidationError-like errors. */
export async function readJsonBody(c: Context): Promise<JsonValue> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) throw new BodyError(415, "expected Content-Type: application/json");
  const declared = c.req.header("content-length");
  if (declared !== undefined && Number(declared) > MAX_BODY_BYTES) throw new BodyError(413, `body larger than ${MAX_BODY_BYTES} bytes`);
  const raw = c.req.raw.body ? await readLimited(c.req.raw.body, MAX_BODY_BYTES) : new Uint8Array();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    throw new BodyError(400, "body is not valid UTF-8");
  }
  if (!text.trim()) throw new BodyError(400, "body is empty: expected a JSON object");
  try {
    return parseJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw new BodyError(400, error.message);
    throw error;
  }
}

/** Reads a stream to its end, failing as soon as it passes `limit` bytes. */
async function readLimited(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyError(413, `body larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

export class BodyError extends Error {
  override name = "BodyError";
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
  }
}

/** Query parameters as a plain object; a parameter given twice is an error, not a silent pick. */
export function queryObject(c: Context): Record<string, string> {
  const all = c.req.queries();
  const out: Record<string, string> = {};
  for (const [key, values] of Object.entries(all)) {
    if (values.length > 1) throw new ValidationError(`query parameter ${key} given ${values.length} times`);
    out[key] = values[0]!;
  }
  return out;
}
