/**
 * Fees and buyback spending per currency, from the indexer's per-currency aggregates (one row
 * per token and currency, or per currency): the amount in its own currency, and its USDC — as
 * claimed for USDC, at the realised rate of the operator's conversion swaps for WETH. Each
 * amount is read with the currency's address, symbol and decimals.
 */
import { inArray } from "drizzle-orm";
import { type Address, type Hex, getAddress } from "viem";
import type { Config } from "../../common/config.js";
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import { buybackSpend, feeCurrencyTotals, token, tokenBuybackSpend, tokenFee } from "../../schema/ponder.js";
import { BUYBACK_KINDS, type BuybackKind } from "../../common/activity.js";
import type { ReadDb } from "./db.js";

export type CurrencyInfo = { address: Address; symbol: string; decimals: number };

/** One currency of a token's (or every token's) fees, in base units of the currency (`usdc`: USDC). */
export type FeeCurrencyView = {
  currency: CurrencyInfo;
  /** Collected by the locker for the operator's reward slots. */
  toOperator: bigint;
  /** Of those, claimed by the operator from the fee locker. */
  claimed: bigint;
  /** Collected and not claimed yet (toOperator − claimed): in no leg until the operator's next claim. */
  unclaimed: bigint;
  /** Claimed WETH the operator has not converted to USDC yet. */
  awaitingConversion: bigint;
  /** Sold for USDC by the operator's conversion swaps (0 for USDC itself). */
  converted: bigint;
  /** The USDC these fees became: as claimed (USDC), or what the conversion swaps paid (WETH). */
  usdc: bigint;
  /** USDC base units per whole unit the conversions realised (usdc / converted, rounded down); null for USDC and before a conversion. */
  usdcPerUnit: bigint | null;
  /** Collected by the locker for the creator's reward slot (paid to the creator as is, never converted). */
  toCreator: bigint;
};

/** Buybacks paid in one currency: how many, how much, and its USDC. */
export type BuybackSpendView = { currency: CurrencyInfo; buybacks: number; amountIn: bigint; usdc: bigint };

type FeeRow = Omit<typeof tokenFee.$inferSelect, "token">;
type SpendRow = { currency: Hex; buybacks: number; amountIn: bigint; usdcIn: bigint };

/**
 * Launched tokens' currency infos, by lowercase address: a token's symbol never changes once
 * indexed, so each is read from the token table once per process (one entry per token).
 */
const launchedCurrencies = new Map<string, CurrencyInfo>();

/** USDC and WETH from the config; other currencies (a launched token's own) from the token table. */
export async function currencyInfos(db: ReadDb, config: Config, addresses: Iterable<string>): Promise<Map<string, CurrencyInfo>> {
  const out = new Map<string, CurrencyInfo>();
  const known: [string | undefined, string, number][] = [
    [config.contracts.usdc, "USDC", USDC_DECIMALS],
    [config.contracts.weth, "WETH", TOKEN_DECIMALS],
  ];
  const others: Hex[] = [];
  for (const address of new Set([...addresses].map((a) => a.toLowerCase()))) {
    const match = known.find(([a]) => a?.toLowerCase() === address);
    const launched = launchedCurrencies.get(address);
    if (match) out.set(address, { address: getAddress(address), symbol: match[1], decimals: match[2] });
    else if (launched) out.set(address, launched);
    else others.push(address as Hex);
  }
  if (others.length) {
    const rows = await db.select({ address: token.address, symbol: token.symbol }).from(token).where(inArray(token.address, others));
    for (const address of others) {
      const row = rows.find((r) => r.address.toLowerCase() === address);
      // A launched token has 18 decimals; an address the index does not know is shown by its address (and asked again next time).
      const info = { address: getAddress(address), symbol: row?.symbol ?? getAddress(address), decimals: TOKEN_DECIMALS };
      if (row) launchedCurrencies.set(address, info);
      out.set(address, info);
    }
  }
  return out;
}

