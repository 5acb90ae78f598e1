/**
 * A stranger's token enrolled long after its launch, on a node that keeps the state of its
 * last 64 blocks only (anvil's `--prune-history 64`, as most non-archive RPCs): the launch is
 * older than that window, so no contract state can be read at its block. The indexer finds
 * the launch by the launcher's `TokenCreated` log and reads that one receipt (logs and
 * receipts stay on such nodes), writes the token as launched, and goes on with its later events.
 */
import { join } from "node:path";
import { type Address, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY, type Deployments } from "../../common/config.js";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { type AnvilHandle, rpc, startAnvil } from "../../devnet/anvil.js";
import { type DevnetContext, createDevnetContext } from "../../devnet/context.js";
import { deployDevnet, writeDeployments } from "../../devnet/deploy.js";
import type { PonderHandle } from "../../devnet/ponder.js";
import { waitForIndexed, waitForReady } from "../../devnet/ponder.js";
import * as act from "../helpers/actions.js";
import { ANVIL_KEYS, createDatabase, dumpPonderTables, startTestPonder, testEnv } from "../helpers/env.js";
import { freePort } from "../helpers/ports.js";

const STATE_HISTORY = 64;
const USDC = (n: bigint) => n * 1_000_000n;

describe("adoption on a node that keeps 64 blocks of state", () => {
  let anvil: AnvilHandle;
  let deployments: Deployments;
  let deploymentsFile: string;
  let c: Record<string, Address>;
  let ponder: (PonderHandle & { logs: string[] }) | undefined;
  const as = (i: number): DevnetContext => createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, ANVIL_KEYS[i]!);

  beforeAll(async () => {
    anvil = await startAnvil({ port: await freePort(), stateHistoryBlocks: STATE_HISTORY });
    deployments = await deployDevnet(createDevnetContext(anvil.rpcUrl, DEVNET_CHAIN_ID, DEVNET_OPERATOR_KEY));
    deploymentsFile = join(testEnv().workDir, `deployments-pruned-${anvil.rpcUrl.split(":").pop()}.json`);
    writeDeployments(deploymentsFile, { ...deployments, rpcUrl: anvil.rpcUrl });
    c = deployments.contracts as Record<string, Address>;
  }, 600_000);

  afterAll(async () => {
    await ponder?.stop();
    await anvil?.stop();
  });

  it("finds a launch older than the state window from its log, indexes the enrolment and the token's later events", async () => {
    const operator = as(0);
    const stranger = as(4);
    const trader = as(5);
    // A stranger's launch, paying the stranger, not the operator: not ours, no row.
    const launched = await act.launchToken(stranger, c, {
      name: "Old Foreign",
      symbol: "OLDF",
      operator: stranger.account.address,
      creator: stranger.account.address,
    });
    const launchBlock = launched.receipt.blockNumber;

    const db = await createDatabase("pruned");
    ponder = await startTestPonder(db, { RPC_URL: anvil.rpcUrl, DEPLOYMENTS_FILE: deploymentsFile });
    await waitForReady(ponder, 300_000);

    // The launch leaves the node's state window.
    await rpc(anvil.rpcUrl, "anvil_mine", [`0x${(STATE_HISTORY * 2).toString(16)}`]);
    const client = operator.publicClient;
    await expect(client.getCode({ address: launched.token, blockNumber: launchBlock })).rejects.toThrow();
    expect((await client.getLogs({ address: c.launcher, fromBlock: launchBlock, toBlock: launchBlock })).length).toBeGreaterThan(0);

    const enrolled = await act.enroll(operator, c, launched.token, stranger.account.address);
    expect(enrolled.blockNumber - launchBlock).toBeGreaterThan(BigInt(STATE_HISTORY));
    // Its events after the enrolment: a buy, then a burn of what was bought.
    const mint = parseAbi(["function mint(address to, uint256 amount)"]);
    await operator.write(c.usdc!, mint, "mint", [trader.account.address, USDC(1_000n)]);
    await act.swapInPool(trader, c, launched.token, c.usdc!, USDC(100n));
    const { amount: burned, receipt: burnReceipt } = await act.burnAll(trader, launched.token);
    expect(burned).toBeGreaterThan(0n);

    await waitForIndexed(ponder, burnReceipt.blockNumber, 120_000);
    expect(ponder.process.exitCode).toBeNull();
    const dump = await dumpPonderTables(db);
    const rows = (table: string) => (dump[table] ?? []).map((r) => JSON.parse(r) as Record<string, unknown>);
    const token = launched.token.toLowerCase();
    expect(rows("enrollment").filter((r) => r.token === token)).toHaveLength(1);
    const [tokenRow] = rows("token").filter((r) => r.address === token);
    expect(tokenRow).toMatchObject({ name: "Old Foreign", symbol: "OLDF", launch_tx: launched.receipt.transactionHash });
    expect(BigInt(tokenRow!.created_block as string)).toBe(launchBlock);
    const [poolRow] = rows("pool").filter((r) => r.token === token);
    expect(poolRow).toBeDefined();
    expect(Number(poolRow!.swaps)).toBeGreaterThan(0);
    expect(
      rows("burn")
        .filter((r) => r.token === token)
        .map((r) => BigInt(r.amount as string)),
    ).toEqual([burned]);
    expect(await act.balanceOf(trader, launched.token, DEAD_ADDRESS)).toBeGreaterThanOrEqual(burned);
    expect(ponder.logs.join("\n")).not.toMatch(/BlockOutOfRange|state .*not available|missing trie node/i);
  }, 600_000);
});
