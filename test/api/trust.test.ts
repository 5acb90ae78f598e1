/**
 * The trust surface on a private devnet after the engine's money path (fees claimed and split,
 * a desk opened and closed at a profit, a creator buyback and a protocol buyback burned), with
 * ponder indexing it and serving the API: each burn's proof, each token's fee flow and the
 * public audit are checked against reads from the chain and the ledger, to the base unit; a
 * difference forced into the books makes the public audit name it.
 */
import { type Abi, type Address, type Hex, decodeEventLog, erc20Abi, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { Legs, legBalance } from "../../core/ledger/ledger.js";
import { tradesWithStatus } from "../../engine/desks/trades.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { burnProofResponse, flowResponse, tokenAuditResponse } from "../../api/views/trust.js";
import { selectionOf } from "../helpers/graphql-selection.js";
import { startTestPonder } from "../helpers/env.js";
import { rpc } from "../engine/helpers.js";
import { type Scenario, startScenario } from "../engine/scenario.js";

/** These desks trade on the Avantis v1 simulator (the harness's keeper, `d.execute`, fills Avantis orders); the devnet's default venue is gains-v10. */
const AVANTIS = { PERPS_VENUE: "avantis-v1" };

const USDC = 1_000_000n;
const TRADER = 5;
let sc: Scenario;
let ponder: Awaited<ReturnType<typeof startTestPonder>>;
let operator: Address;
let usdcToken: Address;
let wethToken: Address;
let organicBurnTx: Hex;

async function get(path: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${ponder.url}${path}`);
  const text = await res.text();
  return { status: res.status, json: text.startsWith("{") ? JSON.parse(text) : text };
}

async function ok(path: string): Promise<any> {
  const a = await get(path);
  expect(a.status, JSON.stringify(a.json)).toBe(200);
  return a.json;
}

async function gql(query: string): Promise<any> {
  const res = await fetch(`${ponder.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
  const body = await res.json();
  expect(body.errors).toBeUndefined();
  return body.data;
}

async function synced() {
  const head = await sc.d.as(1).publicClient.getBlockNumber({ cacheTime: 0 });
  await waitForIndexed(ponder, head, 180_000).catch((error) => {
    throw new Error(`${error.message}\n${ponder.logs.slice(-30).join("\n")}`);
  });
}

const chain = () => sc.d.as(1).publicClient;
const deadBalance = (token: Address, block: bigint) =>
  chain().readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [DEAD_ADDRESS], blockNumber: block });

/** The operator's amount of each ClaimedRewards log for a token, read from the chain. */
async function operatorRewards(token: Address, currency: Address): Promise<bigint> {
  const logs = await chain().getLogs({ address: sc.d.c.lpLocker, fromBlock: 0n, toBlock: "latest" });
  const info = await sc.d
    .as(1)
    .read<{ poolKey: { currency0: Address; currency1: Address }; rewardRecipients: Address[] }>(sc.d.c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [
      token,
    ]);
  let amount = 0n;
  for (const log of logs) {
    let decoded;
    try {
      decoded = decodeEventLog({ abi: clankerLpLockerAbi, data: log.data, topics: log.topics });
    } catch {
      continue;
    }
    if (decoded.eventName !== "ClaimedRewards" || getAddress(decoded.args.token) !== token) continue;
    info.rewardRecipients.forEach((r, i) => {
      if (getAddress(r) !== operator) return;
      if (getAddress(info.poolKey.currency0) === currency) amount += decoded.args.rewards0[i]!;
      if (getAddress(info.poolKey.currency1) === currency) amount += decoded.args.rewards1[i]!;
    });
  }
  return amount;
}

/** The indexed burn of a transaction, with its log index. */
async function burnOf(token: Address, txHash: string): Promise<{ txHash: Hex; logIndex: number; amountRaw: string }> {
  const page = await ok(`/api/v1/burns/${token}?limit=200`);
  const item = page.items.find((b: { txHash: string }) => b.txHash.toLowerCase() === txHash.toLowerCase());
  expect(item, `burn ${txHash}`).toBeDefined();
  return { txHash: item.txHash, logIndex: Number(item.id.split("-")[1]), amountRaw: item.amountRaw };
}

