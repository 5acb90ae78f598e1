/**
 * The ledger on a real PostgreSQL: idempotent writes keyed by their cause, balances as sums,
 * spends that never exceed a leg, refunds at most once, and the invariant audit.
 */
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { BASELINE, migrate } from "../../core/db/migrations.js";
import { consumeCreatorBuybacksAbove, consumePerpUsdc, peekPerpUsdc, pendingBuybackUsdc } from "../../core/ledger/accumulators.js";
import { checkLedgerInvariants } from "../../core/ledger/invariants.js";
import { recordEntries } from "../../core/ledger/journal.js";
import { Legs } from "../../core/ledger/legs.js";
import { legBalance, legBalancesOf, spendableBalance, spendableBalancesByToken } from "../../core/ledger/reads.js";
import { reorgDeficits, reverseBlocks } from "../../core/ledger/reorg.js";
import { InsufficientLegBalanceError, refundSpend } from "../../core/ledger/spend.js";
import { ledgerTotals } from "../../core/ledger/totals.js";
import { allocateFees } from "../../engine/fees/allocate.js";
import { createDatabase } from "../helpers/env.js";

const A = getAddress("0x00000000000000000000000000000000000000a1");
const B = getAddress("0x00000000000000000000000000000000000000b2");
let e: EngineDb;

beforeAll(async () => {
  e = openEngineDb(await createDatabase("ledger"));
  expect(await migrate(e.pool)).toContain(BASELINE);
  expect(await migrate(e.pool)).toEqual([]); // idempotent
});
afterAll(async () => {
  await e?.close();
});

