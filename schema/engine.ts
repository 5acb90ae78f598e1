/**
 * The engine's own state, in the PostgreSQL schema `engine`: the transaction intents of every
 * signer, the money ledger, worker health, desks, buybacks and the agent log (the agent
 * launch flow's tables are in `schema/agents.ts`).
 *
 * These declarations are the only statement of the engine's tables: columns, defaults, keys,
 * indexes (partial ones with their `WHERE`) and `CHECK` constraints. `npm run db:generate`
 * (drizzle-kit) turns a change here into the next SQL migration under `core/db/migrations/`,
 * which `core/db/migrations.ts` applies at engine and API start. Columns are listed in their
 * order in the table (columns added by a later migration come last), so a database created by
 * the migrations matches one upgraded through them. Money columns are `numeric(78,0)` base
 * units (read as strings, converted to bigint at the edge of each query); addresses are
 * checksummed strings.
 */
import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  check,
  index,
  integer,
  jsonb,
  numeric,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  varchar,
} from "drizzle-orm/pg-core";

export const engineSchema = pgSchema("engine");

const amount = (name: string) => numeric(name, { precision: 78, scale: 0 });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
/** A numeric column's default of zero, as the SQL literal `0`. */
const ZERO = sql`0`;

/** `column IN ('a', 'b', …)`: the condition of a CHECK constraint over a list of names. */
function oneOf(column: string, values: readonly string[]) {
  return sql.raw(`${column} IN (${values.map((v) => `'${v}'`).join(", ")})`);
}

/**
 * The migrations applied to this database, in the order applied. `name` is the tag of a
 * generated migration (`0000_engine_tables` = `core/db/migrations/0000_engine_tables.sql`);
 * on a database created before the migrations were generated, versions 1–4 are the
 * hand-written migrations it ran, named in words. Declared here like every table, so the
 * first generated migration creates it; `core/db/migrations.ts` keeps it.
 */
export const schemaMigrations = engineSchema.table("schema_migrations", {
  version: integer("version").primaryKey(),
  name: text("name").notNull(),
  appliedAt: ts("applied_at").notNull().defaultNow(),
});

/** The statuses of a transaction intent (see `txIntents.status`). */
export const TX_INTENT_STATUSES = ["pending", "signed", "broadcast", "mined", "reverted", "failed", "dropped"] as const;

/**
 * One row per transaction the service means to send, from any signer (the operator wallet or
 * an agent wallet). `key` is derived from what caused it (e.g. `buyback:12:swap`), so asking
 * twice never sends twice. The signed bytes of every attempt are kept (`txHashes`), so a
 * restart can rebroadcast or find the one mined. A mined intent records its block number and
 * hash; it is final (`finalAt`) once `CONFIRMATIONS` blocks cover it.
 */
