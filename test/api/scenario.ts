/**
 * A small history for the API suites, made on the devnet: a token launched through the API,
 * organic trading and a burn, a creator buyback and its burn, a protocol buyback and its burn,
 * and an open desk the engine bound to the token.
 */
import { type Abi, type Address, type Hex, erc20Abi, maxUint256, parseAbi, parseEventLogs, zeroAddress } from "viem";
import { gainsEventsAbi, gainsMarketOpenTrade, gainsTradingAbi } from "../../common/abis/gains.js";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { createDevnetContext } from "../../devnet/context.js";
import { devnetPrivateKey } from "../../devnet/protocol.js";
import * as act from "../helpers/actions.js";
import { testEnv } from "../helpers/env.js";
import { type Harness, OPERATOR_API_KEY, actors } from "./harness.js";

export const USDC = (n: bigint) => n * 1_000_000n;
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);
/** The twin's stand-in for gTrade's oracle answer to a pending order. */
const gainsKeeperAbi = parseAbi(["function executePendingOrder(address trader, uint32 index)"]);
const feedAbi = parseAbi(["function latestAnswer() view returns (int256)"]);
/** gTrade's ETH/USD pair index (BTC/USD is 0). */
const ETH = 1;

export type Scenario = {
  token: Address;
  launch: { status: number; json: any };
  creator: Address;
  organicBurn: { amount: bigint; tx: Hex };
  creatorBuyback: { tx: Hex; bought: bigint; burnTx: Hex };
  protocolBuyback: { tx: Hex; bought: bigint; burnTx: Hex };
  desk: { openOrderId: bigint };
  /** Closes the scenario's desk, so suites that run later find the operator's gTrade trades as they expect. */
  cleanup: () => Promise<void>;
};

