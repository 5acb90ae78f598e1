/** The split really honoured from a locker's reward slots, and what a registration would differ in. */
import { type Address, getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { FeeIn } from "../../common/abis/clanker.js";
import { type RewardSlot, bpsPct, honouredSplit, splitDifferences } from "../../common/honoured-split.js";
import { splitOperatorShare } from "../../common/split.js";

const OPERATOR = getAddress("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
const CREATOR = getAddress("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
const OTHER = getAddress("0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc");
const slot = (rewardIndex: number, recipient: Address, bps: number, feeIn: number = FeeIn.Paired): RewardSlot => ({
  rewardIndex,
  recipient,
  admin: recipient,
  bps,
  feeIn,
});

describe("honouredSplit", () => {
  it("splits the operator's slots as the engine splits its fees, beside what the locker pays directly", () => {
    // A token whose locker pays the operator 90% and the creator 10% directly, enrolled as 5 / 30 / 50 / 15.
    const slots = [slot(0, OPERATOR, 9000), slot(1, CREATOR, 1000)];
    const h = honouredSplit(slots, { operator: OPERATOR, creator: CREATOR, split: { assetBps: 3000, perpBps: 5000 } });
    // 9000 × 3000/8500 and 9000 × 5000/8500 rounded down; the remainder to the protocol leg.
    expect(h).toEqual({ protocolBps: 530, assetBps: 3176, perpBps: 5294, creatorBps: 1000, otherBps: 0, operatorBps: 9000 });
    expect(h.protocolBps + h.assetBps + h.perpBps + h.creatorBps + h.otherBps).toBe(10_000);
    // The same maths as the ledger's allocation of the operator's fees.
    const legs = splitOperatorShare(9000n, { assetBps: 3000, perpBps: 5000 });
    expect([h.protocolBps, h.assetBps, h.perpBps].map(BigInt)).toEqual([legs.protocol, legs.asset, legs.perp]);
  });

  it("counts a share paid to anyone else apart, and the requested split exactly when the locker honours it", () => {
    const h = honouredSplit([slot(0, OPERATOR, 8550), slot(1, CREATOR, 950), slot(2, OTHER, 500)], {
      operator: OPERATOR,
      creator: CREATOR,
      split: { assetBps: 2850, perpBps: 5700 },
    });
    expect(h.otherBps).toBe(500);
    expect(h.protocolBps + h.assetBps + h.perpBps).toBe(8550);
    expect(
      honouredSplit([slot(0, OPERATOR, 9050), slot(1, CREATOR, 950)], { operator: OPERATOR, creator: CREATOR, split: { assetBps: 2850, perpBps: 5700 } }),
    ).toEqual({
      protocolBps: 500,
      assetBps: 2850,
      perpBps: 5700,
      creatorBps: 950,
      otherBps: 0,
      operatorBps: 9050,
    });
  });
});

describe("splitDifferences", () => {
  const split = { assetBps: 3000, perpBps: 5000, creatorBps: 1500 };
  it("is empty when the locker honours the split", () => {
    expect(splitDifferences([slot(0, OPERATOR, 8500), slot(1, CREATOR, 1500)], { operator: OPERATOR, creator: CREATOR, split })).toEqual([]);
    expect(
      splitDifferences([slot(0, OPERATOR, 10_000)], { operator: OPERATOR, creator: OPERATOR, split: { assetBps: 3000, perpBps: 6500, creatorBps: 0 } }),
    ).toEqual([]);
  });

  it("names every difference", () => {
    expect(splitDifferences([slot(0, OPERATOR, 9000), slot(1, CREATOR, 1000)], { operator: OPERATOR, creator: CREATOR, split })).toEqual([
      "the locker pays the creator 10% directly; the requested creator leg is 15%",
      "the locker pays the operator 90%; the requested protocol, asset and perp legs total 85%",
    ]);
    expect(splitDifferences([slot(0, OPERATOR, 8500, FeeIn.Both), slot(1, CREATOR, 1500)], { operator: OPERATOR, creator: CREATOR, split })).toEqual([
      "the locker pays the operator's reward slot 0 in Both (FeeIn 0); the engine needs FeeIn.Paired",
    ]);
    expect(splitDifferences([slot(0, CREATOR, 10_000)], { operator: OPERATOR, creator: CREATOR, split })).toEqual([
      `the locker pays no reward slot to the operator wallet ${OPERATOR}`,
    ]);
  });

  it("formats basis points as exact percentages", () => {
    expect([bpsPct(950), bpsPct(1000), bpsPct(1525), bpsPct(0), bpsPct(1)]).toEqual(["9.5%", "10%", "15.25%", "0%", "0.01%"]);
  });
});
