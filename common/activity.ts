/**
 * The kinds of the activity feed (one indexed row per event) and the edge format of an
 * activity's facts, shared by the API (REST, GraphQL) and the engine's webhooks (the same
 * payload either way).
 */
import { getAddress } from "viem";
import { TOKEN_DECIMALS, USDC_DECIMALS, formatDecimal } from "./money.js";

export const ACTIVITY_KINDS = [
  "token-launched",
  "token-enrolled",
  "fees-collected",
  "auction-won",
  "auction-fees",
  "fees-swapped",
  "fees-claimed",
  "fees-converted",
  "fees-attributed",
  "protocol-buyback",
  "creator-buyback",
  "burn",
  "asset-purchased",
  "desk-opened",
  "desk-increased",
  "desk-decreased",
  "desk-closed",
  "desk-liquidated",
  "desk-halted",
  "desk-unhalted",
] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

const USDC_FIELDS = new Set([
  "usdcIn",
  "usdcOut",
  "usdc",
  "collateralDelta",
  "realisedPnl",
  "usdcReturned",
  "marginFees",
  "protocolUsdc",
  "assetUsdc",
  "perpUsdc",
  "operatorUsdc",
  // gTrade's fees of a refused order, a margin top-up and a margin withdrawal.
  "fee",
  "openingFees",
  "closingFee",
]);
const TOKEN_FIELDS = new Set(["tokensBought", "assetBought"]);
const PERPS_FIELDS = new Set(["price", "leverage"]);
/** Amount field → the field naming its currency. */
const CURRENCY_OF: Record<string, string> = {
  amount: "currency",
  amountIn: "currencyIn",
  pairedIn: "pairedToken",
  amountSwapped: "rewardToken",
  amountOut: "swappedToken",
};
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const INTEGER_RE = /^-?\d+$/;

/**
 * Exact decimals in whole units for the amounts of an activity's data (USDC 6 decimals,
 * tokens and WETH 18, perps prices and leverage 10), checksummed addresses; other values as
 * indexed.
 */
export function formatActivityData(data: unknown, usdc: string | undefined): Record<string, unknown> {
  const usdcLower = usdc?.toLowerCase();
  const decimalsOf = (currency: unknown) => (typeof currency === "string" && currency.toLowerCase() === usdcLower ? USDC_DECIMALS : TOKEN_DECIMALS);
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (value === null || typeof value !== "object") return typeof value === "string" && ADDRESS_RE.test(value) ? getAddress(value) : value;
    const obj = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(obj)) {
      let decimals: number | undefined;
      if (USDC_FIELDS.has(key)) decimals = USDC_DECIMALS;
      else if (TOKEN_FIELDS.has(key)) decimals = TOKEN_DECIMALS;
      else if (PERPS_FIELDS.has(key)) decimals = 10;
      else if (key in CURRENCY_OF) decimals = decimalsOf(obj[CURRENCY_OF[key]!]);
      out[key] = decimals !== undefined && typeof v === "string" && INTEGER_RE.test(v) ? formatDecimal(BigInt(v), decimals) : walk(v);
    }
    return out;
  };
  // An event's data is always a JSON object (the indexer writes one per event).
  return walk(data) as Record<string, unknown>;
}
