/**
 * Attribution of the operator's pooled fee-locker balance to tokens (docs/design.md §5.2).
 *
 * The fee locker pools the operator's fees per currency across every token, and `claim`
 * sweeps the whole pool. Per-token amounts come from the LP locker's
 * `ClaimedRewards(token, amount0, amount1, rewards0[], rewards1[])`: `rewardsX[i]` for each
 * reward index `i` whose recipient is the operator, in currency X. Collections by anyone
 * count (traders and keepers call `collectRewards` too; on Base the hook does on every swap),
 * so the engine reads every `ClaimedRewards` log of our tokens, not only its own receipts —
 * and only of ours: the scan is filtered by token (common/ours.ts, docs/design.md §4.6), never
 * every Clanker token's collections.
 *
 * Each `ClaimTokens(operator, currency, amount)` — whoever sent the claim — settles the
 * `ClaimedRewards` stored since the previous one: those are attributed to their tokens and
 * split into the legs, in one transaction with the cursor, keyed by log position. Anything
 * the claim paid beyond what the logs explain (fees stored before the engine's start block)
 * is recorded as unattributed operator revenue, so ledger totals equal the onchain claims.
 *
 * The sniper auction pays the operator too, without a `ClaimedRewards`: up to five auction
 * blocks of a launch (round 1's two blocks after it, each won round opening the next two blocks
 * later) are sold for WETH, and the MEV module stores 80% of each winning bid for the token's
 * reward recipients in the fee locker (`StoreTokens` sent by the module). Each such `StoreTokens` of the operator's is a fact like a collection: attributed
 * to the token whose pool held the auction (`AuctionWon` in the same transaction names the
 * pool) and booked when a claim settles it.
 */
