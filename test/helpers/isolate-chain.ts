/**
 * Every test file leaves its worker's shared devnet as it found it: a snapshot of the shared anvil
 * before the file's first hook, reverted after its last. No file depends on another's
 * leftovers, and the chain a later file's ponder reindexes is the prepared devnet plus that
 * file's own blocks, not every earlier file's.
 *
 * Registered as a setup file (vitest.config.ts), so its hooks wrap each file's own: its
 * `beforeAll` runs first and its `afterAll` last.
 */
import { afterAll, beforeAll } from "vitest";
import { rpc } from "../../devnet/anvil.js";
import { testEnv } from "./env.js";

let snapshot: string | undefined;

beforeAll(async () => {
  snapshot = await rpc<string>(testEnv().rpcUrl, "evm_snapshot");
});

afterAll(async () => {
  if (snapshot === undefined) return;
  const reverted = await rpc<boolean>(testEnv().rpcUrl, "evm_revert", [snapshot]);
  if (!reverted) throw new Error(`the shared devnet could not be reverted to snapshot ${snapshot} after this file`);
  // Back to automine, whatever the file left set.
  await rpc(testEnv().rpcUrl, "evm_setAutomine", [true]);
});
