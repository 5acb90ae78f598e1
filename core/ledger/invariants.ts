/** The ledger invariants the database alone can check (docs/design.md §5.6), for the audit. */
import { sql } from "drizzle-orm";
import type { Queryable } from "../db/client.js";

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
  const balances = await q.execute<{
    leg: string;
    token: string;
    currency: string;
    kept: string | null;
    summed: string | null;
    kept_alloc: string | null;
    summed_alloc: string | null;
  }>(sql`
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
