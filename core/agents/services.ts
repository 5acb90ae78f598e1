/**
 * The agent flow's dependencies, built from the config: the engine database (migrated on
 * first use), chain clients, the transaction pipeline (every signer: agent wallets, and the
 * operator when PROTOCOL_PRIVATE_KEY is set — only a launch's enrolment needs it) and the
 * charter compiler.
 */
import type pg from "pg";
import { type Chain, type Hex, type PublicClient, createPublicClient, defineChain, http } from "viem";
import { type Config, MissingConfigError } from "../../common/config.js";
import { type Logger, createLogger } from "../../common/logger.js";
import { privateKeyToAccount } from "viem/accounts";
import { RPC_TIMEOUT_MS } from "../chain/client.js";
import { type PipelineOptions, TxPipeline } from "../chain/pipeline/index.js";
import { openEngineDb } from "../db/client.js";
import { migrate } from "../db/migrations.js";
import type { Faults } from "../faults.js";
import { type CharterCompiler, deterministicCompiler } from "./compiler.js";
import { createInferenceCompiler } from "./inference.js";
import type { LaunchServices } from "../launch/agent.js";

export type AgentServices = LaunchServices & {
  compiler: CharterCompiler;
  /** Resolves once the engine tables exist (migrations applied). */
  ready: () => Promise<void>;
  close: () => Promise<void>;
};

export type AgentServiceOptions = {
  pool?: pg.Pool;
  log?: Logger;
  faults?: Faults;
  pipelineOptions?: Partial<PipelineOptions>;
  compiler?: CharterCompiler;
};

export function chainOf(config: Pick<Config, "chainId" | "rpcUrl" | "isDevnet">): Chain {
  return defineChain({
    id: config.chainId,
    name: config.isDevnet ? "devnet" : `chain ${config.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
}

export function createAgentServices(config: Config, options: AgentServiceOptions = {}): AgentServices {
  const log = options.log ?? createLogger("agents", config.logLevel, config.logFormat);
  let pool = options.pool;
  const ownPool = !pool;
  const getPool = () => {
    if (!pool) {
      if (!config.databaseUrl) throw new MissingConfigError("DATABASE_URL");
      pool = openEngineDb(config.databaseUrl, "launchpad-agents").pool;
    }
    return pool;
  };
  let migrated: Promise<void> | undefined;
  const chain = chainOf(config);
  const publicClient = createPublicClient({
    chain,
    transport: http(config.rpcUrl, { retryCount: 0, timeout: RPC_TIMEOUT_MS }),
    pollingInterval: config.isDevnet ? 100 : 2_000,
  }) as PublicClient;
  const pipelineOptions = { ...(config.isDevnet ? { pollMs: 200, stuckAfterMs: 15_000, maxWaitMs: 60_000 } : {}), ...options.pipelineOptions };
  let pipeline: TxPipeline | undefined;
  const getPipeline = () => {
    pipeline ??= new TxPipeline({
      pool: getPool(),
      publicClient,
      chain,
      operator: config.operatorKey ? privateKeyToAccount(config.operatorKey as Hex) : undefined,
      log,
      faults: options.faults,
      options: pipelineOptions,
    });
    return pipeline;
  };

  const services: AgentServices = {
    get pool() {
      return getPool();
    },
    config,
    publicClient,
    chain,
    log,
    get pipeline() {
      return getPipeline();
    },
    async operatorPipeline() {
      if (!config.operatorKey) throw new MissingConfigError("PROTOCOL_PRIVATE_KEY");
      // Each send drives the operator's in-flight intents first, so its nonces never gap.
      return getPipeline();
    },
    compiler:
      options.compiler ??
      (config.inferenceUrl
        ? createInferenceCompiler({ url: config.inferenceUrl, model: config.inferenceModel, apiKey: config.inferenceApiKey })
        : deterministicCompiler),
    ready() {
      migrated ??= migrate(getPool())
        .then(() => undefined)
        .catch((error) => {
          migrated = undefined;
          throw error;
        });
      return migrated;
    },
    async close() {
      if (ownPool && pool) await pool.end();
    },
  };
  return services;
}
