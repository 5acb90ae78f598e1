/**
 * What the API reads from the engine's own tables (schema `engine`): worker health, pending
 * accumulators (sums over the ledger), which token each desk belongs to, and oracle marks.
 * The API must answer even when the engine has never run: a missing schema, table or column
 * reads as "nothing yet" (no workers, zero pending), never as a 500.
 */
import type pg from "pg";
import { type Address, getAddress } from "viem";

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

async function tolerant<T>(pool: pg.Pool, text: string, empty: T, map: (rows: Record<string, unknown>[]) => T): Promise<T> {
  try {
    const result = await pool.query(text);
    return map(result.rows);
  } catch (error) {
    if (NOT_YET.has((error as { code?: string }).code ?? "")) return empty;
    throw error;
  }
}

const date = (v: unknown) => (v instanceof Date ? v : v == null ? null : new Date(String(v)));

/** Reads the engine schema through its own pool (the ponder `db` is scoped to ponder's schema). */
export function createEnginePort(pool: pg.Pool): EnginePort {
  return {
    workers: () =>
      tolerant(pool, "SELECT * FROM engine.worker_state ORDER BY name", [], (rows) =>
        rows.map((r) => ({
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
      tolerant(
        pool,
        `SELECT leg, lower(token) AS token, sum(amount)::text AS balance FROM engine.ledger
          WHERE leg IN ('protocol', 'asset', 'perp', 'creator-buyback', 'legacy-weth') GROUP BY leg, lower(token)`,
        EMPTY_PENDING,
        (rows) => {
          const out: PendingAmounts = { ...EMPTY_PENDING, perpUsdcByToken: new Map(), creatorBuybackUsdcByToken: new Map() };
          for (const r of rows) {
            const balance = BigInt(String(r.balance));
            const token = r.token == null ? null : String(r.token);
            if (r.leg === "protocol") out.protocolBuybackUsdc += balance;
            else if (r.leg === "asset") out.assetUsdc += balance;
            else if (r.leg === "legacy-weth") out.legacyWeth += balance;
            else if (r.leg === "perp") {
              out.perpUsdc += balance;
              if (token) out.perpUsdcByToken.set(token, (out.perpUsdcByToken.get(token) ?? 0n) + balance);
            } else if (r.leg === "creator-buyback") {
              out.creatorBuybackUsdc += balance;
              if (token) out.creatorBuybackUsdcByToken.set(token, (out.creatorBuybackUsdcByToken.get(token) ?? 0n) + balance);
            }
          }
          return out;
        },
      ),

    deskBindings: () =>
      tolerant(
        pool,
        `SELECT t.token, t.order_id::text AS order_id, t.pair_index, coalesce(d.halted, false) AS halted, d.halt_reason
           FROM engine.desk_trades t LEFT JOIN engine.desks d ON d.token = t.token
          WHERE t.order_id IS NOT NULL`,
        [],
        (rows) =>
          rows.map((r) => ({
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
