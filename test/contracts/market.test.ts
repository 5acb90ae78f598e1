/**
 * The market simulator against the test devnet: a seed fixes its actions, its swaps and
 * collections put LP fees in the fee locker, its keeper executes perps orders and liquidates,
 * it wins every new launch's sniper auction with a WETH bid, and it never signs with the
 * operator. Runs inside an anvil snapshot.
 */
import { type Abi, type Address, type Hex, createTestClient, erc20Abi, http, maxUint256, parseAbi, parseEventLogs, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { sniperAuctionAbi } from "../../common/abis/clanker-hook.js";
import { GainsOrderType, gainsEventsAbi, gainsMarketOpenTrade, gainsTradingAbi, gainsViewsAbi } from "../../common/abis/gains.js";
import { LimitOrder, PERPS_PRECISION, perpsStorageAbi, perpsTradingAbi } from "../../common/abis/perps.js";
import { DEVNET_CHAIN_ID } from "../../common/config.js";
import { createDevnetContext } from "../../devnet/context.js";
import { DEFAULT_AUCTION_BID_WEI, type MarketAction, mulberry32, startMarket } from "../../devnet/market.js";
import { DEVNET_ACCOUNTS, devnetAccount, devnetPrivateKey } from "../../devnet/protocol.js";
import { AUCTION_FIRST_BLOCK_AFTER_LAUNCH } from "../../common/constants.js";
import { launchToken } from "../helpers/actions.js";
import { testEnv } from "../helpers/env.js";
import { stringifyJson } from "../../common/json.js";

const { rpcUrl, deployments } = testEnv();
const c = deployments.contracts as Record<string, Address>;
const anvil = createTestClient({ mode: "anvil", transport: http(rpcUrl) });
const reader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(1));
const operator = deployments.operator;
const feedAbi = parseAbi(["function setAnswer(int256 answer)", "function latestAnswer() view returns (int256)"]);
const storageViews = parseAbi(["function firstEmptyTradeIndex(address trader, uint256 pairIndex) view returns (uint256)"]);

async function rounds(seed: number, count: number): Promise<MarketAction[][]> {
  const market = startMarket({ rpcUrl, deployments, seed });
  const actions: MarketAction[][] = [];
  for (let i = 0; i < count; i++) actions.push(await market.step());
  await market.stop();
  return actions;
}

let snapshot: Hex;
beforeAll(async () => {
  snapshot = await anvil.snapshot();
});
afterAll(async () => {
  await anvil.revert({ id: snapshot });
});

describe("mulberry32", () => {
  it("is a deterministic uniform [0, 1) sequence per seed", () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(Array.from({ length: 5 }, mulberry32(43))).not.toEqual(xs.slice(0, 5));
  });
});

