-- IF NOT EXISTS added to drizzle-kit's output: the schema may exist before its tables (an operator may create
-- it to grant rights on it, and the hand-written migrations of older releases created it the same way).
CREATE SCHEMA IF NOT EXISTS "engine";
--> statement-breakpoint
CREATE TABLE "engine"."agent_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"token" text,
	"worker" text NOT NULL,
	"decision" text NOT NULL,
	"reason" text NOT NULL,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine"."asset_purchases" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"usdc_in" numeric(78, 0) NOT NULL,
	"asset_bought" numeric(78, 0),
	"asset_staked" numeric(78, 0),
	"shares" numeric(78, 0),
	"swap_intent_id" bigint,
	"stake_intent_id" bigint,
	"status" text NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "engine"."buybacks" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"token" text NOT NULL,
	"currency_in" text NOT NULL,
	"amount_in" numeric(78, 0) NOT NULL,
	"tokens_bought" numeric(78, 0),
	"tokens_burned" numeric(78, 0),
	"swap_intent_id" bigint,
	"burn_intent_id" bigint,
	"swap_tx_hash" text,
	"burn_tx_hash" text,
	"block_number" bigint,
	"status" text NOT NULL,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone,
	CONSTRAINT "buybacks_kind_check" CHECK (kind IN ('protocol', 'creator'))
);
--> statement-breakpoint
CREATE TABLE "engine"."claim_cycles" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"tokens" jsonb NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "engine"."desk_halts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"token" text NOT NULL,
	"halted" boolean NOT NULL,
	"reason" text NOT NULL,
	"data" jsonb,
	"intent_id" bigint,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine"."desk_trades" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"token" text NOT NULL,
	"pair_index" integer NOT NULL,
	"trade_index" integer,
	"side" text NOT NULL,
	"leverage" numeric(78, 0) NOT NULL,
	"basis_usdc" numeric(78, 0) NOT NULL,
	"collateral" numeric(78, 0),
	"open_price" numeric(78, 0),
	"opened_timestamp" bigint,
	"order_id" numeric(78, 0),
	"close_order_id" numeric(78, 0),
	"close_amount" numeric(78, 0),
	"close_reason" text,
	"open_intent_id" bigint,
	"close_intent_id" bigint,
	"pending_topup" numeric(78, 0),
	"topups" integer DEFAULT 0 NOT NULL,
	"usdc_returned" numeric(78, 0) DEFAULT 0 NOT NULL,
	"realised_pnl" numeric(78, 0) DEFAULT 0 NOT NULL,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "engine"."desks" (
	"token" text PRIMARY KEY NOT NULL,
	"pair_index" integer NOT NULL,
	"side" text NOT NULL,
	"halted" boolean DEFAULT false NOT NULL,
	"halt_reason" text,
	"peak_value_usdc" numeric(78, 0),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine"."state" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine"."ledger" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"leg" text NOT NULL,
	"token" text,
	"currency" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"intent_id" bigint,
	"tx_hash" text,
	"block_number" bigint,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"block_hash" text
);
--> statement-breakpoint
CREATE TABLE "engine"."ledger_balances" (
	"leg" text NOT NULL,
	"token" text DEFAULT '' NOT NULL,
	"currency" text NOT NULL,
	"balance" numeric(78, 0) DEFAULT 0 NOT NULL,
	"allocated" numeric(78, 0) DEFAULT 0 NOT NULL,
	"rows" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "ledger_balances_pkey" PRIMARY KEY("leg","token","currency")
);
--> statement-breakpoint
CREATE TABLE "engine"."perps_events" (
	"tx_hash" text NOT NULL,
	"log_index" integer NOT NULL,
	"block_number" bigint NOT NULL,
	"name" text NOT NULL,
	"trade_id" bigint,
	"data" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"block_hash" text,
	"before" jsonb,
	CONSTRAINT "perps_events_pkey" PRIMARY KEY("tx_hash","log_index")
);
--> statement-breakpoint
CREATE TABLE "engine"."price_samples" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"feed" text NOT NULL,
	"price" numeric(78, 0) NOT NULL,
	"decimals" integer NOT NULL,
	"round_id" text NOT NULL,
	"updated_at" bigint NOT NULL,
	"sampled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine"."run_requests" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"worker" text NOT NULL,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"ok" boolean,
	"result" jsonb
);
--> statement-breakpoint
CREATE TABLE "engine"."schema_migrations" (
	"version" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine"."token_mandates" (
	"token" text PRIMARY KEY NOT NULL,
	"desk_pair_index" integer,
	"max_leverage" numeric,
	"max_drawdown_bps" integer,
	"take_profit_bps" integer,
	"buyback_min_usdc" numeric(78, 0),
	"max_desk_usdc" numeric(78, 0),
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine"."tokens" (
	"token" text PRIMARY KEY NOT NULL,
	"enrolled" boolean NOT NULL,
	"enrol_order" integer,
	"creator" text,
	"asset_bps" integer,
	"perp_bps" integer,
	"creator_bps" integer,
	"active" boolean DEFAULT false NOT NULL,
	"halted" boolean DEFAULT false NOT NULL,
	"paired_token" text,
	"pool_key" jsonb,
	"reward_recipients" jsonb,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "engine"."tx_intents" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"worker" text,
	"status" text NOT NULL,
	"to" text NOT NULL,
	"data" text NOT NULL,
	"value" numeric(78, 0) DEFAULT 0 NOT NULL,
	"nonce" integer,
	"gas_limit" numeric(78, 0),
	"max_fee_per_gas" numeric(78, 0),
	"max_priority_fee_per_gas" numeric(78, 0),
	"raw_tx" text,
	"tx_hash" text,
	"tx_hashes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"replacements" integer DEFAULT 0 NOT NULL,
	"block_number" bigint,
	"gas_used" numeric(78, 0),
	"error" text,
	"revert_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"broadcast_at" timestamp with time zone,
	"mined_at" timestamp with time zone,
	"signer" text,
	"agent_id" text,
	"block_hash" text,
	"final_at" timestamp with time zone,
	"reorgs" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "tx_intents_status_check" CHECK (status IN ('pending', 'signed', 'broadcast', 'mined', 'reverted', 'failed', 'dropped'))
);
--> statement-breakpoint
CREATE TABLE "engine"."weth_conversions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"weth_in" numeric(78, 0) NOT NULL,
	"shares" jsonb NOT NULL,
	"usdc_out" numeric(78, 0),
	"swap_intent_id" bigint,
	"status" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "engine"."worker_state" (
	"name" text PRIMARY KEY NOT NULL,
	"min_interval_seconds" integer NOT NULL,
	"max_interval_seconds" integer NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_error_at" timestamp with time zone,
	"last_error" text,
	"last_result" jsonb,
	"runs" integer DEFAULT 0 NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"running" boolean DEFAULT false NOT NULL,
	"next_run_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "engine"."agent_auth_nonces" (
	"nonce" text PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"used_by" text
);
--> statement-breakpoint
CREATE TABLE "engine"."agent_credits" (
	"agent_id" text NOT NULL,
	"kind" text NOT NULL,
	"currency" text NOT NULL,
	"amount" numeric(78, 0) NOT NULL,
	"tx_hash" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_credits_pkey" PRIMARY KEY("agent_id","kind")
);
--> statement-breakpoint
CREATE TABLE "engine"."agent_sessions" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"address" text NOT NULL,
	"chain_id" integer NOT NULL,
	"nonce" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "engine"."agents" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"wallet" text NOT NULL,
	"wallet_key" text NOT NULL,
	"status" text NOT NULL,
	"status_reason" text,
	"charter" jsonb,
	"charter_hash" text,
	"charter_source" text,
	"launch" jsonb,
	"launch_attempt" integer DEFAULT 1 NOT NULL,
	"token" text,
	"pool_id" text,
	"fee_tx" text,
	"deploy_tx" text,
	"dev_buy_tx" text,
	"enroll_tx" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"launched_at" timestamp with time zone,
	CONSTRAINT "agents_status_check" CHECK (status IN ('draft', 'charter-ready', 'launching', 'launched', 'running', 'failed'))
);
--> statement-breakpoint
CREATE INDEX "agent_log_token" ON "engine"."agent_log" USING btree ("token","id");--> statement-breakpoint
CREATE INDEX "buybacks_kind_token" ON "engine"."buybacks" USING btree ("kind","token");--> statement-breakpoint
CREATE INDEX "desk_trades_token" ON "engine"."desk_trades" USING btree ("token","status");--> statement-breakpoint
CREATE UNIQUE INDEX "ledger_key" ON "engine"."ledger" USING btree ("key");--> statement-breakpoint
CREATE INDEX "ledger_leg_token" ON "engine"."ledger" USING btree ("leg","token");--> statement-breakpoint
CREATE INDEX "ledger_block" ON "engine"."ledger" USING btree ("block_number") WHERE block_hash IS NOT NULL;--> statement-breakpoint
CREATE INDEX "ledger_unhashed_block" ON "engine"."ledger" USING btree ("block_number") WHERE block_hash IS NULL AND block_number IS NOT NULL;--> statement-breakpoint
CREATE INDEX "ledger_refund_of" ON "engine"."ledger" USING btree ((data->>'spendKey')) WHERE kind = 'refund';--> statement-breakpoint
CREATE INDEX "price_samples_feed" ON "engine"."price_samples" USING btree ("feed","id");--> statement-breakpoint
CREATE UNIQUE INDEX "tx_intents_key" ON "engine"."tx_intents" USING btree ("key");--> statement-breakpoint
CREATE INDEX "tx_intents_status" ON "engine"."tx_intents" USING btree ("status");--> statement-breakpoint
CREATE UNIQUE INDEX "tx_intents_live_nonce" ON "engine"."tx_intents" USING btree ("signer","nonce") WHERE status IN ('signed', 'broadcast');--> statement-breakpoint
CREATE INDEX "tx_intents_signer" ON "engine"."tx_intents" USING btree ("signer","status");--> statement-breakpoint
CREATE INDEX "tx_intents_block" ON "engine"."tx_intents" USING btree ("block_number") WHERE block_hash IS NOT NULL;--> statement-breakpoint
CREATE INDEX "tx_intents_unsettled_status" ON "engine"."tx_intents" USING btree ("status") WHERE status <> 'mined' OR final_at IS NULL;--> statement-breakpoint
CREATE INDEX "tx_intents_not_final" ON "engine"."tx_intents" USING btree ("id") WHERE status IN ('pending', 'signed', 'broadcast') OR (status IN ('mined', 'reverted') AND final_at IS NULL);--> statement-breakpoint
CREATE INDEX "tx_intents_failures" ON "engine"."tx_intents" USING btree ("updated_at") WHERE status IN ('failed', 'reverted', 'dropped');--> statement-breakpoint
CREATE INDEX "agent_auth_nonces_expiry" ON "engine"."agent_auth_nonces" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "agent_sessions_expiry" ON "engine"."agent_sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "agents_wallet" ON "engine"."agents" USING btree ("wallet");--> statement-breakpoint
CREATE UNIQUE INDEX "agents_token" ON "engine"."agents" USING btree ("token");--> statement-breakpoint
CREATE INDEX "agents_owner" ON "engine"."agents" USING btree ("owner","created_at");