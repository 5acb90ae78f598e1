/**
 * The devnet market simulator: keeps the local chain alive the way users, the Clanker hook
 * and keepers keep Base alive, so fees, desks, buybacks and burns happen within minutes.
 *
 * Each round (`step`), from a seeded PRNG:
 * - traders (anvil 5..8), one after another, buy launched tokens with USDC and sell them back
 *   through the real UniversalRouter (a WETH-paired token is bought USDC → WETH (v3) → token
 *   (v4)), on every token the launcher has created (found through its `TokenCreated` logs);
 * - a trader calls `collectRewards(token)` for each token it swapped, as the production hook
 *   does on every swap, so LP fees land in the fee locker;
 * - the keeper (anvil 9) walks the oracle prices, then plays each perps venue's keepers at the
 *   feeds' new prices: on the twin of gTrade v10's diamond it fills every pending order
 *   (`getPendingOrders` of each trader seen in its order events, `executePendingOrder`, gTrade's
 *   oracle answer) and liquidates trades past their liquidation price (`triggerOrder`, order type
 *   6: `LimitExecuted`); on the Avantis v1 simulator it executes pending market orders and closes
 *   trades whose liquidation, take-profit or stop-loss condition holds.
 * And every new launch's sniper auction gets a bid, as the real module takes one: the auction
 * bidder (HD account 10, funded by the deploy) buys the token in the pool's auction block with
 * its address in the hookData (`encodeAuctionBid`) and a gas price of the round's `gasPeg` plus
 * `auctionBidWei` / `paymentPerGasUnit` (0.001 WETH by default), so the module's `AuctionWon`
 * pays the reward recipients through the fee locker; it bids in `auctionRounds` rounds (1 by
 * default; each won round opens the next two blocks later). A pool is traded by the rounds only
 * once no auction block of it is to come (its module's state says so). With `intervalMs` a
 * watcher polls for launches every 100 ms and bids on its own (a round takes seconds; round 1's
 * auction block comes 2 blocks after the launch); otherwise each `step()` bids first, mining the
 * blocks before each auction block itself when anvil automines.
 * Never signs with the operator (anvil 0): the engine owns the operator's nonces.
 *
 * `npx tsx devnet/market.ts [--seed N] [--interval MS] [--auction-bid ETH]` runs it against a
 * running devnet.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type Abi,
  type Address,
  type Hex,
  erc20Abi,
  formatEther,
  getAddress,
  maxUint48,
  maxUint160,
  maxUint256,
  parseAbi,
  parseEther,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { encodeAuctionBid, sniperAuctionAbi } from "../common/abis/clanker-hook.js";
import { clankerFactoryAbi, clankerLpLockerAbi } from "../common/abis/clanker.js";
import {
  GAINS_PAIR_FEEDS,
  GainsOrderType,
  type GainsTrade,
  gainsEventsAbi,
  gainsTradingAbi,
  gainsTradeLiquidationPriceInput,
  gainsViewsAbi,
} from "../common/abis/gains.js";
import { LimitOrder, PERPS_PRECISION, perpsCallbacksAbi, perpsStorageAbi, perpsTradingAbi } from "../common/abis/perps.js";
import { DEPLOYMENTS_PATH, type Deployments, loadConfigOrExit, readDeployments } from "../common/config.js";
import { type Logger, createLogger } from "../common/logger.js";
import { type PoolKey, poolIdOf } from "../common/uniswap.js";
import { ADDRESS_THIS, UNIVERSAL_ROUTER_ABI, routerPlan, v3ExactIn, v4ExactInSingle } from "../common/universal-router.js";
import { type DevnetContext, createDevnetContext, withGasMargin } from "./context.js";
import { DEVNET_ACCOUNTS, devnetPrivateKey } from "./protocol.js";
import { AUCTION_FIRST_BLOCK_AFTER_LAUNCH } from "../common/constants.js";
import { sniperAuctionStatus } from "../common/sniper-auction.js";
import { V3_WETH_USDC_FEE, permit2Abi } from "./uniswap.js";

/** Feeds the keeper walks, when the devnet has them. */
export const MARKET_FEEDS = ["ETH_USD", "BTC_USD", "ASSET_USD"] as const;
/** Largest move of a feed per round, in bps. */
const PRICE_STEP_BPS = 40;
/** Swaps per round, and the USDC size of a buy (base units). */
const SWAPS_PER_ROUND: [number, number] = [1, 3];
const BUY_USDC: [number, number] = [5_000_000, 200_000_000];
/** Chance that a trader holding a token sells part of it (10–60%) instead of buying. */
const SELL_CHANCE = 0.45;
const SELL_PERCENT: [number, number] = [10, 60];
const DEADLINE = 2n ** 40n;
/** The WETH bid in each launch's auction block, unless `auctionBidWei` says otherwise (0 turns bidding off). */
export const DEFAULT_AUCTION_BID_WEI = parseEther("0.001");
/** WETH the bidder's auction-block buy swaps in, besides its bid. */
export const AUCTION_BUY_WETH = parseEther("0.0001");
/** How often the watcher of `intervalMs` looks for launches and blocks. */
const AUCTION_POLL_MS = 100;
/** How long a bid waits for the block before its pool's auction block. */
const AUCTION_WAIT_MS = 60_000;
/** Gas limit of a bid (sent without estimation: its gas price is the bid). */
const AUCTION_BID_GAS = 3_000_000n;
const wethAbi = parseAbi(["function deposit() payable"]);

