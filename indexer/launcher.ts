/**
 * Launcher `TokenCreated` → `token` and its pool, for our launches only (common/ours.ts,
 * docs/design.md §4.6). The launcher serves every Clanker deployer: a stranger's launch writes
 * nothing. The pool's `Initialize`, the hook's `PoolInitialized` (its fees by direction) and the
 * MEV module's launch configuration come from the launch's own receipt (one read per launch of ours), not from following every v4 pool.
 *
 * A token launched by someone else and enrolled later is adopted at its enrolment
 * (`adoptLaunch`): its launch is found by the launcher's `TokenCreated` log for it, and the same
 * facts are written from that launch's receipt, brought up to the enrolment block by reading its
 * state there.
 */
import { type Context, ponder } from "ponder:registry";
import { enrollment, pool, rewardRecipient, token } from "ponder:schema";
import { type Address, BaseError, ContractFunctionRevertedError, type Hex, type TransactionReceipt, getAbiItem, parseEventLogs } from "viem";
import { FeeIn, clankerFactoryAbi, clankerLpLockerAbi } from "../common/abis/clanker.js";
import { clankerHookAbi } from "../common/abis/clanker-hook.js";
import { extsloadAbi } from "../common/abis/engine.js";
import { poolManagerAbi } from "../common/abis/uniswap.js";
import { decodeV4Slot0, v4PoolStateSlot } from "../common/uniswap.js";
import { applyLaunchAuction } from "./auction.js";
import { indexerConfig, indexerNode, receiptOf } from "./config.js";
import { addProtocolTotals, recordActivity } from "./lib.js";
import { poolPrices } from "./prices.js";

type Db = Context["db"];
type Client = Context["client"];
type TokenCreatedArgs = Extract<
  ReturnType<typeof parseEventLogs<typeof clankerFactoryAbi, true, "TokenCreated">>[number],
  { eventName: "TokenCreated" }
>["args"];
type BlockAt = { number: bigint; timestamp: bigint; hash: Hex };
/** One launch: its `TokenCreated`, where it is, and the receipt of its transaction. */
type Launch = { args: TokenCreatedArgs; txHash: Hex; block: BlockAt; logIndex: number; receipt: TransactionReceipt };

ponder.on("Launcher:TokenCreated", async ({ event, context }) => {
  const address = event.args.tokenAddress.toLowerCase() as Hex;
  const isProtocolToken = address === indexerConfig.protocolToken;
  // Ours: the protocol token, a launch that pays the operator (the locker's `TokenRewardAdded`
  // earlier in this transaction kept its reward slots only then), or a token enrolled before it
  // was launched.
  const ours =
    isProtocolToken ||
    !!(await context.db.find(rewardRecipient, { token: address, rewardIndex: 0 })) ||
    !!(await context.db.find(enrollment, { token: address }));
  if (!ours) return;
  const receipt = await receiptOf(context.client, event);
  if (!receipt) return; // the block is being rolled back (indexer/receipts.ts)
  await writeLaunch(context.db, { args: event.args, txHash: event.transaction.hash, block: event.block, logIndex: event.log.logIndex, receipt });
  await addProtocolTotals(context.db, event.block, { tokensLaunched: 1 });
});

/**
 * A token enrolled after someone else launched it: its launch facts, written at its enrolment.
 * The launch is found by the launcher's `TokenCreated` log for it (`eth_getLogs` on its indexed
 * `tokenAddress`, through the indexer's own endpoints: ponder's client asks no logs), then that
 * transaction's receipt; no state is read at the launch's block, so a node that keeps only the
 * latest blocks' state serves it. What changed since (admin, image, metadata, reward slots and preferences, the pool's price) is
 * read as of the enrolment block. Its swaps, fees and burns before the enrolment are not
 * indexed (docs/base.md). Returns false when the token is not a launch of this launcher.
 */