export async function seedScenario(h: Harness): Promise<Scenario> {
  const { operator, trader, other } = actors();
  const env = testEnv();
  const c = h.contracts;
  const keeper = createDevnetContext(env.rpcUrl, env.deployments.chainId, devnetPrivateKey(9));
  await operator.write(c.usdc!, mintAbi, "mint", [operator.account.address, USDC(10_000n)]);

  // Launch through the API (over HTTP, as a client would): 30 / 50 / 15 %.
  const creator = other.account.address;
  const launch = await h.fetch("POST", "/api/v1/tokens/launch", {
    key: OPERATOR_API_KEY,
    headers: { "x-forwarded-for": "198.51.100.1" },
    json: { name: "Api Cat", symbol: "ACAT", image: "https://example.com/cat.png", description: "a cat", creator, assetPct: 30, perpPct: 50, creatorPct: 15 },
  });
  if (launch.status !== 201) throw new Error(`launch answered ${launch.status}: ${launch.text}`);
  const token = launch.json.token as Address;
  await act.passAuction(trader); // past the launch's sniper auction, as any trader would wait

  // Organic trading and an organic burn.
  await act.swapInPool(trader, c, token, c.usdc!, USDC(5_000n));
  const held = await act.balanceOf(trader, token, trader.account.address);
  await act.swapInPool(trader, c, token, token, held / 4n);
  await act.collectRewards(trader, c, token);
  await act.claimFees(trader, c, operator.account.address, c.usdc!); // the fees count in the legs once claimed
  const organic = await act.burnAll(trader, token);

  // Creator buyback and burn; protocol buyback and burn (the operator's swaps, then burns).
  let before = await act.balanceOf(operator, token, operator.account.address);
  const creatorTx = (await act.swapInPool(operator, c, token, c.usdc!, USDC(100n))).transactionHash;
  const creatorBought = (await act.balanceOf(operator, token, operator.account.address)) - before;
  const creatorBurn = (await act.burnAll(operator, token)).receipt.transactionHash;
  before = await act.balanceOf(operator, h.protocolToken, operator.account.address);
  const protocolTx = (await act.swapInPool(operator, c, h.protocolToken, c.usdc!, USDC(50n))).transactionHash;
  const protocolBought = (await act.balanceOf(operator, h.protocolToken, operator.account.address)) - before;
  const protocolBurn = (await act.burnAll(operator, h.protocolToken)).receipt.transactionHash;

  // A desk: the operator's 5x long on gTrade's ETH/USD (pair 1) on the devnet's twin of the diamond (the devnet's
  // venue), filled by the keeper and bound to the token as the engine binds it (by open order id: the pending index).
  const feed = (env.deployments.contracts.priceFeeds as Record<string, Address>).ETH_USD!;
  await act.setFeed(keeper, feed, 3_000n * 10n ** 8n);
  const diamond = c.gainsDiamond!;
  await operator.write(c.usdc!, erc20Abi, "approve", [diamond, maxUint256]);
  const trade = gainsMarketOpenTrade({
    trader: operator.account.address,
    pairIndex: ETH,
    leverage: 5_000,
    long: true,
    collateral: USDC(200n),
    price: 3_000n * 10n ** 10n,
  });
  const ordered = await operator.publicClient.waitForTransactionReceipt({
    hash: await operator.write(diamond, gainsTradingAbi as Abi, "openTrade", [trade, 1_000, zeroAddress]),
  });
  const [initiated] = parseEventLogs({ abi: gainsEventsAbi, eventName: "MarketOrderInitiated", logs: ordered.logs });
  const openOrderId = BigInt(initiated!.args.orderId.index);
  const filled = await keeper.publicClient.waitForTransactionReceipt({
    hash: await keeper.write(diamond, gainsKeeperAbi, "executePendingOrder", [operator.account.address, initiated!.args.orderId.index]),
  });
  const [executed] = parseEventLogs({ abi: gainsEventsAbi, eventName: "MarketExecuted", logs: filled.logs });
  if (!executed) throw new Error(`the gTrade order ${openOrderId} was not filled`);
  const tradeIndex = executed.args.t.index;
  await h.deps.agents!.services.ready();
  await h.deps.agents!.services.pool.query(
    `INSERT INTO engine.desk_trades (token, pair_index, side, leverage, basis_usdc, status, order_id) VALUES ($1, $2, 'long', $3, $4, 'open', $5)`,
    [token, ETH, (5n * PERPS_PRECISION).toString(), USDC(200n).toString(), openOrderId.toString()],
  );

  await h.synced();
  return {
    token,
    launch,
    creator,
    organicBurn: { amount: organic.amount, tx: organic.receipt.transactionHash },
    creatorBuyback: { tx: creatorTx, bought: creatorBought, burnTx: creatorBurn },
    protocolBuyback: { tx: protocolTx, bought: protocolBought, burnTx: protocolBurn },
    desk: { openOrderId },
    cleanup: async () => {
      // Expected at the feed's price now (8 decimals to gTrade's 1e10): the fill comes at that price.
      const price = (await keeper.read<bigint>(feed, feedAbi, "latestAnswer")) * 100n;
      const closing = await operator.publicClient.waitForTransactionReceipt({
        hash: await operator.write(diamond, gainsTradingAbi as Abi, "closeTradeMarket", [tradeIndex, price]),
      });
      const [order] = parseEventLogs({ abi: gainsEventsAbi, eventName: "MarketOrderInitiated", logs: closing.logs });
      await keeper.publicClient.waitForTransactionReceipt({
        hash: await keeper.write(diamond, gainsKeeperAbi, "executePendingOrder", [operator.account.address, order!.args.orderId.index]),
      });
    },
  };
}

/** Field names and types of a JSON value (strings classed by format), for shape snapshots. */
export function shapeOf(value: unknown): unknown {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length ? [shapeOf(value[0])] : [];
  if (typeof value === "object") return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, shapeOf(v)]));
  if (typeof value === "string") {
    if (/^0x[0-9a-fA-F]{40}$/.test(value)) return "address";
    if (/^0x[0-9a-fA-F]{64}$/.test(value)) return "bytes32";
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value)) return "iso-time";
    if (/^-?\d+(\.\d+)?$/.test(value)) return "decimal";
    return "string";
  }
  return typeof value;
}
