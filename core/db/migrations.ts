/**
 * The engine's tables, as ordered plain-SQL migrations applied at engine start. Each
 * migration runs in its own transaction under an advisory lock, and is recorded in
 * `engine.schema_migrations`; `schema/engine.ts` mirrors the result for typed queries.
 */
import type pg from "pg";

export type Migration = { version: number; name: string; sql: string };

/** Advisory lock key serialising concurrent migrators (engine, CLI, tests). */
const MIGRATION_LOCK_KEY = 0x656e67696e65n; // "engine"

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: "engine tables",
    sql: `
CREATE TABLE engine.tx_intents (
  id bigserial PRIMARY KEY,
  key text NOT NULL,
  kind text NOT NULL,
  worker text,
  status text NOT NULL CHECK (status IN ('pending', 'signed', 'broadcast', 'mined', 'reverted', 'failed')),
  "to" text NOT NULL,
  data text NOT NULL,
  value numeric(78,0) NOT NULL DEFAULT 0,
  nonce integer,
  gas_limit numeric(78,0),
  max_fee_per_gas numeric(78,0),
  max_priority_fee_per_gas numeric(78,0),
  raw_tx text,
  tx_hash text,
  tx_hashes jsonb NOT NULL DEFAULT '[]',
  attempts integer NOT NULL DEFAULT 0,
  replacements integer NOT NULL DEFAULT 0,
  block_number bigint,
  gas_used numeric(78,0),
  error text,
  revert_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  broadcast_at timestamptz,
  mined_at timestamptz
);
CREATE UNIQUE INDEX tx_intents_key ON engine.tx_intents (key);
CREATE INDEX tx_intents_status ON engine.tx_intents (status);
-- At most one live transaction per nonce.
CREATE UNIQUE INDEX tx_intents_live_nonce ON engine.tx_intents (nonce) WHERE status IN ('signed', 'broadcast', 'mined');

CREATE TABLE engine.ledger (
  id bigserial PRIMARY KEY,
  key text NOT NULL,
  kind text NOT NULL,
  leg text NOT NULL,
  token text,
  currency text NOT NULL,
  amount numeric(78,0) NOT NULL,
  intent_id bigint,
  tx_hash text,
  block_number bigint,
  data jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX ledger_key ON engine.ledger (key);
CREATE INDEX ledger_leg_token ON engine.ledger (leg, token);

CREATE TABLE engine.worker_state (
  name text PRIMARY KEY,
  min_interval_seconds integer NOT NULL,
  max_interval_seconds integer NOT NULL,
  last_run_at timestamptz,
  last_success_at timestamptz,
  last_error_at timestamptz,
  last_error text,
  last_result jsonb,
  runs integer NOT NULL DEFAULT 0,
  failures integer NOT NULL DEFAULT 0,
  consecutive_failures integer NOT NULL DEFAULT 0,
  running boolean NOT NULL DEFAULT false,
  next_run_at timestamptz
);

CREATE TABLE engine.state (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE engine.run_requests (
  id bigserial PRIMARY KEY,
  worker text NOT NULL,
  requested_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz,
  ok boolean,
  result jsonb
);

CREATE TABLE engine.agent_log (
  id bigserial PRIMARY KEY,
  token text,
  worker text NOT NULL,
  decision text NOT NULL,
  reason text NOT NULL,
  data jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_log_token ON engine.agent_log (token, id);

CREATE TABLE engine.tokens (
  token text PRIMARY KEY,
  enrolled boolean NOT NULL,
  enrol_order integer,
  creator text,
  asset_bps integer,
  perp_bps integer,
  creator_bps integer,
  active boolean NOT NULL DEFAULT false,
  halted boolean NOT NULL DEFAULT false,
  paired_token text,
  pool_key jsonb,
  reward_recipients jsonb,
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE engine.token_mandates (
  token text PRIMARY KEY,
  desk_pair_index integer,
  max_leverage numeric,
  max_drawdown_bps integer,
  take_profit_bps integer,
  buyback_min_usdc numeric(78,0),
  max_desk_usdc numeric(78,0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE engine.price_samples (
  id bigserial PRIMARY KEY,
  feed text NOT NULL,
  price numeric(78,0) NOT NULL,
  decimals integer NOT NULL,
  round_id text NOT NULL,
  updated_at bigint NOT NULL,
  sampled_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX price_samples_feed ON engine.price_samples (feed, id);

CREATE TABLE engine.claim_cycles (
  id bigserial PRIMARY KEY,
  tokens jsonb NOT NULL,
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);

CREATE TABLE engine.weth_conversions (
  id bigserial PRIMARY KEY,
  weth_in numeric(78,0) NOT NULL,
  shares jsonb NOT NULL,
  usdc_out numeric(78,0),
  swap_intent_id bigint,
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);

CREATE TABLE engine.buybacks (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('protocol', 'creator')),
  token text NOT NULL,
  currency_in text NOT NULL,
  amount_in numeric(78,0) NOT NULL,
  tokens_bought numeric(78,0),
  tokens_burned numeric(78,0),
  swap_intent_id bigint,
  burn_intent_id bigint,
  swap_tx_hash text,
  burn_tx_hash text,
  block_number bigint,
  status text NOT NULL,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX buybacks_kind_token ON engine.buybacks (kind, token);

CREATE TABLE engine.asset_purchases (
  id bigserial PRIMARY KEY,
  usdc_in numeric(78,0) NOT NULL,
  asset_bought numeric(78,0),
  asset_staked numeric(78,0),
  shares numeric(78,0),
  swap_intent_id bigint,
  stake_intent_id bigint,
  status text NOT NULL,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);

CREATE TABLE engine.desks (
  token text PRIMARY KEY,
  pair_index integer NOT NULL,
  side text NOT NULL,
  halted boolean NOT NULL DEFAULT false,
  halt_reason text,
  peak_value_usdc numeric(78,0),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE engine.desk_trades (
  id bigserial PRIMARY KEY,
  token text NOT NULL,
  pair_index integer NOT NULL,
  trade_index integer,
  side text NOT NULL,
  leverage numeric(78,0) NOT NULL,
  basis_usdc numeric(78,0) NOT NULL,
  collateral numeric(78,0),
  open_price numeric(78,0),
  opened_timestamp bigint,
  order_id numeric(78,0),
  close_order_id numeric(78,0),
  close_amount numeric(78,0),
  close_reason text,
  open_intent_id bigint,
  close_intent_id bigint,
  pending_topup numeric(78,0),
  topups integer NOT NULL DEFAULT 0,
  usdc_returned numeric(78,0) NOT NULL DEFAULT 0,
  realised_pnl numeric(78,0) NOT NULL DEFAULT 0,
  status text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz
);
CREATE INDEX desk_trades_token ON engine.desk_trades (token, status);

CREATE TABLE engine.desk_halts (
  id bigserial PRIMARY KEY,
  token text NOT NULL,
  halted boolean NOT NULL,
  reason text NOT NULL,
  data jsonb,
  intent_id bigint,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE engine.perps_events (
  tx_hash text NOT NULL,
  log_index integer NOT NULL,
  block_number bigint NOT NULL,
  name text NOT NULL,
  trade_id bigint,
  data jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tx_hash, log_index)
);
`,
  },
  {
    version: 2,
    name: "agent tables",
    sql: `
CREATE TABLE engine.agents (
  id text PRIMARY KEY,
  owner text NOT NULL,
  wallet text NOT NULL,
  wallet_key text NOT NULL,
  status text NOT NULL CHECK (status IN ('draft', 'charter-ready', 'launching', 'launched', 'running', 'failed')),
  status_reason text,
  charter jsonb,
  charter_hash text,
  charter_source text,
  launch jsonb,
  launch_attempt integer NOT NULL DEFAULT 1,
  token text,
  pool_id text,
  fee_tx text,
  deploy_tx text,
  dev_buy_tx text,
  enroll_tx text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  launched_at timestamptz
);
CREATE UNIQUE INDEX agents_wallet ON engine.agents (wallet);
CREATE UNIQUE INDEX agents_token ON engine.agents (token);
CREATE INDEX agents_owner ON engine.agents (owner, created_at);

CREATE TABLE engine.agent_auth_nonces (
  nonce text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  used_by text
);
CREATE INDEX agent_auth_nonces_expiry ON engine.agent_auth_nonces (expires_at);

CREATE TABLE engine.agent_sessions (
  token_hash text PRIMARY KEY,
  address text NOT NULL,
  chain_id integer NOT NULL,
  nonce text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX agent_sessions_expiry ON engine.agent_sessions (expires_at);

CREATE TABLE engine.agent_tx_intents (
  id bigserial PRIMARY KEY,
  key text NOT NULL,
  kind text NOT NULL,
  signer text NOT NULL,
  agent_id text,
  status text NOT NULL CHECK (status IN ('pending', 'signed', 'broadcast', 'mined', 'reverted', 'failed')),
  "to" text NOT NULL,
  data text NOT NULL,
  value numeric(78,0) NOT NULL DEFAULT 0,
  nonce integer,
  gas_limit numeric(78,0),
  max_fee_per_gas numeric(78,0),
  max_priority_fee_per_gas numeric(78,0),
  raw_tx text,
  tx_hash text,
  tx_hashes jsonb NOT NULL DEFAULT '[]',
  attempts integer NOT NULL DEFAULT 0,
  replacements integer NOT NULL DEFAULT 0,
  block_number bigint,
  gas_used numeric(78,0),
  error text,
  revert_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  broadcast_at timestamptz,
  mined_at timestamptz
);
CREATE UNIQUE INDEX agent_tx_intents_key ON engine.agent_tx_intents (key);
CREATE INDEX agent_tx_intents_signer ON engine.agent_tx_intents (signer, status);
-- At most one live transaction per (signer, nonce).
CREATE UNIQUE INDEX agent_tx_intents_live_nonce ON engine.agent_tx_intents (signer, nonce) WHERE status IN ('signed', 'broadcast', 'mined');

CREATE TABLE engine.agent_credits (
  agent_id text NOT NULL,
  kind text NOT NULL,
  currency text NOT NULL,
  amount numeric(78,0) NOT NULL,
  tx_hash text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (agent_id, kind)
);
`,
  },
  {
    version: 3,
    name: "one intents table for every signer, finality, running balances",
    sql: `
-- One pipeline for every signer: agent wallets' intents move into engine.tx_intents.
ALTER TABLE engine.tx_intents DROP CONSTRAINT IF EXISTS tx_intents_status_check;
ALTER TABLE engine.tx_intents ADD CONSTRAINT tx_intents_status_check
  CHECK (status IN ('pending', 'signed', 'broadcast', 'mined', 'reverted', 'failed', 'dropped'));
ALTER TABLE engine.tx_intents
  ADD COLUMN signer text,
  ADD COLUMN agent_id text,
  ADD COLUMN block_hash text,
  ADD COLUMN final_at timestamptz,
  ADD COLUMN reorgs integer NOT NULL DEFAULT 0;
INSERT INTO engine.tx_intents (key, kind, worker, status, "to", data, value, nonce, gas_limit, max_fee_per_gas,
  max_priority_fee_per_gas, raw_tx, tx_hash, tx_hashes, attempts, replacements, block_number, gas_used, error,
  revert_reason, created_at, updated_at, broadcast_at, mined_at, signer, agent_id)
SELECT key, kind, NULL, status, "to", data, value, nonce, gas_limit, max_fee_per_gas, max_priority_fee_per_gas,
  raw_tx, tx_hash, tx_hashes, attempts, replacements, block_number, gas_used, error, revert_reason, created_at,
  updated_at, broadcast_at, mined_at, signer, agent_id
FROM engine.agent_tx_intents ON CONFLICT (key) DO NOTHING;
DROP TABLE engine.agent_tx_intents;
-- A nonce is held by at most one transaction not yet mined, per signer. Mined rows keep
-- theirs as history: after a reorg the watcher sends them back to broadcast first.
DROP INDEX engine.tx_intents_live_nonce;
CREATE UNIQUE INDEX tx_intents_live_nonce ON engine.tx_intents (signer, nonce) WHERE status IN ('signed', 'broadcast');
CREATE INDEX tx_intents_signer ON engine.tx_intents (signer, status);
CREATE INDEX tx_intents_block ON engine.tx_intents (block_number) WHERE block_hash IS NOT NULL;

-- Ledger rows derived from a receipt or a log carry the hash of that block.
ALTER TABLE engine.ledger ADD COLUMN block_hash text;
CREATE INDEX ledger_block ON engine.ledger (block_number) WHERE block_hash IS NOT NULL;
-- Rows from before blocks carried hashes, checked against the head after a rollback.
CREATE INDEX ledger_unhashed_block ON engine.ledger (block_number) WHERE block_hash IS NULL AND block_number IS NOT NULL;
-- The refunds of a spend (at most one standing).
CREATE INDEX ledger_refund_of ON engine.ledger ((data->>'spendKey')) WHERE kind = 'refund';

-- Running balance of every (leg, token, currency), updated in the transaction of each ledger row.
CREATE TABLE engine.ledger_balances (
  leg text NOT NULL,
  token text NOT NULL DEFAULT '',
  currency text NOT NULL,
  balance numeric(78,0) NOT NULL DEFAULT 0,
  allocated numeric(78,0) NOT NULL DEFAULT 0,
  rows bigint NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (leg, token, currency)
);
INSERT INTO engine.ledger_balances (leg, token, currency, balance, allocated, rows)
SELECT leg, COALESCE(token, ''), currency, SUM(amount), COALESCE(SUM(amount) FILTER (WHERE kind = 'allocation'), 0), COUNT(*)
FROM engine.ledger GROUP BY leg, COALESCE(token, ''), currency;

-- Perps events applied by the engine: their block, and the trade as it was before, so a
-- reorg can undo them.
ALTER TABLE engine.perps_events ADD COLUMN block_hash text, ADD COLUMN before jsonb;
`,
  },
  {
    version: 4,
    name: "health reads bounded by the work in flight, not by history",
    sql: `
-- Health counts every intent except the final mined ones (the history, which only grows): the
-- work in flight, mined intents awaiting finality and the permanent failures.
CREATE INDEX tx_intents_unsettled_status ON engine.tx_intents (status) WHERE status <> 'mined' OR final_at IS NULL;
-- Intents not final yet, oldest first.
CREATE INDEX tx_intents_not_final ON engine.tx_intents (id)
  WHERE status IN ('pending', 'signed', 'broadcast') OR (status IN ('mined', 'reverted') AND final_at IS NULL);
-- The latest permanent failures.
CREATE INDEX tx_intents_failures ON engine.tx_intents (updated_at) WHERE status IN ('failed', 'reverted', 'dropped');
`,
  },
];

/**
 * Creates the `engine` schema and applies every migration not yet recorded, in order,
 * each in its own transaction. Safe to call concurrently and on every start.
 */
export async function migrate(pool: pg.Pool, migrations: Migration[] = MIGRATIONS): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
    await client.query("CREATE SCHEMA IF NOT EXISTS engine");
    await client.query(
      "CREATE TABLE IF NOT EXISTS engine.schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const { rows } = await client.query<{ version: number }>("SELECT version FROM engine.schema_migrations");
    const done = new Set(rows.map((r) => r.version));
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query("INSERT INTO engine.schema_migrations (version, name) VALUES ($1, $2)", [migration.version, migration.name]);
        await client.query("COMMIT");
        applied.push(migration.version);
      } catch (error) {
        await client.query("ROLLBACK");
        throw new Error(`engine migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`);
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]).catch(() => {});
    client.release();
  }
  return applied;
}
