/**
 * Swaps through the UniversalRouter (inputs pulled through Permit2). The route follows the
 * token pool's paired currency (DESIGN.md §4): the paired currency itself is one v4 hop; the
 * other of USDC/WETH first crosses the v3 USDC/WETH pool, both hops in one atomic `execute`.
 * The slippage bound comes from the pools' prices and in-range liquidity, less a tolerance.
 */
import { type Address, type Hex, type TransactionReceipt, encodeFunctionData, erc20Abi, getAddress, parseEventLogs } from "viem";
import type { PoolKey } from "../../common/uniswap.js";
import type { EngineContext } from "../context.js";
import { estimateSwapOut, minimumOut, priceImpactBps } from "../decisions/quote.js";
import { EngineError } from "../errors.js";
import { tokenInfo } from "../tokens.js";
import { ensureRouterAllowance } from "./erc20.js";
import type { TxOutcome } from "./pipeline.js";
import { readV3PoolState, readV4PoolState } from "./pool-state.js";
import { ADDRESS_THIS, UNIVERSAL_ROUTER_ABI, type RouterStep, routerPlan, v3ExactIn, v4ExactInSingle } from "./universal-router.js";

/** Tolerance below the estimated output (the estimate already includes fees and price impact). */
export const SWAP_SLIPPAGE_BPS = 150;
/** A signed swap stays valid this long (a rebroadcast after an outage may land later). */
export const SWAP_DEADLINE_SECONDS = 3_600n;
/** The v4 fee flag of dynamic-fee pools (Clanker hooks); the fee is then in slot0. */
const DYNAMIC_FEE_FLAG = 0x800000;

export type SwapPlan = {
  route: "v4" | "v3" | "v3+v4";
  currencyIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  expectedOut: bigint;
  minOut: bigint;
  impactBps: number;
  to: Address;
  data: Hex;
};

async function deadline(ctx: EngineContext): Promise<bigint> {
  const block = await ctx.publicClient.getBlock();
  return block.timestamp + SWAP_DEADLINE_SECONDS;
}

async function v3Leg(ctx: EngineContext, pool: Address, tokenIn: Address, amountIn: bigint) {
  const state = await readV3PoolState(ctx.publicClient, pool);
  const zeroForOne = getAddress(tokenIn) === getAddress(state.token0);
  if (!zeroForOne && getAddress(tokenIn) !== getAddress(state.token1)) throw new EngineError(`pool ${pool} does not trade ${tokenIn}`, { code: "unknown", retryable: false });
  const tokenOut = zeroForOne ? state.token1 : state.token0;
  const estimate = estimateSwapOut({ amountIn, sqrtPriceX96: state.sqrtPriceX96, liquidity: state.liquidity, zeroForOne, feePips: state.fee });
  const spot = estimateSwapOut({ amountIn, sqrtPriceX96: state.sqrtPriceX96, liquidity: state.liquidity * 1_000_000n, zeroForOne, feePips: state.fee });
  return { tokenOut: getAddress(tokenOut), fee: state.fee, estimate, spot };
}

async function v4Leg(ctx: EngineContext, key: PoolKey, currencyIn: Address, amountIn: bigint) {
  const state = await readV4PoolState(ctx.publicClient, ctx.contract("v4PoolManager"), key);
  const zeroForOne = getAddress(currencyIn) === getAddress(key.currency0);
  const feePips = key.fee === DYNAMIC_FEE_FLAG ? state.lpFee : key.fee;
  const estimate = estimateSwapOut({ amountIn, sqrtPriceX96: state.sqrtPriceX96, liquidity: state.liquidity, zeroForOne, feePips });
  const spot = estimateSwapOut({ amountIn, sqrtPriceX96: state.sqrtPriceX96, liquidity: state.liquidity * 1_000_000n, zeroForOne, feePips });
  return { zeroForOne, estimate, spot };
}

/**
 * Plans `amountIn` of `currencyIn` (USDC or WETH) into a launcher token: one v4 hop when
 * `currencyIn` is the pool's paired currency, else v3 `currencyIn → paired` then v4.
 */
export async function planSwapToToken(ctx: EngineContext, p: { token: Address; currencyIn: Address; amountIn: bigint; slippageBps?: number }): Promise<SwapPlan> {
  const info = await tokenInfo(ctx, p.token);
  const slippage = p.slippageBps ?? SWAP_SLIPPAGE_BPS;
  const steps: RouterStep[] = [];
  let v4In = p.amountIn;
  let route: SwapPlan["route"] = "v4";
  let spotIn = p.amountIn;
  if (getAddress(p.currencyIn) !== getAddress(info.pairedToken)) {
    const pool = ctx.contract("v3WethUsdcPool");
    const leg = await v3Leg(ctx, pool, p.currencyIn, p.amountIn);
    if (leg.tokenOut !== getAddress(info.pairedToken)) {
      throw new EngineError(`no route from ${p.currencyIn} to ${p.token} (paired with ${info.pairedToken})`, { code: "unknown", retryable: false });
    }
    steps.push(v3ExactIn({ recipient: ADDRESS_THIS, amountIn: p.amountIn, amountOutMin: 0n, path: { tokens: [p.currencyIn, leg.tokenOut], fees: [leg.fee] }, payerIsUser: true }));
    v4In = leg.estimate;
    spotIn = leg.spot;
    route = "v3+v4";
  }
  const v4 = await v4Leg(ctx, info.poolKey, info.pairedToken, v4In);
  const spotOut = (await v4Leg(ctx, info.poolKey, info.pairedToken, spotIn)).spot;
  const minOut = minimumOut(v4.estimate, slippage);
  steps.push(v4ExactInSingle({ poolKey: info.poolKey, zeroForOne: v4.zeroForOne, amountIn: p.amountIn, amountOutMin: minOut, payerIsUser: route === "v4" }));
  const { commands, inputs } = routerPlan(steps);
  return {
    route,
    currencyIn: getAddress(p.currencyIn),
    tokenOut: getAddress(p.token),
    amountIn: p.amountIn,
    expectedOut: v4.estimate,
    minOut,
    impactBps: priceImpactBps(spotOut, v4.estimate),
    to: ctx.contract("universalRouter"),
    data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, functionName: "execute", args: [commands, inputs, await deadline(ctx)] }),
  };
}