const feedAbi = parseAbi(["function latestAnswer() view returns (int256)", "function setAnswer(int256 answer)", "function decimals() view returns (uint8)"]);
/** The twin's stand-in for gTrade's oracle callback: answers pending order `(trader, index)` at the pair's feed price. */
const gainsKeeperAbi = parseAbi(["function executePendingOrder(address trader, uint32 index)"]);
/** Keeper entry points (production signatures; the devnet ignores the price update data) and the devnet's mark view. */
const keeperAbi = parseAbi([
  "function executeMarketOrders(uint256[] orderId, bytes[] priceUpdateData) payable",
  "function executeLimitOrder(uint8 _orderType, address _trader, uint256 _pairIndex, uint256 _index, bytes[] priceUpdateData) payable",
  "function unrealizedPnl(address trader, uint256 pairIndex, uint256 index) view returns (int256 percentProfit, int256 pnlUSDC, uint256 closeValueUSDC, uint256 price)",
  "function LIQ_THRESHOLD_P() view returns (uint256)",
]);
const pendingOrderAbi = parseAbi([
  "struct Trade { address trader; uint256 pairIndex; uint256 index; uint256 initialPosToken; uint256 positionSizeUSDC; uint256 openPrice; bool buy; uint256 leverage; uint256 tp; uint256 sl; uint256 timestamp; }",
  "struct PendingMarketOrder { Trade trade; uint256 block; uint256 wantedPrice; uint256 slippageP; }",
  "function reqIDpendingMarketOrder(uint256 orderId) view returns (PendingMarketOrder)",
]);

export type MarketAction =
  | { kind: "buy"; trader: Address; token: Address; usdcIn: bigint; error?: string }
  | { kind: "sell"; trader: Address; token: Address; amountIn: bigint; error?: string }
  | { kind: "collect"; trader: Address; token: Address; error?: string }
  | { kind: "price"; feed: string; answer: bigint; error?: string }
  | { kind: "execute"; orderIds: bigint[]; error?: string }
  | { kind: "close"; orderType: number; trader: Address; pairIndex: bigint; index: bigint; error?: string }
  /** gTrade: the oracle's answer to a trader's pending order `(trader, index)` (`executePendingOrder` on the twin). */
  | { kind: "fill"; trader: Address; index: number; error?: string }
  /** gTrade: a keeper's liquidation of trade `(trader, index)` past its liquidation price (`triggerOrder`, order type 6). */
  | { kind: "liquidate"; trader: Address; pairIndex: number; index: number; price: bigint; liquidationPrice: bigint; error?: string }
  /** A WETH bid in a launch's auction block (`block`: where the bid landed). */
  | { kind: "bid"; bidder: Address; token: Address; amount: bigint; block?: bigint; error?: string };

type SwapAction = Extract<MarketAction, { kind: "buy" | "sell" }>;
type CollectAction = Extract<MarketAction, { kind: "collect" }>;
type PriceAction = Extract<MarketAction, { kind: "price" }>;

export type MarketOptions = {
  rpcUrl: string;
  deployments: Deployments;
  seed?: number;
  /** Milliseconds between rounds; without it nothing runs until `step()` is called. */
  intervalMs?: number;
  /** WETH bid in each new launch's auction block (default `DEFAULT_AUCTION_BID_WEI`; 0n: no bids). */
  auctionBidWei?: bigint;
  /** Auction rounds the bidder bids in, one after another while it wins (default 1; the module runs 5 at most). */
  auctionRounds?: number;
  log?: Logger;
};

export type Market = {
  /** One round; resolves with what it did, in order (deterministic for a seed and a chain state). */
  step: () => Promise<MarketAction[]>;
  /** Stops the rounds and waits for the one in flight. */
  stop: () => Promise<void>;
};

/** The market's view of a launched token's pool. */
export type MarketPool = { token: Address; pairedToken: Address; poolKey: PoolKey };

/** The addresses the market (and its swap helpers) use. */
export type MarketContracts = {
  usdc: Address;
  weth: Address;
  permit2: Address;
  universalRouter: Address;
  launcher: Address;
  lpLocker: Address;
  perpsTrading: Address;
  perpsStorage: Address;
  /** The twin of gTrade v10's diamond (deployments `contracts.gainsDiamond`), when the devnet has it. */
  gainsDiamond?: Address;
};

