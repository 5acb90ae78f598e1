/**
 * What a dashboard charts: each pool's price candles (hour and day), each token's supply and
 * market cap, volume in USDC, and burns valued in USDC at the price of their moment. Every
 * figure is read from rows the indexer maintains; nothing scans swaps per request.
 */
import { type SQL, and, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Hex } from "viem";
import { CLANKER_TOKEN_SUPPLY } from "../../common/deploy-config.js";
import type { Config } from "../../common/config.js";
import { burn, poolCandle, poolPricePoint, poolVolumeUsdc, token } from "../../schema/ponder.js";
import type { ReadDb } from "./db.js";
import type { BurnRow } from "./burns.js";
import type { PoolRow, TokenView } from "./tokens.js";
import { BURN_VALUE_FIGURES, CANDLE_FIGURES, MARKET_FIGURES, figuresOf } from "../views/market.js";

export const CANDLE_PERIODS = ["hour", "day"] as const;
export type CandlePeriod = (typeof CANDLE_PERIODS)[number];
export type CandleRow = typeof poolCandle.$inferSelect;
export const DEFAULT_CANDLES = 168;
export const MAX_CANDLES = 1000;

const ONE = 10n ** 18n;

/**
 * A pool's candles of one period, oldest first: the latest `limit` buckets starting in
 * [from, to) (unix seconds; either bound optional). Buckets without a swap have no candle.
 */
export async function listCandles(db: ReadDb, poolId: Hex, period: CandlePeriod, p: { from?: bigint; to?: bigint; limit: number }): Promise<CandleRow[]> {
  const c: SQL[] = [eq(poolCandle.poolId, poolId), eq(poolCandle.period, period)];
  if (p.from !== undefined) c.push(gte(poolCandle.start, p.from));
  if (p.to !== undefined) c.push(lt(poolCandle.start, p.to));
  const rows = await db
    .select()
    .from(poolCandle)
    .where(and(...c))
    .orderBy(desc(poolCandle.start))
    .limit(p.limit);
  return rows.reverse();
}

/** Whether the pool's paired currency has a USDC price: USDC itself, or WETH once the WETH/USDC price is indexed. */
export function hasUsdcPrice(config: Config, pool: Pick<PoolRow, "pairedToken" | "priceUsdcE18">): boolean {
  const paired = pool.pairedToken.toLowerCase();
  if (paired === config.contracts.usdc?.toLowerCase()) return true;
  return paired === config.contracts.weth?.toLowerCase() && pool.priceUsdcE18 > 0n;
}

/**
 * A token's supply and market figures, all in base units:
 * - `totalSupply`: the supply minted at launch (every Clanker v4 token mints 100,000,000,000
 *   tokens once; `burn()` to the zero address is not indexed, burns to the dead address are);
 * - `burned`: the dead address's balance (every transfer to it, as indexed);
 * - `circulating` = totalSupply − burned;
 * - `marketCapPaired` / `marketCapUsdc` = circulating × the pool's current price, rounded down
 *   to the base unit (USDC null when the paired currency has no USDC price yet);
 * - `volumeUsdc`: every swap's paired leg in USDC at its moment (`unpricedSwaps` left out).
 */
export type TokenMarketView = {
  token: Hex;
  poolId: Hex | null;
  pairedToken: Hex | null;
  totalSupply: bigint;
  burned: bigint;
  circulating: bigint;
  pricePairedE18: bigint | null;
  priceUsdcE18: bigint | null;
  marketCapPaired: bigint | null;
  marketCapUsdc: bigint | null;
  volumeToken: bigint;
  volumePaired: bigint;
  volumeUsdc: bigint;
  unpricedSwaps: number;
  swaps: number;
};

export function marketView(config: Config, v: TokenView, volume: { volumeUsdc: bigint; unpricedSwaps: number } | undefined): TokenMarketView {
  const totalSupply = CLANKER_TOKEN_SUPPLY;
  const burned = v.totals?.burned ?? 0n;
  const circulating = totalSupply - burned;
  const pool = v.pool;
  const priceUsdcE18 = pool && hasUsdcPrice(config, pool) ? pool.priceUsdcE18 : null;
  return {
    token: v.token.address,
    poolId: pool?.poolId ?? null,
    pairedToken: pool?.pairedToken ?? null,
    totalSupply,
    burned,
    circulating,
    pricePairedE18: pool?.pricePairedE18 ?? null,
    priceUsdcE18,
    // circulating base units × (base units per 1e18 whole tokens) / (1e18 base units per token × 1e18 scale)
    marketCapPaired: pool ? (circulating * pool.pricePairedE18) / (ONE * ONE) : null,
    marketCapUsdc: priceUsdcE18 === null ? null : (circulating * priceUsdcE18) / (ONE * ONE),
    volumeToken: pool?.volumeToken ?? 0n,
    volumePaired: pool?.volumePaired ?? 0n,
    volumeUsdc: volume?.volumeUsdc ?? 0n,
    unpricedSwaps: volume?.unpricedSwaps ?? 0,
    swaps: pool?.swaps ?? 0,
  };
}

