/**
 * The durable money ledger (docs/design.md §5.3). One row per movement, keyed by the fact or
 * intent that caused it, so every write is idempotent. The spec's accumulators
 * (`pendingBuybackUsdc`, the perp USDC per token, the creator buyback queue, the legacy
 * WETH balance) are running balances in `engine.ledger_balances`, updated in the same
 * transaction as each row that moves them (an account beside its journal): a read is one
 * row whatever the length of history, and the audit checks each balance against its rows.
 *
 * Rows derived from a receipt or a log carry its block hash. When a reorg takes the block
 * away, `reverseBlocks` writes a compensating row per lost row (`reversal:<key>`, same leg
 * and kind, amount negated), and the fact is derived again from the canonical chain.
 *
 * Spends are written when the worker commits to them (with the buyback / trade / purchase
 * row that carries them, in one transaction); a spend whose transaction never lands is
 * reversed by a `refund` row keyed by the spend, so nothing is lost or spent twice.
 *
 * A worker spends only what is final: inflows from blocks above the final block (the head
 * less `CONFIRMATIONS`) are pending but not spendable (`spendableBalance`). A reorg deeper
 * than `CONFIRMATIONS` can still take back an inflow that was spent; its reversal then
 * leaves the leg below zero, and that reversal records the shortfall (`data.deficit`). The
 * leg's later inflows repay it before anything more is spent, and the invariants accept a
 * negative balance only down to the deficits recorded for it.
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
  /** The block of the receipt or log this row is derived from (reorg-checked until final). */
  blockHash?: string | null;
  data?: Record<string, unknown> | null;
};

export class InsufficientLegBalanceError extends Error {
  override name = "InsufficientLegBalanceError";
  constructor(readonly leg: Leg, readonly token: string | null, readonly balance: bigint, readonly amount: bigint) {
    super(`leg ${leg}${token ? ` of ${token}` : ""} holds ${balance}, cannot spend ${amount}`);
  }
}

type Inserted = { leg: string; token: string | null; currency: string; kind: string; amount: string };

/** Applies inserted rows to their running balances, in a fixed order (no deadlock between writers). */
async function applyBalances(q: Queryable, rows: Inserted[]): Promise<void> {
  const deltas = new Map<string, { leg: string; token: string; currency: string; balance: bigint; allocated: bigint; rows: number }>();
  for (const r of rows) {
    const token = r.token ?? "";
    const id = `${r.leg}\u0000${token}\u0000${r.currency}`;
    const d = deltas.get(id) ?? { leg: r.leg, token, currency: r.currency, balance: 0n, allocated: 0n, rows: 0 };
    d.balance += BigInt(r.amount);
    if (r.kind === "allocation") d.allocated += BigInt(r.amount);
    d.rows++;
    deltas.set(id, d);
  }
  for (const id of [...deltas.keys()].sort()) {
    const d = deltas.get(id)!;
    await q
      .insert(tables.ledgerBalances)
      .values({ leg: d.leg, token: d.token, currency: d.currency, balance: d.balance.toString(), allocated: d.allocated.toString(), rows: d.rows })
      .onConflictDoUpdate({
        target: [tables.ledgerBalances.leg, tables.ledgerBalances.token, tables.ledgerBalances.currency],
        set: {
          balance: sql`${tables.ledgerBalances.balance} + ${d.balance.toString()}::numeric`,
          allocated: sql`${tables.ledgerBalances.allocated} + ${d.allocated.toString()}::numeric`,
          rows: sql`${tables.ledgerBalances.rows} + ${d.rows}`,
          updatedAt: sql`now()`,
        },
      });
  }
}

/** Runs `fn` in a transaction: inside the caller's when `q` is one, a new one otherwise. */
function inTransaction<T>(q: Queryable, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  return "transaction" in q && !("rollback" in q) ? (q as Db).transaction(fn) : fn(q);
}

/**
 * Inserts entries and moves their running balances, in one transaction; rows whose key
 * exists are skipped. Returns how many were new.
 */