/** mulberry32: a small, fast, seedable PRNG (uniform in [0, 1)). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function startMarket(options: MarketOptions): Market {
  const { deployments, log } = options;
  const c = marketContracts(deployments);
  const random = mulberry32(options.seed ?? 1);
  const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const as = (index: number) => createDevnetContext(options.rpcUrl, deployments.chainId, devnetPrivateKey(index));
  const traders = DEVNET_ACCOUNTS.traders.map(as);
  const keeper = as(DEVNET_ACCOUNTS.keeper);
  const reader = keeper;
  const feeds = MARKET_FEEDS.flatMap((name) => {
    const address = deployments.contracts.priceFeeds?.[name];
    return address ? [{ name, address }] : [];
  });

  const pools: MarketPool[] = [];
  /** Launched tokens with an MEV module whose auction rounds may still be running. */
  const auctioned = new Set<Address>();
  const pendingOrders = new Set<bigint>();
  const tradeSlots = new Map<string, { trader: Address; pairIndex: bigint; index: bigint }>();
  /** Traders seen in the gTrade diamond's order and fill events: whose pending orders and trades the keeper watches. */
  const gainsTraders = new Set<Address>();
  /** A gTrade pair's feed price at the diamond's 1e10, from the devnet feed its index names. */
  const feedDecimals = new Map<Address, number>();
  async function gainsPrice(pairIndex: number): Promise<bigint | undefined> {
    const feed = deployments.contracts.priceFeeds?.[GAINS_PAIR_FEEDS[pairIndex] ?? ""];
    if (!feed) return undefined;
    if (!feedDecimals.has(feed)) feedDecimals.set(feed, Number(await reader.read<number>(feed, feedAbi, "decimals")));
    const decimals = feedDecimals.get(feed)!;
    const answer = await reader.read<bigint>(feed, feedAbi, "latestAnswer");
    return decimals <= 10 ? answer * 10n ** BigInt(10 - decimals) : answer / 10n ** BigInt(decimals - 10);
  }
  let scannedBlock = BigInt(deployments.startBlock ?? 0) - 1n;

  /** Reads new launches and perps events since the last round. */
  async function discover(): Promise<void> {
    const head = await reader.publicClient.getBlockNumber({ cacheTime: 0 });
    if (head <= scannedBlock) return;
    const range = { fromBlock: scannedBlock + 1n, toBlock: head };
    const [launches, orders, executions, gainsLogs] = await Promise.all([
      reader.publicClient.getContractEvents({ address: c.launcher, abi: clankerFactoryAbi, eventName: "TokenCreated", ...range }),
      reader.publicClient.getContractEvents({ address: c.perpsTrading, abi: perpsTradingAbi, eventName: "MarketOrderInitiated", ...range }),
      reader.publicClient.getContractEvents({ address: c.perpsTrading, abi: perpsCallbacksAbi, eventName: "MarketExecuted", ...range }),
      c.gainsDiamond ? reader.publicClient.getContractEvents({ address: c.gainsDiamond, abi: gainsEventsAbi, ...range }) : Promise.resolve([]),
    ]);
    for (const log of gainsLogs) {
      // The trader of every order (open, close, resize, leverage update) and of every fill.
      const args = log.args as { trader?: Address; user?: Address };
      const trader = log.eventName === "MarketExecuted" ? args.user : args.trader;
      if (trader && BigInt(trader) !== 0n) gainsTraders.add(getAddress(trader));
    }
    for (const launch of launches) {
      const token = getAddress(launch.args.tokenAddress!);
      const pairedToken = getAddress(launch.args.pairedToken!);
      if (pairedToken !== c.usdc && pairedToken !== c.weth) continue;
      const info = await reader.read<{ poolKey: PoolKey }>(c.lpLocker, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
      pools.push({ token, pairedToken, poolKey: info.poolKey });
      if (BigInt(launch.args.mevModule ?? zeroAddress) !== 0n) auctioned.add(token);
    }
    for (const order of orders) pendingOrders.add(order.args.orderId!);
    for (const execution of executions) {
      const t = execution.args.t!;
      if (execution.args.open)
        tradeSlots.set(`${t.trader}:${t.pairIndex}:${t.index}`, { trader: getAddress(t.trader), pairIndex: t.pairIndex, index: t.index });
    }
    scannedBlock = head;
  }

  /** Chooses this round's swaps from the traders' balances. */
  async function planSwaps(): Promise<SwapAction[]> {
    if (pools.length === 0) return [];
    // A pool refuses swaps before an auction block, and a plain swap in a live one; once no
    // auction block is to come (the module's state), the pool is traded, sniper fee or not.
    for (const p of pools) {
      if (!auctioned.has(p.token)) continue;
      const status = await sniperAuctionStatus(reader.publicClient, p.poolKey, 0);
      if (status.over || status.phase === "decay") auctioned.delete(p.token);
    }
    const tradable = pools.filter((p) => !auctioned.has(p.token));
    if (tradable.length === 0) return [];
    const plan: SwapAction[] = [];
    const count = int(...SWAPS_PER_ROUND);
    for (let i = 0; i < count; i++) {
      const trader = pick(traders).account.address;
      const { token } = pick(tradable);
      const held = await reader.read<bigint>(token, erc20Abi, "balanceOf", [trader]);
      if (held > 0n && random() < SELL_CHANCE) {
        plan.push({ kind: "sell", trader, token, amountIn: (held * BigInt(int(...SELL_PERCENT))) / 100n });
      } else {
        plan.push({ kind: "buy", trader, token, usdcIn: BigInt(int(...BUY_USDC)) });
      }
    }
    return plan;
  }

  async function planPrices(): Promise<PriceAction[]> {
    const plan: PriceAction[] = [];
    for (const feed of feeds) {
      const answer = await reader.read<bigint>(feed.address, feedAbi, "latestAnswer");
      const moved = (answer * BigInt(10_000 + int(-PRICE_STEP_BPS, PRICE_STEP_BPS))) / 10_000n;
      plan.push({ kind: "price", feed: feed.name, answer: moved > 0n ? moved : 1n });
    }
    return plan;
  }

  /**
   * Swaps, then one collection per swapped token, one after another in plan order: a fixed
   * order keeps every round reproducible (concurrent swaps in one pool would race).
   */
  async function runSwaps(plan: SwapAction[]): Promise<MarketAction[]> {
    const traderOf = (address: Address) => traders.find((t) => t.account.address === address)!;
    for (const action of plan) {
      const pool = pools.find((p) => p.token === action.token)!;
      const trader = traderOf(action.trader);
      await attempt(action, () => (action.kind === "buy" ? buyToken(trader, c, pool, action.usdcIn) : sellToken(trader, c, pool, action.amountIn)));
    }
    const collections: CollectAction[] = [];
    for (const { token, trader } of plan) {
      if (!collections.some((a) => a.token === token)) collections.push({ kind: "collect", trader, token });
    }
    for (const action of collections) {
      await attempt(action, () => traderOf(action.trader).write(c.lpLocker, clankerLpLockerAbi as Abi, "collectRewards", [action.token]));
    }
    return [...plan, ...collections];
  }

  /** Oracle moves, then pending market orders, then liquidations, take-profits and stop-losses. */
  async function runKeeper(prices: PriceAction[]): Promise<MarketAction[]> {
    await sendAll(keeper, prices, ({ feed, answer }) => ({
      address: feeds.find((f) => f.name === feed)!.address,
      abi: feedAbi as Abi,
      functionName: "setAnswer",
      args: [answer],
    }));
    const actions: MarketAction[] = [...prices];
    if (c.gainsDiamond) actions.push(...(await runGainsKeeper(c.gainsDiamond)));

    const orderIds: bigint[] = [];
    for (const id of [...pendingOrders].sort((a, b) => (a < b ? -1 : 1))) {
      const order = await reader.read<{ trade: { trader: Address } }>(c.perpsStorage, pendingOrderAbi, "reqIDpendingMarketOrder", [id]);
      if (BigInt(order.trade.trader) === 0n) pendingOrders.delete(id);
      else orderIds.push(id);
    }
    if (orderIds.length) {
      const execute: MarketAction = { kind: "execute", orderIds };
      actions.push(execute);
      await attempt(execute, () => keeper.write(c.perpsTrading, keeperAbi, "executeMarketOrders", [orderIds, []]));
      if (execute.error && orderIds.length > 1) {
        // One bad order must not hold the others back: execute them one by one.
        for (const id of orderIds) {
          const single: MarketAction = { kind: "execute", orderIds: [id] };
          actions.push(single);
          await attempt(single, () => keeper.write(c.perpsTrading, keeperAbi, "executeMarketOrders", [[id], []]));
        }
      }
      await discover(); // opens executed just now are trades to watch
    }

    const liqThreshold = -(await reader.read<bigint>(c.perpsTrading, keeperAbi, "LIQ_THRESHOLD_P")) * PERPS_PRECISION;
    for (const [key, slot] of [...tradeSlots].sort(([a], [b]) => a.localeCompare(b))) {
      const trade = await reader.read<{ leverage: bigint; buy: boolean; tp: bigint; sl: bigint }>(c.perpsStorage, perpsStorageAbi as Abi, "openTrades", [
        slot.trader,
        slot.pairIndex,
        slot.index,
      ]);
      if (trade.leverage === 0n) {
        tradeSlots.delete(key);
        continue;
      }
      const [percentProfit, , , price] = await reader.read<[bigint, bigint, bigint, bigint]>(c.perpsTrading, keeperAbi, "unrealizedPnl", [
        slot.trader,
        slot.pairIndex,
        slot.index,
      ]);
      const orderType =
        percentProfit <= liqThreshold
          ? LimitOrder.LIQ
          : trade.tp > 0n && (trade.buy ? price >= trade.tp : price <= trade.tp)
            ? LimitOrder.TP
            : trade.sl > 0n && (trade.buy ? price <= trade.sl : price >= trade.sl)
              ? LimitOrder.SL
              : undefined;
      if (orderType === undefined) continue;
      const close: MarketAction = { kind: "close", orderType, ...slot };
      actions.push(close);
      await attempt(close, () => keeper.write(c.perpsTrading, keeperAbi, "executeLimitOrder", [orderType, slot.trader, slot.pairIndex, slot.index, []]));
    }
    return actions;
  }

  /**
   * gTrade's keepers on the twin of its diamond, at the feeds' prices of this round: every pending order of every
   * trader seen is answered (`executePendingOrder`, filled or cancelled by the diamond as gTrade's oracle callback
   * is), in trader then pending-index order; then every open trade whose pair's price is at or past its liquidation
   * price (`getTradeLiquidationPrice` for its `getTradeLiquidationParams`) is liquidated (`triggerOrder`, type 6).
   */
  async function runGainsKeeper(diamond: Address): Promise<MarketAction[]> {
    const actions: MarketAction[] = [];
    const traders = [...gainsTraders].sort();
    type Pending = { index: number; isOpen: boolean };
    for (const trader of traders) {
      const pending = await reader.read<Pending[]>(diamond, gainsViewsAbi as Abi, "getPendingOrders", [trader]);
      for (const order of pending.filter((o) => o.isOpen).sort((a, b) => a.index - b.index)) {
        const fill: MarketAction = { kind: "fill", trader, index: order.index };
        actions.push(fill);
        await attempt(fill, () => keeper.write(diamond, gainsKeeperAbi, "executePendingOrder", [trader, order.index]));
      }
    }
    if (actions.length) await discover(); // opens filled just now are trades to watch

    const prices = new Map<number, bigint | undefined>();
    for (const trader of traders) {
      const trades = await reader.read<GainsTrade[]>(diamond, gainsViewsAbi as Abi, "getTrades", [trader]);
      for (const t of trades.filter((x) => x.isOpen).sort((a, b) => a.index - b.index)) {
        if (!prices.has(t.pairIndex)) prices.set(t.pairIndex, await gainsPrice(t.pairIndex));
        const price = prices.get(t.pairIndex);
        if (price === undefined) continue;
        const liquidationParams = await reader.read<Record<string, unknown>>(diamond, gainsViewsAbi as Abi, "getTradeLiquidationParams", [trader, t.index]);
        const liquidationPrice = await reader.read<bigint>(diamond, gainsViewsAbi as Abi, "getTradeLiquidationPrice", [
          gainsTradeLiquidationPriceInput(t, price, liquidationParams),
        ]);
        if (liquidationPrice === 0n || (t.long ? price > liquidationPrice : price < liquidationPrice)) continue;
        const liquidate: MarketAction = { kind: "liquidate", trader, pairIndex: t.pairIndex, index: t.index, price, liquidationPrice };
        actions.push(liquidate);
        const packed = BigInt(GainsOrderType.LIQ_CLOSE) | (BigInt(trader) << 8n) | (BigInt(t.index) << 168n);
        await attempt(liquidate, () => keeper.write(diamond, gainsTradingAbi as Abi, "triggerOrder", [packed]));
      }
    }
    return actions;
  }

  async function attempt(action: MarketAction, send: () => Promise<unknown>): Promise<void> {
    try {
      await send();
      log?.debug({ action: printable(action) }, "market action");
    } catch (error) {
      failed(action, error);
    }
  }

  function failed(action: MarketAction, error: unknown): void {
    action.error = error instanceof Error ? error.message.split("\n")[0] : String(error);
    log?.warn({ action: printable(action) }, "market action failed");
  }

  /** Sends one transaction per action from `ctx` with consecutive nonces, then waits for all. */
  async function sendAll<A extends MarketAction>(
    ctx: DevnetContext,
    actions: A[],
    call: (a: A) => { address: Address; abi: Abi; functionName: string; args: unknown[] },
  ) {
    let nonce = await ctx.publicClient.getTransactionCount({ address: ctx.account.address, blockTag: "pending" });
    const sent = [];
    for (const action of actions) {
      const { address, abi, functionName, args } = call(action);
      try {
        const request = { address, abi, functionName, args, account: ctx.account, chain: ctx.walletClient.chain } as never;
        const gas = withGasMargin(await ctx.publicClient.estimateContractGas(request));
        const hash = await ctx.walletClient.writeContract({ ...(request as object), gas, nonce } as never);
        nonce++;
        sent.push({ action, hash });
      } catch (error) {
        failed(action, error);
      }
    }
    await Promise.all(sent.map(({ action, hash }) => attempt(action, () => confirmed(ctx, hash))));
  }

  // ---------------------------------------------------------------- sniper auctions

  const bidAmount = options.auctionBidWei ?? DEFAULT_AUCTION_BID_WEI;
  if (bidAmount < 0n) throw new Error("auctionBidWei must not be negative");
  const bidRounds = options.auctionRounds ?? 1;
  if (!Number.isInteger(bidRounds) || bidRounds < 1) throw new Error("auctionRounds must be a positive integer");
  const bidder = as(DEVNET_ACCOUNTS.auctionBidder);
  type Auction = { pool: MarketPool; mevModule: Address; auctionBlock: bigint };
  const auctions: Auction[] = [];
  let auctionScanned = BigInt(deployments.startBlock ?? 0) - 1n;

  /** Launches whose auction block is still to come. */
  async function scanAuctions(): Promise<void> {
    const head = await reader.publicClient.getBlockNumber({ cacheTime: 0 });
    if (head <= auctionScanned) return;
    const launches = await reader.publicClient.getContractEvents({
      address: c.launcher,
      abi: clankerFactoryAbi,
      eventName: "TokenCreated",
      fromBlock: auctionScanned + 1n,
      toBlock: head,
    });
    for (const launch of launches) {
      const mevModule = getAddress(launch.args.mevModule ?? zeroAddress);
      const auctionBlock = launch.blockNumber + AUCTION_FIRST_BLOCK_AFTER_LAUNCH;
      if (mevModule === zeroAddress || auctionBlock <= head) continue;
      const token = getAddress(launch.args.tokenAddress!);
      const pairedToken = getAddress(launch.args.pairedToken!);
      if (pairedToken !== c.usdc && pairedToken !== c.weth) continue;
      const info = await reader.read<{ poolKey: PoolKey }>(c.lpLocker, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
      auctions.push({ pool: { token, pairedToken, poolKey: info.poolKey }, mevModule, auctionBlock });
    }
    auctionScanned = head;
  }

  /** WETH for the bid and the buy, and the approvals (the deploy makes them; topped up when short). */
  async function ensureBidder(mevModule: Address): Promise<void> {
    const owner = bidder.account.address;
    const need = bidAmount + AUCTION_BUY_WETH;
    const weth = await bidder.read<bigint>(c.weth, erc20Abi, "balanceOf", [owner]);
    if (weth < need) {
      const wrap = need * 10n;
      const eth = await bidder.publicClient.getBalance({ address: owner });
      if (eth < wrap + parseEther("0.01")) {
        throw new Error(
          `the auction bidder ${owner} has ${formatEther(eth)} ETH and ${formatEther(weth)} WETH, too little to bid: redeploy the devnet (the deploy funds it)`,
        );
      }
      await bidder.write(c.weth, wethAbi, "deposit", [], wrap);
    }
    if ((await bidder.read<bigint>(c.weth, erc20Abi, "allowance", [owner, mevModule])) < bidAmount) {
      await bidder.write(c.weth, erc20Abi, "approve", [mevModule, maxUint256]);
    }
    await ensureRouterApproval(bidder, c, c.weth, AUCTION_BUY_WETH);
  }

  /**
   * Until the chain's head is `target` (the block before an auction block): anvil's automine
   * mines the empty blocks here; interval mining is waited for. Throws when the head is past it.
   */
  async function reachBlock(target: bigint): Promise<void> {
    const client = bidder.publicClient;
    const request = client.request as unknown as (a: { method: string; params?: unknown[] }) => Promise<unknown>;
    let head = await client.getBlockNumber({ cacheTime: 0 });
    const automine = head < target && (await request({ method: "anvil_getAutomine" }).catch(() => false)) === true;
    const deadline = Date.now() + AUCTION_WAIT_MS;
    while (head < target) {
      if (automine) await request({ method: "evm_mine", params: [] });
      else if (Date.now() > deadline) throw new Error(`block ${target} did not come within ${AUCTION_WAIT_MS / 1000} s`);
      else await new Promise((resolve) => setTimeout(resolve, AUCTION_POLL_MS / 4));
      head = await client.getBlockNumber({ cacheTime: 0 });
    }
    if (head > target) throw new Error(`too late for the auction block ${target + 1n}: the chain is at block ${head}`);
  }

  /**
   * Buys in the pool's auction block with the bidder as payee in the hookData and the bid in the
   * gas price (the round's gas peg + bid / paymentPerGasUnit); then, while `auctionRounds` asks
   * for more, in each next round's block. Resolves with the block of the last round won.
   */
  async function bid(auction: Auction): Promise<bigint> {
    await ensureBidder(auction.mevModule);
    const poolId = poolIdOf(auction.pool.poolKey);
    const read = <T>(functionName: "gasPeg" | "nextAuctionBlock" | "round" | "paymentPerGasUnit", args: readonly unknown[] = [poolId]) =>
      bidder.read<T>(auction.mevModule, sniperAuctionAbi as Abi, functionName, args);
    const perGas = await read<bigint>("paymentPerGasUnit", []);
    let block = auction.auctionBlock;
    let wonIn = 0n;
    for (let n = 0; n < bidRounds; n++) {
      await reachBlock(block - 1n);
      const [gasPeg, round] = [await read<bigint>("gasPeg"), await read<bigint>("round")];
      const gasPrice = gasPeg + bidAmount / perGas;
      const hash = await auctionBuy(bidder, c, auction.pool, AUCTION_BUY_WETH, encodeAuctionBid(bidder.account.address), gasPrice);
      const receipt = await bidder.publicClient.getTransactionReceipt({ hash });
      const won = parseEventLogs({ abi: sniperAuctionAbi, eventName: "AuctionWon", logs: receipt.logs }).find(
        (l) => getAddress(l.address) === auction.mevModule && getAddress(l.args.payee) === bidder.account.address,
      );
      if (!won) throw new Error(`the bid landed in block ${receipt.blockNumber}, not in the auction block ${block}`);
      log?.info(
        { token: auction.pool.token, round: String(round), paid: formatEther(won.args.paymentAmount), block: String(receipt.blockNumber) },
        "won a round of a launch's sniper auction",
      );
      wonIn = receipt.blockNumber;
      const next = await read<bigint>("nextAuctionBlock");
      if (next <= block) break; // the rounds are over
      block = next;
    }
    return wonIn;
  }

  let bidding: Promise<unknown> = Promise.resolve();
  /** Bids in the auction of every launch found since the last call whose auction block is still to come. */
  const runAuctions = (): Promise<MarketAction[]> => {
    const run = bidding.then(async () => {
      if (bidAmount === 0n) return [];
      await scanAuctions();
      const actions: MarketAction[] = [];
      while (auctions.length) {
        const auction = auctions.shift()!;
        const action: MarketAction = { kind: "bid", bidder: bidder.account.address, token: auction.pool.token, amount: bidAmount };
        actions.push(action);
        await attempt(action, async () => {
          action.block = await bid(auction);
        });
      }
      return actions;
    });
    bidding = run.catch(() => {});
    return run;
  };

  // ---------------------------------------------------------------- rounds

  const watching = options.intervalMs !== undefined && options.intervalMs > 0;
  let chain: Promise<unknown> = Promise.resolve();
  let round = 0;
  const step = (): Promise<MarketAction[]> => {
    const run = chain.then(async () => {
      // Without the watcher, bids go first: nothing else may land in an auction block before them.
      const bids = watching ? [] : await runAuctions();
      await discover();
      const swaps = await planSwaps();
      const prices = await planPrices();
      const [traded, kept] = await Promise.all([runSwaps(swaps), runKeeper(prices)]);
      const actions = [...bids, ...traded, ...kept];
      round++;
      log?.info(
        {
          round,
          swaps: swaps.length,
          orders: actions.filter((a) => a.kind === "execute" || a.kind === "fill").length,
          closes: actions.filter((a) => a.kind === "close" || a.kind === "liquidate").length,
          failed: actions.filter((a) => a.error).length,
        },
        "market round",
      );
      return actions;
    });
    chain = run.catch(() => {});
    return run;
  };

  let stopped = false;
  const wakers = new Set<() => void>();
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        wakers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      wakers.add(wake);
    });
  const loops: Promise<void>[] = [];
  if (watching) {
    const intervalMs = options.intervalMs!;
    const warn = (what: string) => (error: unknown) => log?.warn({ err: error instanceof Error ? error.message : String(error) }, what);
    loops.push(
      (async () => {
        while (!stopped) {
          await step().catch(warn("market round failed"));
          await pause(intervalMs);
        }
      })(),
    );
    if (bidAmount > 0n) {
      loops.push(
        (async () => {
          while (!stopped) {
            await runAuctions().catch(warn("auction watch failed"));
            await pause(AUCTION_POLL_MS);
          }
        })(),
      );
    }
  }

  return {
    step,
    stop: async () => {
      stopped = true;
      for (const wake of [...wakers]) wake();
      await Promise.all(loops);
      await chain;
      await bidding;
    },
  };
}

