/**
 * Spending a leg and refunding a spend. A spend is written when the worker commits to it (with
 * the buyback / trade / purchase row that carries it, in one transaction); a spend whose
 * transaction never lands is reversed by a `refund` row keyed by the spend, so nothing is lost
 * or spent twice.
 */
import { sql } from "drizzle-orm";
import type { Address } from "viem";
import type { Queryable, Tx } from "../db/client.js";
import { recordEntries } from "./journal.js";
import type { Currency, Leg } from "./legs.js";
import { spendableBalance } from "./reads.js";

export class InsufficientLegBalanceError extends Error {
  override name = "InsufficientLegBalanceError";
  constructor(
    readonly leg: Leg,
    readonly token: string | null,
    readonly balance: bigint,
    readonly amount: bigint,
  ) {
    super(`leg ${leg}${token ? ` of ${token}` : ""} holds ${balance}, cannot spend ${amount}`);
  }
}

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
