/**
 * What the API reads from the engine's own tables (schema `engine`): worker health, pending
 * accumulators (sums over the ledger), which token each desk belongs to, and oracle marks.
 * The API must answer even when the engine has never run: a missing schema, table or column
 * reads as "nothing yet" (no workers, zero pending), never as a 500.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { type Address, getAddress } from "viem";
import { PAIR_FEEDS } from "../common/abis/perps.js";
import { GAINS_PAIR_FEEDS } from "../common/abis/gains.js";
import type { PerpsVenueId } from "../common/perps-venues.js";
import { tables } from "../core/db/client.js";
import type { PendingIntent } from "../core/chain/pipeline/index.js";
import { toPerpsPrice } from "../common/perps-math.js";
import { type DesksHealth, type EngineHealth as CoreEngineHealth, type WorkerHealth as CoreWorkerHealth, readWorkerHealth } from "../core/health.js";
import { type AuditReport, auditFromConfig } from "../core/audit.js";
import type { Config } from "../common/config.js";
import { type Leg, Legs, legBalancesOf, ledgerTotals } from "../core/ledger/ledger.js";
import { PG_NOT_MIGRATED, PG_UNDEFINED_COLUMN } from "../common/pg-errors.js";
import {
  type DeskTradeView,
  type EngineBuyback,
  type JournalRow,
  type SourceView,
  buybackSources,
  buybacksBurnedBy,
  deskTradesById,
  intentTxHashes,
} from "../core/ledger/lineage.js";
import { type TokenLedgerFlow, tokenLedgerFlow } from "../core/ledger/flow.js";
import { type TokenAuditView, tokenAuditView, tokenAuditViews } from "../core/public-audit.js";
import {
  type DeadLetter,
  type WebhookBacklog,
  type WebhookEndpoint,
  type WebhookEndpointInput,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listDeadLetters,
  listWebhookEndpoints,
  readWebhookBacklog,
  redriveDeadLetter,
} from "../core/webhooks/store.js";

/** Per-worker schedule and outcome (times ISO-8601), as `GET /health` shows it. */
export type WorkerHealthView = Pick<
  CoreWorkerHealth,
  "name" | "minIntervalSeconds" | "maxIntervalSeconds" | "lastRunAt" | "lastSuccessAt" | "lastError" | "runs" | "failures" | "nextRunAt"
>;

/** The engine that leads (its lease) and since when, or null before any engine led. */
export type LeaderView = { holder: string; epoch: string; since: string; renewedAt?: string; expiresAt: string } | null;
/** The engine's workers, and why it is degraded (failing workers, RPC unreachable, engine stopped). */
export type EngineHealthView = {
  workers: WorkerHealthView[];
  degraded: string[];
  transactions: TransactionsHealth;
  leader: LeaderView;
  /** Whether the engine's desks trade on its chain, as it last reported; null before it ran. */
  desks?: DesksHealth | null;
  /** The webhook outbox's backlog (docs/design.md §7.1); null before the engine's tables exist. */
  webhooks?: WebhookBacklog | null;
  /** Collections deferred because their conversion would yield nothing (their fees wait in the pool). */
  deferredCollections?: CoreEngineHealth["deferredCollections"];
};

/** Transactions not final yet (pending, in flight, or mined under `CONFIRMATIONS`), and the last reorg. */
export type TransactionsHealth = {
  notFinal: Omit<PendingIntent, "signer">[];
  lastReorg: { at: string; forkBlock: number; reopened: string[]; reversed: number } | null;
};
const NO_TRANSACTIONS: TransactionsHealth = { notFinal: [], lastReorg: null };

/** Balances of the durable accumulators, in base units (USDC; WETH for the legacy leg). */
export type PendingAmounts = {
  protocolBuybackUsdc: bigint;
  assetUsdc: bigint;
  perpUsdc: bigint;
  creatorBuybackUsdc: bigint;
  legacyWeth: bigint;
};

/** A token's own pending amounts: its perp USDC waiting for the desk manager, and its creator-buyback queue. */
export type TokenPending = { perpUsdc: bigint; creatorBuybackUsdc: bigint };
export const NO_TOKEN_PENDING: TokenPending = { perpUsdc: 0n, creatorBuybackUsdc: 0n };

/** A desk trade the engine opened for a token, keyed by the exchange's open order id. */
export type DeskBinding = {
  token: Address;
  openOrderId: bigint;
  pairIndex: number;
  halted: boolean;
  haltReason: string | null;
  /** The venue's latest mark of the trade while open (the engine's `TradeMark`, engine.desk_trades); null before the first. */
  venueMark: VenueMark | null;
};

