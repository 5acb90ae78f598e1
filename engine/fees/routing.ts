/**
 * Which enrolled tokens the engine routes. The engine splits the operator's fees in the paired
 * currency (USDC, or WETH converted to USDC); a reward admin may later switch an operator slot's
 * fee preference away from `FeeIn.Paired` (`FeePreferenceUpdated`), and the locker then pays
 * that slot in the token itself (Clanker) or in both currencies (Both). Such a token is not
 * routed: the fee-claimer stops collecting its fees, and `/health` names it with the reason,
 * until the slot returns to Paired. What the locker still pays the operator in USDC or WETH
 * (the paired side of Both) is booked exactly by attribution as before; fees in the token
 * itself stay in the fee locker, never booked as anything else.
 */
import { type Address, getAddress } from "viem";
import { FeeIn, clankerLpLockerAbi, feeInName } from "../../common/abis/clanker.js";
import { logDecision } from "../../core/agent-log.js";
import { readMany } from "../../core/chain/multicall.js";
import type { EngineContext } from "../../core/context.js";
import type { TokenInfo } from "../../core/registry-cache.js";
import { getState, setState } from "../runtime/state.js";

/** The `engine.state` key `/health` reads (core/health.ts). */
export const FEE_ROUTING_STATE = "fee-routing";

export type UnroutedToken = { token: Address; slots: { rewardIndex: number; feeIn: number }[]; reason: string };
export type FeeRoutingState = { checkedAt: string; unrouted: UnroutedToken[] };

const WORKER = "fee-claimer";

/**
 * Reads the fee preference of every operator slot of `tokens` and records the tokens whose
 * operator slots are not all Paired (logging when a token stops or resumes being routed).
 * Returns them.
 */
export async function checkFeeRouting(ctx: EngineContext, tokens: readonly TokenInfo[]): Promise<UnroutedToken[]> {
  const operator = getAddress(ctx.operator);
  const lpLocker = ctx.contract("lpLocker");
  // Every operator slot of every token in one multicall (docs/design.md §6).
  const slotsOf = tokens.map((t) => t.rewardRecipients.flatMap((recipient, i) => (getAddress(recipient) === operator ? [i] : [])));
  const preferences = await readMany<number>(
    ctx.publicClient,
    tokens.flatMap((t, n) =>
      slotsOf[n]!.map((i) => ({ address: lpLocker, abi: clankerLpLockerAbi, functionName: "feePreferences", args: [t.token, BigInt(i)] })),
    ),
  );
  const unrouted: UnroutedToken[] = [];
  let next = 0;
  for (const [n, t] of tokens.entries()) {
    const slots: UnroutedToken["slots"] = [];
    for (const i of slotsOf[n]!) {
      const feeIn = preferences[next++]!;
      if (feeIn !== FeeIn.Paired) slots.push({ rewardIndex: i, feeIn });
    }
    if (!slots.length) continue;
    const reason = `token ${t.token}: the locker pays the operator's reward slot${slots.length > 1 ? "s" : ""} ${slots.map((s) => `${s.rewardIndex} in ${feeInName(s.feeIn)}`).join(", ")}, not Paired; its fees are not routed until the slot returns to Paired`;
    unrouted.push({ token: t.token, slots, reason });
  }
  const before = new Set((await getState<FeeRoutingState>(ctx.db, FEE_ROUTING_STATE))?.unrouted.map((u) => u.token) ?? []);
  const now = new Set(unrouted.map((u) => u.token));
  for (const u of unrouted) {
    if (!before.has(u.token))
      await logDecision(ctx, { worker: WORKER, token: u.token, decision: "fees-not-routed", reason: u.reason, data: { slots: u.slots } });
  }
  const checked = new Set(tokens.map((t) => t.token));
  for (const token of before) {
    // Only a token still checked is routed again (an inactive one is not collected anyway).
    if (!now.has(token) && checked.has(token))
      await logDecision(ctx, {
        worker: WORKER,
        token,
        decision: "fees-routed",
        reason: `token ${token}: every operator reward slot is paid in Paired again; its fees are routed`,
      });
  }
  await setState(ctx.db, FEE_ROUTING_STATE, { checkedAt: new Date().toISOString(), unrouted } satisfies FeeRoutingState);
  return unrouted;
}
