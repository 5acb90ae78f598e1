/**
 * Everything a worker needs, passed in as one object (no singletons): configuration, logs,
 * the database, the chain clients, the transaction pipeline and the fault injector.
 */
import type pg from "pg";
import type { Address, PublicClient } from "viem";
import { type Config, type ContractName, requireContract } from "../common/config.js";
import type { Logger } from "../common/logger.js";
import type { ChainClients } from "./chain/client.js";
import type { TxPipeline } from "./chain/pipeline.js";
import type { Db } from "./db/client.js";
import type { Faults } from "./faults.js";
import type { Gate } from "./gate.js";

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
  gate: Gate;
  /** A configured contract address, or MissingConfigError naming its variable. */
  contract: (name: ContractName) => Address;
};

export function contractResolver(config: Config): (name: ContractName) => Address {
  return (name) => requireContract(config, name);
}