export async function recordEntries(q: Queryable, entries: LedgerEntry[]): Promise<number> {
  if (!entries.length) return 0;
  return inTransaction(q, async (tx) => {
    const rows = await tx
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
          blockHash: e.blockHash ?? null,
          data: e.data ?? null,
        })),
      )
      .onConflictDoNothing({ target: tables.ledger.key })
      .returning({ leg: tables.ledger.leg, token: tables.ledger.token, currency: tables.ledger.currency, kind: tables.ledger.kind, amount: tables.ledger.amount });
    await applyBalances(tx, rows);
    return rows.length;
  });
}

/** Balance of a leg: for one token, or pooled over every token when `token` is omitted. One balance row per (token, currency). */
export async function legBalance(q: Queryable, leg: Leg, token?: Address | null): Promise<bigint> {
  const where = token === undefined ? sql`leg = ${leg}` : sql`leg = ${leg} AND token = ${token ?? ""}`;
  const { rows } = await q.execute<{ total: string | null }>(sql`SELECT COALESCE(SUM(balance), 0)::text AS total FROM engine.ledger_balances WHERE ${where}`);
  return BigInt(rows[0]?.total ?? "0");
}

/** Balances of a per-token leg, every token with a non-zero balance. */
export async function legBalancesByToken(q: Queryable, leg: Leg): Promise<Map<Address, bigint>> {
  const { rows } = await q.execute<{ token: Address; total: string }>(
    sql`SELECT token, SUM(balance)::text AS total FROM engine.ledger_balances WHERE leg = ${leg} AND token <> '' GROUP BY token HAVING SUM(balance) <> 0 ORDER BY token`,
  );
  return new Map(rows.map((r) => [r.token, BigInt(r.total)]));
}

/** Inflows (positive rows) derived from blocks above `finalBlock` and not reversed: pending, not yet spendable. */
function unfinalInflows(leg: Leg, finalBlock: number, token?: Address) {
  return sql`
    SELECT l.token, SUM(l.amount) AS amount FROM engine.ledger l
    WHERE l.block_hash IS NOT NULL AND l.block_number > ${finalBlock} AND l.amount > 0 AND l.leg = ${leg}
      ${token === undefined ? sql`` : sql`AND l.token = ${token}`}
      AND NOT EXISTS (SELECT 1 FROM engine.ledger r WHERE r.key = 'reversal:' || l.key)
    GROUP BY l.token`;
}

/**
 * What a worker may spend from a leg (pooled, or one token's): its balance less the inflows
 * not final yet. `finalBlock` is the newest final block (`finalBlock(ctx)`); Infinity counts
 * every recorded block as final. Negative while a reorg deficit is being repaid.
 */
export async function spendableBalance(q: Queryable, leg: Leg, token: Address | undefined, finalBlock: number): Promise<bigint> {
  const balance = await legBalance(q, leg, token);
  if (finalBlock === Infinity) return balance;
  const { rows } = await q.execute<{ amount: string }>(sql`SELECT COALESCE(SUM(amount), 0)::text AS amount FROM (${unfinalInflows(leg, finalBlock, token)}) u`);
  return balance - BigInt(rows[0]?.amount ?? "0");
}

/** `spendableBalance` of a per-token leg for every token with something to spend. */
export async function spendableBalancesByToken(q: Queryable, leg: Leg, finalBlock: number): Promise<Map<Address, bigint>> {
  const balances = await legBalancesByToken(q, leg);
  if (finalBlock !== Infinity) {
    const { rows } = await q.execute<{ token: Address; amount: string }>(sql`SELECT token, amount::text AS amount FROM (${unfinalInflows(leg, finalBlock)}) u WHERE token IS NOT NULL`);
    for (const r of rows) balances.set(r.token, (balances.get(r.token) ?? 0n) - BigInt(r.amount));
  }
  return new Map([...balances].filter(([, amount]) => amount > 0n));
}

export type ReversedRow = {
  key: string;
  leg: string;
  token: string | null;
  currency: string;
  amount: bigint;
  blockNumber: number | null;
  blockHash: string;
  /** Set on the last reversal of a leg that it left below zero: how far it went below (see the header). */
  deficit?: bigint;
};