export const txIntents = engineSchema.table(
  "tx_intents",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    key: text("key").notNull(),
    kind: text("kind").notNull(),
    worker: text("worker"),
    /**
     * pending → signed → broadcast → mined | reverted; failed = never sent (simulation or a
     * permanent error); dropped = its signed bytes can never be mined (nonce taken), the work
     * is planned again under a new intent. A reorg sends mined/reverted back to broadcast.
     */
    status: text("status").notNull(),
    to: text("to").notNull(),
    data: text("data").notNull(),
    value: amount("value").notNull().default(ZERO),
    nonce: integer("nonce"),
    gasLimit: amount("gas_limit"),
    maxFeePerGas: amount("max_fee_per_gas"),
    maxPriorityFeePerGas: amount("max_priority_fee_per_gas"),
    rawTx: text("raw_tx"),
    txHash: text("tx_hash"),
    txHashes: jsonb("tx_hashes").$type<string[]>().notNull().default([]),
    attempts: integer("attempts").notNull().default(0),
    replacements: integer("replacements").notNull().default(0),
    blockNumber: bigint("block_number", { mode: "number" }),
    gasUsed: amount("gas_used"),
    error: text("error"),
    revertReason: text("revert_reason"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    broadcastAt: ts("broadcast_at"),
    minedAt: ts("mined_at"),
    /** The signing address (operator or agent wallet). */
    signer: text("signer"),
    agentId: text("agent_id"),
    blockHash: text("block_hash"),
    finalAt: ts("final_at"),
    /** How many times a reorg took this intent's block away. */
    reorgs: integer("reorgs").notNull().default(0),
    /**
     * The leadership epoch (`leadership.epoch`) of the engine that wrote the last transition;
     * null for the API's and agent wallets' own sends. A transition is written only while that
     * epoch is current (core/leadership.ts), so a deposed leader's writes change nothing.
     */
    epoch: bigint("epoch", { mode: "bigint" }),
  },
  (t) => [
    uniqueIndex("tx_intents_key").on(t.key),
    index("tx_intents_status").on(t.status),
    // A nonce is held by at most one transaction not yet mined, per signer. Mined rows keep
    // theirs as history: after a reorg the watcher sends them back to broadcast first.
    uniqueIndex("tx_intents_live_nonce").on(t.signer, t.nonce).where(sql`status IN ('signed', 'broadcast')`),
    index("tx_intents_signer").on(t.signer, t.status),
    index("tx_intents_block").on(t.blockNumber).where(sql`block_hash IS NOT NULL`),
    // Health counts every intent but the final mined ones (the history, which only grows): the
    // work in flight, mined intents awaiting finality and the permanent failures.
    index("tx_intents_unsettled_status").on(t.status).where(sql`status <> 'mined' OR final_at IS NULL`),
    // Intents not final yet, oldest first.
    index("tx_intents_not_final").on(t.id).where(sql`status IN ('pending', 'signed', 'broadcast') OR (status IN ('mined', 'reverted') AND final_at IS NULL)`),
    // The latest permanent failures.
    index("tx_intents_failures").on(t.updatedAt).where(sql`status IN ('failed', 'reverted', 'dropped')`),
    check("tx_intents_status_check", oneOf("status", TX_INTENT_STATUSES)),
  ],
);

/**
 * The money ledger: one row per movement, keyed by the fact or intent that caused it.
 * `amount` is signed (credit > 0, spend < 0); a leg's balance is the sum of its rows, kept
 * as a running balance in `ledger_balances`. A row derived from a receipt or a log carries
 * its block hash; a reorg that takes the block away reverses it with a row keyed
 * `reversal:<key>` (same leg and kind, amount negated).
 * Legs: `claimed` (fees attributed per token, in USDC), `weth-claimed` (WETH fees awaiting
 * conversion), `protocol`, `asset`, `perp`, `creator-buyback`, `legacy-weth`, `operator`.
 */
export const ledger = engineSchema.table(
  "ledger",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    key: text("key").notNull(),
    kind: text("kind").notNull(),
    leg: text("leg").notNull(),
    token: text("token"),
    currency: text("currency").notNull(),
    amount: amount("amount").notNull(),
    intentId: bigint("intent_id", { mode: "number" }),
    txHash: text("tx_hash"),
    blockNumber: bigint("block_number", { mode: "number" }),
    data: jsonb("data").$type<Record<string, unknown>>(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** The hash of the block of the receipt or log this row derives from. */
    blockHash: text("block_hash"),
  },
  (t) => [
    uniqueIndex("ledger_key").on(t.key),
    index("ledger_leg_token").on(t.leg, t.token),
    index("ledger_block").on(t.blockNumber).where(sql`block_hash IS NOT NULL`),
    // Rows from before blocks carried hashes, checked against the head after a rollback.
    index("ledger_unhashed_block").on(t.blockNumber).where(sql`block_hash IS NULL AND block_number IS NOT NULL`),
    // The refunds of a spend (at most one standing).
    index("ledger_refund_of").on(sql`(data->>'spendKey')`).where(sql`kind = 'refund'`),
  ],
);

/**
 * The running balance of each (leg, token, currency) — `token` is '' for pooled legs —
 * updated in the same transaction as every ledger row that moves it, like an account
 * balance beside its journal. `allocated` sums the leg's allocation rows. The audit checks
 * every balance against the sum of its ledger rows.
 */