/** Plans a single v3 hop of `amountIn` of `tokenIn` through `pool`, paid to the operator. */
export async function planV3Swap(ctx: EngineContext, p: { pool: Address; tokenIn: Address; amountIn: bigint; slippageBps?: number }): Promise<SwapPlan> {
  const leg = await v3Leg(ctx, p.pool, p.tokenIn, p.amountIn);
  const minOut = minimumOut(leg.estimate, p.slippageBps ?? SWAP_SLIPPAGE_BPS);
  const { commands, inputs } = routerPlan([
    v3ExactIn({ recipient: ctx.operator, amountIn: p.amountIn, amountOutMin: minOut, path: { tokens: [p.tokenIn, leg.tokenOut], fees: [leg.fee] }, payerIsUser: true }),
  ]);
  return {
    route: "v3",
    currencyIn: getAddress(p.tokenIn),
    tokenOut: leg.tokenOut,
    amountIn: p.amountIn,
    expectedOut: leg.estimate,
    minOut,
    impactBps: priceImpactBps(leg.spot, leg.estimate),
    to: ctx.contract("universalRouter"),
    data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, functionName: "execute", args: [commands, inputs, await deadline(ctx)] }),
  };
}

/** What `owner` received of `token` in a receipt (sum of its incoming Transfer logs). */
export function receivedInReceipt(receipt: TransactionReceipt, token: Address, owner: Address): bigint {
  const logs = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs });
  return logs
    .filter((l) => getAddress(l.address) === getAddress(token) && getAddress(l.args.to) === getAddress(owner) && getAddress(l.args.from) !== getAddress(owner))
    .reduce((sum, l) => sum + l.args.value, 0n);
}

/** What `owner` sent of `token` to `to` in a receipt. */
export function sentInReceipt(receipt: TransactionReceipt, token: Address, owner: Address, to: Address): bigint {
  const logs = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs });
  return logs
    .filter((l) => getAddress(l.address) === getAddress(token) && getAddress(l.args.from) === getAddress(owner) && getAddress(l.args.to) === getAddress(to))
    .reduce((sum, l) => sum + l.args.value, 0n);
}

export type SwapResult = { outcome: TxOutcome; amountOut: bigint; plan?: SwapPlan };

/**
 * Sends a planned swap as the intent `key` (planning only when the intent is new, so a resumed
 * swap keeps its signed terms) and reports the output the operator received.
 */
export async function sendSwap(ctx: EngineContext, p: { key: string; worker: string; tokenOut: Address; currencyIn: Address; plan: () => Promise<SwapPlan> }): Promise<SwapResult> {
  const existing = await ctx.pipeline.get(p.key);
  let plan: SwapPlan | undefined;
  if (!existing) {
    await ensureRouterAllowance(ctx, p.currencyIn, p.worker);
    plan = await p.plan();
    ctx.log.info({ key: p.key, route: plan.route, amountIn: String(plan.amountIn), expectedOut: String(plan.expectedOut), minOut: String(plan.minOut), impactBps: plan.impactBps }, "swap planned");
  }
  const outcome = await ctx.pipeline.send({ key: p.key, kind: "swap", worker: p.worker, to: existing?.to ?? plan!.to, data: existing?.data ?? plan!.data });
  const amountOut = outcome.status === "mined" ? receivedInReceipt(outcome.receipt, p.tokenOut, ctx.operator) : 0n;
  return { outcome, amountOut, plan };
}

/**
 * `swapUsdcForToken`: buys `token` with `amountIn` USDC (or WETH for the legacy accumulator)
 * along the pool's route, as the intent `key`.
 */
export function swapUsdcForToken(
  ctx: EngineContext,
  p: { key: string; worker: string; token: Address; amountIn: bigint; currencyIn?: Address },
): Promise<SwapResult> {
  const currencyIn = p.currencyIn ?? ctx.contract("usdc");
  return sendSwap(ctx, {
    key: p.key,
    worker: p.worker,
    tokenOut: p.token,
    currencyIn,
    plan: () => planSwapToToken(ctx, { token: p.token, currencyIn, amountIn: p.amountIn }),
  });
}