/** Reads the market's addresses out of the deployments; throws naming a missing one. */
export function marketContracts(deployments: Deployments): MarketContracts {
  const names = ["usdc", "weth", "permit2", "universalRouter", "launcher", "lpLocker", "perpsTrading", "perpsStorage"] as const;
  const entries = names.map((name) => {
    const address = deployments.contracts[name];
    if (typeof address !== "string") throw new Error(`the deployments have no ${name}: redeploy the devnet`);
    return [name, getAddress(address)] as const;
  });
  const gainsDiamond = deployments.contracts.gainsDiamond;
  return { ...(Object.fromEntries(entries) as MarketContracts), ...(typeof gainsDiamond === "string" ? { gainsDiamond: getAddress(gainsDiamond) } : {}) };
}

async function confirmed(ctx: DevnetContext, hash: Hex): Promise<void> {
  const receipt = await ctx.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 100, timeout: 60_000 });
  if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
}

function printable(action: MarketAction): Record<string, unknown> {
  return Object.fromEntries(Object.entries(action).map(([k, v]) => [k, typeof v === "bigint" ? v.toString() : Array.isArray(v) ? v.map(String) : v]));
}

/** Approves `token` to Permit2 and Permit2 to the UniversalRouter when the current allowances fall short. */
export async function ensureRouterApproval(
  ctx: DevnetContext,
  c: Pick<MarketContracts, "permit2" | "universalRouter">,
  token: Address,
  amount: bigint,
): Promise<void> {
  const owner = ctx.account.address;
  if ((await ctx.read<bigint>(token, erc20Abi, "allowance", [owner, c.permit2])) < amount) {
    await ctx.write(token, erc20Abi, "approve", [c.permit2, maxUint256]);
  }
  const [allowed] = await ctx.read<[bigint, number, number]>(c.permit2, permit2Abi, "allowance", [owner, token, c.universalRouter]);
  if (allowed < amount) await ctx.write(c.permit2, permit2Abi, "approve", [token, c.universalRouter, maxUint160, maxUint48]);
}

