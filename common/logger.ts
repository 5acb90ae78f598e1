/**
 * Logs (pino): one logger per process, children per component. Human-readable lines
 * (pino-pretty) on a terminal, one JSON object per line when piped to a file or a collector;
 * `LOG_FORMAT` (pretty, json or auto) overrides the choice.
 */
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger };
export type LogFormat = "pretty" | "json" | "auto";

/** `auto` is pretty when the stream is a terminal, JSON otherwise. */
export function resolveLogFormat(format: LogFormat = "auto", stream: { isTTY?: boolean } = process.stdout): "pretty" | "json" {
  if (format !== "auto") return format;
  return stream.isTTY ? "pretty" : "json";
}

/** Every line's time, in both formats: ISO-8601 in UTC, to the millisecond. */
export const ISO_TIME = "UTC:yyyy-mm-dd'T'HH:MM:ss.l'Z'";
const PRETTY_OPTIONS = { translateTime: ISO_TIME, ignore: "pid,hostname,service", singleLine: true };

export type LoggerExtras = {
  /** Fields added to every line, computed from the line's own fields (pino's `mixin`). */
  mixin?: (fields: Record<string, unknown>) => Record<string, unknown>;
};

/** A process's logger: every line carries `service` (the process's name) and an ISO time. */
export function createLogger(name: string, level: string = "info", format: LogFormat = "auto", extras: LoggerExtras = {}): Logger {
  const options = {
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    ...(extras.mixin ? { mixin: (fields: object) => extras.mixin!(fields as Record<string, unknown>) } : {}),
  };
  if (resolveLogFormat(format) === "json") return pino(options);
  // Synchronous, in this thread: no line is lost when the process exits right after it. The
  // process's name stays on each line (several processes share one terminal under `npm start`).
  const stream = pretty({ ...PRETTY_OPTIONS, sync: true, colorize: Boolean(process.stdout.isTTY) });
  return pino(options, stream);
}

const PINO_LEVELS: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 };

/**
 * Warnings a dependency prints on stderr that are known and harmless, relayed as one info line
 * that says so. pg warns when a client gets a query while another is running on it; ponder
 * 0.16.10 does that on purpose inside its own transactions (its per-table checkpoint updates
 * when it commits a block, its reorg triggers, its sync-store writes: `Promise.all` over one
 * transaction's connection, traced with a query log on `npm start` and the API suites). Our own
 * code no longer does (the rate-limit pool applied its session settings that way).
 */
const KNOWN_WARNINGS: { match: RegExp; note: string | null }[] = [
  {
    match: /DeprecationWarning: Calling client\.query\(\) when the client is already executing a query/,
    note: "pg's deprecation notice for queries queued on a busy connection: ponder 0.16.10 queues several on its own transactions' connections (upstream, harmless before pg 9)",
  },
  { match: /^\(Use `node --trace-deprecation \.\.\.` to show where the warning was created\)$/, note: null },
];

/**
 * Relays a child process's output as this process's lines, in this process's format, each
 * named by the process that wrote it: a JSON line keeps its fields, its time becomes ISO-8601
 * (ponder writes epoch milliseconds) and its `service` defaults to `source` (ponder's own
 * lines carry none; the API's lines inside ponder say `api`); any other line (a Node warning on
 * stderr) becomes a warning of `source` with the line as its message.
 */
export function lineRelay(
  source: string,
  format: "pretty" | "json",
  write: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): (line: string) => void {
  const prettify = format === "pretty" ? pretty.prettyFactory({ ...PRETTY_OPTIONS, colorize: Boolean(process.stdout.isTTY) }) : undefined;
  return (line: string) => {
    if (!line.trim()) return;
    let fields: Record<string, unknown> | undefined;
    if (line.startsWith("{")) {
      try {
        const parsed = JSON.parse(line) as unknown;
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) fields = parsed as Record<string, unknown>;
      } catch {
        // not JSON after all: relayed as text
      }
    }
    const known = fields ? undefined : KNOWN_WARNINGS.find((w) => w.match.test(line));
    if (known && known.note === null) return;
    const record = fields ?? (known ? { level: PINO_LEVELS.info, msg: known.note } : { level: PINO_LEVELS.warn, msg: line.trimEnd() });
    const time = record.time;
    record.time = typeof time === "number" ? new Date(time).toISOString() : typeof time === "string" ? time : new Date().toISOString();
    if (typeof record.level === "string") record.level = PINO_LEVELS[record.level] ?? PINO_LEVELS.info;
    record.service ??= source;
    record.name ??= record.service;
    // An API replica's lines say `api` like the indexer's own API: the replica names them.
    if (record.service === "api" && source !== "ponder") record.name = source;
    write(prettify ? prettify(record).trimEnd() : JSON.stringify(record));
  };
}

/**
 * Names the owner of each transaction a process logs: a process driving the operator's
 * pipeline also drives the intents other processes queued (the API's launch drives the
 * engine's in-flight claims first, so nonces never gap). `owner(intent)` says whose an intent
 * key is; the line gets `intentOwner`, so the API's log does not pass the engine's
 * transactions off as its own.
 */
export function intentOwnerMixin(owner: (intent: string) => string): (fields: Record<string, unknown>) => Record<string, unknown> {
  return (fields) => (typeof fields.intent === "string" ? { intentOwner: owner(fields.intent) } : {});
}

/** Whose an operator intent is, from its key's prefix: the API's launches and agents, the engine CLI's protocol-token launch, or the engine. */
export function intentOwnerOf(intent: string): "api" | "engine-cli" | "engine" {
  if (intent.startsWith("api:") || intent.startsWith("agent:")) return "api";
  if (intent.startsWith("protocol-token:")) return "engine-cli";
  return "engine";
}
