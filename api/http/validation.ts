/**
 * Request validation with zod: readable messages naming the field (`assetPct: expected a
 * number, got string`), JSON bodies parsed exactly (see json.ts), query strings and path
 * parameters checked against the same schemas the OpenAPI document is generated from.
 */
import type { Context } from "hono";
import { type ZodError, type ZodErrorMap, type ZodTypeAny, type z, ZodIssueCode } from "zod";
import { ServiceError } from "../../core/errors.js";
import { JsonNumber, type JsonValue, JsonSyntaxError, parseJson } from "./json.js";

/** Largest JSON body any REST route accepts. */
export const MAX_BODY_BYTES = 16 * 1024;
/** Longest a client may take to send a body (then 408); `bodyDeadline` sets another per app. */
export const DEFAULT_BODY_TIMEOUT_MS = 30_000;

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

export class ValidationError extends ServiceError {
  override name = "ValidationError";
  constructor(message: string) {
    super(message, { code: "BAD_REQUEST" });
  }
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
  const raw = c.req.raw.body ? await readLimited(c.req.raw.body, MAX_BODY_BYTES, bodyTimeoutOf(c)) : new Uint8Array();
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

const BODY_TIMEOUT_KEY = "bodyTimeoutMs";

/** Middleware: bodies of this app's requests must arrive within `ms` (else 408). */
export const bodyDeadline = (ms: number) => async (c: Context, next: () => Promise<void>) => {
  (c.set as (key: string, value: unknown) => void)(BODY_TIMEOUT_KEY, ms);
  await next();
};

export function bodyTimeoutOf(c: Context): number {
  const ms = (c.get as (key: string) => unknown)(BODY_TIMEOUT_KEY);
  return typeof ms === "number" ? ms : DEFAULT_BODY_TIMEOUT_MS;
}

/**
 * Reads a stream to its end, failing as soon as it passes `limit` bytes, when the client
 * stops sending for good (an aborted upload: 400) or when the whole body has not arrived
 * within `timeoutMs` (a body shorter than its Content-Length, a slow client: 408). Both are
 * the client's faults (`BodyError.clientGone`), never the server's.
 */
export async function readLimited(stream: ReadableStream<Uint8Array>, limit: number, timeoutMs = DEFAULT_BODY_TIMEOUT_MS): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BodyError(408, `request body not received within ${Math.round(timeoutMs / 1000)} s`, true)), timeoutMs);
  });
  late.catch(() => {});
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await Promise.race([reader.read(), late]);
      } catch (error) {
        if (error instanceof BodyError) throw error;
        throw new BodyError(400, "request body aborted by the client", true);
      }
      const { done, value } = chunk;
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await discardRest(reader, late);
        throw new BodyError(413, `body larger than ${limit} bytes`);
      }
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

/** How much of an oversized body is read and discarded before the 413, so a client still sending reads the answer. */
const DISCARD_BYTES = 1024 * 1024;

/**
 * Reads and drops the rest of an oversized body, up to `DISCARD_BYTES` more and within the
 * body's deadline: a client that is still writing when the server answers and closes gets a
 * broken pipe instead of the 413 (servers linger the same way, e.g. nginx's lingering close).
 * Past that, the stream is cancelled and the connection closes after the answer.
 */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, late: Promise<never>): Promise<void> {
  let discarded = 0;
  try {
    while (discarded <= DISCARD_BYTES) {
      const { done, value } = await Promise.race([reader.read(), late]);
      if (done) return;
      discarded += value.byteLength;
    }
  } catch {
    // Aborted or late: the 413 stands; the connection closes after it.
  }
}

const BODY_ERROR_CODE = { 400: "BAD_REQUEST", 408: "REQUEST_TIMEOUT", 413: "PAYLOAD_TOO_LARGE", 415: "UNSUPPORTED_MEDIA_TYPE" } as const;

export class BodyError extends ServiceError {
  override name = "BodyError";
  constructor(
    readonly status: keyof typeof BODY_ERROR_CODE,
    message: string,
    /** The client stopped sending (aborted, or too slow): logged at info, never as the server's error. */
    readonly clientGone = false,
  ) {
    super(message, { code: BODY_ERROR_CODE[status], retryable: status === 408 });
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
