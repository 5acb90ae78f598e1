/**
 * Every test file leaves its worker's shared devnet as it found it: a snapshot of the shared anvil
 * before the file's first hook, reverted after its last. No file depends on another's
 * leftovers, and the chain a later file's ponder reindexes is the prepared devnet plus that
 * file's own blocks, not every earlier file's.
 *
 * A snapshot covers the chain, not the node's settings nor its transaction pool, so after the
 * revert the file's mining settings go back to the devnet's (automine, no timestamp interval)
 * and any transaction still waiting in the pool is dropped, with a line naming it. A pending
 * transaction outlives `evm_revert` (anvil keeps its pool): left there, it would be mined into
 * the next file's chain when automine comes back, or hold a nonce the next file's transaction
 * then waits behind.
 *
 * Registered as a setup file (vitest.config.ts), so its hooks wrap each file's own: its
 * `beforeAll` runs first and its `afterAll` last.
 */
import { afterAll, beforeAll } from "vitest";
import { rpc } from "../../devnet/anvil.js";
import { testEnv } from "./env.js";

let snapshot: string | undefined;

type Pool = Record<"pending" | "queued", Record<string, Record<string, string>>>;

/** Empties the node's transaction pool; says what was in it, and when it was found. */
async function dropWaitingTransactions(rpcUrl: string, when: string): Promise<void> {
  const inspect = await rpc<Pool>(rpcUrl, "txpool_inspect");
  const waiting = (["pending", "queued"] as const).flatMap((state) =>
    Object.entries(inspect[state] ?? {}).flatMap(([from, byNonce]) =>
      Object.entries(byNonce).map(([nonce, summary]) => `${state} ${from} nonce ${nonce}: ${summary}`),
    ),
  );
  if (waiting.length === 0) return;
  console.warn(`isolate-chain: ${waiting.length} transaction(s) waiting in the shared devnet's pool ${when}, dropped:\n  ${waiting.join("\n  ")}`);
  await rpc(rpcUrl, "anvil_dropAllTransactions");
}

beforeAll(async () => {
  const { rpcUrl } = testEnv();
  await dropWaitingTransactions(rpcUrl, "before this file");
  snapshot = await rpc<string>(rpcUrl, "evm_snapshot");
});

afterAll(async () => {
  if (snapshot === undefined) return;
  const { rpcUrl } = testEnv();
  const reverted = await rpc<boolean>(rpcUrl, "evm_revert", [snapshot]);
  if (!reverted) throw new Error(`the shared devnet could not be reverted to snapshot ${snapshot} after this file`);
  // A transaction still in the pool outlives the revert; drop it before automine would mine it.
  await dropWaitingTransactions(rpcUrl, "after this file's revert");
  // Back to the devnet's mining settings, whatever the file left set.
  await rpc(rpcUrl, "evm_setAutomine", [true]);
  await rpc(rpcUrl, "anvil_removeBlockTimestampInterval");
});