import { type Address, type Hex, getAddress, parseEventLogs } from "viem";
import { isOurToken } from "../../common/ours.js";
import { tables } from "../../core/db/client.js";
import { clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { sniperAuctionAbi } from "../../common/abis/clanker-hook.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { logDecision } from "../../core/agent-log.js";
import { getLogsChunked, logPosition } from "../chain/logs.js";
import type { EngineContext } from "../../core/context.js";
import { allocateFees } from "./allocate.js";
import type { Queryable } from "../../core/db/client.js";
import { recordEntries } from "../../core/ledger/journal.js";
import { type Currency, Legs } from "../../core/ledger/legs.js";
import { getState, setState } from "../runtime/state.js";
import { registryAbi } from "../../common/abis/registry.js";
import { refreshTokenCache, tokenInfo } from "../../core/registry-cache.js";
import { showAmountOf } from "../../common/units.js";

async function isEnrolled(ctx: EngineContext, token: Address): Promise<boolean> {
  return ctx.publicClient.readContract({ address: ctx.contract("registry"), abi: registryAbi, functionName: "isEnrolled", args: [token] });
}

/** The last ClaimTokens attributed, and the ones before it (so a reorg can step back to one the chain still has). */
type Cursor = { block: number; logIndex: number; history?: { block: number; logIndex: number }[] };

/** Claims remembered behind the cursor: deeper reorgs restart from the start block (idempotent, only slower). */
const CURSOR_HISTORY = 64;

/**
 * After a reorg from `forkBlock`: each currency's cursor steps back to the last claim below
 * the fork (the attribution rows of later claims were reversed with their blocks).
 */
export async function rewindAttributionCursors(q: Queryable, forkBlock: number): Promise<void> {
  for (const currency of ["USDC", "WETH"] as const) {
    const key = `fee-cursor:${currency}`;
    const cursor = await getState<Cursor>(q, key);
    if (!cursor || cursor.block < forkBlock) continue;
    const history = (cursor.history ?? []).filter((h) => h.block < forkBlock);
    const back = history.pop();
    // Without a claim to step back to (a cursor older than its history), attribution resumes at
    // the fork: never before it, where claims may be booked under keys of another form. Fees
    // collected before the fork and claimed after it are then booked as unattributed operator
    // revenue — exact in total, never twice.
    await setState(q, key, back ? { ...back, history } : { block: forkBlock - 1, logIndex: Number.MAX_SAFE_INTEGER, history: [] });
  }
}

const event = <N extends string>(abi: readonly { type: string; name?: string }[], name: N) => abi.find((e) => e.type === "event" && e.name === name) as never;

export type AttributionReport = { claims: number; claimedTotal: string; attributed: Record<string, string>; unattributed: string };

/**
 * Attributes every `ClaimTokens(operator, currency)` since the cursor, up to `toBlock`
 * (default: the head). Idempotent: a replay after a crash writes nothing twice.
 */
export async function attributeClaims(ctx: EngineContext, currencyName: Currency, toBlock?: bigint): Promise<AttributionReport> {
  const currency = ctx.contract(currencyName === "USDC" ? "usdc" : "weth");
  const cursorKey = `fee-cursor:${currencyName}`;
  const stored = await getState<Cursor>(ctx.db, cursorKey);
  const cursor = stored && stored.block >= ctx.config.startBlock ? stored : { block: ctx.config.startBlock, logIndex: -1, history: stored?.history ?? [] };
  const head = toBlock ?? (await ctx.publicClient.getBlockNumber({ cacheTime: 0 }));
  const report: AttributionReport = { claims: 0, claimedTotal: "0", attributed: {}, unattributed: "0" };
  if (BigInt(cursor.block) > head) return report;
  const after = (l: { blockNumber: bigint; logIndex: number }) =>
    logPosition(l) > logPosition({ blockNumber: BigInt(cursor.block), logIndex: cursor.logIndex });

  const claims = (
    await getLogsChunked(ctx.publicClient, {
      address: ctx.contract("feeLocker"),
      event: event(clankerFeeLockerAbi, "ClaimTokens"),
      args: { feeOwner: ctx.operator, token: currency },
      fromBlock: BigInt(cursor.block),
      toBlock: head,
    })
  ).filter(after) as unknown as ClaimLog[];
  if (!claims.length) return report;
  const last = claims[claims.length - 1]!;
  const auctionFees = await auctionStores(ctx, currency, BigInt(cursor.block), last.blockNumber, after);
  const rewards = (await operatorCollections(ctx, currency, BigInt(cursor.block), last.blockNumber)).filter(after);

  let total = 0n;
  let unattributed = 0n;
  let from = logPosition({ blockNumber: BigInt(cursor.block), logIndex: cursor.logIndex });
  for (const claim of claims) {
    const to = logPosition(claim);
    const window = rewards.filter((r) => logPosition(r) > from && logPosition(r) <= to);
    const facts: {
      log: LogPosition;
      token: Address;
      amount: bigint;
      split: { assetBps: number; perpBps: number } | null;
      source: "claimed-rewards" | "auction";
    }[] = [];
    for (const log of window) {
      let info = await tokenInfo(ctx, log.args.token);
      if (!info.enrolled && (await isEnrolled(ctx, info.token))) {
        // Enrolled since the cache was refreshed: refresh, so its fees are split, not kept.
        await refreshTokenCache(ctx);
        info = await tokenInfo(ctx, log.args.token);
      }
      let amount = 0n;
      info.rewardRecipients.forEach((recipient, i) => {
        if (getAddress(recipient) !== getAddress(ctx.operator)) return;
        if (getAddress(info.poolKey.currency0) === currency) amount += log.args.rewards0[i] ?? 0n;
        if (getAddress(info.poolKey.currency1) === currency) amount += log.args.rewards1[i] ?? 0n;
      });
      if (amount > 0n)
        facts.push({
          log,
          token: info.token,
          amount,
          split: info.enrolled ? { assetBps: info.assetBps, perpBps: info.perpBps } : null,
          source: "claimed-rewards",
        });
    }
    for (const store of auctionFees.filter((a) => logPosition(a.log) > from && logPosition(a.log) <= to)) {
      let info = await tokenInfo(ctx, store.token);
      if (!info.enrolled && (await isEnrolled(ctx, info.token))) {
        // Enrolled after its auction (an agent token is enrolled after its dev buy, so after every
        // round): refresh, so its proceeds are split as an enrolled token's.
        await refreshTokenCache(ctx);
        info = await tokenInfo(ctx, store.token);
      }
      facts.push({
        log: store.log,
        token: info.token,
        amount: store.amount,
        split: info.enrolled ? { assetBps: info.assetBps, perpBps: info.perpBps } : null,
        source: "auction",
      });
    }
    facts.sort((a, b) => (logPosition(a.log) < logPosition(b.log) ? -1 : 1));
    const attributed = facts.reduce((s, f) => s + f.amount, 0n);
    const claimed = claim.args.amountClaimed;
    const surplus = claimed - attributed;
    await ctx.db.transaction(async (tx) => {
      for (const f of facts) {
        // Booked when the claim settles them: the claim's block is the fact a reorg can take away.
        const key = `${f.source}:${claim.blockHash}:${f.log.transactionHash}:${f.log.logIndex}:${currencyName}`;
        const common = { txHash: f.log.transactionHash, blockNumber: Number(claim.blockNumber), blockHash: claim.blockHash };
        const data = {
          claimTx: claim.transactionHash,
          rewardBlock: Number(f.log.blockNumber),
          ...(f.source === "auction" ? { source: "sniper auction" } : {}),
        };
        if (currencyName === "USDC") {
          await allocateFees(tx, { key, token: f.token, usdc: f.amount, split: f.split, ...common, data });
        } else {
          await recordEntries(tx, [{ key, kind: "fee-claimed", leg: Legs.wethClaimed, token: f.token, currency: "WETH", amount: f.amount, ...common, data }]);
        }
      }
      if (surplus > 0n) {
        await recordEntries(tx, [
          {
            key: `unattributed:${claim.blockHash}:${claim.transactionHash}:${claim.logIndex}`,
            kind: "unattributed",
            leg: currencyName === "USDC" ? Legs.operator : Legs.legacyWeth,
            token: null,
            currency: currencyName,
            amount: surplus,
            txHash: claim.transactionHash,
            blockNumber: Number(claim.blockNumber),
            blockHash: claim.blockHash,
            data: { reason: "claimed beyond the ClaimedRewards logs since the start block" },
          },
        ]);
      }
      const history = [...(cursor.history ?? []), { block: cursor.block, logIndex: cursor.logIndex }].slice(-CURSOR_HISTORY);
      cursor.history = history;
      cursor.block = Number(claim.blockNumber);
      cursor.logIndex = claim.logIndex;
      await setState(tx, cursorKey, { block: cursor.block, logIndex: cursor.logIndex, history });
    });
    if (surplus < 0n) {
      ctx.log.error({ claim: claim.transactionHash, claimed: String(claimed), attributed: String(attributed) }, "attributed more than was claimed");
      await logDecision(ctx, {
        worker: "fee-claimer",
        decision: "attribution-mismatch",
        reason: `claim ${claim.transactionHash} paid ${showAmountOf(claimed, currencyName)} but logs attribute ${showAmountOf(attributed, currencyName)}`,
      });
    }
    for (const f of facts) {
      report.attributed[f.token] = (BigInt(report.attributed[f.token] ?? "0") + f.amount).toString();
    }
    total += claimed;
    unattributed += surplus > 0n ? surplus : 0n;
    report.claims++;
    from = to;
  }
  report.claimedTotal = total.toString();
  report.unattributed = unattributed.toString();
  for (const [token, amount] of Object.entries(report.attributed)) {
    await logDecision(ctx, {
      worker: "fee-claimer",
      token: token as Address,
      decision: "fees-claimed",
      reason: `${showAmountOf(BigInt(amount), currencyName)} attributed from ClaimedRewards`,
      data: { currency: currencyName, amount },
    });
  }
  return report;
}

/**
 * The operator's shares of sniper-auction proceeds stored in the fee locker in `currency`
 * between two blocks, each with the token whose auction paid it. A store whose transaction
 * names no pool, or a pool no Clanker token was launched into, is left out (a claim then
 * books it as unattributed revenue).
 */
async function auctionStores(
  ctx: EngineContext,
  currency: Address,
  fromBlock: bigint,
  toBlock: bigint,
  after: (l: LogPosition) => boolean,
): Promise<{ log: LogPosition; token: Address; amount: bigint }[]> {
  const mevModule = ctx.config.contracts.mevModule;
  if (!mevModule) return [];
  const stores = (
    await getLogsChunked(ctx.publicClient, {
      address: ctx.contract("feeLocker"),
      event: event(clankerFeeLockerAbi, "StoreTokens"),
      args: { sender: mevModule, feeOwner: ctx.operator, token: currency },
      fromBlock,
      toBlock,
    })
  ).filter(after) as unknown as (LogPosition & { args: { amount: bigint } })[];
  if (!stores.length) return [];
  // The auctions of the stores' own blocks only: every Clanker launch has an auction on Base.
  const wins: (LogPosition & { args: { poolId: Hex } })[] = [];
  for (const block of new Set(stores.map((s) => s.blockNumber))) {
    const logs = await getLogsChunked(ctx.publicClient, { address: mevModule, event: event(sniperAuctionAbi, "AuctionWon"), fromBlock: block, toBlock: block });
    wins.push(...(logs as unknown as (LogPosition & { args: { poolId: Hex } })[]));
  }
  const found: { log: LogPosition; token: Address; amount: bigint }[] = [];
  for (const store of stores) {
    const win = wins.find((w) => w.transactionHash === store.transactionHash && w.logIndex < store.logIndex);
    const token = win && (await tokenOfPool(ctx, win.args.poolId, win.blockNumber));
    if (!token) {
      ctx.log.warn(
        { tx: store.transactionHash, amount: String(store.args.amount) },
        "auction proceeds stored for the operator without a launched token's pool",
      );
      continue;
    }
    found.push({ log: store, token, amount: store.args.amount });
  }
  return found;
}

/** Tokens per `ClaimedRewards` request: the token topic is a list (an OR), kept to a size every provider takes. */
const TOKENS_PER_SCAN = 100;

/**
 * The `ClaimedRewards` that paid the operator between two blocks, of our tokens only. Two
 * exact filters: `ClaimedRewards` whose token topic is one of the tokens the engine knows
 * (enrolled, the protocol token, and every token whose fees it met before), and the fee
 * locker's `StoreTokens(sender = LP locker, feeOwner = operator, token = currency)`, the
 * stores every collection that pays the operator makes. A store whose transaction holds no
 * known token's collection (a token that pays the operator and that the engine has not met:
 * launched by a third party, not enrolled yet) is read from its receipt, and its token is
 * cached, so the next scan's filter names it.
 */
async function operatorCollections(ctx: EngineContext, currency: Address, fromBlock: bigint, toBlock: bigint): Promise<RewardLog[]> {
  const lpLocker = ctx.contract("lpLocker");
  const known = await knownTokens(ctx);
  const rewards: RewardLog[] = [];
  for (let i = 0; i < known.length; i += TOKENS_PER_SCAN) {
    const logs = await getLogsChunked(ctx.publicClient, {
      address: lpLocker,
      event: event(clankerLpLockerAbi, "ClaimedRewards"),
      args: { token: known.slice(i, i + TOKENS_PER_SCAN) },
      fromBlock,
      toBlock,
    });
    rewards.push(...(logs as unknown as RewardLog[]));
  }
  const stores = (await getLogsChunked(ctx.publicClient, {
    address: ctx.contract("feeLocker"),
    event: event(clankerFeeLockerAbi, "StoreTokens"),
    args: { sender: lpLocker, feeOwner: ctx.operator, token: currency },
    fromBlock,
    toBlock,
  })) as unknown as LogPosition[];
  const explained = new Set(rewards.map((r) => r.transactionHash));
  for (const hash of new Set(stores.map((s) => s.transactionHash))) {
    if (explained.has(hash)) continue;
    const receipt = await ctx.publicClient.getTransactionReceipt({ hash });
    const logs = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "ClaimedRewards", logs: receipt.logs }).filter(
      (l) => getAddress(l.address) === getAddress(lpLocker),
    );
    for (const l of logs) {
      await tokenInfo(ctx, l.args.token); // met: cached for the next scans
      rewards.push(l as unknown as RewardLog);
    }
  }
  return rewards.sort((a, b) => (logPosition(a) < logPosition(b) ? -1 : 1));
}

