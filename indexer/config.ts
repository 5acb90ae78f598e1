/**
 * What the handlers need to know about the deployment (addresses of the operator, the
 * protocol token and the reference currencies), from the typed config, read once.
 */
import { type Address, type Hex, type TransactionReceipt, createPublicClient, fallback, http } from "viem";
import type { OursContext } from "../common/ours.js";
import { loadConfigOrExit, requireContract } from "../common/config.js";

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
} as const;

export const isOperator = (a: string | undefined | null) => !!a && a.toLowerCase() === indexerConfig.operator;

/** What common/ours.ts needs to tell our tokens from strangers'. */
export const oursContext: OursContext = { operator: indexerConfig.operator, protocolToken: indexerConfig.protocolToken };

let direct: ReturnType<typeof createPublicClient> | undefined;

type ReceiptClient = { getTransactionReceipt: (a: { hash: Hex }) => Promise<TransactionReceipt> };

/**
 * The receipt of the transaction of an event being indexed, from the event's own block.
 * ponder's client caches receipts by hash alone; after a reorg that re-included the
 * transaction in another block, that copy is stale, so a receipt whose block is not the
 * event's is read again from the node (its answer for the canonical chain).
 */
export async function receiptOf(client: ReceiptClient, event: { transaction: { hash: Hex }; block: { hash: Hex } }): Promise<TransactionReceipt> {
  const receipt = await client.getTransactionReceipt({ hash: event.transaction.hash });
  if (receipt.blockHash === event.block.hash) return receipt;
  direct ??= createPublicClient({ transport: fallback(config.indexerRpcUrls.map((url) => http(url))) });
  for (let attempt = 0; ; attempt++) {
    const fresh = await direct.getTransactionReceipt({ hash: event.transaction.hash });
    if (fresh.blockHash === event.block.hash) return fresh;
    if (attempt >= 20) throw new Error(`receipt of ${event.transaction.hash} is in block ${fresh.blockHash}, not ${event.block.hash}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
