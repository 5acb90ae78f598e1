/**
 * A small history for the API suites, made on the devnet: a token launched through the API,
 * organic trading and a burn, a creator buyback and its burn, a protocol buyback and its burn,
 * and an open desk the engine bound to the token.
 */
import { type Address, type Hex, parseAbi } from "viem";
import { PERPS_PRECISION } from "../../common/abis/perps.js";
import { createDevnetContext } from "../../devnet/context.js";
import { devnetPrivateKey } from "../../devnet/protocol.js";
import * as act from "../helpers/actions.js";
import { testEnv } from "../helpers/env.js";
import { type Harness, OPERATOR_API_KEY, actors } from "./harness.js";

export const USDC = (n: bigint) => n * 1_000_000n;
const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

export type Scenario = {
  token: Address;
  launch: { status: number; json: any };
  creator: Address;
  organicBurn: { amount: bigint; tx: Hex };
  creatorBuyback: { tx: Hex; bought: bigint; burnTx: Hex };
  protocolBuyback: { tx: Hex; bought: bigint; burnTx: Hex };
  desk: { openOrderId: bigint };
  /** Closes the scenario's desk, so suites that run later find the operator's pair-0 slots as they expect. */
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

  // A desk: the operator's 5x long on ETH, bound to the token as the engine binds it (by open order id).
  const feed = (env.deployments.contracts.priceFeeds as Record<string, Address>).ETH_USD!;
  await act.setFeed(keeper, feed, 3_000n * 10n ** 8n);
  const slotsBefore = await act.openTradeIndices(operator, c, operator.account.address, 0n);
  const opened = await act.openTrade(operator, keeper, c, {
    pairIndex: 0n,
    collateral: USDC(200n),
    leverage: 5n * PERPS_PRECISION,
    buy: true,
    openPrice: 3_000n * PERPS_PRECISION,
  });
  await h.deps.agents!.services.ready();
  await h.deps.agents!.services.pool.query(
    `INSERT INTO engine.desk_trades (token, pair_index, side, leverage, basis_usdc, status, order_id) VALUES ($1, 0, 'long', $2, $3, 'open', $4)`,
    [token, (5n * PERPS_PRECISION).toString(), USDC(200n).toString(), opened.orderId.toString()],
  );

  const [slot] = (await act.openTradeIndices(operator, c, operator.account.address, 0n)).filter((i) => !slotsBefore.includes(i));

  await h.synced();
  return {
    token,
    launch,
    creator,
    organicBurn: { amount: organic.amount, tx: organic.receipt.transactionHash },
    creatorBuyback: { tx: creatorTx, bought: creatorBought, burnTx: creatorBurn },
    protocolBuyback: { tx: protocolTx, bought: protocolBought, burnTx: protocolBurn },
    desk: { openOrderId: opened.orderId },
    cleanup: async () => {
      await act.closeTrade(operator, keeper, c, 0n, slot!, USDC(1_000_000n));
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