/** Our tokens the engine knows: the protocol token, enrolled tokens, and cached tokens that pay the operator. */
async function knownTokens(ctx: EngineContext): Promise<Address[]> {
  const rows = await ctx.db
    .select({ token: tables.tokens.token, enrolled: tables.tokens.enrolled, rewardRecipients: tables.tokens.rewardRecipients })
    .from(tables.tokens);
  const ours = { operator: ctx.operator, protocolToken: ctx.config.protocolToken };
  const list = rows
    .filter((r) => isOurToken(ours, { token: r.token, enrolled: r.enrolled, rewardRecipients: (r.rewardRecipients ?? []) as string[] }))
    .map((r) => getAddress(r.token));
  if (ctx.config.protocolToken && !list.includes(getAddress(ctx.config.protocolToken))) list.push(getAddress(ctx.config.protocolToken));
  return list;
}

/**
 * How far before an auction round a pool was initialized: round 1's block is the launch + 2, the
 * fifth round's the launch + 10; the margin covers a module with longer waits.
 */
const AUCTION_AFTER_LAUNCH_BLOCKS = 16n;

/** The launched token of a v4 pool auctioned at `auctionBlock`: the side of its `Initialize` that is not USDC or WETH. */
async function tokenOfPool(ctx: EngineContext, poolId: Hex, auctionBlock: bigint): Promise<Address | undefined> {
  const fromBlock = auctionBlock > AUCTION_AFTER_LAUNCH_BLOCKS ? auctionBlock - AUCTION_AFTER_LAUNCH_BLOCKS : 0n;
  const [init] = (await getLogsChunked(ctx.publicClient, {
    address: ctx.contract("v4PoolManager"),
    event: event(poolManagerAbi, "Initialize"),
    args: { id: poolId },
    fromBlock,
    toBlock: auctionBlock,
  })) as unknown as { args: { currency0: Address; currency1: Address } }[];
  if (!init) return undefined;
  const paired = new Set([ctx.contract("usdc"), ctx.contract("weth")].map((a) => getAddress(a)));
  const side = [init.args.currency0, init.args.currency1].find((c) => !paired.has(getAddress(c)));
  return side && getAddress(side);
}

type LogPosition = { blockNumber: bigint; logIndex: number; transactionHash: Hex };

type ClaimLog = {
  blockNumber: bigint;
  blockHash: `0x${string}`;
  logIndex: number;
  transactionHash: `0x${string}`;
  args: { feeOwner: Address; token: Address; amountClaimed: bigint };
};
type RewardLog = {
  blockNumber: bigint;
  logIndex: number;
  transactionHash: `0x${string}`;
  args: { token: Address; amount0: bigint; amount1: bigint; rewards0: readonly bigint[]; rewards1: readonly bigint[] };
};
