/**
 * The durable money ledger (DESIGN.md §5). One row per movement, keyed by the fact or
 * intent that caused it, so every write is idempotent. The spec's accumulators
 * (`pendingBuybackUsdc`, the perp USDC per token, the creator buyback queue, the legacy
 * WETH balance) are sums over it, never counters in memory.
 *
 * Spends are written when the worker commits to them (with the buyback / trade / purchase
 * row that carries them, in one transaction); a spend whose transaction never lands is
 * reversed by a `refund` row keyed by the spend, so nothing is lost or spent twice.
 */
import { sql } from "drizzle-orm";
import type { Address } from "viem";
import { tables, type Db, type Queryable, type Tx } from "../db/client.js";

export const Legs = {
  /** Fees attributed to a token and converted to USDC (one row per attribution). */
  claimed: "claimed",
  /** WETH fees attributed to a token, awaiting conversion to USDC. */
  wethClaimed: "weth-claimed",
  protocol: "protocol",
  asset: "asset",
  perp: "perp",
  creatorBuyback: "creator-buyback",
  legacyWeth: "legacy-weth",
  /** Operator revenue no worker spends: the protocol token's own fees, unattributed claims. */
  operator: "operator",
} as const;
export type Leg = (typeof Legs)[keyof typeof Legs];
export type Currency = "USDC" | "WETH";

/** Legs a worker spends (their balance is what is pending). */
export const SPENDABLE_LEGS: Leg[] = [Legs.protocol, Legs.asset, Legs.perp, Legs.creatorBuyback, Legs.legacyWeth, Legs.wethClaimed];
/** Legs tracked per token; the others are pooled across tokens. */
export const PER_TOKEN_LEGS: Leg[] = [Legs.claimed, Legs.wethClaimed, Legs.perp, Legs.creatorBuyback];

export type LedgerEntry = {
  key: string;
  kind: string;
  leg: Leg;
  token?: Address | null;
  currency: Currency;
  amount: bigint;
  intentId?: number | null;
  txHash?: string | null;
  blockNumber?: number | null;
  data?: Record<string, unknown> | null;
};

export class InsufficientLegBalanceError extends Error {
  override name = "InsufficientLegBalanceError";
  constructor(readonly leg: Leg, readonly token: string | null, readonly balance: bigint, readonly amount: bigint) {
    super(`leg ${leg}${token ? ` of ${token}` : ""} holds ${balance}, cannot spend ${amount}`);
  }
}

/** Inserts entries; rows whose key exists are skipped. Returns how many were new. */
export async function recordEntries(q: Queryable, entries: LedgerEntry[]): Promise<number> {
  if (!entries.length) return 0;
  const rows = await q
    .insert(tables.ledger)
    .values(
      entries.map((e) => ({
        key: e.key,
        kind: e.kind,
        leg: e.leg,
        token: e.token ?? null,
        currency: e.currency,
        amount: e.amount.toString(),
        intentId: e.intentId ?? null,
        txHash: e.txHash ?? null,
        blockNumber: e.blockNumber ?? null,
        data: e.data ?? null,
      })),
    )
    .onConflictDoNothing({ target: tables.ledger.key })
    .returning({ id: tables.ledger.id });
  return rows.length;
}

/** Balance of a leg: for one token, or pooled over every token when `token` is omitted. */
export async function legBalance(q: Queryable, leg: Leg, token?: Address | null): Promise<bigint> {
  const where = token === undefined ? sql`leg = ${leg}` : token === null ? sql`leg = ${leg} AND token IS NULL` : sql`leg = ${leg} AND token = ${token}`;
  const { rows } = await q.execute<{ total: string | null }>(sql`SELECT COALESCE(SUM(amount), 0)::text AS total FROM engine.ledger WHERE ${where}`);
  return BigInt(rows[0]?.total ?? "0");
}

/** Balances of a per-token leg, every token with a non-zero balance. */
export async function legBalancesByToken(q: Queryable, leg: Leg): Promise<Map<Address, bigint>> {
  const { rows } = await q.execute<{ token: Address; total: string }>(
    sql`SELECT token, SUM(amount)::text AS total FROM engine.ledger WHERE leg = ${leg} AND token IS NOT NULL GROUP BY token HAVING SUM(amount) <> 0 ORDER BY token`,
  );
  return new Map(rows.map((r) => [r.token, BigInt(r.total)]));
}