/** A trade as its venue last marked it: what a close deducts besides the PnL (USDC) and the liquidation price (1e10), at `price` (1e10). */
export type VenueMark = { price: bigint; charges: bigint; liquidationPrice: bigint; at: Date };

/** A buyback the engine made, with the ledger spend that paid for it and that spend's sources (first in, first out). */
export type FundedBuyback = EngineBuyback & {
  spend: JournalRow | null;
  sources: SourceView[];
  /** The part of the spend no inflow covered (a reorg deficit being repaid). */
  unfunded: bigint;
  /** Every transaction of its swap and burns, by intent key. */
  intents: Map<string, string | null>;
  /** Desk trades named by its sources (desk profits). */
  deskTrades: Map<number, DeskTradeView>;
};

export interface EnginePort {
  health(): Promise<EngineHealthView>;
  pending(): Promise<PendingAmounts>;
  /** The pending amounts of `tokens` (a page of them), by lowercase address; a token with none is absent. */
  tokenPending(tokens: readonly string[]): Promise<Map<string, TokenPending>>;
  /** Every desk trade the engine opened, or only those of `tokens` (a page of them). */
  deskBindings(tokens?: readonly Address[]): Promise<DeskBinding[]>;
  /** The token of each desk trade the engine opened, by the exchange's open order id (an order id no desk trade holds is absent). */
  deskTokens(orderIds: readonly bigint[]): Promise<Map<bigint, Address>>;
  /**
   * Latest oracle price per perps pair index (the price-sampler's), 1e10 precision (the exchange's), by the
   * pair numbering of `venue` (gTrade's BTC/USD is 0 and ETH/USD 1, the reverse of Avantis'); Avantis' without it.
   */
  markPrices(venue?: PerpsVenueId): Promise<Map<number, bigint>>;
  /** The three-way audit (ledger, indexed facts, chain balances); undefined without the engine's database. */
  audit(config: Config): Promise<AuditReport | undefined>;
  /** The engine's buybacks a burn transaction burned for, each with what paid for it. */
  burnFunding(txHash: string): Promise<FundedBuyback[]>;
  /** The ledger's side of a token's fee flow (null without the engine's tables). */
  tokenFlow(token: Address): Promise<TokenLedgerFlow | null>;
  /** The public audit's stored results for a token. */
  tokenAudit(token: Address): Promise<TokenAuditView>;
  /** The public audits of many tokens at once (three queries), keyed by checksummed address. */
  tokenAudits(tokens: readonly Address[]): Promise<Map<Address, TokenAuditView>>;
  /** The operator's webhook endpoints and dead letters (absent without the engine's database). */
  webhooks?: WebhookPort;
}

/** The webhook endpoints and the outbox's dead letters (core/webhooks/store.ts). */
export type WebhookPort = {
  create(input: WebhookEndpointInput, sinceBlock: number): Promise<WebhookEndpoint & { secret: string }>;
  list(): ReturnType<typeof listWebhookEndpoints>;
  remove(id: string): Promise<boolean>;
  deadLetters(p: { endpointId?: string; limit: number; before?: number }): Promise<{ items: DeadLetter[]; next: number | null }>;
  redrive(id: number, giveUpSeconds: number): Promise<boolean>;
};

const NO_AUDIT: TokenAuditView = { latest: null, protocol: null, lastClean: null };

export const EMPTY_PENDING: PendingAmounts = {
  protocolBuybackUsdc: 0n,
  assetUsdc: 0n,
  perpUsdc: 0n,
  creatorBuybackUsdc: 0n,
  legacyWeth: 0n,
};

/** An engine that has never run. */
export const idleEngine: EnginePort = {
  health: async () => ({ workers: [], degraded: [], transactions: NO_TRANSACTIONS, leader: null }),
  audit: async () => undefined,
  pending: async () => EMPTY_PENDING,
  tokenPending: async () => new Map(),
  deskBindings: async () => [],
  deskTokens: async () => new Map(),
  markPrices: async () => new Map(),
  burnFunding: async () => [],
  tokenFlow: async () => null,
  tokenAudit: async () => NO_AUDIT,
  tokenAudits: async (tokens) => new Map(tokens.map((t) => [getAddress(t), NO_AUDIT])),
};

/** The price feed (config.priceFeeds name) that marks each pair index of a venue, as its adapter numbers them. */
export function venuePairFeeds(venue: PerpsVenueId = "avantis-v1"): Record<number, string> {
  return venue === "gains-v10" ? GAINS_PAIR_FEEDS : PAIR_FEEDS;
}