/** The proof's checks that hold for every canonical burn: its block and the dead address's balances, read from the chain. */
async function expectProvenByChain(proof: any, token: Address, amountRaw: string) {
  burnProofResponse.parse(proof);
  const receipt = await chain().getTransactionReceipt({ hash: proof.burn.txHash });
  expect(proof.burn.blockHash).toBe(receipt.blockHash);
  expect(proof.burn.blockNumber).toBe(Number(receipt.blockNumber));
  expect(proof.finality).toMatchObject({ canonical: true, final: true, confirmationsRequired: 0 });
  expect(proof.finality.confirmations).toBe(Number((await chain().getBlockNumber({ cacheTime: 0 })) - receipt.blockNumber));
  const before = await deadBalance(token, receipt.blockNumber - 1n);
  const after = await deadBalance(token, receipt.blockNumber);
  expect(proof.deadAddress.before.amountRaw).toBe(before.toString());
  expect(proof.deadAddress.after.amountRaw).toBe(after.toString());
  expect(proof.deadAddress.delta.amountRaw).toBe((after - before).toString());
  expect(proof.deadAddress.matches).toBe(true);
  expect(proof.burn.burned.amountRaw).toBe(amountRaw);
  expect(BigInt(proof.deadAddress.delta.amountRaw)).toBeGreaterThanOrEqual(BigInt(amountRaw));
}

beforeAll(async () => {
  sc = await startScenario({ env: AVANTIS });
  ({ operator, usdcToken, wethToken } = sc);
  const { d, run } = sc;
  // Fees on both tokens and the protocol token; an organic burn by a holder.
  await d.buy(TRADER, usdcToken, 6_000n * USDC);
  await d.sell(TRADER, usdcToken, (await d.balance(usdcToken, d.as(TRADER).account.address)) / 3n);
  await d.buy(TRADER, wethToken, 4_000n * USDC);
  await d.buy(TRADER, d.protocolToken, 500n * USDC);
  const held = await d.balance(usdcToken, d.as(TRADER).account.address);
  organicBurnTx = await d.as(TRADER).write(usdcToken, erc20Abi, "transfer", [DEAD_ADDRESS, held / 10n]);
  for (let i = 0; i < 6; i++) await run("price-sampler");
  await run("fee-claimer");
  // A desk opened, closed at a profit, the profit bought back and burned.
  await run("desk-manager");
  const opening = (await tradesWithStatus(sc.engine.ctx.db, ["opening"])).map((t) => t.orderId!).filter(Boolean);
  await d.execute(opening);
  await run("profit-checker");
  const eth = await d.price("ETH_USD");
  await d.setPrice("ETH_USD", (eth * 105n) / 100n);
  await run("profit-checker");
  const closing = (await tradesWithStatus(sc.engine.ctx.db, ["closing"])).map((t) => t.closeOrderId!).filter(Boolean);
  await d.execute(closing);
  await run("profit-checker");
  await run("creator-buyback");
  await run("buyback-engine");
  ponder = await startTestPonder(d.databaseUrl, d.env(AVANTIS));
  await synced();
}, 600_000);

afterAll(async () => {
  await ponder?.stop();
  await sc?.stop();
});