/**
 * Reverses every row derived from the given blocks (not reversed yet): a compensating row
 * `reversal:<key>` with the same leg, token and kind and the amount negated, balances moved
 * in the same transaction. Idempotent: a row is reversed at most once.
 */
export async function reverseBlocks(q: Queryable, blockHashes: string[], reason: string): Promise<ReversedRow[]> {
  if (!blockHashes.length) return [];
  const { rows } = await q.execute<{ key: string; kind: string; leg: string; token: string | null; currency: string; amount: string; intent_id: number | null; tx_hash: string | null; block_number: number | null; block_hash: string }>(sql`
    SELECT l.key, l.kind, l.leg, l.token, l.currency, l.amount::text AS amount, l.intent_id, l.tx_hash, l.block_number, l.block_hash
    FROM engine.ledger l
    WHERE l.block_hash IN (${sql.join(blockHashes.map((h) => sql`${h}`), sql`, `)})
      AND NOT EXISTS (SELECT 1 FROM engine.ledger r WHERE r.key = 'reversal:' || l.key)
    ORDER BY l.id`);
  if (!rows.length) return [];
  const deficits = await deficitsOf(q, rows.map((r) => ({ leg: r.leg, token: r.token ?? "", currency: r.currency, amount: -BigInt(r.amount) })));
  const reversed: ReversedRow[] = rows.map((r, i) => ({
    key: r.key,
    leg: r.leg,
    token: r.token,
    currency: r.currency,
    amount: BigInt(r.amount),
    blockNumber: r.block_number === null ? null : Number(r.block_number),
    blockHash: r.block_hash,
    ...(deficits.has(i) ? { deficit: deficits.get(i)! } : {}),
  }));
  await recordEntries(
    q,
    rows.map((r, i) => ({
      key: `reversal:${r.key}`,
      kind: r.kind,
      leg: r.leg as Leg,
      token: (r.token as Address | null) ?? null,
      currency: r.currency as Currency,
      amount: -BigInt(r.amount),
      intentId: r.intent_id,
      txHash: r.tx_hash,
      // No block: a reversal is the engine's own correction, never itself undone by a reorg.
      blockNumber: null,
      data: { reversalOf: r.key, blockNumber: r.block_number, blockHash: r.block_hash, reason, ...(deficits.has(i) ? { deficit: deficits.get(i)!.toString() } : {}) },
    })),
  );
  return reversed;
}

/**
 * The shortfall each leg would be left with by the given movements, keyed by the index of
 * the leg's last movement: how much further below zero its balance goes (nothing for a leg
 * that stays at or above zero, or was below already by at least as much). A pooled leg is
 * one balance over every token, as workers spend it; a per-token leg one per token.
 */
async function deficitsOf(q: Queryable, moves: { leg: string; token: string; currency: string; amount: bigint }[]): Promise<Map<number, bigint>> {
  const groups = new Map<string, { leg: string; token: string | undefined; currency: string; delta: bigint; last: number }>();
  moves.forEach((m, i) => {
    const token = PER_TOKEN_LEGS.includes(m.leg as Leg) ? m.token : undefined;
    const id = `${m.leg}\u0000${token ?? "*"}\u0000${m.currency}`;
    const g = groups.get(id) ?? { leg: m.leg, token, currency: m.currency, delta: 0n, last: i };
    g.delta += m.amount;
    g.last = i;
    groups.set(id, g);
  });
  const out = new Map<number, bigint>();
  for (const g of groups.values()) {
    if (g.delta >= 0n) continue;
    const { rows } = await q.execute<{ balance: string }>(sql`
      SELECT COALESCE(SUM(balance), 0)::text AS balance FROM engine.ledger_balances
      WHERE leg = ${g.leg} AND currency = ${g.currency} ${g.token === undefined ? sql`` : sql`AND token = ${g.token}`}`);
    const before = BigInt(rows[0]?.balance ?? "0");
    const below = (x: bigint) => (x < 0n ? -x : 0n);
    const deficit = below(before + g.delta) - below(before);
    if (deficit > 0n) out.set(g.last, deficit);
  }
  return out;
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
  /** The newest final block (`finalBlock(ctx)`): only inflows at or below it are spent. */
  finalBlock: number;
  data?: Record<string, unknown>;
};

