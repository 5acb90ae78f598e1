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

export function createLogger(name: string, level: string = "info", format: LogFormat = "auto"): Logger {
  const options = { name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime };
  if (resolveLogFormat(format) === "json") return pino(options);
  // Synchronous, in this thread: no line is lost when the process exits right after it.
  const stream = pretty({ sync: true, colorize: Boolean(process.stdout.isTTY), translateTime: "SYS:HH:MM:ss", ignore: "pid,hostname,service", singleLine: true });
  return pino(options, stream);
}