/** USDC waiting for the protocol-token buyback (the spec's `pendingBuybackUsdc`). */
export const pendingBuybackUsdc = (q: Queryable) => legBalance(q, Legs.protocol);
/** USDC waiting for the secondary-asset purchase. */
export const pendingAssetUsdc = (q: Queryable) => legBalance(q, Legs.asset);
/** The legacy WETH accumulator, drained by the buyback engine. */
export const legacyWethBalance = (q: Queryable) => legBalance(q, Legs.legacyWeth);
/** The perp USDC allocated to a token and not yet in a trade. */
export const peekPerpUsdc = (q: Queryable, token: Address) => legBalance(q, Legs.perp, token);

async function lockLeg(tx: Tx, leg: Leg, token: Address | null | undefined): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`ledger:${leg}:${token ?? ""}`}))`);
}

export type Spend = {
  leg: Leg;
  token?: Address | null;
  amount: bigint;
  key: string;
  kind: string;
  currency: Currency;
  data?: Record<string, unknown>;
};

/**
 * Spends `amount` from a leg inside the caller's transaction, under a per-leg lock, after
 * checking the balance covers it (pooled legs: the whole leg; per-token legs: the token).
 * Idempotent on `key`: a second call with the same key spends nothing more.
 */
export async function consumeLeg(tx: Tx, spend: Spend): Promise<void> {
  if (spend.amount <= 0n) throw new RangeError(`spend of ${spend.amount} from ${spend.leg}`);
  await lockLeg(tx, spend.leg, spend.token);
  const existing = await tx.execute<{ n: number }>(sql`SELECT 1 AS n FROM engine.ledger WHERE key = ${spend.key}`);
  if (existing.rows.length) return;
  const balance = await legBalance(tx, spend.leg, spend.token ?? undefined);
  if (balance < spend.amount) throw new InsufficientLegBalanceError(spend.leg, spend.token ?? null, balance, spend.amount);
  await recordEntries(tx, [{ ...spend, amount: -spend.amount }]);
}

/** `consumePerpUsdc`: takes a token's perp USDC into a desk trade (inside the caller's transaction). */
export function consumePerpUsdc(tx: Tx, token: Address, amount: bigint, key: string, data?: Record<string, unknown>): Promise<void> {
  return consumeLeg(tx, { leg: Legs.perp, token, amount, key, kind: "desk-spend", currency: "USDC", data });
}

/**
 * Reverses a spend whose transaction will never land (simulation revert, onchain revert,
 * refused order). Keyed by the spend, so a spend is refunded at most once.
 */
export async function refundSpend(q: Queryable, spendKey: string, reason: string): Promise<bigint> {
  const { rows } = await q.execute<{ leg: Leg; token: Address | null; currency: Currency; amount: string }>(
    sql`SELECT leg, token, currency, amount::text AS amount FROM engine.ledger WHERE key = ${spendKey}`,
  );
  const spend = rows[0];
  if (!spend) return 0n;
  const amount = -BigInt(spend.amount);
  if (amount <= 0n) return 0n;
  await recordEntries(q, [
    { key: `refund:${spendKey}`, kind: "refund", leg: spend.leg, token: spend.token, currency: spend.currency, amount, data: { reason } },
  ]);
  return amount;
}

export type CreatorBuyback = { buybackId: number; token: Address; amount: bigint };

/**
 * `consumeCreatorBuybacksAbove`: drains the creator buyback queue. Every token whose queued
 * USDC reaches its minimum (`minFor(token)`, by default the configured minimum) gets a
 * buyback row and a matching spend, in one transaction each. Tokens below stay queued.
 */
export async function consumeCreatorBuybacksAbove(
  db: Db,
  minimum: bigint | ((token: Address) => bigint | Promise<bigint>),
): Promise<CreatorBuyback[]> {
  const queued = await legBalancesByToken(db, Legs.creatorBuyback);
  const out: CreatorBuyback[] = [];
  for (const [token, amount] of queued) {
    const min = typeof minimum === "function" ? await minimum(token) : minimum;
    if (amount < min || amount <= 0n) continue;
    const buybackId = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(tables.buybacks)
        .values({ kind: "creator", token, currencyIn: "USDC", amountIn: amount.toString(), status: "swapping" })
        .returning({ id: tables.buybacks.id });
      await consumeLeg(tx, { leg: Legs.creatorBuyback, token, amount, key: `spend:buyback:${row!.id}`, kind: "buyback-spend", currency: "USDC", data: { buybackId: row!.id } });
      return row!.id;
    });
    out.push({ buybackId, token, amount });
  }
  return out;
}

export type InvariantReport = { ok: boolean; violations: string[] };

/**
 * The ledger invariants of DESIGN.md §5 that the database alone can check:
 * - per token, fees attributed (`claimed`) = the sum of its allocations to the legs;
 * - no leg is spent beyond what it received (pooled legs as a whole, per-token legs per token);
 * - every completed buyback burned exactly the tokens it bought.
 */
export async function checkLedgerInvariants(q: Queryable): Promise<InvariantReport> {
  const violations: string[] = [];
  const split = await q.execute<{ token: string; claimed: string; allocated: string }>(sql`
    SELECT token,
           COALESCE(SUM(amount) FILTER (WHERE leg = 'claimed'), 0)::text AS claimed,
           COALESCE(SUM(amount) FILTER (WHERE kind = 'allocation'), 0)::text AS allocated
    FROM engine.ledger WHERE token IS NOT NULL AND (leg = 'claimed' OR kind = 'allocation')
    GROUP BY token`);
  for (const r of split.rows) {
    if (r.claimed !== r.allocated) violations.push(`token ${r.token}: claimed ${r.claimed} ≠ allocated ${r.allocated}`);
  }
  const pooled = await q.execute<{ leg: string; total: string }>(
    sql`SELECT leg, SUM(amount)::text AS total FROM engine.ledger GROUP BY leg HAVING SUM(amount) < 0`,
  );
  for (const r of pooled.rows) violations.push(`leg ${r.leg} overspent: balance ${r.total}`);
  const perToken = await q.execute<{ leg: string; token: string; total: string }>(sql`
    SELECT leg, token, SUM(amount)::text AS total FROM engine.ledger
    WHERE leg IN ('claimed', 'weth-claimed', 'perp', 'creator-buyback') AND token IS NOT NULL
    GROUP BY leg, token HAVING SUM(amount) < 0`);
  for (const r of perToken.rows) violations.push(`leg ${r.leg} of ${r.token} overspent: balance ${r.total}`);
  const burns = await q.execute<{ id: number; bought: string; burned: string }>(sql`
    SELECT id, COALESCE(tokens_bought, 0)::text AS bought, COALESCE(tokens_burned, 0)::text AS burned
    FROM engine.buybacks WHERE status = 'done' AND COALESCE(tokens_bought, 0) <> COALESCE(tokens_burned, 0)`);
  for (const r of burns.rows) violations.push(`buyback ${r.id}: bought ${r.bought} ≠ burned ${r.burned}`);
  return { ok: violations.length === 0, violations };
}

export type LedgerTotals = {
  /** Fees attributed to enrolled and other tokens, USDC. */
  feesClaimedUsdc: bigint;
  allocatedUsdc: Record<"protocol" | "asset" | "perp" | "operator", bigint>;
  pending: { protocolUsdc: bigint; assetUsdc: bigint; perpUsdc: bigint; creatorBuybackUsdc: bigint; legacyWeth: bigint; unconvertedWeth: bigint };
};

/** Totals for `/stats`: what was claimed, how it was allocated, what is pending per leg. */
export async function ledgerTotals(q: Queryable): Promise<LedgerTotals> {
  const { rows } = await q.execute<{ leg: string; kind: string; total: string }>(
    sql`SELECT leg, kind, SUM(amount)::text AS total FROM engine.ledger GROUP BY leg, kind`,
  );
  const sum = (pred: (r: { leg: string; kind: string }) => boolean) =>
    rows.filter(pred).reduce((acc, r) => acc + BigInt(r.total), 0n);
  const bal = (leg: string) => sum((r) => r.leg === leg);
  const alloc = (leg: string) => sum((r) => r.leg === leg && r.kind === "allocation");
  return {
    feesClaimedUsdc: bal(Legs.claimed),
    allocatedUsdc: { protocol: alloc(Legs.protocol), asset: alloc(Legs.asset), perp: alloc(Legs.perp), operator: alloc(Legs.operator) },
    pending: {
      protocolUsdc: bal(Legs.protocol),
      assetUsdc: bal(Legs.asset),
      perpUsdc: bal(Legs.perp),
      creatorBuybackUsdc: bal(Legs.creatorBuyback),
      legacyWeth: bal(Legs.legacyWeth),
      unconvertedWeth: bal(Legs.wethClaimed),
    },
  };
}
