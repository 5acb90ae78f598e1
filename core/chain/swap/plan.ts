/**
 * Swaps through the UniversalRouter (inputs pulled through Permit2). The route follows the
 * token pool's paired currency (docs/design.md §5.4): the paired currency itself is one v4 hop; the
 * other of USDC/WETH first crosses the v3 USDC/WETH pool, both hops in one atomic `execute`.
 *
 * Every swap the service signs is planned here, from one quoting path (quote.ts): a fresh
 * quote at planning time, just before the intent is recorded (every route is quoted by
 * running it on the latest block: `quoteRoute` for a route ending in a v4 hop,
 * `quoteRouteByBalance` for a lone v3 hop), a minimum output `SWAP_SLIPPAGE_BPS` below that
 * quote, and a deadline `SWAP_DEADLINE_SECONDS` after the chain's latest block. A swap the market moved
 * beyond the bound reverts (or is refused at simulation) instead of filling at a worse price;
 * an intent signed earlier keeps its bytes, so only newly planned swaps are quoted (send.ts);
 * revert.ts explains a swap that reverted.
 */
import { type Address, type Hex, type PublicClient, encodeAbiParameters, encodeFunctionData, getAddress } from "viem";
import type { Config } from "../../../common/config.js";
import { minimumOut, priceImpactBps } from "../../../common/quote.js";
import type { PoolKey } from "../../../common/uniswap.js";
import {
  ADDRESS_THIS,
  CONTRACT_BALANCE,
  type RouterStep,
  UNIVERSAL_ROUTER_ABI,
  routerPlan,
  v3ExactIn,
  v4ExactInSingle,
} from "../../../common/universal-router.js";
import type { EngineContext } from "../../context.js";
import { EngineError } from "../../errors.js";
import { tokenInfo } from "../../registry-cache.js";
import { quoteRoute, quoteRouteByBalance, quoteV3Hop, spotV4Hop } from "./quote.js";

/** UniversalRouter WRAP_ETH command. */
const WRAP_ETH = 0x0b;

/** The bounds of every swap: slippage below the fresh quote (bps) and the deadline (seconds after the latest block). */
export type SwapBounds = { slippageBps: number; deadlineSeconds: number };

/** `SWAP_SLIPPAGE_BPS` and `SWAP_DEADLINE_SECONDS` from the configuration. */
export function swapBounds(config: Pick<Config, "swapSlippageBps" | "swapDeadlineSeconds">): SwapBounds {
  return { slippageBps: config.swapSlippageBps, deadlineSeconds: config.swapDeadlineSeconds };
}

export type SwapPlan = {
  route: "v4" | "v3" | "v3+v4" | "eth+v3+v4";
  currencyIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  /** The fresh quote: output at the pools' current state, fees and price impact included. */
  expectedOut: bigint;
  /** `expectedOut` less the slippage bound: the swap reverts below it. */
  minOut: bigint;
  impactBps: number;
  /** Unix seconds: the latest block's timestamp plus the deadline bound. */
  deadline: bigint;
  to: Address;
  data: Hex;
  value: bigint;
};

/** The deadline of a swap planned now: the chain's latest block timestamp plus `seconds` (never wall-clock). */
export async function swapDeadline(client: PublicClient, seconds: number): Promise<bigint> {
  const block = await client.getBlock({ blockTag: "latest" });
  return block.timestamp + BigInt(seconds);
}

/**
 * Plans `amountIn` of `currencyIn` (USDC or WETH) into a launcher token: one v4 hop when
 * `currencyIn` is the pool's paired currency, else v3 `currencyIn → paired` then v4. The
 * route is quoted by running it (`quoteRoute`); its output must reach the quote less the
 * slippage bound. (An inner hop needs no bound of its own: the route is one atomic call.)
 */