/** Pools' USDC volume rows, by pool id. */
export async function poolVolumes(db: ReadDb, poolIds: readonly Hex[]): Promise<Map<string, { volumeUsdc: bigint; unpricedSwaps: number }>> {
  const out = new Map<string, { volumeUsdc: bigint; unpricedSwaps: number }>();
  if (!poolIds.length) return out;
  const rows = await db
    .select()
    .from(poolVolumeUsdc)
    .where(inArray(poolVolumeUsdc.poolId, [...poolIds]));
  for (const r of rows) out.set(r.poolId.toLowerCase(), { volumeUsdc: r.volumeUsdc, unpricedSwaps: r.unpricedSwaps });
  return out;
}

/**
 * A burn's value at the price of its moment: the price of the token's pool after the last swap
 * before the burn in chain order. Null before the pool's first swap; `valueUsdc` null when the
 * paired currency had no USDC price then.
 */
export type BurnValue = { pricePairedE18: bigint; priceUsdcE18: bigint | null; valuePaired: bigint; valueUsdc: bigint | null };

/** The values of burns (by burn id), one query for the whole page. */
export async function burnValues(db: ReadDb, burns: readonly Pick<BurnRow, "id">[]): Promise<Map<string, BurnValue | null>> {
  const out = new Map<string, BurnValue | null>();
  if (!burns.length) return out;
  const ids = burns.map((b) => b.id);
  const pp = poolPricePoint;
  const { rows } = await db.execute(sql`
    SELECT ${burn.id} AS id, ${burn.amount} AS amount, price.paired AS paired, price.usdc AS usdc
    FROM ${burn}
    JOIN ${token} ON ${token.address} = ${burn.token}
    LEFT JOIN LATERAL (
      SELECT ${pp.pricePairedE18} AS paired, ${pp.priceUsdcE18} AS usdc FROM ${pp}
      WHERE ${pp.poolId} = ${token.poolId} AND (${pp.blockNumber}, ${pp.logIndex}) < (${burn.blockNumber}, ${burn.logIndex})
      ORDER BY ${pp.blockNumber} DESC, ${pp.logIndex} DESC
      LIMIT 1
    ) price ON true
    WHERE ${burn.id} IN (${sql.join(
      ids.map((id) => sql`${id}`),
      sql`, `,
    )})`);
  for (const id of ids) out.set(id, null);
  for (const r of rows as { id: string; amount: string; paired: string | null; usdc: string | null }[]) {
    if (r.paired === null) continue;
    const amount = BigInt(r.amount);
    const pricePairedE18 = BigInt(r.paired);
    const priceUsdcE18 = r.usdc === null ? null : BigInt(r.usdc);
    out.set(r.id, {
      pricePairedE18,
      priceUsdcE18,
      valuePaired: (amount * pricePairedE18) / (ONE * ONE),
      valueUsdc: priceUsdcE18 === null ? null : (amount * priceUsdcE18) / (ONE * ONE),
    });
  }
  return out;
}

// ------------------------------------------------------------------ figures at the edge

export type CurrencyRef = { address: Hex; symbol: string; decimals: number };

/** A candle's figures (api/views/market.ts), prices in the paired currency. */
export function candleFigures(c: CandleRow, paired: CurrencyRef) {
  return { start: c.start, ...figuresOf(CANDLE_FIGURES, c, paired.decimals), unpricedSwaps: c.unpricedSwaps, swaps: c.swaps };
}
export type CandleFigures = ReturnType<typeof candleFigures>;

/** A token's market figures (api/views/market.ts); without a pool, in 18 decimals. */
export function marketFigures(m: TokenMarketView, paired: CurrencyRef | null) {
  const values = { ...m, pricePaired: m.pricePairedE18, priceUsdc: m.priceUsdcE18 };
  return { ...figuresOf(MARKET_FIGURES, values, paired?.decimals), unpricedSwaps: m.unpricedSwaps, swaps: m.swaps };
}
export type MarketFigures = ReturnType<typeof marketFigures>;

/** A burn's value at its moment (api/views/market.ts); all null before its pool's first swap. */
export function burnValueFigures(v: BurnValue | null, paired: CurrencyRef | null) {
  const values = {
    pricePairedAtBurn: v?.pricePairedE18 ?? null,
    priceUsdcAtBurn: v?.priceUsdcE18 ?? null,
    valuePaired: v?.valuePaired ?? null,
    valueUsdc: v?.valueUsdc ?? null,
  };
  return figuresOf(BURN_VALUE_FIGURES, values, paired?.decimals);
}
export type BurnValueFigures = ReturnType<typeof burnValueFigures>;