export async function adoptLaunch(context: { db: Db; client: Client }, address: Address, at: BlockAt): Promise<boolean> {
  const launch = await findLaunch(context.client, address, at.number);
  if (!launch) return false;
  await writeLaunch(context.db, launch);
  const lower = address.toLowerCase() as Hex;
  const blockNumber = at.number;
  const [admin, image, metadata] = await Promise.all(
    (["admin", "imageUrl", "metadata"] as const).map((functionName) => context.client.readContract({ address, abi: tokenStateAbi, functionName, blockNumber })),
  );
  await context.db.update(token, { address: lower }).set({ admin: String(admin).toLowerCase() as Hex, image: String(image), metadata: String(metadata) });
  // Reward slots as they stand (updated recipients and admins, preferences).
  const rewards = await context.client.readContract({
    address: indexerConfig.lpLocker,
    abi: clankerLpLockerAbi,
    functionName: "tokenRewards",
    args: [address],
    blockNumber,
  });
  for (let i = 0; i < rewards.rewardRecipients.length; i++) {
    const feeIn = await context.client
      .readContract({ address: indexerConfig.lpLocker, abi: clankerLpLockerAbi, functionName: "feePreferences", args: [address, BigInt(i)], blockNumber })
      // A locker without fee preferences pays every slot as earned (Both); any other failure stands.
      .catch((error: unknown) => {
        if (error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError)) return FeeIn.Both;
        throw error;
      });
    const slot = {
      recipient: rewards.rewardRecipients[i]!.toLowerCase() as Hex,
      admin: rewards.rewardAdmins[i]!.toLowerCase() as Hex,
      bps: rewards.rewardBps[i]!,
      feeIn,
      updatedBlock: blockNumber,
    };
    await context.db
      .insert(rewardRecipient)
      .values({ token: lower, rewardIndex: i, ...slot })
      .onConflictDoUpdate(slot);
  }
  // The pool's price at the enrolment (its swaps until then are not counted).
  const row = await context.db.find(pool, { poolId: launch.args.poolId });
  if (row) {
    const word = await context.client.readContract({
      address: indexerConfig.poolManager,
      abi: extsloadAbi,
      functionName: "extsload",
      args: [v4PoolStateSlot(rewards.poolKey)],
      blockNumber,
    });
    const slot0 = decodeV4Slot0(word);
    const prices = await poolPrices(context.db, slot0.sqrtPriceX96, lower, row.currency0, row.pairedToken);
    await context.db
      .update(pool, { poolId: launch.args.poolId })
      .set({ sqrtPriceX96: slot0.sqrtPriceX96, tick: slot0.tick, ...prices, updatedAt: at.timestamp });
  }
  await addProtocolTotals(context.db, at, { tokensLaunched: 1 });
  return true;
}

const tokenStateAbi = [
  { type: "function", name: "admin", stateMutability: "view", inputs: [], outputs: [{ type: "address" }] },
  { type: "function", name: "imageUrl", stateMutability: "view", inputs: [], outputs: [{ type: "string" }] },
  { type: "function", name: "metadata", stateMutability: "view", inputs: [], outputs: [{ type: "string" }] },
] as const;

const tokenCreatedEvent = getAbiItem({ abi: clankerFactoryAbi, name: "TokenCreated" });

/**
 * The launch of `address` at or before block `before`: the launcher's `TokenCreated` for it,
 * found by its indexed `tokenAddress` with `eth_getLogs` (logs stay on nodes that keep only the
 * latest blocks' state), then that one transaction's receipt. No contract state is read at the
 * launch's block, however old it is.
 */
async function findLaunch(client: Client, address: Address, before: bigint): Promise<Launch | undefined> {
  const found = await findTokenCreated(address, before);
  if (!found) return undefined;
  const receipt = await client.getTransactionReceipt({ hash: found.transactionHash });
  const created = parseEventLogs({ abi: clankerFactoryAbi, eventName: "TokenCreated", logs: receipt.logs }).find(
    (l) => l.address.toLowerCase() === indexerConfig.launcher && l.args.tokenAddress.toLowerCase() === address.toLowerCase(),
  );
  if (!created) return undefined;
  const block = await client.getBlock({ blockNumber: receipt.blockNumber });
  return {
    args: created.args,
    txHash: receipt.transactionHash,
    block: { number: receipt.blockNumber, timestamp: block.timestamp, hash: receipt.blockHash },
    logIndex: created.logIndex,
    receipt,
  };
}

type LogAt = { transactionHash: Hex; blockNumber: bigint };

/**
 * The launcher's `TokenCreated` log for `address` up to block `to`: first from the configured
 * start block (where our launches begin), then before it (a stranger's older launch). One
 * `eth_getLogs` per range when the endpoint takes it (the filter matches one log); a range the
 * endpoint refuses is split in halves, newest first, down to ETH_GET_LOGS_BLOCK_RANGE.
 */
