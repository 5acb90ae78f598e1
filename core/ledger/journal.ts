/**
 * The journal: one row per movement, keyed by the fact or intent that caused it, so every
 * write is idempotent; each row moves its leg's running balance (`engine.ledger_balances`) in
 * the same transaction, so a balance is one row to read whatever the length of history.
 *
 * A row derived from a block carries the block's hash, in its key too: a fact derived again
 * from another block after a reorg is a row of its own. A block can also leave the chain and
 * come back whole, under the same hash (the chain returns to the branch it left; the same
 * signed bytes mined again on the same parent at the same timestamp): its facts were reversed
 * with it, and now stand again. Such a fact is booked again under its next incarnation's key
 * (`<key>#2`, `<key>#3`, …), so the ledger equals the chain, while a fact whose row stands is
 * still booked once.
 */
import { sql } from "drizzle-orm";
import type { Address } from "viem";
import { type Db, type Queryable, tables } from "../db/client.js";
import type { Currency, Leg } from "./legs.js";

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
 * exists are skipped, unless that row was reversed by a reorg and the entry carries a block
 * (the block came back: see the header). Returns how many were new.
 */
export async function recordEntries(q: Queryable, entries: LedgerEntry[]): Promise<number> {
  if (!entries.length) return 0;
  return inTransaction(q, async (tx) => {
    const rows = await insertEntries(tx, entries);
    const inserted = new Set(rows.map((r) => r.key));
    for (const entry of entries) {
      if (!entry.blockHash || inserted.has(entry.key)) continue;
      const key = await reinstatedKey(tx, entry.key);
      if (key) rows.push(...(await insertEntries(tx, [{ ...entry, key }])));
    }
    await applyBalances(tx, rows);
    return rows.length;
  });
}

/** The key of a fact's `n`th booking: the first is the fact's own key. */
const incarnation = (key: string, n: number) => (n === 1 ? key : `${key}#${n}`);

/**
 * The key to book a fact under again when every booking of it so far was reversed by a
 * reorg (its block came back), or undefined when one of them stands.
 */
async function reinstatedKey(q: Queryable, key: string): Promise<string | undefined> {
  for (let n = 1; ; n++) {
    const candidate = incarnation(key, n);
    const { rows } = await q.execute<{ reversed: boolean }>(sql`
      SELECT EXISTS (SELECT 1 FROM engine.ledger r WHERE r.key = 'reversal:' || l.key) AS reversed
      FROM engine.ledger l WHERE l.key = ${candidate}`);
    if (!rows.length) return candidate;
    if (!rows[0]!.reversed) return undefined;
  }
}

/** Inserts the rows whose key is free; returns those inserted. */
async function insertEntries(q: Queryable, entries: LedgerEntry[]): Promise<(Inserted & { key: string })[]> {
  return q
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
    .returning({
      key: tables.ledger.key,
      leg: tables.ledger.leg,
      token: tables.ledger.token,
      currency: tables.ledger.currency,
      kind: tables.ledger.kind,
      amount: tables.ledger.amount,
    });
}