/** USDC first, then by address: a stable order for every view. */
function byCurrency<T extends { currency: CurrencyInfo }>(rows: T[], usdc: string | undefined): T[] {
  const rank = (c: CurrencyInfo) => (c.address.toLowerCase() === usdc?.toLowerCase() ? "0" : `1${c.address.toLowerCase()}`);
  return rows.sort((a, b) => (rank(a.currency) < rank(b.currency) ? -1 : rank(a.currency) > rank(b.currency) ? 1 : 0));
}

export function feeCurrencyFromRow(row: FeeRow, currency: CurrencyInfo): FeeCurrencyView {
  return {
    currency,
    toOperator: row.toOperator,
    claimed: row.toOperator - row.unclaimed,
    unclaimed: row.unclaimed,
    awaitingConversion: row.awaitingConversion,
    converted: row.converted,
    usdc: row.usdc,
    usdcPerUnit: row.converted > 0n ? (row.usdc * 10n ** BigInt(currency.decimals)) / row.converted : null,
    toCreator: row.toCreator,
  };
}

const spendView = (r: SpendRow, currency: CurrencyInfo): BuybackSpendView => ({ currency, buybacks: r.buybacks, amountIn: r.amountIn, usdc: r.usdcIn });

/** Groups rows by a key, each row made a view with its currency's info, each group in currency order. */
async function grouped<R extends { currency: Hex }, V extends { currency: CurrencyInfo }>(
  db: ReadDb,
  config: Config,
  rows: R[],
  keyOf: (row: R) => string,
  view: (row: R, currency: CurrencyInfo) => V,
  keys: readonly string[] = [],
): Promise<Map<string, V[]>> {
  const infos = await currencyInfos(
    db,
    config,
    rows.map((r) => r.currency),
  );
  const out = new Map<string, V[]>(keys.map((k) => [k, []]));
  for (const r of rows) {
    const key = keyOf(r);
    out.set(key, [...(out.get(key) ?? []), view(r, infos.get(r.currency.toLowerCase())!)]);
  }
  for (const [key, list] of out) out.set(key, byCurrency(list, config.contracts.usdc));
  return out;
}

/** Every token's fees, per currency (one row per currency). */
export async function protocolFeeCurrencies(db: ReadDb, config: Config): Promise<FeeCurrencyView[]> {
  const rows = await db.select().from(feeCurrencyTotals);
  return (await grouped(db, config, rows, () => "", feeCurrencyFromRow, [""])).get("")!;
}

/** Fees per currency of each of `tokens` (lowercase address → its currencies). */
export async function tokenFeeCurrencies(db: ReadDb, config: Config, tokens: readonly Hex[]): Promise<Map<string, FeeCurrencyView[]>> {
  const keys = tokens.map((t) => t.toLowerCase());
  if (!keys.length) return new Map();
  const rows = await db
    .select()
    .from(tokenFee)
    .where(inArray(tokenFee.token, keys as Hex[]));
  return grouped(db, config, rows, (r) => r.token.toLowerCase(), feeCurrencyFromRow, keys);
}

/** Buybacks of each kind over every token, per currency paid in (one row per kind and currency). */
export async function buybackSpendByKind(db: ReadDb, config: Config): Promise<Record<BuybackKind, BuybackSpendView[]>> {
  const rows = await db.select().from(buybackSpend);
  const groups = await grouped(db, config, rows, (r) => r.kind, spendView, BUYBACK_KINDS);
  return { "protocol-buyback": groups.get("protocol-buyback")!, "creator-buyback": groups.get("creator-buyback")! };
}

/** Buybacks of each of `tokens`, per currency paid in. */
export async function tokenBuybackSpends(db: ReadDb, config: Config, tokens: readonly Hex[]): Promise<Map<string, BuybackSpendView[]>> {
  const keys = tokens.map((t) => t.toLowerCase());
  if (!keys.length) return new Map();
  const rows = await db
    .select()
    .from(tokenBuybackSpend)
    .where(inArray(tokenBuybackSpend.token, keys as Hex[]));
  return grouped(db, config, rows, (r) => r.token.toLowerCase(), spendView, keys);
}