describe("burn proofs", () => {
  it("proves a protocol buyback's burn: its block and dead-address balances from the chain, its swap and the fee legs that paid, each with its transactions", async () => {
    const { rows } = await sc.engine.ctx.pool.query(
      "SELECT id, amount_in::text, tokens_burned::text, swap_tx_hash, burn_tx_hash FROM engine.buybacks WHERE kind = 'protocol' AND status = 'done'",
    );
    expect(rows.length).toBe(1);
    const b = rows[0];
    const burn = await burnOf(sc.d.protocolToken, b.burn_tx_hash);
    expect(burn.amountRaw).toBe(b.tokens_burned);
    const proof = await ok(`/api/v1/burns/${burn.txHash}/${burn.logIndex}`);
    await expectProvenByChain(proof, sc.d.protocolToken, b.tokens_burned);
    expect(proof.burn.kind).toBe("protocol-buyback");
    expect(proof.paidBy.kind).toBe("buyback");
    const [bb] = proof.paidBy.buybacks;
    expect(bb).toMatchObject({ id: Number(b.id), kind: "protocol-buyback", status: "done", swapTx: b.swap_tx_hash, leg: "protocol" });
    expect(bb.burnTxs).toContain(b.burn_tx_hash);
    expect(bb.paidIn).toMatchObject({ amountRaw: b.amount_in, symbol: "USDC", decimals: 6 });
    expect(bb.usdcIn.amountRaw).toBe(b.amount_in); // the index read the same USDC from the swap's logs
    expect(bb.route).toEqual([{ from: "USDC", to: expect.any(String), pool: expect.stringContaining("v4") }]);
    expect(bb.unfunded.amountRaw).toBe("0");
    // The sources add up to what the swap paid, each a fee of an enrolled token with its collection and claim transactions.
    expect(bb.sources.reduce((s: bigint, x: any) => s + BigInt(x.paid.amountRaw), 0n)).toBe(BigInt(b.amount_in));
    const { rows: claims } = await sc.engine.ctx.pool.query(
      "SELECT tx_hash FROM engine.tx_intents WHERE key LIKE 'claim-cycle:%:claim:%' AND status = 'mined'",
    );
    for (const s of bb.sources) {
      expect([usdcToken, wethToken]).toContain(s.token);
      expect(s.leg).toBe("protocol");
      expect(s.kind).toMatch(/^fees/);
      if (s.kind === "fees") {
        expect(claims.map((c) => c.tx_hash)).toContain(s.claimTx);
        // Its own transaction is a ClaimedRewards of its token, on the chain.
        const receipt = await chain().getTransactionReceipt({ hash: s.txHash });
        expect(receipt.logs.some((l) => getAddress(l.address) === sc.d.c.lpLocker)).toBe(true);
      } else {
        expect(s.conversionId).toBeGreaterThan(0);
      }
    }
    // Asked again: the final block's balances come from memory, the same to the unit.
    const again = await ok(`/api/v1/burns/${burn.txHash}/${burn.logIndex}`);
    expect(again.deadAddress.cached).toBe(true);
    expect({ ...again.deadAddress, cached: false }).toEqual({ ...proof.deadAddress, cached: false });
  });

  it("proves a creator buyback's burn paid by the desk's profit, with the trade's open and close transactions", async () => {
    const { rows } = await sc.engine.ctx.pool.query(
      "SELECT id, amount_in::text, tokens_burned::text, burn_tx_hash FROM engine.buybacks WHERE kind = 'creator' AND status = 'done' AND token = $1",
      [usdcToken],
    );
    expect(rows.length).toBe(1);
    const burn = await burnOf(usdcToken, rows[0].burn_tx_hash);
    const proof = await ok(`/api/v1/burns/${burn.txHash}/${burn.logIndex}`);
    await expectProvenByChain(proof, usdcToken, rows[0].tokens_burned);
    const [bb] = proof.paidBy.buybacks;
    expect(bb).toMatchObject({ kind: "creator-buyback", leg: "creator-buyback" });
    expect(bb.sources.reduce((s: bigint, x: any) => s + BigInt(x.paid.amountRaw), 0n)).toBe(BigInt(rows[0].amount_in));
    const [closed] = (await tradesWithStatus(sc.engine.ctx.db, ["closed"])).filter((t) => t.token === usdcToken);
    for (const s of bb.sources) {
      expect(s).toMatchObject({ kind: "desk-profit", leg: "creator-buyback", token: usdcToken });
      expect(s.deskTrade).toMatchObject({ id: closed!.id, status: "closed", returned: { amountRaw: closed!.usdcReturned.toString() } });
      expect(BigInt(s.deskTrade.realisedPnl.amountRaw)).toBeGreaterThan(0n);
      expect(s.deskTrade.openTx).toMatch(/^0x[0-9a-f]{64}$/);
      // Its own transaction: the keeper's execution of the close order, on the chain.
      const execution = await chain().getTransactionReceipt({ hash: s.txHash });
      expect(getAddress(execution.to!)).toBe(sc.d.c.perpsTrading);
    }
  });

  it("says an organic burn was nobody's fees; GraphQL answers the same documents", async () => {
    const burn = await burnOf(usdcToken, organicBurnTx);
    const proof = await ok(`/api/v1/burns/${burn.txHash}/${burn.logIndex}`);
    await expectProvenByChain(proof, usdcToken, burn.amountRaw);
    expect(proof.burn.kind).toBe("organic");
    expect(proof.paidBy).toMatchObject({ kind: "organic", buybacks: [] });
    const data = await gql(`{ burnProof(txHash: "${burn.txHash}", logIndex: ${burn.logIndex}) missing: burnProof(txHash: "0x${"ab".repeat(32)}", logIndex: 0)
      burns(first: 1, filter: { token: "${usdcToken}", kinds: [ORGANIC] }) { edges { node { txHash proof } } } }`);
    const strip = (p: any) => ({ ...p, deadAddress: { ...p.deadAddress, cached: null } });
    expect(strip(data.burnProof)).toEqual(strip(proof));
    expect(data.missing).toBeNull();
    expect(strip(data.burns.edges[0].node.proof)).toEqual(strip(proof));
  });

  it("refuses malformed input with 400 and answers 404 for what is not there", async () => {
    const hash = `0x${"cd".repeat(32)}`;
    for (const path of [
      `/api/v1/burns/0x1234/0`,
      `/api/v1/burns/${hash}/abc`,
      `/api/v1/burns/${hash}/-1`,
      `/api/v1/burns/${hash}/99999999999`,
      "/api/v1/tokens/0xnot/flow",
      "/api/v1/tokens/0x12/audit",
    ]) {
      const a = await get(path);
      expect(a.status, path).toBe(400);
      expect(Object.keys(a.json)).toEqual(["error", "code"]);
    }
    for (const path of [`/api/v1/burns/${hash}/0`, `/api/v1/tokens/${`0x${"11".repeat(20)}`}/flow`, `/api/v1/tokens/${`0x${"11".repeat(20)}`}/audit`]) {
      const a = await get(path);
      expect(a.status, path).toBe(404);
      expect(typeof a.json.error).toBe("string");
    }
    const res = await fetch(`${ponder.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: `{ burnProof(txHash: "0x12", logIndex: 0) }` }),
    });
    expect((await res.json()).errors[0].extensions.code).toBe("BAD_USER_INPUT");
  });
});

describe("fee flow", () => {
  it("follows each token's fees from collection to burns and desks, equal to the chain and the ledger, and in = out + pending at every stage", async () => {
    const flows: Record<string, any> = {};
    for (const token of [usdcToken, wethToken]) {
      const flow = await ok(`/api/v1/tokens/${token}/flow`);
      flowResponse.parse(flow);
      flows[token] = flow;
      expect(flow.engine).toBe(true);
      expect(flow.identity).toMatch(/in = out \+ pending/);
      expect(flow.totals.holds).toBe(true);
      expect(BigInt(flow.totals.in.amountRaw)).toBe(BigInt(flow.totals.out.amountRaw) + BigInt(flow.totals.pending.amountRaw));
      for (const c of flow.collected) expect(c.holds, `${token} ${c.symbol}`).toEqual({ collected: true, claimed: true, converted: true });
      for (const l of flow.legs) {
        expect(l.holds, `${token} ${l.leg}`).toBe(true);
        expect(BigInt(l.allocated.amountRaw) + BigInt(l.returned.amountRaw)).toBe(BigInt(l.spent.amountRaw) + BigInt(l.pending.amountRaw));
      }
      expect(flow.claimed.indexAgrees).toBe(true);
      expect(flow.claimed.legsSumToClaimed).toBe(true);
      // Collected for the operator = the operator's share of every ClaimedRewards, read from the chain.
      const paired = token === usdcToken ? sc.d.c.usdc! : sc.d.c.weth!;
      const collected = flow.collected.find((c: any) => c.currency === getAddress(paired));
      expect(collected.toOperator.amountRaw).toBe((await operatorRewards(token, paired)).toString());
      // Claimed by the fee-claimer, or waiting in the fee locker: the hook collects on every swap,
      // so the last swaps' fees may not be claimed yet.
      expect(BigInt(collected.claimed.amountRaw) + BigInt(collected.unclaimed.amountRaw)).toBe(BigInt(collected.toOperator.amountRaw));
      expect(BigInt(collected.claimed.amountRaw)).toBeGreaterThan(0n);
      // The per-token legs hold what the ledger's running balances hold.
      for (const leg of [Legs.perp, Legs.creatorBuyback] as const) {
        expect(flow.legs.find((l: any) => l.leg === leg).pending.amountRaw, `${token} ${leg}`).toBe(
          (await legBalance(sc.engine.ctx.db, leg, token)).toString(),
        );
      }
    }
    // The USDC-paired token: its desk's collateral, its profit's buyback and what that burned, as the chain saw it.
    const usdc = flows[usdcToken];
    const perp = usdc.legs.find((l: any) => l.leg === "perp");
    expect(perp.spends.items.some((s: any) => s.what === "desk-trade" && s.txHashes.length === 1)).toBe(true);
    const creator = usdc.legs.find((l: any) => l.leg === "creator-buyback");
    expect(BigInt(creator.returned.amountRaw)).toBeGreaterThan(0n); // the desk's profit
    expect(creator.inflows.items.every((i: any) => i.kind === "desk-profit" && /^0x[0-9a-f]{64}$/.test(i.txHash))).toBe(true);
    const [cb] = creator.spends.items;
    const { rows } = await sc.engine.ctx.pool.query("SELECT tokens_burned::text, burn_tx_hash FROM engine.buybacks WHERE kind = 'creator' AND token = $1", [
      usdcToken,
    ]);
    expect(cb.tokensBurned.amountRaw).toBe(rows[0].tokens_burned);
    expect(cb.txHashes).toContain(rows[0].burn_tx_hash);
    const burnReceipt = await chain().getTransactionReceipt({ hash: rows[0].burn_tx_hash });
    expect((await deadBalance(usdcToken, burnReceipt.blockNumber)) - (await deadBalance(usdcToken, burnReceipt.blockNumber - 1n))).toBe(
      BigInt(rows[0].tokens_burned),
    );
    expect(usdc.outcomes.deskPnl.amountRaw).toBe(
      (await tradesWithStatus(sc.engine.ctx.db, ["closed"]))
        .filter((t) => t.token === usdcToken)
        .reduce((s, t) => s + t.realisedPnl, 0n)
        .toString(),
    );
    // The protocol buyback divided among the tokens whose protocol legs paid it: the parts add up to the swap's USDC.
    const { rows: pb } = await sc.engine.ctx.pool.query("SELECT id, amount_in::text FROM engine.buybacks WHERE kind = 'protocol'");
    const parts = [usdcToken, wethToken].flatMap((t) =>
      flows[t].legs.find((l: any) => l.leg === "protocol").spends.items.filter((s: any) => s.what === "buyback" && s.id === Number(pb[0].id)),
    );
    expect(parts.reduce((s: bigint, p: any) => s + BigInt(p.paid.amountRaw), 0n)).toBe(BigInt(pb[0].amount_in));
    // What the pooled protocol leg holds, divided among tokens, adds up to its balance.
    const held = [usdcToken, wethToken].reduce((s, t) => s + BigInt(flows[t].legs.find((l: any) => l.leg === "protocol").pending.amountRaw), 0n);
    expect(held).toBe(await legBalance(sc.engine.ctx.db, Legs.protocol));
    // The WETH-paired token: its WETH claimed = converted + awaiting conversion.
    const weth = flows[wethToken].collected.find((c: any) => c.symbol === "WETH");
    expect(BigInt(weth.claimed.amountRaw)).toBe(BigInt(weth.converted.amountRaw) + BigInt(weth.awaitingConversion.amountRaw));

    const data = await gql(`{ token(address: "${usdcToken}") { feeFlow feeFlowReport ${selectionOf("FeeFlow")} } }`);
    expect(data.token.feeFlow).toEqual(usdc);
    // The typed form: the same answer, field for field.
    expect(data.token.feeFlowReport).toEqual(usdc);
  });
});

describe("public audit", () => {
  it("is 'clean at block N, time T' after the money path, and names a difference forced into the books by check, leg and amount", async () => {
    expect((await ok(`/api/v1/tokens/${usdcToken}/audit`)).status).toBe("not-audited");
    const result = await sc.run("auditor");
    expect(result).toMatchObject({ ok: true, settled: true });
    const clean = await ok(`/api/v1/tokens/${usdcToken}/audit`);
    tokenAuditResponse.parse(clean);
    const block = await chain().getBlock({ blockNumber: BigInt(clean.block) });
    expect(clean).toMatchObject({
      status: "clean",
      ok: true,
      settled: true,
      differences: [],
      blockTime: new Date(Number(block.timestamp) * 1000).toISOString(),
    });
    expect(clean.summary).toBe(`clean at block ${clean.block}, ${clean.blockTime}`);
    expect(clean.lastClean).toMatchObject({ block: clean.block });
    // Nothing secret: no key, no private field; only the checks and their amounts.
    expect(JSON.stringify(clean)).not.toMatch(/private|secret|0x[0-9a-f]{64}/i);

    // A difference forced into the books: 1.234567 USDC allocated to the token's perp leg with no fee behind it.
    await sc.engine.ctx.pool.query(
      "INSERT INTO engine.ledger (key, kind, leg, token, currency, amount) VALUES ('injected:test', 'allocation', 'perp', $1, 'USDC', 1234567)",
      [usdcToken],
    );
    await sc.run("auditor");
    const found = await ok(`/api/v1/tokens/${usdcToken}/audit`);
    tokenAuditResponse.parse(found);
    expect(found).toMatchObject({ status: "differences", ok: false });
    const details = found.differences.map((d: any) => `${d.scope} ${d.check} ${d.detail}`);
    expect(details).toContainEqual(expect.stringMatching(new RegExp(`^token ledger token ${usdcToken}: claimed \\d+ ≠ allocated \\d+`)));
    expect(details).toContainEqual(
      expect.stringMatching(new RegExp(`^token ledger balance of leg perp of ${usdcToken} \\(USDC\\): kept \\d+ ≠ ledger sum \\d+`)),
    );
    expect(found.summary).toMatch(/^2 differences at block \d+/);
    expect(found.lastClean).toEqual(clean.lastClean);
    // The other token is unaffected; GraphQL says the same.
    expect((await ok(`/api/v1/tokens/${wethToken}/audit`)).status).toBe("clean");
    const data = await gql(`{ token(address: "${usdcToken}") { audit auditReport ${selectionOf("PublicAudit")} } }`);
    expect(data.token.audit).toEqual(found);
    expect(data.token.auditReport).toEqual(found);
    await sc.engine.ctx.pool.query("DELETE FROM engine.ledger WHERE key = 'injected:test'");
  });
});

describe("after a reorg", () => {
  it("proves the new branch's burn from the new block, never from the abandoned one's cached balances; the abandoned burn is gone", async () => {
    const trader = sc.d.as(TRADER);
    const snapshot = await rpc<string>(sc.d.rpcUrl, "evm_snapshot");
    // Branch A: a burn, indexed and proven (its final block's balances kept in memory).
    const txA = await trader.write(usdcToken, erc20Abi, "transfer", [DEAD_ADDRESS, 1_000n]);
    const headA = await chain().getBlockNumber({ cacheTime: 0 });
    await synced();
    const burnA = await burnOf(usdcToken, txA);
    const proofA = await ok(`/api/v1/burns/${burnA.txHash}/${burnA.logIndex}`);
    await expectProvenByChain(proofA, usdcToken, "1000");
    expect((await ok(`/api/v1/burns/${burnA.txHash}/${burnA.logIndex}`)).deadAddress.cached).toBe(true);

    // Branch B: the same block number holds another burn; the chain grows past branch A.
    expect(await rpc<boolean>(sc.d.rpcUrl, "evm_revert", [snapshot])).toBe(true);
    const txB = await trader.write(usdcToken, erc20Abi, "transfer", [DEAD_ADDRESS, 2_500n]);
    const receiptB = await chain().getTransactionReceipt({ hash: txB });
    expect(receiptB.blockNumber).toBe(headA);
    await rpc(sc.d.rpcUrl, "anvil_mine", ["0x3"]);
    await synced();

    expect((await get(`/api/v1/burns/${burnA.txHash}/${burnA.logIndex}`)).status).toBe(404);
    const burnB = await burnOf(usdcToken, txB);
    const proofB = await ok(`/api/v1/burns/${burnB.txHash}/${burnB.logIndex}`);
    await expectProvenByChain(proofB, usdcToken, "2500");
    expect(proofB.burn.blockNumber).toBe(proofA.burn.blockNumber);
    expect(proofB.burn.blockHash).not.toBe(proofA.burn.blockHash);
    expect(proofB.deadAddress.cached).toBe(false);
    expect(BigInt(proofB.deadAddress.after.amountRaw) - BigInt(proofA.deadAddress.after.amountRaw)).toBe(1_500n);

    // The books did not move: the flow still reconciles and the public audit is clean.
    expect((await ok(`/api/v1/tokens/${usdcToken}/flow`)).totals.holds).toBe(true);
    await sc.run("auditor");
    expect((await ok(`/api/v1/tokens/${usdcToken}/audit`)).status).toBe("clean");
  });
});
