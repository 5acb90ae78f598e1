/**
 * What the API reads from the engine's own tables (schema `engine`): worker health, pending
 * accumulators (sums over the ledger), which token each desk belongs to, and oracle marks.
 * The API must answer even when the engine has never run: a missing schema, table or column
 * reads as "nothing yet" (no workers, zero pending), never as a 500.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import type pg from "pg";
import { type Address, getAddress } from "viem";
import { tables } from "../engine/db/client.js";
import { Legs, ledgerTotals, legBalancesByToken } from "../engine/ledger/ledger.js";

export type WorkerHealth = {
  name: string;
  minIntervalSeconds: number;
  maxIntervalSeconds: number;
  lastRunAt: Date | null;
  lastSuccessAt: Date | null;
  lastError: string | null;
  runs: number;
  failures: number;
  consecutiveFailures: number;
  nextRunAt: Date | null;
};

/** Balances of the durable accumulators, in base units (USDC; WETH for the legacy leg). */
export type PendingAmounts = {
  protocolBuybackUsdc: bigint;
  assetUsdc: bigint;
  perpUsdc: bigint;
  creatorBuybackUsdc: bigint;
  legacyWeth: bigint;
  /** Per token (lowercase address): its pending perp USDC and creator-buyback queue. */
  perpUsdcByToken: Map<string, bigint>;
  creatorBuybackUsdcByToken: Map<string, bigint>;
};

/** A desk trade the engine opened for a token, keyed by the exchange's open order id. */
export type DeskBinding = {
  token: Address;
  openOrderId: bigint;
  pairIndex: number;
  halted: boolean;
  haltReason: string | null;
};

export interface EnginePort {
  workers(): Promise<WorkerHealth[]>;
  pending(): Promise<PendingAmounts>;
  deskBindings(): Promise<DeskBinding[]>;
  /** Latest oracle price per perps pair index, 1e10 precision (the exchange's). */
  markPrices(): Promise<Map<number, bigint>>;
}

export const EMPTY_PENDING: PendingAmounts = {
  protocolBuybackUsdc: 0n,
  assetUsdc: 0n,
  perpUsdc: 0n,
  creatorBuybackUsdc: 0n,
  legacyWeth: 0n,
  perpUsdcByToken: new Map(),
  creatorBuybackUsdcByToken: new Map(),
};

/** An engine that has never run. */
export const idleEngine: EnginePort = {
  workers: async () => [],
  pending: async () => EMPTY_PENDING,
  deskBindings: async () => [],
  markPrices: async () => new Map(),
};

/** PostgreSQL error codes meaning "the engine has not created this yet". */
const NOT_YET = new Set(["3F000", "42P01", "42703"]);

async function tolerant<T>(empty: T, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const e = error as { code?: string; cause?: { code?: string } };
    if (NOT_YET.has(e.code ?? e.cause?.code ?? "")) return empty;
    throw error;
  }
}

const rowsOf = async (pool: pg.Pool, text: string) => (await pool.query(text)).rows as Record<string, unknown>[];

const date = (v: unknown) => (v instanceof Date ? v : v == null ? null : new Date(String(v)));

/** Reads the engine schema through its own pool (the ponder `db` is scoped to ponder's schema). */
export function createEnginePort(pool: pg.Pool): EnginePort {
  const ledgerDb = drizzle(pool, { schema: tables });
  return {
    workers: () =>
      tolerant([], async () =>
        (await rowsOf(pool, "SELECT * FROM engine.worker_state ORDER BY name")).map((r) => ({
          name: String(r.name),
          minIntervalSeconds: Number(r.min_interval_seconds),
          maxIntervalSeconds: Number(r.max_interval_seconds),
          lastRunAt: date(r.last_run_at),
          lastSuccessAt: date(r.last_success_at),
          lastError: r.last_error == null ? null : String(r.last_error),
          runs: Number(r.runs ?? 0),
          failures: Number(r.failures ?? 0),
          consecutiveFailures: Number(r.consecutive_failures ?? 0),
          nextRunAt: date(r.next_run_at),
        })),
      ),

    pending: () =>
      tolerant(EMPTY_PENDING, async () => {
        const [totals, perp, creatorBuyback] = await Promise.all([
          ledgerTotals(ledgerDb),
          legBalancesByToken(ledgerDb, Legs.perp),
          legBalancesByToken(ledgerDb, Legs.creatorBuyback),
        ]);
        const byToken = (m: Map<Address, bigint>) => new Map([...m].map(([token, amount]) => [token.toLowerCase(), amount]));
        return {
          protocolBuybackUsdc: totals.pending.protocolUsdc,
          assetUsdc: totals.pending.assetUsdc,
          perpUsdc: totals.pending.perpUsdc,
          creatorBuybackUsdc: totals.pending.creatorBuybackUsdc,
          legacyWeth: totals.pending.legacyWeth,
          perpUsdcByToken: byToken(perp),
          creatorBuybackUsdcByToken: byToken(creatorBuyback),
        };
      }),

    deskBindings: () =>
      tolerant([], async () =>
        (
          await rowsOf(
            pool,
            `SELECT t.token, t.order_id::text AS order_id, t.pair_index, coalesce(d.halted, false) AS halted, d.halt_reason
               FROM engine.desk_trades t LEFT JOIN engine.desks d ON d.token = t.token
              WHERE t.order_id IS NOT NULL`,
          )
        ).map((r) => ({
            token: getAddress(String(r.token)),
            openOrderId: BigInt(String(r.order_id)),
            pairIndex: Number(r.pair_index),
            halted: Boolean(r.halted),
            haltReason: r.halt_reason == null ? null : String(r.halt_reason),
          })),
      ),

    markPrices: async () => new Map(),
  };
}