export async function planSwapToToken(
  ctx: EngineContext,
  p: { token: Address; currencyIn: Address; amountIn: bigint; bounds?: SwapBounds },
): Promise<SwapPlan> {
  const info = await tokenInfo(ctx, p.token);
  const bounds = p.bounds ?? swapBounds(ctx.config);
  const first: RouterStep[] = [];
  let route: SwapPlan["route"] = "v4";
  let spotIn = p.amountIn;
  if (getAddress(p.currencyIn) !== getAddress(info.pairedToken)) {
    const pool = ctx.contract("v3WethUsdcPool");
    const leg = await quoteV3Hop(ctx.publicClient, pool, p.currencyIn, p.amountIn);
    if (leg.tokenOut !== getAddress(info.pairedToken)) {
      throw new EngineError(`no route from ${p.currencyIn} to ${p.token} (paired with ${info.pairedToken})`, { code: "unknown", retryable: false });
    }
    first.push(
      v3ExactIn({
        recipient: ADDRESS_THIS,
        amountIn: p.amountIn,
        amountOutMin: 0n,
        path: { tokens: [p.currencyIn, leg.tokenOut], fees: [leg.fee] },
        payerIsUser: true,
      }),
    );
    spotIn = leg.spotOut;
    route = "v3+v4";
  }
  const spot = await spotV4Hop(ctx.publicClient, ctx.contract("v4PoolManager"), info.poolKey, info.pairedToken, spotIn, ctx.config.launchFees.secondsToDecay);
  const build = (minOut: bigint) =>
    routerPlan([
      ...first,
      v4ExactInSingle({ poolKey: info.poolKey, zeroForOne: spot.zeroForOne, amountIn: p.amountIn, amountOutMin: minOut, payerIsUser: route === "v4" }),
    ]);
  return boundedRouterPlan(ctx.publicClient, {
    route,
    currencyIn: p.currencyIn,
    tokenOut: p.token,
    amountIn: p.amountIn,
    spotOut: spot.spotOut,
    from: ctx.operator,
    router: ctx.contract("universalRouter"),
    value: 0n,
    bounds,
    build,
  });
}

/**
 * The UniversalRouter `execute` of a route, bounded: a deadline from the latest block, the
 * route quoted by running it (`quoteRoute`), and its last hop's minimum the quote less the
 * slippage bound.
 */
async function boundedRouterPlan(
  client: PublicClient,
  p: {
    route: SwapPlan["route"];
    currencyIn: Address;
    tokenOut: Address;
    amountIn: bigint;
    spotOut: bigint;
    from: Address;
    router: Address;
    value: bigint;
    bounds: SwapBounds;
    build: (minOut: bigint) => { commands: Hex; inputs: Hex[] };
    /** How the route is run to quote it (default `quoteRoute`). */
    quote?: (deadline: bigint) => Promise<bigint>;
  },
): Promise<SwapPlan> {
  const to = getAddress(p.router);
  const deadline = await swapDeadline(client, p.bounds.deadlineSeconds);
  const expectedOut = await (p.quote ?? ((d: bigint) => quoteRoute(client, { from: p.from, to, value: p.value || undefined, deadline: d, build: p.build })))(
    deadline,
  );
  const minOut = minimumOut(expectedOut, p.bounds.slippageBps);
  const { commands, inputs } = p.build(minOut);
  return {
    route: p.route,
    currencyIn: getAddress(p.currencyIn),
    tokenOut: getAddress(p.tokenOut),
    amountIn: p.amountIn,
    expectedOut,
    minOut,
    impactBps: priceImpactBps(p.spotOut, expectedOut),
    deadline,
    to,
    data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, functionName: "execute", args: [commands, inputs, deadline] }),
    value: p.value,
  };
}

/**
 * Plans a single v3 hop of `amountIn` of `tokenIn` through `pool`, paid to the operator
 * (WETH fee conversions, secondary-asset purchases), quoted by running it
 * (`quoteRouteByBalance`) — exact however many ticks it crosses — and bounded below that
 * quote. Its price impact is measured against the pool's spot price.
 */