/** PostgreSQL error codes meaning "the engine has not created this yet". */
const NOT_YET: ReadonlySet<string> = new Set([...PG_NOT_MIGRATED, PG_UNDEFINED_COLUMN]);

async function tolerant<T>(empty: T, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const e = error as { code?: string; cause?: { code?: string } };
    if (NOT_YET.has(e.code ?? e.cause?.code ?? "")) return empty;
    throw error;
  }
}

const rowsOf = async (pool: pg.Pool, text: string, values: unknown[] = []) => (await pool.query(text, values)).rows as Record<string, unknown>[];

/** readWorkerHealth's reasons for an engine without a heartbeat. */
const NEVER_RAN = /^engine (has not started|is not running)/;

/** Reads the engine schema through its own pool (the ponder `db` is scoped to ponder's schema). */
export function createEnginePort(pool: pg.Pool): EnginePort {
  const ledgerDb = drizzle(pool, { schema: tables });
  return {
    health: () =>
      tolerant({ workers: [], degraded: [], transactions: NO_TRANSACTIONS, leader: null, desks: null, webhooks: null, deferredCollections: [] }, async () => {
        const [h, webhooks] = await Promise.all([readWorkerHealth(pool), tolerant(null, () => readWebhookBacklog(pool))]);
        return {
          workers: h.workers.map((w) => ({
            name: w.name,
            minIntervalSeconds: w.minIntervalSeconds,
            maxIntervalSeconds: w.maxIntervalSeconds,
            lastRunAt: w.lastRunAt,
            lastSuccessAt: w.lastSuccessAt,
            lastError: w.lastError,
            runs: w.runs,
            failures: w.failures,
            nextRunAt: w.nextRunAt,
          })),
          // An engine that never ran against this database (no heartbeat ever) is reported by its
          // empty worker list; one that stopped, or whose workers or RPC fail, degrades the service.
          degraded: h.engine.heartbeatAt === null ? h.reasons.filter((r) => !NEVER_RAN.test(r)) : h.reasons,
          leader: h.leader && {
            holder: h.leader.holder,
            epoch: h.leader.epoch,
            since: h.leader.since,
            renewedAt: h.leader.renewedAt,
            expiresAt: h.leader.expiresAt,
          },
          desks: h.desks,
          deferredCollections: h.deferredCollections,
          transactions: {
            notFinal: h.transactions.notFinal.map(({ key, kind, status, nonce, ageSeconds, reorgs, error }) => ({
              key,
              kind,
              status,
              nonce,
              ageSeconds,
              reorgs,
              error,
            })),
            lastReorg: h.transactions.lastReorg,
          },
          webhooks,
        };
      }),

    pending: () =>
      tolerant(EMPTY_PENDING, async () => {
        const totals = await ledgerTotals(ledgerDb);
        return {
          protocolBuybackUsdc: totals.pending.protocolUsdc,
          assetUsdc: totals.pending.assetUsdc,
          perpUsdc: totals.pending.perpUsdc,
          creatorBuybackUsdc: totals.pending.creatorBuybackUsdc,
          legacyWeth: totals.pending.legacyWeth,
        };
      }),

    tokenPending: (tokens) =>
      tolerant(new Map<string, TokenPending>(), async () => {
        // Only the page's tokens: primary-key lookups, whatever the number of tokens in the ledger.
        const balances = await legBalancesOf(
          ledgerDb,
          [Legs.perp, Legs.creatorBuyback],
          tokens.map((t) => getAddress(t)),
        );
        const out = new Map<string, TokenPending>();
        const add = (leg: Leg, field: keyof TokenPending) => {
          for (const [token, amount] of balances.get(leg)!) {
            const key = token.toLowerCase();
            out.set(key, { ...(out.get(key) ?? NO_TOKEN_PENDING), [field]: amount });
          }
        };
        add(Legs.perp, "perpUsdc");
        add(Legs.creatorBuyback, "creatorBuybackUsdc");
        return out;
      }),

    deskBindings: (tokens) =>
      tolerant([], async () =>
        (
          await rowsOf(
            pool,
            `SELECT t.token, t.order_id::text AS order_id, t.pair_index, coalesce(d.halted, false) AS halted, d.halt_reason,
                    t.mark_price::text AS mark_price, t.mark_charges::text AS mark_charges,
                    t.mark_liquidation_price::text AS mark_liquidation_price, t.marked_at
               FROM engine.desk_trades t LEFT JOIN engine.desks d ON d.token = t.token
              WHERE t.order_id IS NOT NULL${tokens ? " AND t.token = ANY($1::text[])" : ""}`,
            tokens ? [tokens.map((t) => getAddress(t))] : [],
          )
        ).map((r) => ({
          token: getAddress(String(r.token)),
          openOrderId: BigInt(String(r.order_id)),
          pairIndex: Number(r.pair_index),
          halted: Boolean(r.halted),
          haltReason: r.halt_reason == null ? null : String(r.halt_reason),
          venueMark:
            r.marked_at == null
              ? null
              : {
                  price: BigInt(String(r.mark_price)),
                  charges: BigInt(String(r.mark_charges)),
                  liquidationPrice: BigInt(String(r.mark_liquidation_price)),
                  at: new Date(r.marked_at as string | Date),
                },
        })),
      ),

    deskTokens: (orderIds) =>
      tolerant(new Map<bigint, Address>(), async () => {
        if (!orderIds.length) return new Map();
        const rows = await rowsOf(pool, "SELECT token, order_id::text AS order_id FROM engine.desk_trades WHERE order_id = ANY($1::numeric[])", [
          [...new Set(orderIds.map(String))],
        ]);
        return new Map(rows.map((r) => [BigInt(String(r.order_id)), getAddress(String(r.token))]));
      }),

    audit: (config) => auditFromConfig(config, { db: ledgerDb, pool }),

    burnFunding: (txHash) =>
      tolerant([], async () => {
        const out: FundedBuyback[] = [];
        for (const b of await buybacksBurnedBy(ledgerDb, txHash)) {
          const { spend, sources, unfunded } = await buybackSources(ledgerDb, b.id);
          const { rows } = await pool.query<{ key: string }>("SELECT key FROM engine.tx_intents WHERE key = $1 OR key LIKE $2 ORDER BY id", [
            `buyback:${b.id}:swap`,
            `buyback:${b.id}:burn%`,
          ]);
          const intents = await intentTxHashes(
            ledgerDb,
            rows.map((r) => r.key),
          );
          const deskTrades = await deskTradesById(
            ledgerDb,
            sources.map((s) => s.deskTradeId).filter((id): id is number => id !== null),
          );
          out.push({ ...b, spend, sources, unfunded, intents, deskTrades });
        }
        return out;
      }),

    tokenFlow: (token) => tolerant(null, () => tokenLedgerFlow(ledgerDb, token)),

    tokenAudit: (token) => tolerant(NO_AUDIT, () => tokenAuditView(ledgerDb, token)),

    tokenAudits: (tokens) => tolerant(new Map(tokens.map((t) => [getAddress(t), NO_AUDIT])), () => tokenAuditViews(ledgerDb, tokens)),

    webhooks: {
      create: (input, sinceBlock) => createWebhookEndpoint(pool, input, sinceBlock),
      list: () => listWebhookEndpoints(pool),
      remove: (id) => deleteWebhookEndpoint(pool, id),
      deadLetters: (p) => listDeadLetters(pool, p),
      redrive: (id, giveUpSeconds) => redriveDeadLetter(pool, id, giveUpSeconds),
    },

    markPrices: (venue) =>
      tolerant(new Map<number, bigint>(), async () => {
        const pairs = Object.entries(venuePairFeeds(venue));
        // The newest sample of each feed: the first entry of the (feed, id) index, read backward.
        // With `feed = …` PostgreSQL drops feed from the ordering, and once it has statistics it
        // walks the primary key backward filtering by feed instead (`max(id)` too): every newer
        // sample of the other feeds is read (4–5 ms with 30,000 samples) and a feed without
        // samples reads them all. The range form keeps feed in the ordering, which only that
        // index provides: 0.06 ms with or without statistics, in any order of rows.
        const { rows } = await pool.query<{ feed: string; price: string; decimals: number }>(
          `SELECT f.feed, s.price::text AS price, s.decimals FROM unnest($1::text[]) AS f(feed)
           CROSS JOIN LATERAL (SELECT p.price, p.decimals FROM engine.price_samples p
             WHERE p.feed >= f.feed AND p.feed <= f.feed ORDER BY p.feed DESC, p.id DESC LIMIT 1) s`,
          [pairs.map(([, feed]) => feed)],
        );
        const latest = new Map(rows.map((r) => [r.feed, toPerpsPrice(BigInt(r.price), r.decimals)]));
        return new Map(pairs.filter(([, feed]) => latest.has(feed)).map(([pair, feed]) => [Number(pair), latest.get(feed)!]));
      }),
  };
}
