/**
 * Ports for a test file's servers. Files run two at a time (vitest.config.ts), or in two vitest
 * runs side by side (scripts/test.ts), and a port that was free a moment ago in one worker must
 * not be handed to another: each worker takes its
 * ports from its own block below the kernel's ephemeral range (32768–60999 by default), where
 * no `listen(0)` of anvil, ponder or a client socket lands. Within a block, ports are handed out
 * in turn from a random start, each checked free by binding it.
 *
 * Outside vitest's workers (the global setup, scripts), `freePort` asks the kernel.
 */
import { createServer } from "node:net";
import { freePort as kernelPort } from "../../devnet/ports.js";

const BLOCK_START = 20_000;
const BLOCK_SIZE = 1_000;

/** The worker's block: vitest's worker number, after the blocks of the lanes `npm test` runs beside this one (TEST_PORT_BLOCK, scripts/test.ts). */
const worker = process.env.VITEST_POOL_ID ? Number(process.env.VITEST_POOL_ID) + Number(process.env.TEST_PORT_BLOCK ?? 0) : 0;
let next = Math.floor(Math.random() * BLOCK_SIZE);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1 that is free now and that no other test worker will be given. */
export async function freePort(): Promise<number> {
  if (!Number.isInteger(worker) || worker < 1 || worker > 12) return kernelPort();
  for (let tries = 0; tries < BLOCK_SIZE; tries++) {
    const port = BLOCK_START + (worker - 1) * BLOCK_SIZE + (next++ % BLOCK_SIZE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port left in test worker ${worker}'s block`);
}