/**
 * Spends `amount` from a leg inside the caller's transaction, under a per-leg lock, after
 * checking its final part covers it (pooled legs: the whole leg; per-token legs: the token).
 * Idempotent on `key`: a second call with the same key spends nothing more.
 */
export async function consumeLeg(tx: Tx, spend: Spend): Promise<void> {
  if (spend.amount <= 0n) throw new RangeError(`spend of ${spend.amount} from ${spend.leg}`);
  await lockLeg(tx, spend.leg, spend.token);
  const existing = await tx.execute<{ n: number }>(sql`SELECT 1 AS n FROM engine.ledger WHERE key = ${spend.key}`);
  if (existing.rows.length) return;
  const spendable = await spendableBalance(tx, spend.leg, spend.token ?? undefined, spend.finalBlock);
  if (spendable < spend.amount) throw new InsufficientLegBalanceError(spend.leg, spend.token ?? null, spendable, spend.amount);
  const { finalBlock: _final, ...entry } = spend;
  await recordEntries(tx, [{ ...entry, amount: -spend.amount }]);
}

/** `consumePerpUsdc`: takes a token's final perp USDC into a desk trade (inside the caller's transaction). */
export function consumePerpUsdc(tx: Tx, token: Address, amount: bigint, key: string, finalBlock: number, data?: Record<string, unknown>): Promise<void> {
  return consumeLeg(tx, { leg: Legs.perp, token, amount, key, kind: "desk-spend", currency: "USDC", finalBlock, data });
}

/**
 * Reverses a spend whose transaction will never land (simulation revert, onchain revert,
 * refused order, dropped transaction). A spend is refunded at most once while its refund
 * stands; a refund derived from a log (`fact`) carries its block, and when a reorg reverses
 * it the spend can be refunded again by the canonical log.
 */
export async function refundSpend(q: Queryable, spendKey: string, reason: string, fact?: { blockNumber: number; blockHash: string }): Promise<bigint> {
  const { rows } = await q.execute<{ leg: Leg; token: Address | null; currency: Currency; amount: string }>(
    sql`SELECT leg, token, currency, amount::text AS amount FROM engine.ledger WHERE key = ${spendKey}`,
  );
  const spend = rows[0];
  if (!spend) return 0n;
  const amount = -BigInt(spend.amount);
  if (amount <= 0n) return 0n;
  const standing = await q.execute(sql`
    SELECT 1 FROM engine.ledger l WHERE (l.key = ${`refund:${spendKey}`} OR (l.kind = 'refund' AND l.data->>'spendKey' = ${spendKey}))
      AND NOT EXISTS (SELECT 1 FROM engine.ledger r WHERE r.key = 'reversal:' || l.key)`);
  if (standing.rows.length) return amount; // already refunded: the same refund, recorded once
  await recordEntries(q, [
    {
      key: fact ? `refund:${spendKey}:${fact.blockHash}` : `refund:${spendKey}`,
      kind: "refund",
      leg: spend.leg,
      token: spend.token,
      currency: spend.currency,
      amount,
      blockNumber: fact?.blockNumber ?? null,
      blockHash: fact?.blockHash ?? null,
      data: { reason, spendKey },
    },
  ]);
  return amount;
}

export type CreatorBuyback = { buybackId: number; token: Address; amount: bigint };

/**
 * `consumeCreatorBuybacksAbove`: drains the creator buyback queue. Every token whose queued
 * USDC reaches its minimum (`minFor(token)`, by default the configured minimum) gets a
 * buyback row and a matching spend of its final USDC (`finalBlock`), in one transaction each.
 * Tokens below stay queued.
 */