async function findTokenCreated(address: Address, to: bigint): Promise<LogAt | undefined> {
  const start = indexerConfig.startBlock <= to ? indexerConfig.startBlock : 0n;
  return (await logsIn(address, start, to)) ?? (start > 0n ? await logsIn(address, 0n, start - 1n) : undefined);
}

async function logsIn(address: Address, fromBlock: bigint, toBlock: bigint): Promise<LogAt | undefined> {
  let logs: LogAt[];
  try {
    logs = (await indexerNode().getLogs({ address: indexerConfig.launcher, event: tokenCreatedEvent, args: { tokenAddress: address }, fromBlock, toBlock }))
      .filter((l) => l.transactionHash !== null && l.blockNumber !== null)
      .map((l) => ({ transactionHash: l.transactionHash!, blockNumber: l.blockNumber! }));
  } catch (error) {
    const span = toBlock - fromBlock + 1n;
    const floor = BigInt(indexerConfig.logsBlockRange ?? 1);
    if (span <= floor || span <= 1n) throw error;
    const mid = fromBlock + span / 2n;
    return (await logsIn(address, mid, toBlock)) ?? (await logsIn(address, fromBlock, mid - 1n));
  }
  return logs.sort((a, b) => (a.blockNumber < b.blockNumber ? -1 : 1))[0];
}

/** The facts of one launch of ours: the token, its pool, the MEV module's configuration, its activity. */
async function writeLaunch(db: Db, launch: Launch): Promise<void> {
  const { args: a, receipt } = launch;
  const address = a.tokenAddress.toLowerCase() as Hex;
  const isProtocolToken = address === indexerConfig.protocolToken;
  await db.insert(token).values({
    address,
    name: a.tokenName,
    symbol: a.tokenSymbol,
    image: a.tokenImage,
    metadata: a.tokenMetadata,
    context: a.tokenContext,
    admin: a.tokenAdmin.toLowerCase() as Hex,
    deployer: a.msgSender.toLowerCase() as Hex,
    poolId: a.poolId,
    pairedToken: a.pairedToken.toLowerCase() as Hex,
    locker: a.locker.toLowerCase() as Hex,
    startingTick: a.startingTick,
    isProtocolToken,
    launchTx: launch.txHash,
    createdBlock: launch.block.number,
    createdAt: launch.block.timestamp,
  });

  // The pool was initialised earlier in the same transaction, and the MEV module configured.
  const init = parseEventLogs({ abi: poolManagerAbi, eventName: "Initialize", logs: receipt.logs }).find(
    (l) => l.address.toLowerCase() === indexerConfig.poolManager && l.args.id === a.poolId,
  );
  const hookInit = parseEventLogs({ abi: clankerHookAbi, eventName: "PoolInitialized", logs: receipt.logs }).find(
    (l) => l.address.toLowerCase() === a.poolHook.toLowerCase() && l.args.poolId === a.poolId,
  );
  if (init) {
    const i = init.args;
    const currency0 = i.currency0.toLowerCase() as Hex;
    const prices = await poolPrices(db, i.sqrtPriceX96, address, currency0, a.pairedToken.toLowerCase() as Hex);
    await db.insert(pool).values({
      poolId: a.poolId,
      token: address,
      pairedToken: a.pairedToken.toLowerCase() as Hex,
      currency0,
      currency1: i.currency1.toLowerCase() as Hex,
      fee: i.fee,
      tickSpacing: i.tickSpacing,
      hooks: i.hooks.toLowerCase() as Hex,
      sqrtPriceX96: i.sqrtPriceX96,
      tick: i.tick,
      liquidity: 0n,
      ...prices,
      volumeToken: 0n,
      volumePaired: 0n,
      swaps: 0,
      clankerFee: hookInit?.args.clankerFee ?? null,
      pairedFee: hookInit?.args.pairedFee ?? null,
      protocolFees: 0n,
      updatedAt: launch.block.timestamp,
    });
  }
  await applyLaunchAuction(db, receipt.logs, { poolId: a.poolId, hook: a.poolHook }, launch.block.timestamp);

  const at = { block: launch.block, transaction: { hash: launch.txHash }, log: { logIndex: launch.logIndex } };
  await recordActivity(db, at, "token-launched", address, {
    name: a.tokenName,
    symbol: a.tokenSymbol,
    admin: a.tokenAdmin,
    poolId: a.poolId,
    pairedToken: a.pairedToken,
    isProtocolToken,
  });
}
