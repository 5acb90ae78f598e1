/**
 * Everything a worker needs, passed in as one object (no singletons): configuration, logs,
 * the database, the chain clients, the transaction pipeline and the fault injector.
 */
import type pg from "pg";
import type { Address, PublicClient } from "viem";
import { type Config, type ContractName, requireContract } from "../common/config.js";
import type { Logger } from "../common/logger.js";
import type { ChainClients } from "./chain/client.js";
import type { TxPipeline } from "./chain/pipeline/index.js";
import type { Db } from "./db/client.js";
import type { Faults } from "./faults.js";
import type { ReorgGate } from "./reorg-gate.js";

export type EngineContext = {
  config: Config;
  log: Logger;
  db: Db;
  pool: pg.Pool;
  clients: ChainClients;
  publicClient: PublicClient;
  /** The operator wallet. */
  operator: Address;
  pipeline: TxPipeline;
  faults: Faults;
  /** Worker cycles pass it shared; the finality watcher exclusively. */
  gate: ReorgGate;
  /** A configured contract address, or MissingConfigError naming its variable. */
  contract: (name: ContractName) => Address;
  /** This engine's work under way and who is told of it (see `EngineLocal`). */
  local: EngineLocal;
};

/** How one worker cycle ended: its result, or the error, and how long it took. */
export type CycleOutcome = { ok: true; result: Record<string, unknown>; ms: number } | { ok: false; error: string; ms: number };

/**
 * State that belongs to one engine, kept on its context rather than in a module, so that two
 * engines in one process (the tests, the CLI beside a running engine) never share it.
 */
export type EngineLocal = {
  /** Desk trades whose order is being sent right now: a second caller leaves them alone (`engine/desks/actions.ts`). */
  deskTradesSending: Set<number>;
  /** The desk sync under way, which concurrent callers share (`engine/desks/sync.ts`). */
  deskSync: Promise<unknown> | undefined;
  /** Told of every finished worker cycle: the metrics (`engine/runtime/scheduler.ts`). */
  cycleObserver: ((worker: string, outcome: CycleOutcome) => void) | undefined;
};

export function newEngineLocal(): EngineLocal {
  return { deskTradesSending: new Set(), deskSync: undefined, cycleObserver: undefined };
}

export function contractResolver(config: Config): (name: ContractName) => Address {
  return (name) => requireContract(config, name);
}

/**
 * The newest block a worker may spend from (docs/design.md §5.5): `CONFIRMATIONS` below the head.
 * Inflows from newer blocks stay pending until then. With no confirmations configured every
 * recorded block counts as final (Infinity), and no chain call is made.
 */
export async function finalBlock(ctx: Pick<EngineContext, "config" | "publicClient">): Promise<number> {
  if (ctx.config.confirmations <= 0) return Infinity;
  return Number(await ctx.publicClient.getBlockNumber({ cacheTime: 0 })) - ctx.config.confirmations;
}