export async function consumeCreatorBuybacksAbove(
  db: Db,
  minimum: bigint | ((token: Address) => bigint | Promise<bigint>),
  finalBlock: number,
): Promise<CreatorBuyback[]> {
  const queued = await spendableBalancesByToken(db, Legs.creatorBuyback, finalBlock);
  const out: CreatorBuyback[] = [];
  for (const [token, amount] of queued) {
    const min = typeof minimum === "function" ? await minimum(token) : minimum;
    if (amount < min || amount <= 0n) continue;
    const buybackId = await db.transaction(async (tx) => {
      const [row] = await tx
        .insert(tables.buybacks)
        .values({ kind: "creator", token, currencyIn: "USDC", amountIn: amount.toString(), status: "swapping" })
        .returning({ id: tables.buybacks.id });
      await consumeLeg(tx, { leg: Legs.creatorBuyback, token, amount, key: `spend:buyback:${row!.id}`, kind: "buyback-spend", currency: "USDC", finalBlock, data: { buybackId: row!.id } });
      return row!.id;
    });
    out.push({ buybackId, token, amount });
  }
  return out;
}

export type InvariantReport = { ok: boolean; violations: string[] };

/**
 * The ledger invariants of docs/design.md §5.6 that the database alone can check:
 * - per token, fees attributed (`claimed`) = the sum of its allocations to the legs;
 * - no leg is spent beyond what it received (pooled legs as a whole, per-token legs per token),
 *   save for the reorg deficits recorded for it (see the header);
 * - every completed buyback burned exactly the tokens it bought;
 * - every running balance equals the sum of its ledger rows.
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
  // A leg below zero is overspent unless reorg deficits recorded for it cover the shortfall.
  const pooled = await q.execute<{ leg: string; total: string }>(sql`
    SELECT leg, SUM(amount)::text AS total FROM engine.ledger GROUP BY leg
    HAVING SUM(amount) + COALESCE(SUM((data->>'deficit')::numeric), 0) < 0`);
  for (const r of pooled.rows) violations.push(`leg ${r.leg} overspent: balance ${r.total}`);
  const perToken = await q.execute<{ leg: string; token: string; total: string }>(sql`
    SELECT leg, token, SUM(amount)::text AS total FROM engine.ledger
    WHERE leg IN ('claimed', 'weth-claimed', 'perp', 'creator-buyback') AND token IS NOT NULL
    GROUP BY leg, token HAVING SUM(amount) + COALESCE(SUM((data->>'deficit')::numeric), 0) < 0`);
  for (const r of perToken.rows) violations.push(`leg ${r.leg} of ${r.token} overspent: balance ${r.total}`);
  const burns = await q.execute<{ id: number; bought: string; burned: string }>(sql`
    SELECT id, COALESCE(tokens_bought, 0)::text AS bought, COALESCE(tokens_burned, 0)::text AS burned
    FROM engine.buybacks WHERE status = 'done' AND COALESCE(tokens_bought, 0) <> COALESCE(tokens_burned, 0)`);
  for (const r of burns.rows) violations.push(`buyback ${r.id}: bought ${r.bought} ≠ burned ${r.burned}`);
  const balances = await q.execute<{ leg: string; token: string; currency: string; kept: string | null; summed: string | null; kept_alloc: string | null; summed_alloc: string | null }>(sql`
    WITH sums AS (
      SELECT leg, COALESCE(token, '') AS token, currency, SUM(amount) AS balance, COALESCE(SUM(amount) FILTER (WHERE kind = 'allocation'), 0) AS allocated
      FROM engine.ledger GROUP BY leg, COALESCE(token, ''), currency)
    SELECT COALESCE(b.leg, s.leg) AS leg, COALESCE(b.token, s.token) AS token, COALESCE(b.currency, s.currency) AS currency,
           b.balance::text AS kept, s.balance::text AS summed, b.allocated::text AS kept_alloc, s.allocated::text AS summed_alloc
    FROM engine.ledger_balances b FULL OUTER JOIN sums s ON s.leg = b.leg AND s.token = b.token AND s.currency = b.currency
    WHERE COALESCE(b.balance, 0) <> COALESCE(s.balance, 0) OR COALESCE(b.allocated, 0) <> COALESCE(s.allocated, 0)`);
  for (const r of balances.rows) {
    violations.push(
      `balance of leg ${r.leg}${r.token ? ` of ${r.token}` : ""} (${r.currency}): kept ${r.kept ?? "none"} ≠ ledger sum ${r.summed ?? "0"}` +
        (r.kept_alloc !== r.summed_alloc ? ` (allocated kept ${r.kept_alloc ?? "none"} ≠ ${r.summed_alloc ?? "0"})` : ""),
    );
  }
  return { ok: violations.length === 0, violations };
}

export type ReorgDeficit = { leg: Leg; token: Address | null; currency: Currency; balance: bigint };

/**
 * Legs below zero now: a reorg deeper than `CONFIRMATIONS` took back inflows already spent,
 * and later inflows have not repaid it yet. Nothing is spent from them until they have.
 */