describe("market simulator", () => {
  it("takes the same actions for the same seed from the same chain state, and others for another seed", async () => {
    const start = await anvil.snapshot();
    const nonce = await reader.publicClient.getTransactionCount({ address: operator });
    const first = await rounds(42, 3);
    expect(await reader.publicClient.getTransactionCount({ address: operator }), "never signs with the operator").toBe(nonce);
    await anvil.revert({ id: start });

    const again = await anvil.snapshot();
    expect(await rounds(42, 3)).toEqual(first);
    await anvil.revert({ id: again });
    expect(await rounds(7, 3)).not.toEqual(first);

    const all = first.flat();
    expect(all.filter((a) => a.error)).toEqual([]);
    expect(all.some((a) => a.kind === "buy")).toBe(true);
    expect(
      all
        .filter((a) => a.kind === "price")
        .map((a) => (a as { feed: string }).feed)
        .slice(0, 3),
    ).toEqual(["ETH_USD", "BTC_USD", "ASSET_USD"]);
    const traders = DEVNET_ACCOUNTS.traders.map((i) => devnetAccount(i).address as Address);
    for (const action of all) if ("trader" in action && action.kind !== "close") expect(traders).toContain(action.trader);
  });

  it("puts the protocol token's LP fees in the fee locker for the operator, in USDC", async () => {
    const market = startMarket({ rpcUrl, deployments, seed: 1 });
    const before = await reader.read<bigint>(c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [operator, c.usdc]);
    const fromBlock = (await reader.publicClient.getBlockNumber()) + 1n;
    let collected = false;
    // The simulator trades every launched pool, and earlier suites launch more on the shared
    // devnet: enough rounds that the protocol token's pool comes up whatever their number.
    for (let i = 0; i < 200 && !collected; i++) {
      const actions = await market.step();
      collected = actions.some((a) => a.kind === "collect" && a.token === deployments.protocolToken && !a.error);
    }
    await market.stop();
    expect(collected, "a round swapped the protocol token within 200 rounds").toBe(true);

    const claims = await reader.publicClient.getContractEvents({
      address: c.lpLocker!,
      abi: clankerLpLockerAbi,
      eventName: "ClaimedRewards",
      args: { token: deployments.protocolToken },
      fromBlock,
    });
    const stored = claims.reduce((sum, log) => sum + log.args.amount0! + log.args.amount1!, 0n);
    expect(stored).toBeGreaterThan(0n);
    const after = await reader.read<bigint>(c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [operator, c.usdc]);
    expect(after - before).toBeGreaterThanOrEqual(stored); // the protocol token's share alone is 100%
  });

  it("has the keeper execute a pending perps order and liquidate it once the price moves past the threshold", async () => {
    const trader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(2));
    const keeper = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(DEVNET_ACCOUNTS.keeper));
    const feed = deployments.contracts.priceFeeds!.ETH_USD!;
    const price = (await reader.read<bigint>(feed, feedAbi, "latestAnswer")) * 100n;
    await trader.write(c.usdc!, erc20Abi, "approve", [c.perpsStorage!, maxUint256]);
    const trade = {
      trader: trader.account.address,
      pairIndex: 0n,
      index: 0n,
      initialPosToken: 0n,
      positionSizeUSDC: 100_000_000n,
      openPrice: price,
      buy: true,
      leverage: 50n * PERPS_PRECISION,
      tp: 0n,
      sl: 0n,
      timestamp: 0n,
    };
    // Slippage 100%: the market's own random walk may move the price before execution.
    const opened = await trader.publicClient.getTransactionReceipt({
      hash: await trader.write(c.perpsTrading!, perpsTradingAbi as Abi, "openTrade", [trade, 0, 100n * PERPS_PRECISION]),
    });
    const [initiated] = parseEventLogs({ abi: perpsTradingAbi, eventName: "MarketOrderInitiated", logs: opened.logs });

    const slot = await reader.read<bigint>(c.perpsStorage!, storageViews, "firstEmptyTradeIndex", [trader.account.address, 0n]);
    const count = await reader.read<bigint>(c.perpsStorage!, perpsStorageAbi as Abi, "openTradesCount", [trader.account.address, 0n]);

    const market = startMarket({ rpcUrl, deployments, seed: 5 });
    const first = await market.step();
    const execute = first.find((a) => a.kind === "execute");
    expect(execute).toBeDefined();
    expect(execute!.error, stringifyJson(execute)).toBeUndefined();
    expect((execute as { orderIds: bigint[] }).orderIds).toContain(initiated!.args.orderId);
    expect(await reader.read<bigint>(c.perpsStorage!, perpsStorageAbi as Abi, "openTradesCount", [trader.account.address, 0n])).toBe(count + 1n);
    const stored = await reader.read<{ index: bigint; openPrice: bigint; leverage: bigint }>(c.perpsStorage!, perpsStorageAbi as Abi, "openTrades", [
      trader.account.address,
      0n,
      slot,
    ]);
    expect(stored.leverage).toBe(50n * PERPS_PRECISION);

    // At 50x a 5% drop is a total loss; the next round's random walk cannot undo it.
    await keeper.write(feed, feedAbi, "setAnswer", [(stored.openPrice * 95n) / 100n / 100n]);
    const second = await market.step();
    await market.stop();
    const shown = stringifyJson(second);
    expect(second, shown).toContainEqual({ kind: "close", orderType: LimitOrder.LIQ, trader: trader.account.address, pairIndex: 0n, index: stored.index });
    expect(await reader.read<bigint>(c.perpsStorage!, perpsStorageAbi as Abi, "openTradesCount", [trader.account.address, 0n])).toBe(count);
  });

  it("has the keeper fill a pending gTrade order on the diamond's twin and liquidate the trade once the price passes its liquidation price", async () => {
    // In a snapshot of its own: the later tests' rounds plan from the chain state the earlier ones left.
    const start = await anvil.snapshot();
    try {
      const diamond = c.gainsDiamond!;
      const trader = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(3));
      const keeper = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(DEVNET_ACCOUNTS.keeper));
      const feed = deployments.contracts.priceFeeds!.ETH_USD!;
      const price = (await reader.read<bigint>(feed, feedAbi, "latestAnswer")) * 100n; // 8 decimals to gTrade's 1e10
      await trader.write(c.usdc!, erc20Abi, "approve", [diamond, maxUint256]);
      const me = trader.account.address;
      // 50 USDC at 50x long on gTrade's ETH/USD (pair 1); slippage 50% (1e3 precision): the round's walk moves the price first.
      const trade = gainsMarketOpenTrade({ trader: me, pairIndex: 1, leverage: 50_000, long: true, collateral: 50_000_000n, price });
      const ordered = await trader.publicClient.getTransactionReceipt({
        hash: await trader.write(diamond, gainsTradingAbi as Abi, "openTrade", [trade, 50_000, zeroAddress]),
      });
      const [initiated] = parseEventLogs({ abi: gainsEventsAbi, eventName: "MarketOrderInitiated", logs: ordered.logs });
      const pendingIndex = initiated!.args.orderId.index;

      const market = startMarket({ rpcUrl, deployments, seed: 5 });
      const first = await market.step();
      const fill = first.find((a) => a.kind === "fill" && a.trader === me);
      expect(fill, stringifyJson(first)).toEqual({ kind: "fill", trader: me, index: pendingIndex });
      expect(await reader.read<unknown[]>(diamond, gainsViewsAbi as Abi, "getPendingOrders", [me])).toEqual([]);
      const [opened] = await reader.read<{ index: number; openPrice: bigint; leverage: number; isOpen: boolean }[]>(
        diamond,
        gainsViewsAbi as Abi,
        "getTrades",
        [me],
      );
      expect(opened).toMatchObject({ leverage: 50_000, isOpen: true });

      // At 50x a 5% drop is past the 90% liquidation threshold; the next round's walk (0.4% at most) cannot undo it.
      await keeper.write(feed, feedAbi, "setAnswer", [(opened!.openPrice * 95n) / 100n / 100n]);
      const second = await market.step();
      await market.stop();
      const liquidation = second.find((a) => a.kind === "liquidate" && a.trader === me);
      expect(liquidation, stringifyJson(second)).toMatchObject({ kind: "liquidate", trader: me, pairIndex: 1, index: opened!.index });
      expect(liquidation!.error).toBeUndefined();
      expect(await reader.read<unknown[]>(diamond, gainsViewsAbi as Abi, "getTrades", [me])).toEqual([]);
      const liquidated = await reader.publicClient.getContractEvents({
        address: diamond,
        abi: gainsEventsAbi,
        eventName: "LimitExecuted",
        args: { user: me },
        fromBlock: ordered.blockNumber,
      });
      expect(liquidated.map((l) => l.args.orderType)).toEqual([GainsOrderType.LIQ_CLOSE]);
    } finally {
      await anvil.revert({ id: start });
    }
  });

  it("bids in each new launch's auction block and wins it: the bid's 80% reaches the reward recipients through the fee locker", async () => {
    const bidder = devnetAccount(DEVNET_ACCOUNTS.auctionBidder).address as Address;
    const launcher = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(2));
    const creator = launcher.account.address;
    const wethBefore = await reader.read<bigint>(c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [operator, c.weth]);
    const market = startMarket({ rpcUrl, deployments, seed: 11 });
    // Two launches, one block apart: a USDC-paired and a WETH-paired token, their auctions still to come.
    const usdcLaunch = await launchToken(launcher, c, { name: "Bid USDC", symbol: "BIDU", operator, creator, auction: "keep" });
    const wethLaunch = await launchToken(launcher, c, {
      name: "Bid WETH",
      symbol: "BIDW",
      operator,
      creator,
      auction: "keep",
      pairedToken: c.weth,
      startingMarketCap: 5n * 10n ** 18n,
    });
    const actions = await market.step();
    await market.stop();

    const bids = actions.filter((a) => a.kind === "bid");
    expect(bids, stringifyJson(bids)).toEqual([
      {
        kind: "bid",
        bidder,
        token: usdcLaunch.token,
        amount: DEFAULT_AUCTION_BID_WEI,
        block: usdcLaunch.receipt.blockNumber + AUCTION_FIRST_BLOCK_AFTER_LAUNCH,
      },
      {
        kind: "bid",
        bidder,
        token: wethLaunch.token,
        amount: DEFAULT_AUCTION_BID_WEI,
        block: wethLaunch.receipt.blockNumber + AUCTION_FIRST_BLOCK_AFTER_LAUNCH,
      },
    ]);
    expect(
      actions.filter((a) => a.error),
      stringifyJson(actions),
    ).toEqual([]);

    const fromBlock = usdcLaunch.receipt.blockNumber;
    const won = await reader.publicClient.getContractEvents({ address: c.mevModule!, abi: sniperAuctionAbi, eventName: "AuctionWon", fromBlock });
    expect(won.map((w) => [w.args.poolId, w.args.payee, w.args.paymentAmount, w.blockNumber])).toEqual([
      [usdcLaunch.poolId, bidder, DEFAULT_AUCTION_BID_WEI, bids[0]!.block],
      [wethLaunch.poolId, bidder, DEFAULT_AUCTION_BID_WEI, bids[1]!.block],
    ]);
    // The operator's 9050 bps of the 80% of each bid, in WETH, claimable in the fee locker.
    const lp = (DEFAULT_AUCTION_BID_WEI * 8_000n) / 10_000n;
    const after = await reader.read<bigint>(c.feeLocker!, clankerFeeLockerAbi as Abi, "availableFees", [operator, c.weth]);
    expect(after - wethBefore).toBeGreaterThanOrEqual(2n * ((lp * 9_050n) / 10_000n));
  });

  it("bids nothing with a zero bid, and trades no pool before its auction block", async () => {
    const launcher = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(2));
    const market = startMarket({ rpcUrl, deployments, seed: 11, auctionBidWei: 0n });
    const launched = await launchToken(launcher, c, { name: "No Bid", symbol: "NOBID", operator, creator: launcher.account.address, auction: "keep" });
    const first = await market.step(); // planned at the launch's own block: its pool is not tradable yet
    const actions = [...first];
    for (let i = 0; i < 3; i++) actions.push(...(await market.step()));
    await market.stop();
    expect(actions.filter((a) => a.kind === "bid")).toEqual([]);
    expect(
      first.some((a) => a.kind === "buy" || a.kind === "sell"),
      "the round traded other pools",
    ).toBe(true);
    expect(first.filter((a) => "token" in a && a.token === launched.token)).toEqual([]);
    expect(
      actions.filter((a) => a.error),
      stringifyJson(actions),
    ).toEqual([]);
    const won = await reader.publicClient.getContractEvents({
      address: c.mevModule!,
      abi: sniperAuctionAbi,
      eventName: "AuctionWon",
      fromBlock: launched.receipt.blockNumber,
    });
    expect(won).toEqual([]);
  });

  it("with interval mining (npm start's 1 s blocks), its watcher lands the bid in the auction block while rounds run", async () => {
    const bidder = devnetAccount(DEVNET_ACCOUNTS.auctionBidder).address as Address;
    const launcher = createDevnetContext(rpcUrl, DEVNET_CHAIN_ID, devnetPrivateKey(2));
    await anvil.setIntervalMining({ interval: 1 });
    const market = startMarket({ rpcUrl, deployments, seed: 13, intervalMs: 2_000 });
    try {
      const launched = await launchToken(launcher, c, { name: "Watched", symbol: "WATCH", operator, creator: launcher.account.address, auction: "keep" });
      const auctionBlock = launched.receipt.blockNumber + AUCTION_FIRST_BLOCK_AFTER_LAUNCH;
      const auctionsWon = () =>
        reader.publicClient.getContractEvents({
          address: c.mevModule!,
          abi: sniperAuctionAbi,
          eventName: "AuctionWon",
          fromBlock: launched.receipt.blockNumber,
        });
      let won: Awaited<ReturnType<typeof auctionsWon>> = [];
      for (let i = 0; i < 100 && won.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        won = await auctionsWon();
      }
      expect(won.map((w) => [w.blockNumber, w.args.payee])).toEqual([[auctionBlock, bidder]]);
    } finally {
      await market.stop();
      await anvil.setIntervalMining({ interval: 0 });
      await anvil.setAutomine(true);
    }
  });
});
