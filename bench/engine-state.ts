/**
 * Engine state for the API benchmarks: the `engine` schema beside the indexed tables, with what
 * a running engine leaves there (workers, heartbeat, oracle samples, settled transactions, a
 * ledger with running balances), so `/stats`, `/tokens` and `/health` read real engine rows.
 * `growLedger` adds a long history to the ledger in bulk and rebuilds the running balances
 * from it, the way migration 3 builds them.
 */
import pg from "pg";
import { getAddress } from "viem";
import { PAIR_FEEDS } from "../common/abis/perps.js";
import { migrate } from "../core/db/migrations.js";

const WORKERS = ["fee-claimer", "buyback-engine", "creator-buyback", "asset-engine", "desk-manager", "desk-risk", "profit-checker", "price-sampler"];

/**
 * One claim of `usdc` for a token and where it goes: split into the legs (5% / 28.5% / 57% /
 * 9.5% of 1 USDC here), the creator queue bought back and burned. Legs sum to the claim.
 */
const CLAIM_ROWS: [leg: string, kind: string, amount: bigint][] = [
  ["claimed", "fee-claimed", 1_000_000n],
  ["protocol", "allocation", 50_000n],
  ["asset", "allocation", 285_000n],
  ["perp", "allocation", 570_000n],
  ["creator-buyback", "allocation", 95_000n],
  ["creator-buyback", "buyback-spend", -95_000n],
];

export type EngineState = { pool: pg.Pool; tokens: string[]; stop: () => Promise<void> };

/** Migrates the engine schema in `databaseUrl` and writes a settled engine's state. */
export async function seedEngineState(databaseUrl: string, options: { claimsPerToken: number; intents: number; priceSamples: number }): Promise<EngineState> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4, application_name: "bench-engine-state" });
  await migrate(pool);
  // The bench's ponder apps write to schema `app`.
  const { rows } = await pool.query<{ token: string }>("SELECT token FROM app.enrollment ORDER BY token");
  const tokens = rows.map((r) => getAddress(r.token));
  const now = new Date().toISOString();
  await pool.query(
    `INSERT INTO engine.worker_state (name, min_interval_seconds, max_interval_seconds, last_run_at, last_success_at, runs, next_run_at)
     SELECT name, 30, 300, now(), now(), 100, now() + interval '30 seconds' FROM unnest($1::text[]) AS w(name)
     ON CONFLICT (name) DO NOTHING`,
    [WORKERS],
  );
  await pool.query(
    `INSERT INTO engine.state (key, value) VALUES ('engine', $1), ('rpc', $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
    [
      JSON.stringify({ heartbeatAt: now, startedAt: now, pid: process.pid, workerIntervalScale: 1 }),
      JSON.stringify({ reachable: true, block: 1, lastError: null, checkedAt: now }),
    ],
  );
  await pool.query(
    `INSERT INTO engine.price_samples (feed, price, decimals, round_id, updated_at)
     SELECT f.feed, 300000000000 + g, 8, g::text, g FROM generate_series(1, $2::int) g CROSS JOIN unnest($1::text[]) AS f(feed)`,
    [Object.values(PAIR_FEEDS), Math.ceil(options.priceSamples / Object.values(PAIR_FEEDS).length)],
  );
  await pool.query(
    `INSERT INTO engine.tx_intents (key, kind, status, "to", data, signer, nonce, tx_hash, block_number, block_hash, final_at, mined_at, created_at, updated_at)
     SELECT 'bench:intent:' || g, 'buyback-swap', 'mined', '0x0000000000000000000000000000000000000001', '0x', '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
            g, '0x' || lpad(to_hex(g), 64, '0'), g, '0x' || lpad(to_hex(g), 64, '0'), now(), now(), now(), now()
     FROM generate_series(1, $1::int) g ON CONFLICT (key) DO NOTHING`,
    [options.intents],
  );
  // Statistics for the bulk inserts, as autovacuum gives a running database within a minute:
  // without them the planner guesses, and /health's count of unsettled intents scanned all
  // 20,000 rows (4.5 ms) instead of reading its partial index (0.01 ms), or not, depending on
  // whether autovacuum had come by before the timing started.
  await pool.query("ANALYZE engine.tx_intents, engine.price_samples, engine.worker_state, engine.state");
  const state: EngineState = { pool, tokens, stop: () => pool.end() };
  await growLedger(state, options.claimsPerToken * CLAIM_ROWS.length * Math.max(tokens.length, 1), "seed");
  return state;
}

/**
 * Appends at least `rows` ledger rows (whole claims, for every enrolled token) in one
 * statement, then rebuilds `engine.ledger_balances` from the ledger in the same transaction.
 * Returns the number of rows added.
 */
export async function growLedger(state: EngineState, rows: number, tag: string): Promise<number> {
  const tokens = state.tokens.length ? state.tokens : [getAddress("0x000000000000000000000000000000000000dEaD")];
  const claims = Math.ceil(rows / (CLAIM_ROWS.length * tokens.length));
  const client = await state.pool.connect();
  try {
    await client.query("BEGIN");
    const inserted = await client.query(
      `INSERT INTO engine.ledger (key, kind, leg, token, currency, amount, tx_hash, block_number, block_hash, data)
       SELECT 'bench:' || $4::text || ':' || g || ':' || t.ord || ':' || r.ord, r.kind, r.leg, t.token, 'USDC', r.amount,
              '0x' || lpad(to_hex(g), 64, '0'), g, '0x' || lpad(to_hex(g), 64, '0'), NULL
       FROM generate_series(1, $3::int) g
       CROSS JOIN unnest($1::text[]) WITH ORDINALITY AS t(token, ord)
       CROSS JOIN unnest($2::text[]) WITH ORDINALITY AS r0(spec, ord)
       CROSS JOIN LATERAL (SELECT split_part(r0.spec, '|', 1) AS leg, split_part(r0.spec, '|', 2) AS kind, split_part(r0.spec, '|', 3)::numeric AS amount, r0.ord) r`,
      [tokens, CLAIM_ROWS.map(([leg, kind, amount]) => `${leg}|${kind}|${amount}`), claims, tag],
    );
    // The running balances, rebuilt from the ledger as migration 3 builds them.
    await client.query("DELETE FROM engine.ledger_balances");
    await client.query(
      `INSERT INTO engine.ledger_balances (leg, token, currency, balance, allocated, rows)
       SELECT leg, COALESCE(token, ''), currency, SUM(amount), COALESCE(SUM(amount) FILTER (WHERE kind = 'allocation'), 0), COUNT(*)
       FROM engine.ledger GROUP BY leg, COALESCE(token, ''), currency`,
    );
    await client.query("COMMIT");
    // Settle the bulk write (visibility map, statistics, dirty pages) before anything is timed.
    await client.query("VACUUM (ANALYZE) engine.ledger");
    await client.query("CHECKPOINT");
    return inserted.rowCount ?? 0;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** Rows in the engine ledger. */
export async function ledgerRows(state: EngineState): Promise<number> {
  const { rows } = await state.pool.query<{ n: string }>("SELECT COUNT(*)::text AS n FROM engine.ledger");
  return Number(rows[0]!.n);
}
