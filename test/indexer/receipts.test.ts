/**
 * The indexer's receipt reads during a reorg (indexer/receipts.ts), on a real anvil rolled back
 * with snapshot/revert: a receipt of a canonical block is returned from the first client; a
 * receipt whose transaction a rollback removed is answered with `null` at once (ponder's client,
 * asked as by default, would retry for minutes and then stop the indexer), whether the chain
 * moved on or is now shorter; a stale cached copy from another block gives way to the node's.
 */
import { http, type Hex, type TransactionReceipt, createPublicClient, createWalletClient, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { foundry } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_OPERATOR_KEY } from "../../common/config.js";
import { type AnvilHandle, rpc, startAnvil } from "../../devnet/anvil.js";
import { freePort } from "../helpers/ports.js";
import { type PonderReceiptClient, type ReceiptEvent, receiptAtEventBlock } from "../../indexer/receipts.js";

const account = privateKeyToAccount(DEVNET_OPERATOR_KEY);
const TO = "0x000000000000000000000000000000000000bEEF";

describe("receipts of events whose block a reorg removes", () => {
  let anvil: AnvilHandle;
  let node: ReturnType<typeof createPublicClient>;
  let wallet: ReturnType<typeof createWalletClient>;
  const orphaned: ReceiptEvent[] = [];
  const read = (client: PonderReceiptClient, event: ReceiptEvent) =>
    receiptAtEventBlock(
      client,
      () => node,
      event,
      (e) => orphaned.push(e),
    );

  /** A signed transfer, sent raw (so the same transaction can be sent again after a rollback). */
  async function signedTransfer(nonce: number): Promise<Hex> {
    return wallet.signTransaction({
      account,
      chain: foundry,
      to: TO,
      value: parseEther("0.001"),
      nonce,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1n,
    });
  }
  async function include(raw: Hex): Promise<{ receipt: TransactionReceipt; event: ReceiptEvent }> {
    const hash = await rpc<Hex>(anvil.rpcUrl, "eth_sendRawTransaction", [raw]);
    const receipt = await node.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    return { receipt, event: { transaction: { hash }, block: { hash: receipt.blockHash, number: receipt.blockNumber } } };
  }

  beforeAll(async () => {
    anvil = await startAnvil({ port: await freePort() });
    node = createPublicClient({ chain: foundry, transport: http(anvil.rpcUrl) });
    wallet = createWalletClient({ chain: foundry, transport: http(anvil.rpcUrl) });
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("returns the receipt of a canonical block from the first client, without asking the node", async () => {
    const { receipt, event } = await include(await signedTransfer(await node.getTransactionCount({ address: account.address })));
    let nodeAsked = false;
    const got = await receiptAtEventBlock(
      node,
      () => {
        nodeAsked = true;
        return node;
      },
      event,
    );
    expect(got?.blockHash).toBe(receipt.blockHash);
    expect(got?.transactionHash).toBe(event.transaction.hash);
    expect(nodeAsked).toBe(false);
  });

  it("answers null at once when a rollback removed the event's block and the chain moved on, and when the chain is now shorter", async () => {
    const nonce = await node.getTransactionCount({ address: account.address });
    const snapshot = await rpc<Hex>(anvil.rpcUrl, "evm_snapshot");
    const { event } = await include(await signedTransfer(nonce));
    await rpc(anvil.rpcUrl, "evm_revert", [snapshot]);

    // Shorter: nothing mined since the rollback, so no block stands at the event's height.
    expect(BigInt(await rpc<Hex>(anvil.rpcUrl, "eth_blockNumber"))).toBe(event.block.number - 1n);
    let started = Date.now();
    expect(await read(node, event)).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);

    // Moved on: another block now stands at that height, without the transaction.
    await rpc(anvil.rpcUrl, "evm_mine");
    const now = await node.getBlock({ blockNumber: event.block.number });
    expect(now.hash).not.toBe(event.block.hash);
    started = Date.now();
    expect(await read(node, event)).toBeNull();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(orphaned.map((e) => e.transaction.hash)).toEqual([event.transaction.hash, event.transaction.hash]);
  });

  it("reads the node when the first client's copy is from the block a rollback removed and the transaction was included again", async () => {
    const nonce = await node.getTransactionCount({ address: account.address });
    const raw = await signedTransfer(nonce);
    const snapshot = await rpc<Hex>(anvil.rpcUrl, "evm_snapshot");
    const first = await include(raw);
    await rpc(anvil.rpcUrl, "evm_revert", [snapshot]);
    await rpc(anvil.rpcUrl, "evm_mine"); // an empty block where the first one stood
    const again = await include(raw);
    expect(again.event.transaction.hash).toBe(first.event.transaction.hash);
    expect(again.receipt.blockHash).not.toBe(first.receipt.blockHash);

    // A cache keyed by hash alone (as ponder's is) still holds the first inclusion's receipt.
    const staleCache: PonderReceiptClient = { getTransactionReceipt: async () => first.receipt };
    const got = await read(staleCache, again.event);
    expect(got?.blockHash).toBe(again.receipt.blockHash);
    expect(got?.blockNumber).toBe(again.receipt.blockNumber);

    // The first inclusion's event, replayed after all this, with that copy: the copy is its own
    // block's, so the handler goes on with it; ponder reverts what it writes with the block.
    expect((await read(staleCache, first.event))?.blockHash).toBe(first.receipt.blockHash);
  });
});