export async function planV3Swap(ctx: EngineContext, p: { pool: Address; tokenIn: Address; amountIn: bigint; bounds?: SwapBounds }): Promise<SwapPlan> {
  const leg = await quoteV3Hop(ctx.publicClient, p.pool, p.tokenIn, p.amountIn);
  const build = (minOut: bigint) =>
    routerPlan([
      v3ExactIn({
        recipient: ctx.operator,
        amountIn: p.amountIn,
        amountOutMin: minOut,
        path: { tokens: [p.tokenIn, leg.tokenOut], fees: [leg.fee] },
        payerIsUser: true,
      }),
    ]);
  const router = getAddress(ctx.contract("universalRouter"));
  const plan = await boundedRouterPlan(ctx.publicClient, {
    route: "v3",
    currencyIn: p.tokenIn,
    tokenOut: leg.tokenOut,
    amountIn: p.amountIn,
    spotOut: leg.spotOut,
    from: ctx.operator,
    router,
    value: 0n,
    bounds: p.bounds ?? swapBounds(ctx.config),
    build,
    quote: (deadline) =>
      quoteRouteByBalance(ctx.publicClient, { from: ctx.operator, to: router, tokenOut: leg.tokenOut, recipient: ctx.operator, deadline, build }),
  });
  if (plan.minOut === 0n)
    throw new EngineError(`swap quote failed: ${p.amountIn} of ${p.tokenIn} buys nothing in pool ${p.pool}`, { code: "unknown", retryable: false });
  return plan;
}

/**
 * Plans a buy of a USDC-paired launcher token with native ETH for `payer`: ETH → WETH
 * (router) → USDC (v3 pool) → token (v4 `poolKey`), quoted by running it from the payer
 * (`quoteRoute`) and bounded below that quote (the agent's dev buy at launch). Needs no
 * Permit2 allowance: the router wraps the value it is sent.
 */
export async function planEthToToken(
  client: PublicClient,
  p: {
    contracts: { weth: Address; usdc: Address; v3WethUsdcPool: Address; v4PoolManager: Address; universalRouter: Address };
    payer: Address;
    token: Address;
    poolKey: PoolKey;
    amountInWei: bigint;
    bounds: SwapBounds;
    /** The sniper fee's decay of the pool (the launch config's). */
    secondsToDecay: number;
  },
): Promise<SwapPlan> {
  const c = p.contracts;
  const leg = await quoteV3Hop(client, c.v3WethUsdcPool, c.weth, p.amountInWei);
  if (leg.tokenOut !== getAddress(c.usdc))
    throw new EngineError(`pool ${c.v3WethUsdcPool} does not trade WETH for USDC`, { code: "unknown", retryable: false });
  const spot = await spotV4Hop(client, c.v4PoolManager, p.poolKey, c.usdc, leg.spotOut, p.secondsToDecay);
  const wrap: RouterStep = { command: WRAP_ETH, input: encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [ADDRESS_THIS, p.amountInWei]) };
  const build = (minOut: bigint) =>
    routerPlan([
      wrap,
      v3ExactIn({
        recipient: ADDRESS_THIS,
        amountIn: CONTRACT_BALANCE,
        amountOutMin: 0n,
        path: { tokens: [c.weth, c.usdc], fees: [leg.fee] },
        payerIsUser: false,
      }),
      v4ExactInSingle({ poolKey: p.poolKey, zeroForOne: spot.zeroForOne, amountIn: 0n, amountOutMin: minOut, payerIsUser: false }),
    ]);
  return boundedRouterPlan(client, {
    route: "eth+v3+v4",
    currencyIn: c.weth,
    tokenOut: p.token,
    amountIn: p.amountInWei,
    spotOut: spot.spotOut,
    from: p.payer,
    router: c.universalRouter,
    value: p.amountInWei,
    bounds: p.bounds,
    build,
  });
}
