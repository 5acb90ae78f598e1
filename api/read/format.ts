/**
 * The edge formats of docs/design.md §7: checksummed addresses, ISO-8601 timestamps, exact
 * decimal strings in whole units (never floats).
 */
import { type Address, getAddress } from "viem";
import { TOKEN_DECIMALS, USDC_DECIMALS, formatDecimal } from "../../common/money.js";

export const checksum = (address: string): Address => getAddress(address);
export const checksumOrNull = (address: string | null | undefined): Address | null => (address ? getAddress(address) : null);

/** Unix seconds → ISO-8601. */
export const isoTime = (seconds: bigint | number): string => new Date(Number(seconds) * 1000).toISOString();
/** The same to the second, as pages show it ("2026-11-24T18:34:43Z"). */
export const isoSeconds = (seconds: bigint | number): string => isoTime(seconds).replace(".000Z", "Z");

export const usdcAmount = (value: bigint) => formatDecimal(value, USDC_DECIMALS);

export const tokenAmount = (value: bigint) => formatDecimal(value, TOKEN_DECIMALS);
/** Perps prices and leverage carry 10 decimals (1e10). */
export const perpsDecimal = (value: bigint) => formatDecimal(value, 10);