/**
 * Buys `pool.token` with `usdcIn` USDC through the UniversalRouter: one v4 hop for a
 * USDC-paired pool, USDC → WETH (v3) → token (v4) in one `execute` for a WETH-paired one;
 * `hookData` and `gasPrice` make it a sniper-auction bid (`sendRouter`).
 */
export async function buyToken(
  ctx: DevnetContext,
  c: Pick<MarketContracts, "usdc" | "weth" | "permit2" | "universalRouter">,
  pool: MarketPool,
  usdcIn: bigint,
  hookData?: Hex,
  gasPrice?: bigint,
): Promise<Hex> {
  await ensureRouterApproval(ctx, c, c.usdc, usdcIn);
  const zeroForOne = pool.poolKey.currency0 === pool.pairedToken;
  const steps =
    pool.pairedToken === c.usdc
      ? [v4ExactInSingle({ poolKey: pool.poolKey, zeroForOne, amountIn: usdcIn, amountOutMin: 0n, payerIsUser: true, hookData })]
      : [
          v3ExactIn({
            recipient: ADDRESS_THIS,
            amountIn: usdcIn,
            amountOutMin: 0n,
            path: { tokens: [c.usdc, c.weth], fees: [V3_WETH_USDC_FEE] },
            payerIsUser: true,
          }),
          v4ExactInSingle({ poolKey: pool.poolKey, zeroForOne, amountIn: 0n, amountOutMin: 0n, payerIsUser: false, hookData }),
        ];
  const { commands, inputs } = routerPlan(steps);
  return sendRouter(ctx, c, commands, inputs, gasPrice);
}