export const ledgerBalances = engineSchema.table(
  "ledger_balances",
  {
    leg: text("leg").notNull(),
    token: text("token").notNull().default(""),
    currency: text("currency").notNull(),
    balance: amount("balance").notNull().default(ZERO),
    allocated: amount("allocated").notNull().default(ZERO),
    rows: bigint("rows", { mode: "number" }).notNull().default(0),
    updatedAt: ts("updated_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "ledger_balances_pkey", columns: [t.leg, t.token, t.currency] })],
);

/** Per-worker schedule and health, for `GET /health`. */
export const workerState = engineSchema.table("worker_state", {
  name: text("name").primaryKey(),
  minIntervalSeconds: integer("min_interval_seconds").notNull(),
  maxIntervalSeconds: integer("max_interval_seconds").notNull(),
  lastRunAt: ts("last_run_at"),
  lastSuccessAt: ts("last_success_at"),
  lastErrorAt: ts("last_error_at"),
  lastError: text("last_error"),
  lastResult: jsonb("last_result"),
  runs: integer("runs").notNull().default(0),
  failures: integer("failures").notNull().default(0),
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  running: boolean("running").notNull().default(false),
  nextRunAt: ts("next_run_at"),
});

/** Small named values: the engine's heartbeat and RPC status, cursors of the workers. */
export const engineState = engineSchema.table("state", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/** Requests to run one worker cycle now (the operator endpoint writes, the leader runs). */
export const runRequests = engineSchema.table("run_requests", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  worker: text("worker").notNull(),
  requestedAt: ts("requested_at").notNull().defaultNow(),
  startedAt: ts("started_at"),
  finishedAt: ts("finished_at"),
  ok: boolean("ok"),
  result: jsonb("result"),
});

/** Every decision a worker takes for a token, with its reason (shown by the API and prospectus). */
export const agentLog = engineSchema.table(
  "agent_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    token: text("token"),
    worker: text("worker").notNull(),
    decision: text("decision").notNull(),
    reason: text("reason").notNull(),
    data: jsonb("data"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("agent_log_token").on(t.token, t.id)],
);

/** Cache of the registry and of each token's locker configuration. */
export const tokens = engineSchema.table("tokens", {
  token: text("token").primaryKey(),
  enrolled: boolean("enrolled").notNull(),
  enrolOrder: integer("enrol_order"),
  creator: text("creator"),
  assetBps: integer("asset_bps"),
  perpBps: integer("perp_bps"),
  creatorBps: integer("creator_bps"),
  active: boolean("active").notNull().default(false),
  halted: boolean("halted").notNull().default(false),
  pairedToken: text("paired_token"),
  poolKey: jsonb("pool_key"),
  rewardRecipients: jsonb("reward_recipients").$type<string[]>(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/** Per-token mandate (agent charters); absent → defaults of `core/mandate.ts`. */
export const tokenMandates = engineSchema.table("token_mandates", {
  token: text("token").primaryKey(),
  deskPairIndex: integer("desk_pair_index"),
  maxLeverage: numeric("max_leverage"),
  maxDrawdownBps: integer("max_drawdown_bps"),
  takeProfitBps: integer("take_profit_bps"),
  buybackMinUsdc: amount("buyback_min_usdc"),
  maxDeskUsdc: amount("max_desk_usdc"),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/** Oracle samples of the price-sampler: the momentum and volatility window. */
export const priceSamples = engineSchema.table(
  "price_samples",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    feed: text("feed").notNull(),
    price: amount("price").notNull(),
    decimals: integer("decimals").notNull(),
    roundId: text("round_id").notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
    sampledAt: ts("sampled_at").notNull().defaultNow(),
  },
  (t) => [index("price_samples_feed").on(t.feed, t.id)],
);

/** One fee-claimer round: the batch it chose, so a crash mid-batch resumes the same batch. */
export const claimCycles = engineSchema.table("claim_cycles", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  tokens: jsonb("tokens").$type<string[]>().notNull(),
  status: text("status").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
  completedAt: ts("completed_at"),
});

/** WETH fees converted to USDC (one swap per row). */
export const wethConversions = engineSchema.table("weth_conversions", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  wethIn: amount("weth_in").notNull(),
  shares: jsonb("shares").$type<Record<string, string>>().notNull(),
  usdcOut: amount("usdc_out"),
  swapIntentId: bigint("swap_intent_id", { mode: "number" }),
  status: text("status").notNull(),
  createdAt: ts("created_at").notNull().defaultNow(),
  completedAt: ts("completed_at"),
});

/** Buybacks of the protocol token (`protocol`) and of creator tokens (`creator`): swap, then burn. */
export const buybacks = engineSchema.table(
  "buybacks",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    kind: text("kind").notNull(),
    token: text("token").notNull(),
    currencyIn: text("currency_in").notNull(),
    amountIn: amount("amount_in").notNull(),
    tokensBought: amount("tokens_bought"),
    tokensBurned: amount("tokens_burned"),
    swapIntentId: bigint("swap_intent_id", { mode: "number" }),
    burnIntentId: bigint("burn_intent_id", { mode: "number" }),
    swapTxHash: text("swap_tx_hash"),
    burnTxHash: text("burn_tx_hash"),
    blockNumber: bigint("block_number", { mode: "number" }),
    /** swapping → burning → done; failed (the input was refunded to its leg). */
    status: text("status").notNull(),
    error: text("error"),
    createdAt: ts("created_at").notNull().defaultNow(),
    completedAt: ts("completed_at"),
  },
  (t) => [index("buybacks_kind_token").on(t.kind, t.token), check("buybacks_kind_check", oneOf("kind", ["protocol", "creator"]))],
);

/** Batch purchases of the secondary asset, staked in the vault. */
export const assetPurchases = engineSchema.table("asset_purchases", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  usdcIn: amount("usdc_in").notNull(),
  assetBought: amount("asset_bought"),
  assetStaked: amount("asset_staked"),
  shares: amount("shares"),
  swapIntentId: bigint("swap_intent_id", { mode: "number" }),
  stakeIntentId: bigint("stake_intent_id", { mode: "number" }),
  status: text("status").notNull(),
  error: text("error"),
  createdAt: ts("created_at").notNull().defaultNow(),
  completedAt: ts("completed_at"),
});

/** Per-token desk: its market, direction and halt state. */
export const desks = engineSchema.table("desks", {
  token: text("token").primaryKey(),
  pairIndex: integer("pair_index").notNull(),
  side: text("side").notNull(),
  halted: boolean("halted").notNull().default(false),
  haltReason: text("halt_reason"),
  peakValueUsdc: amount("peak_value_usdc"),
  createdAt: ts("created_at").notNull().defaultNow(),
  updatedAt: ts("updated_at").notNull().defaultNow(),
});

/**
 * One perps trade of a desk. `basisUsdc` is what the perp leg paid in (collateral plus
 * top-ups); `collateral` the net collateral onchain. Status: opening → open → closing →
 * closed | liquidated; canceled (open order refused, USDC refunded); failed (never sent).
 */
export const deskTrades = engineSchema.table(
  "desk_trades",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    token: text("token").notNull(),
    pairIndex: integer("pair_index").notNull(),
    tradeIndex: integer("trade_index"),
    side: text("side").notNull(),
    leverage: amount("leverage").notNull(),
    basisUsdc: amount("basis_usdc").notNull(),
    collateral: amount("collateral"),
    openPrice: amount("open_price"),
    openedTimestamp: bigint("opened_timestamp", { mode: "number" }),
    orderId: amount("order_id"),
    closeOrderId: amount("close_order_id"),
    closeAmount: amount("close_amount"),
    closeReason: text("close_reason"),
    openIntentId: bigint("open_intent_id", { mode: "number" }),
    closeIntentId: bigint("close_intent_id", { mode: "number" }),
    /** A margin top-up spent from the perp leg and not yet confirmed onchain (top-up number `topups + 1`). */
    pendingTopup: amount("pending_topup"),
    /**
     * Top-ups decided after `pendingTopup`'s, each spent and waiting its turn (numbers `topups + 2`, …), as decimal
     * strings. Only a reorg fills it: one that takes back a top-up's fill after the next top-up was decided puts both
     * back in flight, and the exchange fills them in the order they were placed.
     */
    queuedTopups: jsonb("queued_topups").$type<string[]>().notNull().default([]),
    topups: integer("topups").notNull().default(0),
    usdcReturned: amount("usdc_returned").notNull().default(ZERO),
    realisedPnl: amount("realised_pnl").notNull().default(ZERO),
    /**
     * The venue's latest mark of the open trade (profit-checker, desk-risk; engine/perps/types.ts `TradeMark`): the
     * pair price it was marked at (1e10), what a close deducts besides the PnL (USDC, negative when realized PnL
     * outweighs the fees) and where the venue liquidates the trade (1e10). The API's desk figures use them.
     */
    markPrice: amount("mark_price"),
    markCharges: amount("mark_charges"),
    markLiquidationPrice: amount("mark_liquidation_price"),
    markedAt: ts("marked_at"),
    status: text("status").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    closedAt: ts("closed_at"),
  },
  (t) => [index("desk_trades_token").on(t.token, t.status)],
);

/** Every halt and unhalt of a desk, with its reason. */
export const deskHalts = engineSchema.table("desk_halts", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  token: text("token").notNull(),
  halted: boolean("halted").notNull(),
  reason: text("reason").notNull(),
  data: jsonb("data"),
  intentId: bigint("intent_id", { mode: "number" }),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** Perps events the engine has applied (MarketExecuted, LimitExecuted, …), by log position. */
export const perpsEvents = engineSchema.table(
  "perps_events",
  {
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    blockNumber: bigint("block_number", { mode: "number" }).notNull(),
    name: text("name").notNull(),
    tradeId: bigint("trade_id", { mode: "number" }),
    data: jsonb("data"),
    createdAt: ts("created_at").notNull().defaultNow(),
    blockHash: text("block_hash"),
    /** The desk trade row before this event was applied (restored if a reorg removes the event). */
    before: jsonb("before"),
  },
  (t) => [primaryKey({ name: "perps_events_pkey", columns: [t.txHash, t.logIndex] })],
);

/**
 * Leadership leases, one row per role (`engine`): who leads, the epoch of its term (raised by
 * every takeover; the fencing token every intent transition is checked against) and when the
 * term ends unless renewed. Times are the database's clock.
 */
export const leadership = engineSchema.table("leadership", {
  name: text("name").primaryKey(),
  holder: text("holder").notNull(),
  epoch: bigint("epoch", { mode: "bigint" }).notNull(),
  /**
   * The PostgreSQL backend pid of the holder's lease session: once that session is gone (the
   * process died), a standby need not wait for the term to end.
   */
  sessionPid: integer("session_pid"),
  acquiredAt: ts("acquired_at").notNull(),
  renewedAt: ts("renewed_at").notNull(),
  expiresAt: ts("expires_at").notNull(),
});

/**
 * The API's rate-limit buckets, shared by every replica (api/http/rate-limit-postgres.ts):
 * one row per client and rule, in rate-limiter-flexible's table layout. `expire` is the
 * bucket's theoretical arrival time in microseconds (GCRA); a row past it is a full bucket,
 * swept by the library.
 */
export const apiRateLimits = engineSchema.table("api_rate_limits", {
  key: varchar("key", { length: 255 }).primaryKey(),
  points: integer("points").notNull().default(0),
  expire: bigint("expire", { mode: "bigint" }),
});

/**
 * The public reconciliation (docs/api.md "Proofs, fee flow and public audit"): each run of the
 * three-way audit, one row per token it concerns (`token` = '' for the checks that belong to
 * no token: fees claimed per currency, the operator's USDC and WETH, the desks' USDC). Only
 * what the public may see: the checks, each difference by check, leg and amount, and the work
 * that explains the pending ones; never a key or a balance the chain does not show. The
 * auditor worker writes one run at a time and keeps the newest runs of each token.
 */
export const auditResults = engineSchema.table(
  "audit_results",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /** The run this row belongs to: a number drawn from the rows' id sequence, shared by every row of the run. */
    run: bigint("run", { mode: "number" }).notNull(),
    token: text("token").notNull(),
    /** Chain block the balances were read at, and its time. */
    block: bigint("block", { mode: "number" }).notNull(),
    blockTime: ts("block_time").notNull(),
    indexedTo: bigint("indexed_to", { mode: "number" }),
    settled: boolean("settled").notNull(),
    ok: boolean("ok").notNull(),
    differences: jsonb("differences").$type<Record<string, unknown>[]>().notNull(),
    pending: jsonb("pending").$type<Record<string, unknown>[]>().notNull(),
    checks: jsonb("checks").$type<string[]>().notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [index("audit_results_token").on(t.token, t.id), index("audit_results_run").on(t.run)],
);

/**
 * Webhook endpoints the operator registered (`POST /api/v1/webhooks`, docs/design.md §7.1):
 * where to send, which activity kinds, an optional token filter, whether pending (not yet
 * final) facts are sent too. `secret` signs every delivery (HMAC-SHA256); it is shown once, at
 * registration, and never returned again. `sinceBlock` is the indexed block at registration:
 * only facts of later blocks are sent.
 */
export const webhookEndpoints = engineSchema.table("webhook_endpoints", {
  id: text("id").primaryKey(),
  url: text("url").notNull(),
  events: jsonb("events").$type<string[]>().notNull(),
  /** Lowercase token address, or null for every token. */
  token: text("token"),
  pending: boolean("pending").notNull().default(false),
  secret: text("secret").notNull(),
  description: text("description"),
  sinceBlock: bigint("since_block", { mode: "number" }).notNull().default(0),
  createdAt: ts("created_at").notNull().defaultNow(),
});

/** The phases of a webhook delivery: a fact pending (not yet final), final, or retracted by a reorg. */
export const WEBHOOK_PHASES = ["pending", "final", "retracted"] as const;
/** The statuses of a webhook delivery (the outbox row). */
export const WEBHOOK_DELIVERY_STATUSES = ["queued", "delivered", "dead"] as const;

/**
 * The webhook outbox (docs/design.md §7.1): one row per (endpoint, fact, phase), written by the
 * engine's webhooks worker in the transaction that reads the fact, and sent from here at least
 * once. `body` is the exact JSON sent on every attempt; `id` is the delivery id the receiver
 * dedupes on. A queued row is retried with exponential backoff (`nextAttemptAt`) until
 * `expiresAt` (24 h after it was queued), then dead-lettered. `afterId` is the delivery that
 * must be delivered (or dead) first: a retraction or a final after the pending delivery of the
 * same fact. `open` marks a pending delivery whose fact is neither final nor retracted yet.
 */
export const webhookDeliveries = engineSchema.table(
  "webhook_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    endpointId: text("endpoint_id")
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    /** The fact: the activity row's id and its transaction (`<activity id>:<tx hash>`). */
    factKey: text("fact_key").notNull(),
    kind: text("kind").notNull(),
    token: text("token"),
    blockNumber: bigint("block_number", { mode: "number" }).notNull(),
    phase: text("phase").notNull(),
    body: text("body").notNull(),
    status: text("status").notNull().default("queued"),
    open: boolean("open").notNull().default(false),
    afterId: bigint("after_id", { mode: "number" }),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
    lastAttemptAt: ts("last_attempt_at"),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    deliveredAt: ts("delivered_at"),
    deadAt: ts("dead_at"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_fact").on(t.endpointId, t.factKey, t.phase),
    // The backlog, due first.
    index("webhook_deliveries_due").on(t.nextAttemptAt).where(sql`status = 'queued'`),
    // Pending deliveries whose fact may still be retracted.
    index("webhook_deliveries_open").on(t.endpointId).where(sql`open`),
    index("webhook_deliveries_dead").on(t.deadAt, t.id).where(sql`status = 'dead'`),
    check("webhook_deliveries_phase_check", oneOf("phase", WEBHOOK_PHASES)),
    check("webhook_deliveries_status_check", oneOf("status", WEBHOOK_DELIVERY_STATUSES)),
  ],
);
