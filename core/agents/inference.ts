/**
 * The charter compiler backed by an OpenAI-compatible chat endpoint (`INFERENCE_URL`): the
 * conversation goes out with a system prompt describing the charter; the model answers one
 * JSON object `{ charter, questions }`, validated with the same schema as a submitted
 * charter. Anything else is an `InferenceError` (HTTP 502 at the edge).
 */
import { canonicalJson, type Charter, charterSchema, MARKET_NAMES, STRATEGIES } from "./charter.js";
import type { CharterCompiler, ChatMessage, CompiledCharter } from "./compiler.js";
import { ServiceError } from "../errors.js";

export const INFERENCE_TIMEOUT_MS = 30_000;
export const DEFAULT_INFERENCE_MODEL = "gpt-4o-mini";
/** Largest answer read from the endpoint. */
const MAX_ANSWER_BYTES = 256 * 1024;

/** The charter compiler's model failed or answered nonsense (502). */
export class InferenceError extends ServiceError {
  override name = "InferenceError";
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: "UPSTREAM_FAILED", retryable: true, cause: options.cause });
  }
}

export type InferenceOptions = {
  /** Base URL (e.g. `https://api.example.com/v1`) or the full `/chat/completions` URL. */
  url: string;
  model?: string;
  apiKey?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
};

export function completionsUrl(url: string): string {
  const trimmed = url.replace(/\/+$/, "");
  return trimmed.endsWith("/chat/completions") ? trimmed : `${trimmed}/chat/completions`;
}

function systemPrompt(defaults: Charter): string {
  return [
    "You compile a token agent's charter from a conversation with its creator.",
    'Answer with one JSON object and nothing else: {"charter": <charter>, "questions": [<string>, ...]}.',
    "The charter has exactly this shape (all percentages are numbers with at most two decimals):",
    `{"version":1,"engine":{"strategy":${STRATEGIES.map((s) => `"${s}"`).join("|")}},"persona":{"name":<1-48 chars>,"voice":<0-280 chars>},`,
    `"mandate":{"split":{"assetPct":n,"perpPct":n,"creatorPct":n},"desk":{"market":${MARKET_NAMES.map((m) => `"${m}"`).join("|")},"maxLeverage":1-50,"maxDrawdownPct":0-100,"takeProfitPct":0-1000},"buybackMinUsdc":"<decimal string>"}}`,
    "assetPct + perpPct + creatorPct must equal 95 (the protocol's 5% is fixed).",
    "Use these defaults for anything the creator did not say, and ask about it in questions:",
    canonicalJson(defaults),
  ].join("\n");
}

/** Reads the model's JSON answer (tolerating a fenced code block around it). */
export function parseAnswer(content: string, defaults: Charter): CompiledCharter {
  const text = content
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new InferenceError("inference returned no JSON charter");
  }
  const a = answer as { charter?: unknown; questions?: unknown };
  if (!a || typeof a !== "object" || !a.charter || typeof a.charter !== "object") {
    throw new InferenceError("inference returned no charter object");
  }
  const parsed = charterSchema.safeParse(a.charter);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InferenceError(`inference returned an invalid charter: ${issue.path.join(".")}: ${issue.message}`);
  }
  const questions = Array.isArray(a.questions)
    ? a.questions
        .filter((q): q is string => typeof q === "string")
        .map((q) => q.slice(0, 500))
        .slice(0, 20)
    : [];
  const understood = Object.entries(flatten(parsed.data))
    .filter(([k, v]) => flatten(defaults)[k] !== v)
    .map(([k]) => k);
  return { charter: parsed.data, questions, understood };
}

function flatten(value: unknown, prefix = ""): Record<string, unknown> {
  if (value === null || typeof value !== "object") return { [prefix]: value };
  return Object.assign({}, ...Object.entries(value as Record<string, unknown>).map(([k, v]) => flatten(v, prefix ? `${prefix}.${k}` : k)));
}

export function createInferenceCompiler(options: InferenceOptions): CharterCompiler {
  const url = completionsUrl(options.url);
  const doFetch = options.fetch ?? fetch;
  return {
    source: "inference",
    async compile(messages: ChatMessage[], defaults: Charter) {
      const body = {
        model: options.model ?? DEFAULT_INFERENCE_MODEL,
        temperature: 0,
        response_format: { type: "json_object" },
        messages: [{ role: "system", content: systemPrompt(defaults) }, ...messages.filter((m) => m.role !== "system")],
      };
      let response: Response;
      try {
        response = await doFetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(options.timeoutMs ?? INFERENCE_TIMEOUT_MS),
        });
      } catch (error) {
        const timedOut = (error as Error)?.name === "TimeoutError";
        throw new InferenceError(timedOut ? "inference endpoint timed out" : "inference endpoint unreachable");
      }
      const raw = await response.text().catch(() => "");
      if (!response.ok) throw new InferenceError(`inference endpoint answered HTTP ${response.status}`);
      if (raw.length > MAX_ANSWER_BYTES) throw new InferenceError("inference answer too large");
      let content: unknown;
      try {
        content = (JSON.parse(raw) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
      } catch {
        content = undefined;
      }
      if (typeof content !== "string") throw new InferenceError("inference endpoint answered without a message");
      return parseAnswer(content, defaults);
    },
  };
}
