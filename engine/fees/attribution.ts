/**
 * Attribution of the operator's pooled fee-locker balance to tokens (docs/design.md §5.2).
 *
 * The fee locker pools the operator's fees per currency across every token, and `claim`
 * sweeps the whole pool. Per-token amounts come from the LP locker's
 * `ClaimedRewards(token, amount0, amount1, rewards0[], rewards1[])`: `rewardsX[i]` for each
 * reward index `i` whose recipient is the operator, in currency X. Collections by anyone
 * count (traders and keepers call `collectRewards` too; on Base the hook does on every swap),
 * so the engine reads every `ClaimedRewards` log, not only its own receipts.
 *
 * Each `ClaimTokens(operator, currency, amount)` — whoever sent the claim — settles the
 * `ClaimedRewards` stored since the previous one: those are attributed to their tokens and
 * split into the legs, in one transaction with the cursor, keyed by log position. Anything
 * the claim paid beyond what the logs explain (fees stored before the engine's start block)
 * is recorded as unattributed operator revenue, so ledger totals equal the onchain claims.
 */
import { type Address, getAddress } from "viem";
import { clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { logDecision } from "../../core/agent-log.js";
import { getLogsChunked, logPosition } from "../chain/logs.js";
import type { EngineContext } from "../../core/context.js";
import { allocateFees } from "./allocate.js";
import type { Queryable } from "../../core/db/client.js";
import { type Currency, Legs, recordEntries } from "../../core/ledger/ledger.js";
import { getState, setState } from "../runtime/state.js";
import { registryAbi } from "../../common/abis/registry.js";
import { refreshTokenCache, tokenInfo } from "../../core/tokens.js";

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

const event = <N extends string>(abi: readonly { type: string; name?: string }[], name: N) =>
  abi.find((e) => e.type === "event" && e.name === name) as never;

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
  const after = (l: { blockNumber: bigint; logIndex: number }) => logPosition(l) > logPosition({ blockNumber: BigInt(cursor.block), logIndex: cursor.logIndex });

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
  const rewards = (
    await getLogsChunked(ctx.publicClient, {
      address: ctx.contract("lpLocker"),
      event: event(clankerLpLockerAbi, "ClaimedRewards"),
      fromBlock: BigInt(cursor.block),
      toBlock: last.blockNumber,
    })
  ).filter(after) as unknown as RewardLog[];

  let total = 0n;
  let unattributed = 0n;
  let from = logPosition({ blockNumber: BigInt(cursor.block), logIndex: cursor.logIndex });
  for (const claim of claims) {
    const to = logPosition(claim);
    const window = rewards.filter((r) => logPosition(r) > from && logPosition(r) <= to);
    const facts: { log: RewardLog; token: Address; amount: bigint; split: { assetBps: number; perpBps: number } | null }[] = [];
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
      if (amount > 0n) facts.push({ log, token: info.token, amount, split: info.enrolled ? { assetBps: info.assetBps, perpBps: info.perpBps } : null });
    }
    const attributed = facts.reduce((s, f) => s + f.amount, 0n);
    const claimed = claim.args.amountClaimed;
    const surplus = claimed - attributed;
    await ctx.db.transaction(async (tx) => {
      for (const f of facts) {
        // Booked when the claim settles them: the claim's block is the fact a reorg can take away.
        const key = `claimed-rewards:${claim.blockHash}:${f.log.transactionHash}:${f.log.logIndex}:${currencyName}`;
        const common = { txHash: f.log.transactionHash, blockNumber: Number(claim.blockNumber), blockHash: claim.blockHash };
        if (currencyName === "USDC") {
          await allocateFees(tx, { key, token: f.token, usdc: f.amount, split: f.split, ...common, data: { claimTx: claim.transactionHash, rewardBlock: Number(f.log.blockNumber) } });
        } else {
          await recordEntries(tx, [{ key, kind: "fee-claimed", leg: Legs.wethClaimed, token: f.token, currency: "WETH", amount: f.amount, ...common, data: { claimTx: claim.transactionHash, rewardBlock: Number(f.log.blockNumber) } }]);
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
      await logDecision(ctx, { worker: "fee-claimer", decision: "attribution-mismatch", reason: `claim ${claim.transactionHash} paid ${claimed} but logs attribute ${attributed}` });
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
    await logDecision(ctx, { worker: "fee-claimer", token: token as Address, decision: "fees-claimed", reason: `${amount} ${currencyName} base units attributed from ClaimedRewards`, data: { currency: currencyName, amount } });
  }
  return report;
}

type ClaimLog = { blockNumber: bigint; blockHash: `0x${string}`; logIndex: number; transactionHash: `0x${string}`; args: { feeOwner: Address; token: Address; amountClaimed: bigint } };
type RewardLog = {
  blockNumber: bigint;
  logIndex: number;
  transactionHash: `0x${string}`;
  args: { token: Address; amount0: bigint; amount1: bigint; rewards0: readonly bigint[]; rewards1: readonly bigint[] };
};
