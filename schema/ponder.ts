/**
 * Onchain facts, as ponder tables (schema named per build by the start script, stable
 * views in the `launchpad` schema). Every row is derived from events; nothing here is
 * written outside ponder's indexing functions.
 */
import { index, onchainTable, primaryKey } from "ponder";

/** One row per ERC20 transfer of a tracked token to the dead address. */
export const burn = onchainTable(
  "burn",
  (t) => ({
    id: t.text().primaryKey(), // `${txHash}-${logIndex}`
    token: t.hex().notNull(),
    from: t.hex().notNull(),
    amount: t.bigint().notNull(),
    kind: t.text().notNull(), // protocol-buyback | creator-buyback | organic
    txHash: t.hex().notNull(),
    txFrom: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    tokenTimeIdx: index().on(table.token, table.timestamp),
    kindTimeIdx: index().on(table.kind, table.timestamp),
    blockIdx: index().on(table.blockNumber, table.logIndex),
  }),
);

/** Burned total per token, maintained as burns arrive. */
export const tokenBurnTotal = onchainTable("token_burn_total", (t) => ({
  token: t.hex().primaryKey(),
  burned: t.bigint().notNull(),
  burns: t.integer().notNull(),
}));

/** Daily burn buckets per token (UTC day start, seconds). */
export const burnDaily = onchainTable(
  "burn_daily",
  (t) => ({
    token: t.hex().notNull(),
    day: t.bigint().notNull(),
    burned: t.bigint().notNull(),
    burns: t.integer().notNull(),
  }),
  (table) => ({ pk: primaryKey({ columns: [table.token, table.day] }) }),
);
