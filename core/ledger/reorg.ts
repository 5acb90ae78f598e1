/**
 * Reorgs in the ledger. Rows derived from a receipt or a log carry its block hash; when a
 * reorg takes the block away, `reverseBlocks` writes a compensating row per lost row
 * (`reversal:<key>`, same leg and kind, amount negated), and the fact is derived again from
 * the canonical chain.
 *
 * A reorg deeper than `CONFIRMATIONS` can still take back an inflow that was spent; its
 * reversal then leaves the leg below zero, and that reversal records the shortfall
 * (`data.deficit`). The leg's later inflows repay it before anything more is spent
 * (`reorgDeficits`), and the invariants accept a negative balance only down to the deficits
 * recorded for it.
 */
import { sql } from "drizzle-orm";
import type { Address } from "viem";
import type { Queryable } from "../db/client.js";
import { recordEntries } from "./journal.js";
import { type Currency, type Leg, PER_TOKEN_LEGS } from "./legs.js";

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
  const { rows } = await q.execute<{
    key: string;
    kind: string;
    leg: string;
    token: string | null;
    currency: string;
    amount: string;
    intent_id: number | null;
    tx_hash: string | null;
    block_number: number | null;
    block_hash: string;
  }>(sql`
    SELECT l.key, l.kind, l.leg, l.token, l.currency, l.amount::text AS amount, l.intent_id, l.tx_hash, l.block_number, l.block_hash
    FROM engine.ledger l
    WHERE l.block_hash IN (${sql.join(
      blockHashes.map((h) => sql`${h}`),
      sql`, `,
    )})
      AND NOT EXISTS (SELECT 1 FROM engine.ledger r WHERE r.key = 'reversal:' || l.key)
    ORDER BY l.id`);
  if (!rows.length) return [];
  const deficits = await deficitsOf(
    q,
    rows.map((r) => ({ leg: r.leg, token: r.token ?? "", currency: r.currency, amount: -BigInt(r.amount) })),
  );
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
      data: {
        reversalOf: r.key,
        blockNumber: r.block_number,
        blockHash: r.block_hash,
        reason,
        ...(deficits.has(i) ? { deficit: deficits.get(i)!.toString() } : {}),
      },
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

export type ReorgDeficit = { leg: Leg; token: Address | null; currency: Currency; balance: bigint };

/**
 * Legs below zero now: a reorg deeper than `CONFIRMATIONS` took back inflows already spent,
 * and later inflows have not repaid it yet. Nothing is spent from them until they have.
 */
export async function reorgDeficits(q: Queryable): Promise<ReorgDeficit[]> {
  // Pooled legs are one balance over every token (their fee rows carry the token they came from).
  const { rows } = await q.execute<{ leg: Leg; token: string; currency: Currency; balance: string }>(sql`
    SELECT leg, CASE WHEN leg IN (${sql.join(
      PER_TOKEN_LEGS.map((l) => sql`${l}`),
      sql`, `,
    )}) THEN token ELSE '' END AS token, currency, SUM(balance)::text AS balance
    FROM engine.ledger_balances GROUP BY 1, 2, 3 HAVING SUM(balance) < 0 ORDER BY 1, 2, 3`);
  return rows.map((r) => ({ leg: r.leg, token: (r.token || null) as Address | null, currency: r.currency, balance: BigInt(r.balance) }));
}
