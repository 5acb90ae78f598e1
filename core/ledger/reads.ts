/**
 * Reading the legs: a balance (everything recorded) and what is spendable (only what is final:
 * inflows from blocks above the final block, the head less `CONFIRMATIONS`, are pending but
 * not spendable).
 */
import { sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import type { Queryable } from "../db/client.js";
import type { Leg } from "./legs.js";

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

/**
 * Balances of per-token `legs` for `tokens` only (a page of them), by leg then token: one
 * primary-key lookup per (leg, token), whatever the number of tokens in the ledger.
 */
export async function legBalancesOf(q: Queryable, legs: readonly Leg[], tokens: readonly Address[]): Promise<Map<Leg, Map<Address, bigint>>> {
  const out = new Map<Leg, Map<Address, bigint>>(legs.map((leg) => [leg, new Map()]));
  if (!tokens.length || !legs.length) return out;
  const { rows } = await q.execute<{ leg: Leg; token: Address; total: string }>(
    sql`SELECT leg, token, SUM(balance)::text AS total FROM engine.ledger_balances
         WHERE leg IN (${sql.join(
           legs.map((l) => sql`${l}`),
           sql`, `,
         )}) AND token IN (${sql.join(
           tokens.map((t) => sql`${getAddress(t)}`),
           sql`, `,
         )})
         GROUP BY leg, token HAVING SUM(balance) <> 0`,
  );
  for (const r of rows) out.get(r.leg)?.set(r.token, BigInt(r.total));
  return out;
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
    const { rows } = await q.execute<{ token: Address; amount: string }>(
      sql`SELECT token, amount::text AS amount FROM (${unfinalInflows(leg, finalBlock)}) u WHERE token IS NOT NULL`,
    );
    for (const r of rows) balances.set(r.token, (balances.get(r.token) ?? 0n) - BigInt(r.amount));
  }
  return new Map([...balances].filter(([, amount]) => amount > 0n));
}
