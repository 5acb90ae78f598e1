/**
 * The agent launch flow's state, in the PostgreSQL schema `engine` (tables prefixed `agent`):
 * agents with their encrypted wallet and charter, Sign-In with Ethereum nonces and sessions,
 * and activation credits. The agent wallets' transactions are intents of `engine.tx_intents`
 * (`schema/engine.ts`), like the operator's.
 *
 * Declared here once, with their indexes and checks; `npm run db:generate` (drizzle-kit) turns
 * a change into the next SQL migration under `core/db/migrations/`, applied at engine and API
 * start. Addresses are checksummed strings; money columns are `numeric(78,0)` base units.
 */
import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, numeric, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { engineSchema } from "./engine.js";

const amount = (name: string) => numeric(name, { precision: 78, scale: 0 });
const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

export const AGENT_STATUSES = ["draft", "charter-ready", "launching", "launched", "running", "failed"] as const;
export type AgentStatus = (typeof AGENT_STATUSES)[number];

/**
 * One agent: its owner (the creator who signed in), its wallet (private key encrypted with
 * AES-256-GCM under `AGENT_KEY_SECRET`), its charter and hash, and how far its launch went.
 * `launch` holds the launch body as first accepted (name, symbol, image, description,
 * devBuyWei); `launchAttempt` numbers the intents of a retried step.
 */
export const agents = engineSchema.table(
  "agents",
  {
    id: text("id").primaryKey(),
    owner: text("owner").notNull(),
    wallet: text("wallet").notNull(),
    walletKey: text("wallet_key").notNull(),
    status: text("status").$type<AgentStatus>().notNull(),
    statusReason: text("status_reason"),
    charter: jsonb("charter"),
    charterHash: text("charter_hash"),
    charterSource: text("charter_source"),
    launch: jsonb("launch").$type<Record<string, string>>(),
    launchAttempt: integer("launch_attempt").notNull().default(1),
    token: text("token"),
    poolId: text("pool_id"),
    feeTx: text("fee_tx"),
    deployTx: text("deploy_tx"),
    devBuyTx: text("dev_buy_tx"),
    enrollTx: text("enroll_tx"),
    createdAt: ts("created_at").notNull().defaultNow(),
    updatedAt: ts("updated_at").notNull().defaultNow(),
    launchedAt: ts("launched_at"),
  },
  (t) => [
    uniqueIndex("agents_wallet").on(t.wallet),
    uniqueIndex("agents_token").on(t.token),
    index("agents_owner").on(t.owner, t.createdAt),
    check("agents_status_check", sql.raw(`status IN (${AGENT_STATUSES.map((s) => `'${s}'`).join(", ")})`)),
  ],
);

/** Sign-In with Ethereum nonces: server-made, single use, short-lived. */
export const agentAuthNonces = engineSchema.table(
  "agent_auth_nonces",
  {
    nonce: text("nonce").primaryKey(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
    usedBy: text("used_by"),
  },
  (t) => [index("agent_auth_nonces_expiry").on(t.expiresAt)],
);

/** Bearer sessions: only the SHA-256 of the token is stored. */
export const agentSessions = engineSchema.table(
  "agent_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    address: text("address").notNull(),
    chainId: integer("chain_id").notNull(),
    nonce: text("nonce").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [index("agent_sessions_expiry").on(t.expiresAt)],
);

/** Credits applied to an agent, one per kind: `activation` when its launch completes. */
export const agentCredits = engineSchema.table(
  "agent_credits",
  {
    agentId: text("agent_id").notNull(),
    kind: text("kind").notNull(),
    currency: text("currency").notNull(),
    amount: amount("amount").notNull(),
    txHash: text("tx_hash"),
    createdAt: ts("created_at").notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: "agent_credits_pkey", columns: [t.agentId, t.kind] })],
);
