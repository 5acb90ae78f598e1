/**
 * The receipt of the transaction of an event being indexed, read so that a reorg under way
 * never stalls or stops the indexer.
 *
 * Two ways a receipt can disagree with the event's block:
 * - ponder's client caches receipts by hash alone: after a reorg that re-included the
 *   transaction in another block, its copy is stale, and the node's answer is read instead;
 * - the event's block has just left the canonical chain (a rollback right after ponder fetched
 *   it): the transaction is gone or elsewhere. Asked as ponder asks by default, its client
 *   retries a missing receipt 9 times (about 2.5 minutes, indexing standing still), then fails
 *   the event, and ponder exits. So the client is asked not to retry, and when the node's block
 *   at the event's height is another one (or none), the answer is `null`: the handler writes
 *   nothing more for this event, and ponder's realtime sync, at its next poll, sees the new
 *   chain and reverts every row written for the orphaned block before indexing the new one.
 */
import { BlockNotFoundError, type Hex, type TransactionReceipt, TransactionReceiptNotFoundError } from "viem";

/** ponder's `context.client` (whose actions take `retryEmptyResponse`), or any viem client. */
export type PonderReceiptClient = {
  getTransactionReceipt: (a: { hash: Hex; retryEmptyResponse?: boolean }) => Promise<TransactionReceipt>;
};
/** A client of the node itself, uncached: its answers are the canonical chain's. */
export type NodeClient = {
  getTransactionReceipt: (a: { hash: Hex }) => Promise<TransactionReceipt>;
  getBlock: (a: { blockNumber: bigint }) => Promise<{ hash: Hex | null }>;
};
export type ReceiptEvent = { transaction: { hash: Hex }; block: { hash: Hex; number: bigint } };

const ATTEMPTS = 20;
const WAIT_MS = 250;

const missingAsNull = (e: unknown) => {
  if (e instanceof TransactionReceiptNotFoundError) return null;
  throw e;
};

/** Whether the event's block is still the node's block at its height. */
async function stillCanonical(node: NodeClient, block: ReceiptEvent["block"]): Promise<boolean> {
  try {
    return (await node.getBlock({ blockNumber: block.number })).hash === block.hash;
  } catch (e) {
    if (e instanceof BlockNotFoundError) return false; // the chain is now shorter than the event's height
    throw e;
  }
}

/**
 * The event's transaction receipt from the event's own block, or `null` when that block is no
 * longer canonical (see above). A receipt the node does not have yet while the block is
 * canonical (a node behind its peers) is asked again, up to 20 times 250 ms apart.
 */
export async function receiptAtEventBlock(
  ponderClient: PonderReceiptClient,
  node: () => NodeClient,
  event: ReceiptEvent,
  onOrphaned?: (event: ReceiptEvent) => void,
): Promise<TransactionReceipt | null> {
  const hash = event.transaction.hash;
  const cached = await ponderClient.getTransactionReceipt({ hash, retryEmptyResponse: false }).catch(missingAsNull);
  if (cached?.blockHash === event.block.hash) return cached;
  for (let attempt = 1; ; attempt++) {
    if (!(await stillCanonical(node(), event.block))) {
      onOrphaned?.(event);
      return null;
    }
    const fresh = await node().getTransactionReceipt({ hash }).catch(missingAsNull);
    if (fresh?.blockHash === event.block.hash) return fresh;
    if (attempt >= ATTEMPTS) {
      throw new Error(`the receipt of ${hash} is ${fresh ? `in block ${fresh.blockHash}` : "missing"}, not in its event's block ${event.block.hash}`);
    }
    await new Promise((r) => setTimeout(r, WAIT_MS));
  }
}
