/**
 * Turning attributed fees into leg balances: one attribution row plus its allocations,
 * written together so "claimed = sum of legs" holds at every instant.
 */
import type { Address } from "viem";
import type { Queryable } from "../../core/db/client.js";
import { type OperatorSplit, splitProtocolUsdc } from "../../common/split.js";
import { type LedgerEntry, recordEntries } from "../../core/ledger/journal.js";
import { Legs } from "../../core/ledger/legs.js";

export type FeeFact = {
  /** Unique key of the fact (e.g. `claimed-rewards:<tx>:<logIndex>`). */
  key: string;
  token: Address;
  usdc: bigint;
  /** The token's enrolled split; `null` for a token that is not enrolled (all to the operator leg). */
  split: OperatorSplit | null;
  kind?: string;
  txHash?: string | null;
  blockNumber?: number | null;
  /** The block of the receipt or log the fact comes from (reversed if a reorg takes it away). */
  blockHash?: string | null;
  data?: Record<string, unknown>;
};

/** The ledger rows of one fee fact: the attribution and its split (zero legs omitted). */
export function feeEntries(fact: FeeFact): LedgerEntry[] {
  const common = {
    token: fact.token,
    currency: "USDC" as const,
    txHash: fact.txHash ?? null,
    blockNumber: fact.blockNumber ?? null,
    blockHash: fact.blockHash ?? null,
  };
  const rows: LedgerEntry[] = [{ ...common, key: fact.key, kind: fact.kind ?? "fee-claimed", leg: Legs.claimed, amount: fact.usdc, data: fact.data ?? null }];
  const legs = fact.split ? splitProtocolUsdc(fact.usdc, fact.split) : { protocol: 0n, asset: 0n, perp: 0n, operator: fact.usdc };
  for (const [leg, amount] of Object.entries(legs) as [string, bigint][]) {
    if (amount > 0n) rows.push({ ...common, key: `${fact.key}:${leg}`, kind: "allocation", leg: leg as (typeof Legs)[keyof typeof Legs], amount });
  }
  return rows;
}

/**
 * `splitProtocolUsdc` applied to the ledger: records a fee fact and its allocation in one
 * transaction. Returns false when the fact was already recorded.
 */
export async function allocateFees(q: Queryable, fact: FeeFact): Promise<boolean> {
  const run = async (tx: Queryable) => (await recordEntries(tx, feeEntries(fact))) > 0;
  return "transaction" in q ? (q as { transaction: <T>(f: (tx: Queryable) => Promise<T>) => Promise<T> }).transaction(run) : run(q);
}
