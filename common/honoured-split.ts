/**
 * The split a token's fees really follow, from the LP locker's reward slots (docs/design.md §5.1).
 *
 * The locker divides every fee between its reward slots by `rewardBps`. The slots paying the
 * operator wallet reach the engine, which splits them 500 : assetBps : perpBps into the
 * protocol, asset and perp legs (`splitOperatorShare`). Every other slot is paid by the locker
 * directly: the creator leg when it pays the enrolled creator, someone else's share otherwise.
 * The requested split is honoured exactly when the creator's direct slots carry `creatorBps`,
 * nobody else is paid directly, and the operator's slots carry the rest in `FeeIn.Paired`.
 */
import { type Address, getAddress } from "viem";
import { FeeIn, feeInName } from "./abis/clanker.js";
import { PROTOCOL_REWARD_BPS, TOTAL_BPS } from "./constants.js";
import { formatDecimal } from "./money.js";
import { type Split, splitOperatorShare } from "./split.js";

export type RewardSlot = { rewardIndex: number; recipient: Address; admin: Address; bps: number; feeIn: number };
/** Who a slot pays: the operator wallet (the engine splits it), the enrolled creator, or someone else. */
export type SlotRole = "operator" | "creator" | "other";
/** Basis points of all LP fees; sums to the slots' total (10,000 for every locker token). */
export type HonouredSplit = { protocolBps: number; assetBps: number; perpBps: number; creatorBps: number; otherBps: number; operatorBps: number };

const same = (a: string, b: string | null | undefined) => !!b && getAddress(a) === getAddress(b);

export function slotRole(slot: Pick<RewardSlot, "recipient">, operator: Address | undefined, creator: Address | null | undefined): SlotRole {
  if (same(slot.recipient, operator)) return "operator";
  if (same(slot.recipient, creator)) return "creator";
  return "other";
}

/** `950` → `"9.5%"`: basis points as an exact percentage. */
export function bpsPct(bps: number): string {
  return `${formatDecimal(BigInt(bps), 2)}%`;
}

/**
 * The split the locker and the engine honour together, to the bps: the operator's slots split
 * as the engine splits the operator's fees (asset and perp rounded down, the remainder to the
 * protocol leg), the creator's direct slots, and whatever else the locker pays directly.
 */
export function honouredSplit(
  slots: readonly RewardSlot[],
  p: { operator: Address | undefined; creator: Address | null | undefined; split: Pick<Split, "assetBps" | "perpBps"> },
): HonouredSplit {
  let operatorBps = 0;
  let creatorBps = 0;
  let otherBps = 0;
  for (const slot of slots) {
    const role = slotRole(slot, p.operator, p.creator);
    if (role === "operator") operatorBps += slot.bps;
    else if (role === "creator") creatorBps += slot.bps;
    else otherBps += slot.bps;
  }
  const legs = splitOperatorShare(BigInt(operatorBps), p.split);
  return { protocolBps: Number(legs.protocol), assetBps: Number(legs.asset), perpBps: Number(legs.perp), creatorBps, otherBps, operatorBps };
}

/** The operator's slots whose fee preference is not `FeeIn.Paired`: the engine only splits the paired currency. */
export function unpairedOperatorSlots(slots: readonly RewardSlot[], operator: Address | undefined): RewardSlot[] {
  return slots.filter((s) => same(s.recipient, operator) && s.feeIn !== FeeIn.Paired);
}

/**
 * Why the locker cannot honour `split` for `creator`, one sentence per difference; empty when
 * it honours it exactly. `creator` equal to the operator has no direct share: the engine splits
 * everything the operator receives, so such a split has no creator leg.
 */
export function splitDifferences(slots: readonly RewardSlot[], p: { operator: Address; creator: Address; split: Split }): string[] {
  const differences: string[] = [];
  const operatorSlots = slots.filter((s) => slotRole(s, p.operator, p.creator) === "operator");
  if (!operatorSlots.length) return [`the locker pays no reward slot to the operator wallet ${getAddress(p.operator)}`];
  for (const s of unpairedOperatorSlots(slots, p.operator)) {
    differences.push(`the locker pays the operator's reward slot ${s.rewardIndex} in ${feeInName(s.feeIn)} (FeeIn ${s.feeIn}); the engine needs FeeIn.Paired`);
  }
  const honoured = honouredSplit(slots, p);
  if (honoured.creatorBps !== p.split.creatorBps) {
    const who = same(p.creator, p.operator)
      ? " (the creator is the operator wallet, whose share the engine splits into the protocol, asset and perp legs)"
      : "";
    differences.push(`the locker pays the creator ${bpsPct(honoured.creatorBps)} directly; the requested creator leg is ${bpsPct(p.split.creatorBps)}${who}`);
  }
  for (const s of slots) {
    if (slotRole(s, p.operator, p.creator) === "other")
      differences.push(
        `the locker pays ${getAddress(s.recipient)} ${bpsPct(s.bps)} directly (reward slot ${s.rewardIndex}), which the requested split has no leg for`,
      );
  }
  const requestedOperator = PROTOCOL_REWARD_BPS + p.split.assetBps + p.split.perpBps;
  if (honoured.operatorBps !== requestedOperator) {
    differences.push(
      `the locker pays the operator ${bpsPct(honoured.operatorBps)}; the requested protocol, asset and perp legs total ${bpsPct(requestedOperator)}`,
    );
  }
  const total = slots.reduce((a, s) => a + s.bps, 0);
  if (total !== TOTAL_BPS) differences.push(`the locker's reward slots total ${bpsPct(total)}, not 100%`);
  return differences;
}
