/** The ledger's totals for `/stats` and the CLI, from the running balances. */
import { sql } from "drizzle-orm";
import type { Queryable } from "../db/client.js";
import { Legs } from "./legs.js";

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
