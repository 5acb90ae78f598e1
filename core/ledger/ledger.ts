/**
 * The durable money ledger (docs/design.md §5.3), one file per concept:
 *
 * - legs.ts: the leg vocabulary (the accounts money moves between);
 * - journal.ts: one row per movement, keyed by the fact or intent that caused it (every write
 *   idempotent), and the running balance of its leg moved in the same transaction;
 * - reads.ts: a leg's balance, and what is spendable (final inflows only);
 * - spend.ts: spends, and the refund of a spend whose transaction never lands;
 * - accumulators.ts: the spec's accumulators (`pendingBuybackUsdc`, `peekPerpUsdc`,
 *   `consumePerpUsdc`, `consumeCreatorBuybacksAbove`, the legacy WETH), as the workers call them;
 * - buybacks.ts: a buyback's row and the spend that funds it, in one transaction;
 * - reorg.ts: reversals of rows whose block a reorg took, and the deficits a deep one leaves;
 * - invariants.ts: what the audit checks;
 * - totals.ts: the totals of `/stats`.
 *
 * Callers import the concept's file; this page re-exports the whole ledger for the API.
 */
export * from "./accumulators.js";
export * from "./buybacks.js";
export * from "./invariants.js";
export * from "./journal.js";
export * from "./legs.js";
export * from "./reads.js";
export * from "./reorg.js";
export * from "./spend.js";
export * from "./totals.js";