export async function reorgDeficits(q: Queryable): Promise<ReorgDeficit[]> {
  // Pooled legs are one balance over every token (their fee rows carry the token they came from).
  const { rows } = await q.execute<{ leg: Leg; token: string; currency: Currency; balance: string }>(sql`
    SELECT leg, CASE WHEN leg IN (${sql.join(PER_TOKEN_LEGS.map((l) => sql`${l}`), sql`, `)}) THEN token ELSE '' END AS token, currency, SUM(balance)::text AS balance
    FROM engine.ledger_balances GROUP BY 1, 2, 3 HAVING SUM(balance) < 0 ORDER BY 1, 2, 3`);
  return rows.map((r) => ({ leg: r.leg, token: (r.token || null) as Address | null, currency: r.currency, balance: BigInt(r.balance) }));
}

export type LedgerTotals = {
  /** Fees attributed to enrolled and other tokens, USDC. */
  feesClaimedUsdc: bigint;
  allocatedUsdc: Record<"protocol" | "asset" | "perp" | "operator", bigint>;
  pending: { protocolUsdc: bigint; assetUsdc: bigint; perpUsdc: bigint; creatorBuybackUsdc: bigint; legacyWeth: bigint; unconvertedWeth: bigint };
};

/** Totals for `/stats`: what was claimed, how it was allocated, what is pending per leg (from the running balances). */
export async function ledgerTotals(q: Queryable): Promise<LedgerTotals> {
  const { rows } = await q.execute<{ leg: string; balance: string; allocated: string }>(
    sql`SELECT leg, SUM(balance)::text AS balance, SUM(allocated)::text AS allocated FROM engine.ledger_balances GROUP BY leg`,
  );
  return totalsOf(new Map(rows.map((r) => [r.leg, { balance: BigInt(r.balance), allocated: BigInt(r.allocated) }])));
}

/**
 * `ledgerTotals` and the balances of per-token `legs` by token (`legBalancesByToken` of each),
 * from one read of the running balances: one row per leg and token, whatever the length of
 * history. The API's pending amounts.
 */
export async function ledgerTotalsAndTokenBalances(q: Queryable, legs: readonly Leg[]): Promise<{ totals: LedgerTotals; byToken: Map<Leg, Map<Address, bigint>> }> {
  const { rows } = await q.execute<{ leg: string; token: string; balance: string; allocated: string }>(
    sql`SELECT leg, token, SUM(balance)::text AS balance, SUM(allocated)::text AS allocated FROM engine.ledger_balances GROUP BY leg, token ORDER BY leg, token`,
  );
  const perLeg = new Map<string, { balance: bigint; allocated: bigint }>();
  const byToken = new Map<Leg, Map<Address, bigint>>(legs.map((leg) => [leg, new Map()]));
  for (const r of rows) {
    const balance = BigInt(r.balance);
    const sum = perLeg.get(r.leg) ?? { balance: 0n, allocated: 0n };
    perLeg.set(r.leg, { balance: sum.balance + balance, allocated: sum.allocated + BigInt(r.allocated) });
    if (r.token !== "" && balance !== 0n) byToken.get(r.leg as Leg)?.set(r.token as Address, balance);
  }
  return { totals: totalsOf(perLeg), byToken };
}

function totalsOf(perLeg: Map<string, { balance: bigint; allocated: bigint }>): LedgerTotals {
  const bal = (leg: string) => perLeg.get(leg)?.balance ?? 0n;
  const alloc = (leg: string) => perLeg.get(leg)?.allocated ?? 0n;
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
