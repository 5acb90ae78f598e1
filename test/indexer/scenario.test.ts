/**
 * The indexer against a scripted devnet scenario: launch, enrol, swaps, fee collection and
 * claim, perps open/increase/close/liquidation, buybacks (one and two hops), burns by the
 * operator and by others, a halt. Every expectation is computed from the chain itself
 * (receipts, logs, balances), then compared with the indexed rows and aggregates.
 */
import { type Address, type Hex, parseAbi, parseEventLogs } from "viem";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FeeIn, clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { perpsCallbacksAbi, PERPS_PRECISION } from "../../common/abis/perps.js";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { splitOperatorShare } from "../../common/split.js";
import { createDevnetContext } from "../../devnet/context.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { devnetPrivateKey } from "../../devnet/protocol.js";
import { activitySchemaProblems } from "../helpers/activity-facts.js";
import * as act from "../helpers/actions.js";
import { createDatabase, devnetAs, startTestPonder, testEnv } from "../helpers/env.js";

const USDC = (n: bigint) => n * 1_000_000n;
const lc = (a: string) => a.toLowerCase();

describe("indexer: scripted scenario", () => {
  const env = testEnv();
  const c = env.deployments.contracts as Record<string, Address>;
  const protocolToken = env.deployments.protocolToken as Address;
  const operator = devnetAs(0);
  const creator = devnetAs(1);
  const trader = devnetAs(2);
  const keeper = createDevnetContext(env.rpcUrl, env.deployments.chainId, devnetPrivateKey(9));
  let ponder: Awaited<ReturnType<typeof startTestPonder>>;
  let db: pg.Pool;
  const q = async <T = Record<string, unknown>>(text: string, values: unknown[] = []) => (await db.query(text, values)).rows as T[];

  // What the scenario did, read back from the chain.
  const s = {} as {
    token: Address;
    poolId: Hex;
    launchTx: Hex;
    collectTx: Hex;
    claimTx: Hex;
    claimed: bigint;
    buybackTx: Hex;
    bought: bigint;
    burnTx: Hex;
    protocolBuyTx: Hex;
    protocolBought: bigint;
    protocolBurnTx: Hex;
    wethBuyTx: Hex;
    wethBought: bigint;
    wethBurnTx: Hex;
    organicBurnTx: Hex;
    organicAmount: bigint;
    haltTx: Hex;
    openTx: Hex;
    closeTx: Hex;
    liquidationTx: Hex;
    lastBlock: bigint;
    startBlock: bigint;
    convToken: Address;
    convCollectTx: Hex;
    /** The locker's conversions into the token in that collection. */
    convSwapped: number;
    /** This scenario's desk trades (other suites' trades on the shared devnet are not its business). */
    tradeIds: string[];
  };

  beforeAll(async () => {
    const databaseUrl = await createDatabase("indexer");
    db = new pg.Pool({ connectionString: databaseUrl, options: "-c search_path=app" });
    ponder = await startTestPonder(databaseUrl);
    s.startBlock = await operator.publicClient.getBlockNumber();
    await operator.write(c.usdc!, parseAbi(["function mint(address to, uint256 amount)"]), "mint", [operator.account.address, USDC(10_000n)]);

    // Launch and enrol a USDC-paired creator token.
    const launched = await act.launchToken(operator, c, {
      name: "Scenario",
      symbol: "SCN",
      operator: operator.account.address,
      creator: creator.account.address,
    });
    Object.assign(s, { token: launched.token, poolId: launched.poolId, launchTx: launched.receipt.transactionHash });
    await act.enroll(operator, c, s.token, creator.account.address);

    // Organic trading: a buy and a partial sell, then the locker collects (converting to USDC).
    await act.swapInPool(trader, c, s.token, c.usdc!, USDC(20_000n));
    const held = await act.balanceOf(trader, s.token, trader.account.address);
    await act.swapInPool(trader, c, s.token, s.token, held / 3n);
    s.collectTx = (await act.collectRewards(trader, c, s.token)).transactionHash;
    const claimable = await operator.read<bigint>(c.feeLocker!, clankerFeeLockerAbi, "availableFees", [operator.account.address, c.usdc!]);
    s.claimTx = (await act.claimFees(trader, c, operator.account.address, c.usdc!)).transactionHash;
    s.claimed = claimable;

    // Creator buyback (one v4 hop) and its burn.
    let before = await act.balanceOf(operator, s.token, operator.account.address);
    s.buybackTx = (await act.swapInPool(operator, c, s.token, c.usdc!, USDC(100n))).transactionHash;
    s.bought = (await act.balanceOf(operator, s.token, operator.account.address)) - before;
    s.burnTx = (await act.burnAll(operator, s.token)).receipt.transactionHash;

    // Protocol buyback and burn.
    before = await act.balanceOf(operator, protocolToken, operator.account.address);
    s.protocolBuyTx = (await act.swapInPool(operator, c, protocolToken, c.usdc!, USDC(50n))).transactionHash;
    s.protocolBought = (await act.balanceOf(operator, protocolToken, operator.account.address)) - before;
    s.protocolBurnTx = (await act.burnAll(operator, protocolToken)).receipt.transactionHash;

    // Two-hop buyback of the WETH-paired creator token.
    before = await act.balanceOf(operator, c.wethPairedToken!, operator.account.address);
    s.wethBuyTx = (await act.swapInPool(operator, c, c.wethPairedToken!, c.usdc!, USDC(200n))).transactionHash;
    s.wethBought = (await act.balanceOf(operator, c.wethPairedToken!, operator.account.address)) - before;
    s.wethBurnTx = (await act.burnAll(operator, c.wethPairedToken!)).receipt.transactionHash;

    // A token whose creator takes fees in the token: the operator's collection converts the
    // creator's USDC into the token through the router (not a buyback).
    const conv = await act.launchToken(operator, c, {
      name: "Converted",
      symbol: "CNV",
      operator: operator.account.address,
      creator: creator.account.address,
      rewards: [
        { admin: operator.account.address, recipient: operator.account.address, bps: 8_000, feeIn: FeeIn.Paired },
        { admin: creator.account.address, recipient: creator.account.address, bps: 2_000, feeIn: FeeIn.Clanker },
      ],
    });
    s.convToken = conv.token;
    await act.swapInPool(trader, c, conv.token, c.usdc!, USDC(5_000n));
    const convCollect = await act.collectRewards(operator, c, conv.token);
    s.convCollectTx = convCollect.transactionHash;
    s.convSwapped = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "FeesSwapped", logs: convCollect.logs }).filter(
      (l) => lc(l.args.swappedToken) === lc(conv.token),
    ).length;

    // An organic burn.
    const organic = await act.burnAll(trader, s.token);
    Object.assign(s, { organicBurnTx: organic.receipt.transactionHash, organicAmount: organic.amount });

    // Perps desk: open 1,000 USDC 5x long on ETH, add 200 margin, +10% → close; then a 20x long liquidated at -5%.
    const feed = env.deployments.contracts.priceFeeds!.ETH_USD as Address;
    const startPrice = 3_000n * 10n ** 8n;
    await act.setFeed(keeper, feed, startPrice);
    const first = await act.openTrade(operator, keeper, c, {
      pairIndex: 0n,
      collateral: USDC(1_000n),
      leverage: 5n * PERPS_PRECISION,
      buy: true,
      openPrice: 3_000n * PERPS_PRECISION,
    });
    s.openTx = first.executed.transactionHash;
    s.tradeIds = [`0-${first.index}-${first.orderId}`];
    await act.depositMargin(operator, c, 0n, first.index, USDC(200n));
    await act.setFeed(keeper, feed, (startPrice * 110n) / 100n);
    s.closeTx = (await act.closeTrade(operator, keeper, c, 0n, first.index, USDC(1_000_000n))).transactionHash;
    await act.setFeed(keeper, feed, startPrice);
    const second = await act.openTrade(operator, keeper, c, {
      pairIndex: 0n,
      collateral: USDC(500n),
      leverage: 20n * PERPS_PRECISION,
      buy: true,
      openPrice: 3_000n * PERPS_PRECISION,
    });
    s.tradeIds.push(`0-${second.index}-${second.orderId}`);
    await act.setFeed(keeper, feed, (startPrice * 95n) / 100n);
    s.liquidationTx = (await act.liquidate(keeper, c, operator.account.address, 0n, second.index)).transactionHash;
    await act.setFeed(keeper, feed, startPrice);

    // A halt.
    s.haltTx = (
      await operator.publicClient.getTransactionReceipt({
        hash: await operator.write(c.registry!, (await import("../../common/abis/registry.js")).registryAbi, "setHalted", [s.token, true]),
      })
    ).transactionHash;

    s.lastBlock = await operator.publicClient.getBlockNumber();
    await waitForIndexed(ponder.url, s.lastBlock).catch((error) => {
      throw new Error(`${error.message}\n${ponder.logs.slice(-30).join("\n")}`);
    });
  }, 300_000);

  afterAll(async () => {
    await ponder?.stop();
    await db?.end();
  });

  it("records the launch, the pool and the reward slots", async () => {
    const [t] = await q("SELECT * FROM token WHERE address = $1", [lc(s.token)]);
    expect(t).toMatchObject({
      name: "Scenario",
      symbol: "SCN",
      pool_id: s.poolId,
      paired_token: lc(c.usdc!),
      locker: lc(c.lpLocker!),
      is_protocol_token: false,
      launch_tx: s.launchTx,
      admin: lc(operator.account.address),
    });
    const [protocol] = await q("SELECT is_protocol_token FROM token WHERE address = $1", [lc(protocolToken)]);
    expect(protocol).toEqual({ is_protocol_token: true });
    const slots = await q("SELECT reward_index, recipient, bps FROM reward_recipient WHERE token = $1 ORDER BY reward_index", [lc(s.token)]);
    expect(slots).toEqual([
      { reward_index: 0, recipient: lc(operator.account.address), bps: 9050 },
      { reward_index: 1, recipient: lc(creator.account.address), bps: 950 },
    ]);
  });

  it("keeps pool state and volume equal to the PoolManager's Swap events", async () => {
    const logs = await operator.publicClient.getLogs({
      address: c.v4PoolManager!,
      event: poolManagerAbi[1],
      args: { id: s.poolId },
      fromBlock: s.startBlock,
      toBlock: s.lastBlock,
    });
    const [p] = await q("SELECT * FROM pool WHERE pool_id = $1", [s.poolId]);
    const tokenIs0 = lc(p!.currency0 as string) === lc(s.token);
    const abs = (x: bigint) => (x < 0n ? -x : x);
    const last = logs.at(-1)!.args;
    expect(Number(p!.swaps)).toBe(logs.length);
    expect(BigInt(p!.volume_token as string)).toBe(logs.reduce((sum, l) => sum + abs(tokenIs0 ? l.args.amount0! : l.args.amount1!), 0n));
    expect(BigInt(p!.volume_paired as string)).toBe(logs.reduce((sum, l) => sum + abs(tokenIs0 ? l.args.amount1! : l.args.amount0!), 0n));
    expect(BigInt(p!.sqrt_price_x_96 as string)).toBe(last.sqrtPriceX96);
    expect(Number(p!.tick)).toBe(last.tick);
    // 10,000 USDC for 100B tokens: about 1e-7 USDC each, i.e. ~1e11 USDC base units per 1e18 tokens.
    expect(BigInt(p!.price_usdc_e_18 as string)).toBeGreaterThan(10n ** 10n);
    const [weth] = await q("SELECT price_usdc_e_18 FROM pool WHERE token = $1", [lc(c.wethPairedToken!)]);
    expect(BigInt(weth!.price_usdc_e_18 as string)).toBeGreaterThan(0n);
  });

  it("attributes the collection per recipient and splits the operator's USDC into legs", async () => {
    const r = await operator.publicClient.getTransactionReceipt({ hash: s.collectTx });
    const [claimed] = parseEventLogs({ abi: clankerLpLockerAbi, eventName: "ClaimedRewards", logs: r.logs });
    const rows = await q<{ reward_index: number; recipient: string; currency: string; amount: string }>(
      "SELECT reward_index, recipient, currency, amount FROM fee_collection WHERE tx_hash = $1 ORDER BY reward_index, currency",
      [s.collectTx],
    );
    const [p] = await q("SELECT currency0, currency1 FROM pool WHERE pool_id = $1", [s.poolId]);
    const expected = [
      ...claimed!.args.rewards0.map((amount, i) => ({ i, currency: p!.currency0 as string, amount })),
      ...claimed!.args.rewards1.map((amount, i) => ({ i, currency: p!.currency1 as string, amount })),
    ].filter((e) => e.amount > 0n);
    expect(rows.length).toBe(expected.length);
    for (const e of expected) {
      expect(rows).toContainEqual({
        reward_index: e.i,
        recipient: e.i === 0 ? lc(operator.account.address) : lc(creator.account.address),
        currency: e.currency,
        amount: e.amount.toString(),
      });
    }
    // The hook collects on every swap: the token's fees arrive over every ClaimedRewards of the scenario.
    const all = await operator.publicClient.getLogs({
      address: c.lpLocker!,
      event: clankerLpLockerAbi.find((i) => i.type === "event" && i.name === "ClaimedRewards") as never,
      args: { token: s.token } as never,
      fromBlock: s.startBlock,
      toBlock: s.lastBlock,
    });
    const usdcIs0 = lc(p!.currency0 as string) === lc(c.usdc!);
    const usdcOf = (l: (typeof all)[number], i: number) =>
      (l as unknown as { args: { rewards0: bigint[]; rewards1: bigint[] } }).args[usdcIs0 ? "rewards0" : "rewards1"][i] ?? 0n;
    const operatorUsdc = all.reduce((a, l) => a + usdcOf(l, 0), 0n);
    const creatorUsdc = all.reduce((a, l) => a + usdcOf(l, 1), 0n);
    expect(all.length).toBeGreaterThan(1);
    expect(operatorUsdc).toBeGreaterThan(0n);
    // USDC counts in the legs once claimed; what the swaps after the claim collected is still unclaimed.
    const [fee] = await q("SELECT * FROM token_fee WHERE token = $1 AND currency = $2", [lc(s.token), lc(c.usdc!)]);
    expect(fee).toMatchObject({ to_operator: operatorUsdc.toString(), awaiting_conversion: "0", converted: "0", to_creator: creatorUsdc.toString() });
    const counted = BigInt(fee!.usdc as string);
    expect(counted + BigInt(fee!.unclaimed as string)).toBe(operatorUsdc);
    const [tt] = await q("SELECT * FROM token_totals WHERE token = $1", [lc(s.token)]);
    expect(tt).toMatchObject({ fees_to_operator_usdc: counted.toString(), operator_leg_usdc: "0", creator_leg_usdc: creatorUsdc.toString() });
    const leg = (name: string) => BigInt(tt![name] as string);
    expect(leg("protocol_leg_usdc") + leg("asset_leg_usdc") + leg("perp_leg_usdc")).toBe(counted);
    // Each leg is its bps of the counted USDC, split per claim (rounding at most a unit per collection).
    const legs = splitOperatorShare(counted, { assetBps: 2850, perpBps: 5700 });
    for (const [name, value] of [
      ["protocol_leg_usdc", legs.protocol],
      ["asset_leg_usdc", legs.asset],
      ["perp_leg_usdc", legs.perp],
    ] as const) {
      const diff = leg(name) - value;
      expect(diff < 0n ? -diff : diff, name).toBeLessThanOrEqual(BigInt(all.length));
    }
  });

  it("tracks fee-locker balances and the operator's claim", async () => {
    const [claim] = await q("SELECT owner, currency, amount FROM fee_claim WHERE tx_hash = $1", [s.claimTx]);
    expect(claim).toEqual({ owner: lc(operator.account.address), currency: lc(c.usdc!), amount: s.claimed.toString() });
    const [balance] = await q("SELECT claimable FROM fee_balance WHERE owner = $1 AND currency = $2", [lc(operator.account.address), lc(c.usdc!)]);
    const onchain = await operator.read<bigint>(c.feeLocker!, clankerFeeLockerAbi, "availableFees", [operator.account.address, c.usdc!]);
    expect(BigInt(balance!.claimable as string)).toBe(onchain);
  });

  it("derives buybacks from the operator's swaps, and settles them with the operator's burns", async () => {
    const rows = await q(
      "SELECT tx_hash, token, kind, usdc_in, currency_in, amount_in, tokens_bought, tokens_burned FROM buyback WHERE tx_hash = ANY($1) ORDER BY block_number",
      [[s.buybackTx, s.protocolBuyTx, s.wethBuyTx]],
    );
    const usdc = lc(c.usdc!);
    expect(rows).toEqual([
      {
        tx_hash: s.buybackTx,
        token: lc(s.token),
        kind: "creator-buyback",
        usdc_in: USDC(100n).toString(),
        currency_in: usdc,
        amount_in: USDC(100n).toString(),
        tokens_bought: s.bought.toString(),
        tokens_burned: s.bought.toString(),
      },
      {
        tx_hash: s.protocolBuyTx,
        token: lc(protocolToken),
        kind: "protocol-buyback",
        usdc_in: USDC(50n).toString(),
        currency_in: usdc,
        amount_in: USDC(50n).toString(),
        tokens_bought: s.protocolBought.toString(),
        tokens_burned: s.protocolBought.toString(),
      },
      // Two hops, USDC → WETH → token: paid in USDC.
      {
        tx_hash: s.wethBuyTx,
        token: lc(c.wethPairedToken!),
        kind: "creator-buyback",
        usdc_in: USDC(200n).toString(),
        currency_in: usdc,
        amount_in: USDC(200n).toString(),
        tokens_bought: s.wethBought.toString(),
        tokens_burned: s.wethBought.toString(),
      },
    ]);
    const burns = await q("SELECT tx_hash, kind, amount FROM burn WHERE tx_hash = ANY($1) ORDER BY block_number", [
      [s.burnTx, s.protocolBurnTx, s.wethBurnTx, s.organicBurnTx],
    ]);
    expect(burns).toEqual([
      { tx_hash: s.burnTx, kind: "creator-buyback", amount: s.bought.toString() },
      { tx_hash: s.protocolBurnTx, kind: "protocol-buyback", amount: s.protocolBought.toString() },
      { tx_hash: s.wethBurnTx, kind: "creator-buyback", amount: s.wethBought.toString() },
      { tx_hash: s.organicBurnTx, kind: "organic", amount: s.organicAmount.toString() },
    ]);
  });

  it("does not take the locker's conversion of fees into the token, collected by the operator, as a buyback", async () => {
    expect(s.convSwapped).toBe(1);
    expect(await q("SELECT id FROM buyback WHERE tx_hash = $1", [s.convCollectTx])).toEqual([]);
    expect(await q("SELECT kind FROM activity WHERE tx_hash = $1 AND kind IN ('creator-buyback', 'protocol-buyback')", [s.convCollectTx])).toEqual([]);
    expect(await q("SELECT kind FROM activity WHERE tx_hash = $1 AND kind = 'fees-swapped'", [s.convCollectTx])).toEqual([{ kind: "fees-swapped" }]);
  });

  it("follows the operator's desk: open, increase, close with profit, liquidation", async () => {
    const closeReceipt = await operator.publicClient.getTransactionReceipt({ hash: s.closeTx });
    const [closed] = parseEventLogs({ abi: perpsCallbacksAbi, eventName: "MarketExecuted", logs: closeReceipt.logs });
    const liqReceipt = await operator.publicClient.getTransactionReceipt({ hash: s.liquidationTx });
    const [liq] = parseEventLogs({ abi: perpsCallbacksAbi, eventName: "LimitExecuted", logs: liqReceipt.logs });
    const events = await q(
      "SELECT kind, collateral_delta, realised_pnl, usdc_returned, tx_hash FROM desk_event WHERE trade_id = ANY($1) ORDER BY block_number",
      [s.tradeIds],
    );
    expect(events.map((e) => e.kind)).toEqual(["desk-opened", "desk-increased", "desk-closed", "desk-opened", "desk-liquidated"]);
    const opened = events[0]!;
    const collateral = BigInt(opened.collateral_delta as string) + USDC(200n);
    expect(events[1]!.collateral_delta).toBe(USDC(200n).toString());
    expect(events[2]).toMatchObject({
      tx_hash: s.closeTx,
      collateral_delta: (-collateral).toString(),
      usdc_returned: closed!.args.usdcSentToTrader.toString(),
      realised_pnl: (closed!.args.usdcSentToTrader - collateral).toString(),
    });
    expect(closed!.args.usdcSentToTrader).toBeGreaterThan(collateral);
    expect(liq!.args.orderType).toBe(2);
    expect(events[4]).toMatchObject({ tx_hash: s.liquidationTx, usdc_returned: liq!.args.usdcSentToTrader.toString() });
    const trades = await q("SELECT status FROM desk_trade WHERE id = ANY($1) ORDER BY opened_at, id", [s.tradeIds]);
    expect(trades.map((t) => t.status)).toEqual(["closed", "liquidated"]);
  });

  it("writes one activity row per event, in chain order", async () => {
    const kinds = await q<{ kind: string; tx_hash: string }>("SELECT kind, tx_hash FROM activity WHERE block_number > $1 ORDER BY id", [
      s.startBlock.toString(),
    ]);
    const seen = (kind: string, tx: Hex) => kinds.some((k) => k.kind === kind && k.tx_hash === tx);
    expect(seen("token-launched", s.launchTx)).toBe(true);
    expect(seen("fees-collected", s.collectTx)).toBe(true);
    expect(seen("fees-claimed", s.claimTx)).toBe(true);
    expect(seen("creator-buyback", s.buybackTx)).toBe(true);
    expect(seen("protocol-buyback", s.protocolBuyTx)).toBe(true);
    expect(seen("burn", s.organicBurnTx)).toBe(true);
    expect(seen("desk-liquidated", s.liquidationTx)).toBe(true);
    expect(seen("desk-halted", s.haltTx)).toBe(true);
    expect(kinds.some((k) => k.kind === "token-enrolled")).toBe(true);
    const [e] = await q("SELECT halted FROM enrollment WHERE token = $1", [lc(s.token)]);
    expect(e).toEqual({ halted: true });
  });

  it("writes each activity row's facts as its kind's schema declares them (every field declared, served as documented)", async () => {
    const rows = await q<{ kind: string; data: unknown }>("SELECT kind, data FROM activity");
    expect(new Set(rows.map((r) => r.kind)).size).toBeGreaterThanOrEqual(10);
    expect(activitySchemaProblems(rows, c.usdc!)).toEqual([]);
  });

  it("keeps every aggregate equal to the sum of its raw rows", async () => {
    const mismatches = await q(`
      SELECT 'token_totals.burned' AS what, t.token FROM token_totals t
        LEFT JOIN (SELECT token, SUM(amount) s, COUNT(*) n FROM burn GROUP BY token) b ON b.token = t.token
        WHERE t.burned <> COALESCE(b.s, 0) OR t.burns <> COALESCE(b.n, 0)
      UNION ALL
      SELECT 'burn_daily', d.token FROM (SELECT token, SUM(burned) s FROM burn_daily GROUP BY token) d
        JOIN (SELECT token, SUM(amount) s FROM burn GROUP BY token) b ON b.token = d.token WHERE d.s <> b.s
      UNION ALL
      SELECT 'token_totals.buybacks', t.token FROM token_totals t
        LEFT JOIN (SELECT token, SUM(usdc_in) u, SUM(tokens_bought) b, SUM(tokens_burned) x, COUNT(*) n FROM buyback GROUP BY token) b ON b.token = t.token
        WHERE t.buyback_usdc <> COALESCE(b.u, 0) OR t.tokens_bought <> COALESCE(b.b, 0) OR t.buyback_burned <> COALESCE(b.x, 0) OR t.buybacks <> COALESCE(b.n, 0)
      UNION ALL
      SELECT 'protocol_totals.buybacks', NULL FROM protocol_totals p WHERE
        p.protocol_buyback_usdc <> (SELECT COALESCE(SUM(usdc_in), 0) FROM buyback WHERE kind = 'protocol-buyback')
        OR p.creator_buyback_usdc <> (SELECT COALESCE(SUM(usdc_in), 0) FROM buyback WHERE kind = 'creator-buyback')
        OR p.protocol_tokens_burned <> (SELECT COALESCE(SUM(b.amount), 0) FROM burn b JOIN token t ON t.address = b.token WHERE t.is_protocol_token)
        OR p.fees_claimed_usdc <> (SELECT COALESCE(SUM(amount), 0) FROM fee_claim WHERE owner = '${lc(operator.account.address)}' AND currency = '${lc(c.usdc!)}')
        OR p.tokens_launched <> (SELECT COUNT(*) FROM token)
        OR p.tokens_enrolled <> (SELECT COUNT(*) FROM enrollment)
        OR p.desks_open <> (SELECT COUNT(*) FROM desk_trade WHERE status = 'open')
        OR p.desk_realised_pnl <> (SELECT COALESCE(SUM(realised_pnl), 0) FROM desk_trade)
        -- docs/api.md: the protocol's fees are its four legs, and every token's plus what a claim
        -- brought beyond the collections (no token's: it sits in the operator leg alone)
        OR p.protocol_leg_usdc + p.asset_leg_usdc + p.perp_leg_usdc + p.operator_leg_usdc <> p.fees_to_operator_usdc
        OR p.fees_to_operator_usdc - (SELECT COALESCE(SUM(fees_to_operator_usdc), 0) FROM token_totals)
          <> p.operator_leg_usdc - (SELECT COALESCE(SUM(operator_leg_usdc), 0) FROM token_totals)
        OR p.operator_leg_usdc < (SELECT COALESCE(SUM(operator_leg_usdc), 0) FROM token_totals)
        OR p.creator_leg_usdc <> (SELECT COALESCE(SUM(creator_leg_usdc), 0) FROM token_totals)
      UNION ALL
      SELECT 'token_totals.legs', t.token FROM token_totals t
        WHERE t.protocol_leg_usdc + t.asset_leg_usdc + t.perp_leg_usdc + t.operator_leg_usdc <> t.fees_to_operator_usdc
      UNION ALL
      -- The operator's fees of a token: its collections, and its share of a sniper auction's proceeds.
      SELECT 'token_fee', f.token FROM (SELECT token, currency, SUM(amount) s FROM (
          SELECT token, currency, amount FROM fee_collection WHERE recipient = '${lc(operator.account.address)}'
          UNION ALL
          SELECT token, data->>'currency', (data->>'amount')::numeric FROM activity WHERE kind = 'auction-fees' AND data->>'recipient' = '${lc(operator.account.address)}'
        ) x GROUP BY token, currency) c
        FULL JOIN token_fee f ON f.token = c.token AND f.currency = c.currency
        WHERE COALESCE(f.to_operator, 0) <> COALESCE(c.s, 0)
          OR (f.currency = '${lc(c.weth!)}' AND f.to_operator <> f.unclaimed + f.awaiting_conversion + f.converted)
          OR (f.currency = '${lc(c.usdc!)}' AND (f.usdc + f.unclaimed <> f.to_operator OR f.awaiting_conversion <> 0 OR f.converted <> 0))
      UNION ALL
      SELECT 'token_totals.fees', t.token FROM token_totals t
        LEFT JOIN (SELECT token, SUM(usdc) u, SUM(to_creator) FILTER (WHERE currency = '${lc(c.usdc!)}') cr FROM token_fee GROUP BY token) f ON f.token = t.token
        WHERE t.fees_to_operator_usdc <> COALESCE(f.u, 0) OR t.creator_leg_usdc <> COALESCE(f.cr, 0)
      UNION ALL
      SELECT 'fee_currency_totals', t.currency FROM fee_currency_totals t
        LEFT JOIN (SELECT currency, SUM(to_operator) o, SUM(unclaimed) un, SUM(awaiting_conversion) aw, SUM(converted) cv, SUM(usdc) u, SUM(to_creator) cr FROM token_fee GROUP BY currency) f ON f.currency = t.currency
        WHERE (t.to_operator, t.unclaimed, t.awaiting_conversion, t.converted, t.usdc, t.to_creator) IS DISTINCT FROM (f.o, f.un, f.aw, f.cv, f.u, f.cr)
      UNION ALL
      SELECT 'token_buyback_spend', s.token FROM token_buyback_spend s
        LEFT JOIN (SELECT token, currency_in, COUNT(*) n, SUM(amount_in) a, SUM(usdc_in) u FROM buyback GROUP BY token, currency_in) b ON b.token = s.token AND b.currency_in = s.currency
        WHERE (s.buybacks, s.amount_in, s.usdc_in) IS DISTINCT FROM (b.n::int, b.a, b.u)
      UNION ALL
      SELECT 'buyback_spend', s.kind FROM buyback_spend s
        LEFT JOIN (SELECT kind, currency_in, COUNT(*) n, SUM(amount_in) a, SUM(usdc_in) u FROM buyback GROUP BY kind, currency_in) b ON b.kind = s.kind AND b.currency_in = s.currency
        WHERE (s.buybacks, s.amount_in, s.usdc_in) IS DISTINCT FROM (b.n::int, b.a, b.u)
    `);
    expect(mismatches).toEqual([]);
  });
});