/**
 * Sends a UniversalRouter `execute`: estimated, or, with `gasPrice` (a sniper-auction bid: the
 * gas price above the round's peg is what the module charges), as a legacy transaction at that
 * price with a fixed gas limit. Throws when it reverts.
 */
async function sendRouter(ctx: DevnetContext, c: Pick<MarketContracts, "universalRouter">, commands: Hex, inputs: Hex[], gasPrice?: bigint): Promise<Hex> {
  if (gasPrice === undefined) return ctx.write(c.universalRouter, UNIVERSAL_ROUTER_ABI as Abi, "execute", [commands, inputs, DEADLINE]);
  const hash = await ctx.walletClient.writeContract({
    account: ctx.account,
    chain: ctx.walletClient.chain,
    address: c.universalRouter,
    abi: UNIVERSAL_ROUTER_ABI as Abi,
    functionName: "execute",
    args: [commands, inputs, DEADLINE],
    gas: AUCTION_BID_GAS,
    gasPrice,
  } as never);
  const receipt = await ctx.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  if (receipt.status !== "success") throw new Error(`the swap ${hash} reverted in block ${receipt.blockNumber}`);
  return hash;
}

/**
 * Buys `pool.token` with `wethIn` WETH through the UniversalRouter, passing `hookData` to the
 * pool's hook (a sniper-auction bid): one v4 hop for a WETH-paired pool, WETH → USDC (v3) →
 * token (v4) for a USDC-paired one. WETH must be approved to Permit2 and Permit2 to the router.
 * With `gasPrice` it is sent as a bid (`sendRouter`).
 */
