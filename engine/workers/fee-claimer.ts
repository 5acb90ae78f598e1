/**
 * fee-claimer (`claimPooledFeesCycle`): round-robin over the active enrolled tokens whose pool
 * has LP fees waiting (its fee growth moved since the engine's last collect: fees/waiting.ts),
 * a batch of `CLAIM_BATCH_SIZE` at a time (cursor persisted); tokens without fees waiting are
 * skipped, so the round covers only what needs a collect. For each token of the batch
 * `collectRewards` moves its LP fees into the fee locker; then `claim(operator, currency)`
 * sweeps the operator's pooled balance, skipped when it is dust. Attribution (from the
 * locker's `ClaimedRewards`) and `splitProtocolUsdc` then book every claim into the legs, and
 * WETH fees are converted to USDC. The batch is stored before its first transaction, so a
 * crash mid-batch resumes the same batch with the same intents.
 *
 * A collect whose conversion would yield nothing (the token-side dust the hook's per-swap
 * collection leaves converts to 0 USDC, and the locker asks at least 1: `V4TooLittleReceived(1,
 * 0)`, as on Base) is simulated first and deferred, never sent nor failed: the token's fees stay
 * waiting for the pool's next swap or a later cycle, the claims go on, and `/health` lists the
 * deferral (fees/deferred.ts).
 *
 * The claim bound (README, docs/design.md §6): fees the hook already moved into the fee locker
 * are claimed and attributed by the next cycle (above the dust minimums); fees waiting in a
 * pool are collected within ⌈W / CLAIM_BATCH_SIZE⌉ cycles, W the tokens with fees waiting.
 */
