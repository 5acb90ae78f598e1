/**
 * The ledger on a real PostgreSQL: idempotent writes keyed by their cause, balances as sums,
 * spends that never exceed a leg, refunds at most once, and the invariant audit.
 */
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { BASELINE, migrate } from "../../core/db/migrations.js";
import {
  checkLedgerInvariants,
  consumeCreatorBuybacksAbove,
  consumePerpUsdc,
  InsufficientLegBalanceError,
  Legs,
  legBalance,
  ledgerTotals,
  pendingBuybackUsdc,
  peekPerpUsdc,
  recordEntries,
  refundSpend,
} from "../../core/ledger/ledger.js";
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
    expect(await pendingBuybackUsdc(e.db)).toBe(55_249n + 500n);
    expect(await peekPerpUsdc(e.db, A)).toBe(629_834n);
    expect(await peekPerpUsdc(e.db, B)).toBe(5_700n);
    expect(await legBalance(e.db, Legs.asset)).toBe(314_917n + 2_850n);
    expect((await checkLedgerInvariants(e.db)).ok).toBe(true);
  });

  it("spends a token's perp USDC only up to its balance, idempotently", async () => {
    await e.db.transaction((tx) => consumePerpUsdc(tx, A, 600_000n, "spend:desk-trade:1"));
    await e.db.transaction((tx) => consumePerpUsdc(tx, A, 600_000n, "spend:desk-trade:1")); // replay: no second spend
    expect(await peekPerpUsdc(e.db, A)).toBe(29_834n);
    await expect(e.db.transaction((tx) => consumePerpUsdc(tx, A, 29_835n, "spend:desk-trade:2"))).rejects.toBeInstanceOf(InsufficientLegBalanceError);
    // B's perp USDC is not A's.
    await expect(e.db.transaction((tx) => consumePerpUsdc(tx, B, 5_701n, "spend:desk-trade:3"))).rejects.toThrow(/holds 5700/);
    expect(await refundSpend(e.db, "spend:desk-trade:1", "order canceled")).toBe(600_000n);
    expect(await refundSpend(e.db, "spend:desk-trade:1", "order canceled")).toBe(600_000n); // same row, recorded once
    expect(await peekPerpUsdc(e.db, A)).toBe(629_834n);
    expect((await checkLedgerInvariants(e.db)).ok).toBe(true);
  });

  it("drains the creator buyback queue above the minimum into buyback rows", async () => {
    await recordEntries(e.db, [
      { key: "desk-profit:t1", kind: "desk-profit", leg: Legs.creatorBuyback, token: A, currency: "USDC", amount: 7_000_000n },
      { key: "desk-profit:t2", kind: "desk-profit", leg: Legs.creatorBuyback, token: B, currency: "USDC", amount: 4_999_999n },
    ]);
    const drained = await consumeCreatorBuybacksAbove(e.db, 5_000_000n);
    expect(drained).toEqual([{ buybackId: expect.any(Number), token: A, amount: 7_000_000n }]);
    expect(await legBalance(e.db, Legs.creatorBuyback, A)).toBe(0n);
    expect(await legBalance(e.db, Legs.creatorBuyback, B)).toBe(4_999_999n); // below the minimum: stays queued
    expect(await consumeCreatorBuybacksAbove(e.db, 5_000_000n)).toEqual([]);
  });

  it("reports violations: overspent legs, unbalanced splits, unburned buybacks", async () => {
    await recordEntries(e.db, [{ key: "bad:1", kind: "spend", leg: Legs.asset, currency: "USDC", amount: -10_000_000n }]);
    await recordEntries(e.db, [{ key: "bad:2", kind: "fee-claimed", leg: Legs.claimed, token: B, currency: "USDC", amount: 1n }]);
    await e.pool.query("INSERT INTO engine.buybacks (kind, token, currency_in, amount_in, tokens_bought, tokens_burned, status) VALUES ('protocol', $1, 'USDC', 1, 10, 9, 'done')", [A]);
    const report = await checkLedgerInvariants(e.db);
    expect(report.ok).toBe(false);
    expect(report.violations.join("\n")).toMatch(/leg asset overspent/);
    expect(report.violations.join("\n")).toMatch(/claimed 9051 ≠ allocated 9050/);
    expect(report.violations.join("\n")).toMatch(/bought 10 ≠ burned 9/);
    const totals = await ledgerTotals(e.db);
    expect(totals.feesClaimedUsdc).toBe(1_009_051n);
  });
});