export async function auctionBuy(
  ctx: DevnetContext,
  c: Pick<MarketContracts, "usdc" | "weth" | "universalRouter">,
  pool: MarketPool,
  wethIn: bigint,
  hookData: Hex,
  gasPrice?: bigint,
): Promise<Hex> {
  const zeroForOne = getAddress(pool.poolKey.currency0) === getAddress(pool.pairedToken);
  const steps =
    pool.pairedToken === c.weth
      ? [v4ExactInSingle({ poolKey: pool.poolKey, zeroForOne, amountIn: wethIn, amountOutMin: 0n, payerIsUser: true, hookData })]
      : [
          v3ExactIn({
            recipient: ADDRESS_THIS,
            amountIn: wethIn,
            amountOutMin: 0n,
            path: { tokens: [c.weth, c.usdc], fees: [V3_WETH_USDC_FEE] },
            payerIsUser: true,
          }),
          v4ExactInSingle({ poolKey: pool.poolKey, zeroForOne, amountIn: 0n, amountOutMin: 0n, payerIsUser: false, hookData }),
        ];
  const { commands, inputs } = routerPlan(steps);
  return sendRouter(ctx, c, commands, inputs, gasPrice);
}

/** Sells `amountIn` of `pool.token` for the pool's paired token (one v4 hop). */
export async function sellToken(ctx: DevnetContext, c: Pick<MarketContracts, "permit2" | "universalRouter">, pool: MarketPool, amountIn: bigint): Promise<Hex> {
  await ensureRouterApproval(ctx, c, pool.token, amountIn);
  const zeroForOne = pool.poolKey.currency0 === pool.token;
  const { commands, inputs } = routerPlan([v4ExactInSingle({ poolKey: pool.poolKey, zeroForOne, amountIn, amountOutMin: 0n, payerIsUser: true })]);
  return ctx.write(c.universalRouter, UNIVERSAL_ROUTER_ABI as Abi, "execute", [commands, inputs, DEADLINE]);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const config = loadConfigOrExit();
  const log = createLogger("market", config.logLevel, config.logFormat);
  const deployments = readDeployments(process.env.DEPLOYMENTS_FILE ?? DEPLOYMENTS_PATH, config.chainId);
  if (!deployments) throw new Error(`no devnet deployments for chain ${config.chainId}: start the devnet first (npm start)`);
  const seed = Number(flag("seed") ?? Date.now() % 2 ** 31);
  const intervalMs = Number(flag("interval") ?? 2_000);
  const bid = flag("auction-bid");
  const auctionBidWei = bid === undefined ? undefined : /^\d+(\.\d{1,18})?$/.test(bid) ? parseEther(bid) : -1n;
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(intervalMs) || intervalMs < 1 || (auctionBidWei !== undefined && auctionBidWei < 0n)) {
    throw new Error("usage: npx tsx devnet/market.ts [--seed <integer>] [--interval <milliseconds>] [--auction-bid <WETH, e.g. 0.001; 0: no bids>]");
  }
  const market = startMarket({ rpcUrl: config.rpcUrl, deployments, seed, intervalMs, auctionBidWei, log });
  log.info({ rpcUrl: config.rpcUrl }, "market simulator running (Ctrl-C stops it)");
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => void market.stop().then(() => process.exit(0)));
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`market: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
