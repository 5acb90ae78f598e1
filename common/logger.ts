/** Structured JSON logs (pino). One logger per process, children per component. */
import pino, { type Logger } from "pino";

export type { Logger };

export function createLogger(name: string, level: string = "info"): Logger {
  return pino({ name, level, base: { service: name }, timestamp: pino.stdTimeFunctions.isoTime });
}
