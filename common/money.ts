/**
 * Exact decimal <-> base-unit conversion. Money is a bigint in base units inside the
 * service; decimal strings exist only at the edges (env, HTTP, GraphQL).
 */

export const USDC_DECIMALS = 6;
export const TOKEN_DECIMALS = 18;
export const ETH_DECIMALS = 18;

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?$/;

/**
 * Parses a non-negative decimal string into base units. Rejects more fractional digits
 * than `decimals` instead of rounding, so no value is ever silently changed.
 */
export function parseDecimal(value: string, decimals: number): bigint {
  const match = DECIMAL_RE.exec(value.trim());
  if (!match) throw new RangeError(`"${value}" is not a non-negative decimal number`);
  const whole = match[1]!;
  const fraction = match[2] ?? "";
  if (fraction.length > decimals) {
    throw new RangeError(`"${value}" has more than ${decimals} decimal places`);
  }
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/** Formats base units as an exact decimal string without trailing zeros ("12.5", "0", "-3.000001"). */
export function formatDecimal(value: bigint, decimals: number): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const fraction = (abs % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

export const usdc = (value: string) => parseDecimal(value, USDC_DECIMALS);
export const formatUsdc = (value: bigint) => formatDecimal(value, USDC_DECIMALS);
