/**
 * Amounts for people: base units (bigint) as whole units of their currency, grouped by
 * thousands, with the currency's symbol — "5,696,326.21 LAUNCH", "0.663743 USDC". The one
 * formatter of every page and every log line (docs/design.md §7); bigint arithmetic only,
 * never a JS float. The API keeps its exact decimal strings and raw base units; this is
 * only for human text.
 *
 * Precision: a currency of at most 6 decimals (USDC) is shown exactly. A currency with more
 * (tokens and WETH: 18) is cut, toward zero, to 2 decimals at or above one whole unit, and to
 * 4 significant digits below it ("0.0000001234 WETH"), so a fraction of a unit never reads as
 * zero. `exact: true` keeps every digit.
 */

/** A currency as pages and logs name it. */
export type Unit = { symbol: string; decimals: number };

export const USDC_UNIT: Unit = { symbol: "USDC", decimals: 6 };
export const WETH_UNIT: Unit = { symbol: "WETH", decimals: 18 };

/** Decimals shown exactly up to this; beyond, the amount is cut (see the header). */
const EXACT_UP_TO = 6;
const FRACTION_AT_OR_ABOVE_ONE = 2;
const SIGNIFICANT_BELOW_ONE = 4;

/** `1234567.5` → `1,234,567.5`. */
export function groupThousands(decimal: string): string {
  const [whole, fraction] = decimal.split(".");
  const sign = whole!.startsWith("-") ? "-" : "";
  const digits = sign ? whole!.slice(1) : whole!;
  return `${sign}${digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",")}${fraction ? `.${fraction}` : ""}`;
}

/** How many fraction digits of `abs` (base units of `decimals`) a person sees. */
function shownDigits(abs: bigint, decimals: number, exact: boolean): number {
  if (exact || decimals <= EXACT_UP_TO) return decimals;
  const one = 10n ** BigInt(decimals);
  if (abs >= one || abs === 0n) return FRACTION_AT_OR_ABOVE_ONE;
  // Below one unit: the first significant digit's place, plus the significant digits after it.
  const leadingZeros = decimals - abs.toString().length;
  return Math.min(decimals, leadingZeros + SIGNIFICANT_BELOW_ONE);
}

/** Base units as whole units, grouped, without the symbol: "5,696,326.21". */
export function formatUnits(value: bigint, decimals: number, options: { exact?: boolean } = {}): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const base = 10n ** BigInt(decimals);
  const digits = shownDigits(abs, decimals, options.exact ?? false);
  const cut = 10n ** BigInt(decimals - digits);
  const kept = (abs % base) / cut;
  const fraction = digits === 0 ? "" : kept.toString().padStart(digits, "0").replace(/0+$/, "");
  const whole = groupThousands((abs / base).toString());
  const shown = `${whole}${fraction ? `.${fraction}` : ""}`;
  return negative && shown !== "0" ? `-${shown}` : shown;
}

/** Base units with their currency: "5,696,326.21 LAUNCH", "0.663743 USDC". */
export function showUnits(value: bigint, unit: Unit, options: { exact?: boolean } = {}): string {
  return `${formatUnits(value, unit.decimals, options)} ${unit.symbol}`;
}

/** The unit of a currency the engine names by symbol: USDC (6), WETH or ETH (18), anything else a launched token (18). */
export function unitOf(symbol: string): Unit {
  const upper = symbol.toUpperCase();
  if (upper === "USDC") return USDC_UNIT;
  return { symbol, decimals: 18 };
}

/** An amount of a currency named by symbol (see unitOf). */
export const showAmountOf = (value: bigint, symbol: string) => showUnits(value, unitOf(symbol));