describe("ledger", () => {
  it("allocates attributed fees to the legs exactly once per fact", async () => {
    const fact = { key: "claimed-rewards:0xabc:3", token: A, usdc: 1_000_000n, split: { assetBps: 2850, perpBps: 5700 } };
    expect(await allocateFees(e.db, fact)).toBe(true);
    expect(await allocateFees(e.db, fact)).toBe(false); // same fact again: nothing new
    await allocateFees(e.db, { key: "claimed-rewards:0xabc:4", token: B, usdc: 9_050n, split: { assetBps: 2850, perpBps: 5700 } });
    expect(await legBalance(e.db, Legs.claimed, A)).toBe(1_000_000n);
    expect(await pendingBuybackUsdc(e.db, Infinity)).toBe(55_249n + 500n);
    expect(await peekPerpUsdc(e.db, A, Infinity)).toBe(629_834n);
    expect(await peekPerpUsdc(e.db, B, Infinity)).toBe(5_700n);
    expect(await legBalance(e.db, Legs.asset)).toBe(314_917n + 2_850n);
    expect((await checkLedgerInvariants(e.db)).ok).toBe(true);
  });

  it("spends a token's perp USDC only up to its balance, idempotently", async () => {
    await e.db.transaction((tx) => consumePerpUsdc(tx, A, 600_000n, "spend:desk-trade:1", Infinity));
    await e.db.transaction((tx) => consumePerpUsdc(tx, A, 600_000n, "spend:desk-trade:1", Infinity)); // replay: no second spend
    expect(await peekPerpUsdc(e.db, A, Infinity)).toBe(29_834n);
    await expect(e.db.transaction((tx) => consumePerpUsdc(tx, A, 29_835n, "spend:desk-trade:2", Infinity))).rejects.toBeInstanceOf(InsufficientLegBalanceError);
    // B's perp USDC is not A's.
    await expect(e.db.transaction((tx) => consumePerpUsdc(tx, B, 5_701n, "spend:desk-trade:3", Infinity))).rejects.toThrow(/holds 5700/);
    expect(await refundSpend(e.db, "spend:desk-trade:1", "order canceled")).toBe(600_000n);
    expect(await refundSpend(e.db, "spend:desk-trade:1", "order canceled")).toBe(600_000n); // same row, recorded once
    expect(await peekPerpUsdc(e.db, A, Infinity)).toBe(629_834n);
    expect((await checkLedgerInvariants(e.db)).ok).toBe(true);
  });

  it("drains the creator buyback queue above the minimum into buyback rows", async () => {
    await recordEntries(e.db, [
      { key: "desk-profit:t1", kind: "desk-profit", leg: Legs.creatorBuyback, token: A, currency: "USDC", amount: 7_000_000n },
      { key: "desk-profit:t2", kind: "desk-profit", leg: Legs.creatorBuyback, token: B, currency: "USDC", amount: 4_999_999n },
    ]);
    const drained = await consumeCreatorBuybacksAbove(e.db, 5_000_000n, Infinity);
    expect(drained).toEqual([{ buybackId: expect.any(Number), token: A, amount: 7_000_000n }]);
    expect(await legBalance(e.db, Legs.creatorBuyback, A)).toBe(0n);
    expect(await legBalance(e.db, Legs.creatorBuyback, B)).toBe(4_999_999n); // below the minimum: stays queued
    expect(await consumeCreatorBuybacksAbove(e.db, 5_000_000n, Infinity)).toEqual([]);
    // A page's balances: only the tokens asked for (in any case), only the legs asked for, none at zero.
    const page = await legBalancesOf(e.db, [Legs.creatorBuyback, Legs.perp], [B.toLowerCase() as typeof B, A]);
    expect(page.get(Legs.creatorBuyback)).toEqual(new Map([[B, 4_999_999n]]));
    expect(page.get(Legs.perp)!.get(A) ?? 0n).toBe(await legBalance(e.db, Legs.perp, A));
    expect([...page.keys()]).toEqual([Legs.creatorBuyback, Legs.perp]);
    expect((await legBalancesOf(e.db, [Legs.creatorBuyback], [])).get(Legs.creatorBuyback)!.size).toBe(0);
  });

  it("spends only final inflows; a reorg deeper than that leaves a deficit the leg's next inflows repay", async () => {
    const C = getAddress("0x00000000000000000000000000000000000000c3");
    const split = { assetBps: 2850, perpBps: 5700 };
    const h = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
    // The operator's 905,000 USDC of fees in block 100 (perp 570,000), 452,500 more in block 103 (perp 285,000).
    await allocateFees(e.db, { key: "claim:c:100", token: C, usdc: 905_000n, split, blockNumber: 100, blockHash: h(100) });
    await allocateFees(e.db, { key: "claim:c:103", token: C, usdc: 452_500n, split, blockNumber: 103, blockHash: h(103) });
    const perp = await peekPerpUsdc(e.db, C, Infinity);
    expect(perp).toBe(855_000n);
    // Final up to block 101: only the first claim's perp USDC may be spent.
    expect(await spendableBalance(e.db, Legs.perp, C, 101)).toBe(570_000n);
    expect(await spendableBalance(e.db, Legs.perp, C, Infinity)).toBe(perp);
    expect((await spendableBalancesByToken(e.db, Legs.perp, 101)).get(C)).toBe(570_000n);
    expect((await spendableBalancesByToken(e.db, Legs.perp, 99)).has(C)).toBe(false);
    await expect(e.db.transaction((tx) => consumePerpUsdc(tx, C, 570_001n, "spend:desk-trade:c1", 101))).rejects.toThrow(/holds 570000, cannot spend 570001/);
    await e.db.transaction((tx) => consumePerpUsdc(tx, C, 570_000n, "spend:desk-trade:c1", 101));
    expect(await spendableBalance(e.db, Legs.perp, C, 101)).toBe(0n);

    // A reorg takes block 100 back after its USDC went into the desk: the leg is 285,000 short
    // (block 103's unspent 285,000 covers the rest), and the reversal says so.
    const reversed = await reverseBlocks(e.db, [h(100)], "test: block 100 left the canonical chain");
    expect(reversed.filter((r) => r.deficit !== undefined)).toEqual([expect.objectContaining({ leg: Legs.perp, token: C, deficit: 285_000n })]);
    expect(await peekPerpUsdc(e.db, C, Infinity)).toBe(-285_000n);
    expect(await reorgDeficits(e.db)).toContainEqual({ leg: Legs.perp, token: C, currency: "USDC", balance: -285_000n });
    expect(await checkLedgerInvariants(e.db)).toEqual({ ok: true, violations: [] });
    // Nothing more is spent from it until it is repaid.
    expect(await spendableBalance(e.db, Legs.perp, C, Infinity)).toBe(-285_000n);
    await expect(e.db.transaction((tx) => consumePerpUsdc(tx, C, 1n, "spend:desk-trade:c2", Infinity))).rejects.toBeInstanceOf(InsufficientLegBalanceError);

    // The re-mined claim pays less; with the next fees the deficit is repaid and the rest is spendable.
    await allocateFees(e.db, { key: "claim:c:100b", token: C, usdc: 90_500n, split, blockNumber: 100, blockHash: h(0x100b) });
    await allocateFees(e.db, { key: "claim:c:110", token: C, usdc: 452_500n, split, blockNumber: 110, blockHash: h(110) });
    expect(await spendableBalance(e.db, Legs.perp, C, 109)).toBe(-228_000n);
    expect(await spendableBalance(e.db, Legs.perp, C, 110)).toBe(57_000n);
    expect((await reorgDeficits(e.db)).some((d) => d.token === C)).toBe(false);
    await e.db.transaction((tx) => consumePerpUsdc(tx, C, 57_000n, "spend:desk-trade:c3", 110));
    expect(await checkLedgerInvariants(e.db)).toEqual({ ok: true, violations: [] });

    // A spend past a recorded deficit is still an overspend.
    await recordEntries(e.db, [{ key: "bad:c", kind: "desk-spend", leg: Legs.perp, token: C, currency: "USDC", amount: -285_001n }]);
    expect((await checkLedgerInvariants(e.db)).violations).toEqual([`leg perp of ${C} overspent: balance -285001`]);
    await recordEntries(e.db, [{ key: "bad:c:undo", kind: "desk-spend", leg: Legs.perp, token: C, currency: "USDC", amount: 285_001n }]);
    expect((await checkLedgerInvariants(e.db)).ok).toBe(true);
  });

  it("reports violations: overspent legs, unbalanced splits, unburned buybacks", async () => {
    await recordEntries(e.db, [{ key: "bad:1", kind: "spend", leg: Legs.asset, currency: "USDC", amount: -10_000_000n }]);
    await recordEntries(e.db, [{ key: "bad:2", kind: "fee-claimed", leg: Legs.claimed, token: B, currency: "USDC", amount: 1n }]);
    await e.pool.query(
      "INSERT INTO engine.buybacks (kind, token, currency_in, amount_in, tokens_bought, tokens_burned, status) VALUES ('protocol', $1, 'USDC', 1, 10, 9, 'done')",
      [A],
    );
    const report = await checkLedgerInvariants(e.db);
    expect(report.ok).toBe(false);
    expect(report.violations.join("\n")).toMatch(/leg asset overspent/);
    expect(report.violations.join("\n")).toMatch(/claimed 9051 ≠ allocated 9050/);
    expect(report.violations.join("\n")).toMatch(/bought 10 ≠ burned 9/);
    const totals = await ledgerTotals(e.db);
    expect(totals.feesClaimedUsdc).toBe(1_009_051n + 995_500n); // with the reorg test's token: 905,000 + 452,500 − 905,000 + 90,500 + 452,500
  });
});