import { desc, eq, inArray } from "drizzle-orm";
import { type Address, encodeFunctionData, getAddress, parseEventLogs } from "viem";
import { clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { logDecision } from "../../core/agent-log.js";
import type { EngineContext } from "../../core/context.js";
import { tables } from "../../core/db/client.js";
import { attributeClaims } from "../fees/attribution.js";
import { collectYieldsNothing, conversionYieldsNothing, deferralReason, readDeferred, storeDeferred } from "../fees/deferred.js";
import { checkFeeRouting } from "../fees/routing.js";
import { type FeeGrowth, rememberCollected, tokensWithFeesWaiting } from "../fees/waiting.js";
import { convertWethFees } from "../fees/weth.js";
import { getState, setState } from "../runtime/state.js";
import { type TokenInfo, refreshTokenCache } from "../../core/registry-cache.js";
import type { Worker } from "./types.js";

/** Pooled balances below these stay in the fee locker until they grow. */
export const CLAIM_MIN_USDC = 10_000n; // 0.01 USDC
export const CLAIM_MIN_WETH = 10_000_000_000_000n; // 0.00001 WETH

const WORKER = "fee-claimer";

/** The next `size` tokens after the cursor (by enrolment order), wrapping around. */
export function nextBatch(active: TokenInfo[], cursor: number, size: number): TokenInfo[] {
  if (!active.length) return [];
  const sorted = [...active].sort((a, b) => (a.enrolOrder ?? 0) - (b.enrolOrder ?? 0));
  const start = sorted.findIndex((t) => (t.enrolOrder ?? 0) > cursor);
  const from = start === -1 ? 0 : start;
  const batch: TokenInfo[] = [];
  for (let i = 0; i < Math.min(size, sorted.length); i++) batch.push(sorted[(from + i) % sorted.length]!);
  return batch;
}

export async function claimPooledFeesCycle(ctx: EngineContext) {
  const enrolled = await refreshTokenCache(ctx);
  // A token whose operator slot is no longer paid in the paired currency is not collected (routing.ts).
  const unrouted = new Set(
    (
      await checkFeeRouting(
        ctx,
        enrolled.filter((t) => t.active),
      )
    ).map((u) => u.token),
  );
  const active = enrolled.filter((t) => t.active && !unrouted.has(t.token));

  let [cycle] = await ctx.db
    .select()
    .from(tables.claimCycles)
    .where(inArray(tables.claimCycles.status, ["collecting", "claiming"]))
    .orderBy(desc(tables.claimCycles.id))
    .limit(1);
  // The growth read before this cycle's collects: remembered for each collect that mined (a resumed cycle's is not known).
  let growth = new Map<Address, FeeGrowth>();
  let waiting = 0;
  let stillWaiting: Set<Address> | undefined;
  if (!cycle && active.length) {
    const found = await tokensWithFeesWaiting(ctx, active);
    growth = found.growth;
    waiting = found.waiting.length;
    stillWaiting = new Set(found.waiting.map((t) => getAddress(t.token)));
    const cursor = (await getState<{ enrolOrder: number }>(ctx.db, "claim-cursor"))?.enrolOrder ?? -1;
    const batch = nextBatch(found.waiting, cursor, ctx.config.claimBatchSize);
    cycle = await ctx.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(tables.claimCycles)
        .values({ tokens: batch.map((t) => t.token), status: "collecting" })
        .returning();
      if (batch.length) await setState(tx, "claim-cursor", { enrolOrder: batch[batch.length - 1]!.enrolOrder });
      return row!;
    });
  }

  const collected: Address[] = [];
  const claimed: string[] = [];
  const deferred: { token: Address; reason: string }[] = [];
  if (cycle) {
    const id = cycle.id;
    if (cycle.status === "collecting") {
      const previous = await readDeferred(ctx.db);
      const wasDeferred = new Set(previous.map((d) => getAddress(d.token)));
      const defer = async (token: Address, revert: string) => {
        const reason = deferralReason(revert);
        deferred.push({ token, reason });
        if (!wasDeferred.has(getAddress(token))) ctx.log.info({ worker: WORKER, token, revert }, `fee-claimer: ${token} ${reason}`);
        await logDecision(ctx, { worker: WORKER, token, decision: "wait", reason });
      };
      for (const [i, token] of (cycle.tokens as Address[]).entries()) {
        const key = `claim-cycle:${id}:collect:${token}`;
        // Not sent when its conversion would yield nothing (an intent already recorded is resumed as is).
        if (!(await ctx.pipeline.get(key))) {
          const revert = await collectYieldsNothing(ctx, token);
          if (revert) {
            await defer(token, revert);
            if (i === 0) ctx.faults.hit("mid-claim-batch");
            continue;
          }
        }
        const outcome = await ctx.pipeline.send({
          key,
          kind: "collect-rewards",
          worker: WORKER,
          to: ctx.contract("lpLocker"),
          data: encodeFunctionData({ abi: clankerLpLockerAbi, functionName: "collectRewards", args: [token] }),
        });
        if (outcome.status === "mined") {
          collected.push(token);
          // Only a collect that emitted the token's ClaimedRewards took its fees (none while its MEV module runs).
          const took = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "ClaimedRewards", logs: outcome.receipt.logs }).some(
            (l) => getAddress(l.address) === getAddress(ctx.contract("lpLocker")) && getAddress(l.args.token) === getAddress(token),
          );
          const before = growth.get(token);
          if (took && before) await rememberCollected(ctx.db, token, before);
        } else if (outcome.status === "failed" && conversionYieldsNothing(outcome.reason)) await defer(token, outcome.reason);
        else await logDecision(ctx, { worker: WORKER, token, decision: "collect-failed", reason: outcome.reason });
        if (i === 0) ctx.faults.hit("mid-claim-batch");
      }
      await storeDeferred(ctx.db, previous, cycle.tokens as Address[], deferred, stillWaiting);
      await ctx.db.update(tables.claimCycles).set({ status: "claiming" }).where(eq(tables.claimCycles.id, id));
    }
    for (const [name, currency, min] of [
      ["usdc", ctx.contract("usdc"), CLAIM_MIN_USDC],
      ["weth", ctx.contract("weth"), CLAIM_MIN_WETH],
    ] as const) {
      const key = `claim-cycle:${id}:claim:${name}`;
      if (!(await ctx.pipeline.get(key))) {
        const available = await ctx.publicClient.readContract({
          address: ctx.contract("feeLocker"),
          abi: clankerFeeLockerAbi,
          functionName: "availableFees",
          args: [ctx.operator, currency],
        });
        if (available < min) continue;
      }
      const outcome = await ctx.pipeline.send({
        key,
        kind: "claim-fees",
        worker: WORKER,
        to: ctx.contract("feeLocker"),
        data: encodeFunctionData({ abi: clankerFeeLockerAbi, functionName: "claim", args: [ctx.operator, currency] }),
      });
      // NoFeesToClaim: someone else's claim swept it first; attribution books it from their ClaimTokens.
      if (outcome.status === "mined") claimed.push(name);
    }
    await ctx.db.update(tables.claimCycles).set({ status: "done", completedAt: new Date() }).where(eq(tables.claimCycles.id, id));
  }

  const usdc = await attributeClaims(ctx, "USDC");
  const weth = await attributeClaims(ctx, "WETH");
  const conversion = await convertWethFees(ctx, WORKER);
  if (!active.length) await logDecision(ctx, { worker: WORKER, decision: "skip", reason: "no enrolled active tokens" });
  return {
    cycle: cycle?.id ?? null,
    batch: cycle?.tokens ?? [],
    waiting,
    collected,
    deferred: deferred.map((d) => d.token),
    claimed,
    attributedUsdc: usdc,
    attributedWeth: weth,
    conversion: conversion ?? null,
  };
}

export const feeClaimer: Worker = { name: WORKER, minSeconds: 180, maxSeconds: 300, run: claimPooledFeesCycle };
