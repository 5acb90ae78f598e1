/**
 * Onchain actions for scenario tests, sent from any devnet account: launches, UniversalRouter
 * swaps in launched tokens' pools, fee collection, perps trades, burns. Each waits for its
 * receipt and returns it.
 */
import { type Abi, type Address, type Hex, type TransactionReceipt, erc20Abi, keccak256, maxUint256, parseAbi, parseEventLogs, toHex } from "viem";
import { clankerFactoryAbi, clankerFeeLockerAbi, clankerLpLockerAbi } from "../../common/abis/clanker.js";
import { perpsCallbacksAbi, perpsStorageAbi, perpsTradingAbi } from "../../common/abis/perps.js";
import { registryAbi } from "../../common/abis/registry.js";
import { DEAD_ADDRESS } from "../../common/constants.js";
import type { PoolKey } from "../../common/uniswap.js";
import type { DevnetContext } from "../../devnet/context.js";
import { type MarketPool, buyToken, sellToken } from "../../devnet/market.js";
import { advancePastAuction, devnetLaunchFees } from "../../devnet/protocol.js";
import { type LaunchFees, type RewardRecipient, buildDeploymentConfig, launchSplitRewards, parseTokenCreated } from "../../common/deploy-config.js";

export type Contracts = Record<string, Address>;

export async function receipt(ctx: DevnetContext, hash: Hex): Promise<TransactionReceipt> {
  return ctx.publicClient.getTransactionReceipt({ hash });
}

let salts = 0;
/**
 * Moves the devnet past a launch's sniper auction: the two no-trade blocks, the auction block,
 * and the sniper fee's decay (`seconds`, default its 15 s + 1), so the next swap pays the pool's
 * own fee and disables the MEV module. Every test that launches then trades goes through this.
 */
export async function passAuction(ctx: DevnetContext, seconds?: number): Promise<void> {
  await advancePastAuction(ctx.publicClient as never, seconds);
}

/**
 * Launches a USDC-paired token with the enrolled-token reward split (operator + creator), or the
 * reward slots given,
 * through the devnet's hook and sniper auction; then, unless `auction: "keep"`, passes the
 * auction (`passAuction`).
 */
export async function launchToken(
  ctx: DevnetContext,
  c: Contracts,
  p: {
    name: string;
    symbol: string;
    operator: Address;
    creator: Address;
    pairedToken?: Address;
    startingMarketCap?: bigint;
    auction?: "keep" | "pass";
    fees?: Partial<LaunchFees>;
    rewards?: RewardRecipient[];
  },
) {
  const config = buildDeploymentConfig({
    tokenAdmin: ctx.account.address,
    name: p.name,
    symbol: p.symbol,
    image: "https://example.com/t.png",
    salt: keccak256(toHex(`${p.symbol}-${Date.now()}-${salts++}`)),
    chainId: ctx.chainId,
    pairedToken: p.pairedToken ?? c.usdc!,
    locker: c.lpLocker!,
    rewards: p.rewards ?? launchSplitRewards({ operator: p.operator, creator: p.creator }),
    startingMarketCap: p.startingMarketCap ?? 10_000_000_000n,
    fees: { ...devnetLaunchFees({ clankerHook: c.clankerHook!, mevModule: c.mevModule! }), ...p.fees },
  });
  const hash = await ctx.write(c.launcher!, clankerFactoryAbi as Abi, "deployToken", [config]);
  const r = await receipt(ctx, hash);
  if (p.auction !== "keep") await passAuction(ctx);
  return { ...parseTokenCreated(r, c.launcher), receipt: r };
}

export async function poolKeyOf(ctx: DevnetContext, c: Contracts, token: Address): Promise<PoolKey> {
  const info = await ctx.read<{ poolKey: PoolKey }>(c.lpLocker!, clankerLpLockerAbi as Abi, "tokenRewards", [token]);
  return info.poolKey;
}

async function marketPool(ctx: DevnetContext, c: Contracts, token: Address): Promise<MarketPool> {
  const poolKey = await poolKeyOf(ctx, c, token);
  const pairedToken = poolKey.currency0.toLowerCase() === token.toLowerCase() ? poolKey.currency1 : poolKey.currency0;
  return { token, pairedToken, poolKey };
}

/**
 * Swaps `amountIn` of `tokenIn` (the token itself, or USDC) in `token`'s pool through the
 * UniversalRouter, as the market simulator does: a WETH-paired token is bought USDC → WETH → token.
 */
export async function swapInPool(ctx: DevnetContext, c: Contracts, token: Address, tokenIn: Address, amountIn: bigint) {
  const pool = await marketPool(ctx, c, token);
  const router = { usdc: c.usdc!, weth: c.weth!, permit2: c.permit2!, universalRouter: c.universalRouter! };
  const hash = tokenIn.toLowerCase() === token.toLowerCase() ? await sellToken(ctx, router, pool, amountIn) : await buyToken(ctx, router, pool, amountIn);
  return receipt(ctx, hash);
}

export async function balanceOf(ctx: DevnetContext, token: Address, owner: Address): Promise<bigint> {
  return ctx.read<bigint>(token, erc20Abi, "balanceOf", [owner]);
}

export async function burnAll(ctx: DevnetContext, token: Address) {
  const amount = await balanceOf(ctx, token, ctx.account.address);
  return { amount, receipt: await receipt(ctx, await ctx.write(token, erc20Abi, "transfer", [DEAD_ADDRESS, amount])) };
}

