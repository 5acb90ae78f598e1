/**
 * The bench scripts' command-line flags, parsed by `node:util`'s `parseArgs` (strict: an
 * unknown flag, a missing value or a stray argument is refused). `--help` prints the script's
 * usage; a refusal prints what was wrong and the usage, and exits with status 2.
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

type Options = NonNullable<ParseArgsConfig["options"]>;
type Range = { min?: number; max?: number; integer?: boolean };
/** What `parseArgs` returns for `options` (no flag here takes `multiple`). */
type Values<O extends Options> = { [K in keyof O]?: O[K] extends { type: "boolean" } ? boolean : string };

/** Prints `message` and the usage to stderr and exits with status 2. */
function refuse(usage: string, message: string): never {
  process.stderr.write(`${message}\n\n${usage.trim()}\n`);
  process.exit(2);
}

/**
 * Parses `argv` (the process's arguments by default) against `options`, with `--help`/`-h`
 * added. Returns the flags' values, and `number(name, fallback, range)`: a flag read as a
 * number, refused unless it is one within `range` (a whole number unless `integer: false`).
 */
export function benchArgs<const O extends Options>(usage: string, options: O, argv: string[] = process.argv.slice(2)) {
  let parsed: Record<string, string | boolean | undefined>;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, strict: true, allowPositionals: false })
      .values as typeof parsed;
  } catch (error) {
    refuse(usage, (error as Error).message);
  }
  if (parsed.help) {
    process.stdout.write(`${usage.trim()}\n`);
    process.exit(0);
  }
  const values = parsed as Values<O>;
  const number = (name: keyof O & string, fallback: number, range: Range = {}): number => {
    const raw = parsed[name];
    if (raw === undefined) return fallback;
    const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : Number.NaN;
    const whole = range.integer !== false;
    const ok =
      Number.isFinite(value) &&
      (!whole || Number.isInteger(value)) &&
      (range.min === undefined || value >= range.min) &&
      (range.max === undefined || value <= range.max);
    if (!ok) {
      const bounds = [range.min !== undefined ? `at least ${range.min}` : "", range.max !== undefined ? `at most ${range.max}` : ""]
        .filter(Boolean)
        .join(" and ");
      refuse(usage, `--${name}: expected ${whole ? "a whole number" : "a number"}${bounds ? ` ${bounds}` : ""} (got "${String(raw)}")`);
    }
    return value;
  };
  return { values, number };
}
