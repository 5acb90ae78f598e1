/**
 * What the handlers need to know about the deployment (addresses of the operator, the
 * protocol token and the reference currencies), from the typed config, read once.
 */
import { type Address, type PublicClient, type TransactionReceipt, createPublicClient, fallback, http } from "viem";
import type { OursContext } from "../common/ours.js";
import { loadConfigOrExit, requireContract } from "../common/config.js";
import { type PonderReceiptClient, type ReceiptEvent, receiptAtEventBlock } from "./receipts.js";

const config = loadConfigOrExit();

const lower = (a: Address) => a.toLowerCase() as Address;

export const indexerConfig = {
  operator: config.operator ? lower(config.operator) : undefined,
  protocolToken: config.protocolToken ? lower(config.protocolToken) : undefined,
  usdc: lower(requireContract(config, "usdc")),
  weth: lower(requireContract(config, "weth")),
  mevModule: lower(requireContract(config, "mevModule")),
  launcher: lower(requireContract(config, "launcher")),
  lpLocker: lower(requireContract(config, "lpLocker")),
  feeLocker: lower(requireContract(config, "feeLocker")),
  poolManager: lower(requireContract(config, "v4PoolManager")),
  wethUsdcPool: config.contracts.v3WethUsdcPool ? lower(config.contracts.v3WethUsdcPool) : undefined,
  secondaryAsset: config.contracts.secondaryAsset ? lower(config.contracts.secondaryAsset) : undefined,
  secondaryAssetPool: config.contracts.secondaryAssetPool ? lower(config.contracts.secondaryAssetPool) : undefined,
  startBlock: BigInt(config.startBlock ?? 0),
  /** The most blocks one `eth_getLogs` is known to be allowed to span (ETH_GET_LOGS_BLOCK_RANGE), if set. */
  logsBlockRange: config.ethGetLogsBlockRange,
} as const;

export const isOperator = (a: string | undefined | null) => !!a && a.toLowerCase() === indexerConfig.operator;

/** What common/ours.ts needs to tell our tokens from strangers'. */
export const oursContext: OursContext = { operator: indexerConfig.operator, protocolToken: indexerConfig.protocolToken };

let node: PublicClient | undefined;

/** A plain client of the indexer's endpoints, uncached, for what ponder's client does not ask (logs). */
export function indexerNode(): PublicClient {
  return (node ??= createPublicClient({ transport: fallback(config.indexerRpcUrls.map((url) => http(url))) }));
}

/**
 * The receipt of an event's transaction from the event's own block, or `null` when that block
 * has just left the canonical chain: the handler then writes nothing more, and ponder reverts
 * the block at its next poll (indexer/receipts.ts).
 */
export function receiptOf(client: PonderReceiptClient, event: ReceiptEvent): Promise<TransactionReceipt | null> {
  return receiptAtEventBlock(client, indexerNode, event, (e) =>
    console.warn(`block ${e.block.number} (${e.block.hash}) left the canonical chain while indexing ${e.transaction.hash}: ponder reverts it at its next poll`),
  );
}