export async function collectRewards(ctx: DevnetContext, c: Contracts, token: Address) {
  return receipt(ctx, await ctx.write(c.lpLocker!, clankerLpLockerAbi as Abi, "collectRewards", [token]));
}

export async function claimFees(ctx: DevnetContext, c: Contracts, owner: Address, currency: Address) {
  return receipt(ctx, await ctx.write(c.feeLocker!, clankerFeeLockerAbi as Abi, "claim", [owner, currency]));
}

export async function enroll(ctx: DevnetContext, c: Contracts, token: Address, creator: Address) {
  return receipt(ctx, await ctx.write(c.registry!, registryAbi as Abi, "enroll", [token, creator, 2850, 5700, 950, `0x${"00".repeat(32)}`]));
}

const feedAbi = parseAbi(["function setAnswer(int256 answer)", "function latestAnswer() view returns (int256)"]);
export async function setFeed(keeper: DevnetContext, feed: Address, answer: bigint) {
  return receipt(keeper, await keeper.write(feed, feedAbi, "setAnswer", [answer]));
}

const keeperAbi = parseAbi([
  "function executeMarketOrders(uint256[] orderIds)",
  "function executeLimitOrder(uint8 _orderType, address _trader, uint256 _pairIndex, uint256 _index)",
]);

function orderIdOf(r: TransactionReceipt): bigint {
  const [log] = parseEventLogs({ abi: perpsTradingAbi, eventName: "MarketOrderInitiated", logs: r.logs });
  if (!log) throw new Error("no MarketOrderInitiated in the receipt");
  return log.args.orderId;
}

/** Opens a market trade (collateral in USDC base units, leverage 1e10) and has the keeper execute it. */
export async function openTrade(
  trader: DevnetContext,
  keeper: DevnetContext,
  c: Contracts,
  p: { pairIndex: bigint; collateral: bigint; leverage: bigint; buy: boolean; openPrice: bigint },
) {
  await trader.write(c.usdc!, erc20Abi, "approve", [c.perpsStorage!, maxUint256]);
  const trade = {
    trader: trader.account.address,
    pairIndex: p.pairIndex,
    index: 0n,
    initialPosToken: 0n,
    positionSizeUSDC: p.collateral,
    openPrice: p.openPrice,
    buy: p.buy,
    leverage: p.leverage,
    tp: 0n,
    sl: 0n,
    timestamp: 0n,
  };
  const opened = await receipt(trader, await trader.write(c.perpsTrading!, perpsTradingAbi as Abi, "openTrade", [trade, 0, 10n ** 12n], 350_000_000_000_000n));
  const orderId = orderIdOf(opened);
  const executed = await receipt(keeper, await keeper.write(c.perpsTrading!, keeperAbi, "executeMarketOrders", [[orderId]]));
  const [done] = parseEventLogs({ abi: perpsCallbacksAbi, eventName: "MarketExecuted", logs: executed.logs });
  if (!done) throw new Error(`order ${orderId} was not executed`);
  return { opened, executed, orderId, index: done.args.t.index };
}

export async function closeTrade(trader: DevnetContext, keeper: DevnetContext, c: Contracts, pairIndex: bigint, index: bigint, amount: bigint) {
  const closing = await receipt(
    trader,
    await trader.write(c.perpsTrading!, perpsTradingAbi as Abi, "closeTradeMarket", [pairIndex, index, amount], 350_000_000_000_000n),
  );
  return receipt(keeper, await keeper.write(c.perpsTrading!, keeperAbi, "executeMarketOrders", [[orderIdOf(closing)]]));
}

export async function liquidate(keeper: DevnetContext, c: Contracts, trader: Address, pairIndex: bigint, index: bigint) {
  return receipt(keeper, await keeper.write(c.perpsTrading!, keeperAbi, "executeLimitOrder", [2, trader, pairIndex, index]));
}

export async function depositMargin(trader: DevnetContext, c: Contracts, pairIndex: bigint, index: bigint, amount: bigint) {
  return receipt(trader, await trader.write(c.perpsTrading!, perpsTradingAbi as Abi, "updateMargin", [pairIndex, index, 0, amount, []], 350_000_000_000_000n));
}

export async function openTradeIndices(ctx: DevnetContext, c: Contracts, trader: Address, pairIndex: bigint): Promise<bigint[]> {
  const max = await ctx.read<bigint>(c.perpsStorage!, perpsStorageAbi as Abi, "maxTradesPerPair");
  const found: bigint[] = [];
  for (let i = 0n; i < max; i++) {
    const t = await ctx.read<{ leverage: bigint }>(c.perpsStorage!, perpsStorageAbi as Abi, "openTrades", [trader, pairIndex, i]);
    if (t.leverage !== 0n) found.push(i);
  }
  return found;
}

/**
 * Plays Base's block production on the automining devnet while `work` runs: a block every
 * `intervalMs`, each `secondsPerBlock` after the last (so a launch's no-trade blocks and sniper
 * decay pass as they would on Base). Returns what `work` returns.
 */
export async function produceBlocksWhile<T>(rpcUrl: string, work: Promise<T>, p: { intervalMs?: number; secondsPerBlock?: number } = {}): Promise<T> {
  let done = false;
  const settled = work.finally(() => {
    done = true;
  });
  const call = async (method: string, params: unknown[] = []) => {
    await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  };
  while (!done) {
    await call("evm_increaseTime", [p.secondsPerBlock ?? 2]);
    await call("evm_mine");
    await Promise.race([settled.catch(() => {}), new Promise((resolve) => setTimeout(resolve, p.intervalMs ?? 200))]);
  }
  return settled;
}
