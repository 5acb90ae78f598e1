/**
 * The agent log on a real PostgreSQL: every decision is a row, but a quiet one ("wait",
 * "skip") that repeats the last word for word is not written again, so a waiting token costs
 * one row rather than one per worker cycle.
 */
import { type Address, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logDecision, readAgentLog } from "../../core/agent-log.js";
import { type EngineDb, openEngineDb } from "../../core/db/client.js";
import { migrate } from "../../core/db/migrations.js";
import { createDatabase } from "../helpers/env.js";

const A = getAddress("0x00000000000000000000000000000000000000a1");
const B = getAddress("0x00000000000000000000000000000000000000b2");
let e: EngineDb;

beforeAll(async () => {
  e = openEngineDb(await createDatabase("agent_log"));
  await migrate(e.pool);
});
afterAll(async () => {
  await e?.close();
});

const decisions = async (token: string) =>
  (await readAgentLog(e.pool, { agentId: null, token: getAddress(token), limit: 100 })).map((r) => `${r.decision}: ${r.reason}`).reverse();

describe("agent log", () => {
  it("writes a repeated wait once, a changed one again, and a wait after an action again", async () => {
    const wait = (token: Address, reason: string) => logDecision(e.db, { worker: "desk-manager", token, decision: "wait", reason });
    for (let cycle = 0; cycle < 5; cycle++) await wait(A, "notional 1 USDC below the minimum 100 USDC");
    await wait(A, "notional 2 USDC below the minimum 100 USDC");
    await wait(A, "notional 2 USDC below the minimum 100 USDC");
    await logDecision(e.db, { worker: "desk-manager", token: A, decision: "desk-open", reason: "opening" });
    await wait(A, "notional 2 USDC below the minimum 100 USDC");
    // Another token and another worker keep their own last word.
    await wait(B, "notional 1 USDC below the minimum 100 USDC");
    await logDecision(e.db, { worker: "desk-risk", token: A, decision: "wait", reason: "notional 2 USDC below the minimum 100 USDC" });
    expect(await decisions(A)).toEqual([
      "wait: notional 1 USDC below the minimum 100 USDC",
      "wait: notional 2 USDC below the minimum 100 USDC",
      "desk-open: opening",
      "wait: notional 2 USDC below the minimum 100 USDC",
      "wait: notional 2 USDC below the minimum 100 USDC",
    ]);
    expect(await decisions(B)).toEqual(["wait: notional 1 USDC below the minimum 100 USDC"]);
  });

  it("writes every repeat of a decision that is not quiet", async () => {
    const B2 = getAddress("0x00000000000000000000000000000000000000c3");
    for (let i = 0; i < 3; i++) await logDecision(e.db, { worker: "creator-buyback", token: B2, decision: "buyback", reason: "bought" });
    expect(await decisions(B2)).toEqual(["buyback: bought", "buyback: bought", "buyback: bought"]);
  });
});
