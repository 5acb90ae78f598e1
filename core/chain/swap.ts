/**
 * Swaps through the UniversalRouter (inputs pulled through Permit2). The route follows the
 * token pool's paired currency (docs/design.md §5.4): the paired currency itself is one v4 hop; the
 * other of USDC/WETH first crosses the v3 USDC/WETH pool, both hops in one atomic `execute`.
 *
 * Every swap the service signs is planned here, from one quoting path: a fresh quote at
 * planning time, just before the intent is recorded (every route is quoted by running it on
 * the latest block: `quoteRoute` for a route ending in a v4 hop, `quoteRouteByBalance` for a
 * lone v3 hop), a minimum output `SWAP_SLIPPAGE_BPS` below that quote, and
 * a deadline `SWAP_DEADLINE_SECONDS` after the chain's latest block. A swap the market moved
 * beyond the bound reverts (or is refused at simulation) instead of filling at a worse price;
 * an intent signed earlier keeps its bytes, so only newly planned swaps are quoted.
 */
import { type Address, type Hex, type PublicClient, type TransactionReceipt, decodeErrorResult, encodeAbiParameters, encodeFunctionData, erc20Abi, getAddress, parseEventLogs } from "viem";
import { knownErrorsAbi } from "../../common/abis/errors.js";
import type { Config } from "../../common/config.js";
import { type PoolKey, quoteAtSqrtPrice } from "../../common/uniswap.js";
import type { EngineContext } from "../context.js";
import { FEE_PIPS, minimumOut, priceImpactBps } from "../../common/quote.js";
import { EngineError, classifyError, decodeRevert, revertDataOf } from "../errors.js";
import { tokenInfo } from "../tokens.js";
import { ensureRouterAllowance } from "./erc20.js";
import type { TxOutcome } from "./pipeline.js";
import { readV3PoolState, readV4PoolState } from "./pool-state.js";
import { ADDRESS_THIS, CONTRACT_BALANCE, type RouterStep, UNIVERSAL_ROUTER_ABI, routerPlan, v3ExactIn, v4ExactInSingle } from "../../common/universal-router.js";

/** The v4 fee flag of dynamic-fee pools (Clanker hooks); the fee is then in slot0. */
const DYNAMIC_FEE_FLAG = 0x800000;
/** UniversalRouter WRAP_ETH command. */
const WRAP_ETH = 0x0b;
/** The last hop's minimum while quoting: more than any pool can pay, so the router reports what it would. */
const QUOTE_PROBE_MIN = 2n ** 128n - 1n;

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

/** A v3 hop of `amountIn` of `tokenIn` through `pool`: what it buys, the pool's fee, and its output at the spot price (after the fee). */
export async function quoteV3Hop(client: PublicClient, pool: Address, tokenIn: Address, amountIn: bigint) {
  const state = await readV3PoolState(client, pool);
  const zeroForOne = getAddress(tokenIn) === getAddress(state.token0);
  if (!zeroForOne && getAddress(tokenIn) !== getAddress(state.token1)) throw new EngineError(`pool ${pool} does not trade ${tokenIn}`, { code: "unknown", retryable: false });
  const tokenOut = zeroForOne ? state.token1 : state.token0;
  return { tokenOut: getAddress(tokenOut), fee: state.fee, spotOut: spotOut(amountIn, state.sqrtPriceX96, zeroForOne, state.fee) };
}

/** Output at the pool's spot price after its fee (no price impact): the reference of `impactBps`. */
function spotOut(amountIn: bigint, sqrtPriceX96: bigint, zeroForOne: boolean, feePips: number): bigint {
  return quoteAtSqrtPrice((amountIn * (FEE_PIPS - BigInt(feePips))) / FEE_PIPS, sqrtPriceX96, zeroForOne);
}

/** The fee and spot-price output of a v4 hop through `key` from its current state. */
async function spotV4Hop(client: PublicClient, poolManager: Address, key: PoolKey, currencyIn: Address, amountIn: bigint) {
  const state = await readV4PoolState(client, poolManager, key);
  const zeroForOne = getAddress(currencyIn) === getAddress(key.currency0);
  const feePips = key.fee === DYNAMIC_FEE_FLAG ? state.lpFee : key.fee;
  return { zeroForOne, spotOut: spotOut(amountIn, state.sqrtPriceX96, zeroForOne, feePips) };
}

/** Every error in revert data, outermost first (the router wraps a failed command in `ExecutionFailed`). */
function revertChain(data: Hex): { errorName: string; args: readonly unknown[] }[] {
  try {
    const decoded = decodeErrorResult({ abi: knownErrorsAbi, data });
    const here = { errorName: decoded.errorName as string, args: (decoded.args ?? []) as readonly unknown[] };
    return decoded.errorName === "ExecutionFailed" ? [here, ...revertChain(decoded.args![1] as Hex)] : [here];
  } catch {
    return [];
  }
}

/**
 * A fresh quote of a route ending in a v4 hop, by running it: the exact `execute` the
 * service would sign, as an `eth_call` from the payer on the latest block, with the last
 * hop's minimum at its maximum. The router refuses with `V4TooLittleReceived(min, received)`,
 * and `received` is the output through every pool's current liquidity, ticks crossed and fees
 * included — what Uniswap's quoters do, through the contracts that will execute the swap.
 */
export async function quoteRoute(
  client: PublicClient,
  p: { from: Address; to: Address; value?: bigint; deadline: bigint; build: (finalMinOut: bigint) => { commands: Hex; inputs: Hex[] } },
): Promise<bigint> {
  const { commands, inputs } = p.build(QUOTE_PROBE_MIN);
  try {
    await client.call({ account: p.from, to: p.to, value: p.value, data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, functionName: "execute", args: [commands, inputs, p.deadline] }) });
  } catch (error) {
    const data = revertDataOf(error);
    const chain = data ? revertChain(data) : [];
    const tooLittle = chain.find((e) => e.errorName === "V4TooLittleReceived");
    if (tooLittle) return tooLittle.args[1] as bigint;
    const reason = data ? decodeRevert(data) : classifyError(error).message;
    throw new EngineError(`swap quote failed: ${reason}`, { code: data ? "revert" : classifyError(error).code, retryable: !data, cause: error });
  }
  throw new EngineError("swap quote failed: the route filled an impossible minimum", { code: "unknown", retryable: false });
}

/**
 * Plans `amountIn` of `currencyIn` (USDC or WETH) into a launcher token: one v4 hop when
 * `currencyIn` is the pool's paired currency, else v3 `currencyIn → paired` then v4. The
 * route is quoted by running it (`quoteRoute`); its output must reach the quote less the
 * slippage bound. (An inner hop needs no bound of its own: the route is one atomic call.)
 */
export async function planSwapToToken(ctx: EngineContext, p: { token: Address; currencyIn: Address; amountIn: bigint; bounds?: SwapBounds }): Promise<SwapPlan> {
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
    first.push(v3ExactIn({ recipient: ADDRESS_THIS, amountIn: p.amountIn, amountOutMin: 0n, path: { tokens: [p.currencyIn, leg.tokenOut], fees: [leg.fee] }, payerIsUser: true }));
    spotIn = leg.spotOut;
    route = "v3+v4";
  }
  const spot = await spotV4Hop(ctx.publicClient, ctx.contract("v4PoolManager"), info.poolKey, info.pairedToken, spotIn);
  const build = (minOut: bigint) =>
    routerPlan([...first, v4ExactInSingle({ poolKey: info.poolKey, zeroForOne: spot.zeroForOne, amountIn: p.amountIn, amountOutMin: minOut, payerIsUser: route === "v4" })]);
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
  const expectedOut = await (p.quote ?? ((d: bigint) => quoteRoute(client, { from: p.from, to, value: p.value || undefined, deadline: d, build: p.build })))(deadline);
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
 * A fresh quote of a route whose output goes to `recipient`, by running it: the exact
 * `execute` the service would sign (minimum 0), between two reads of the recipient's balance
 * of `tokenOut`, in one `eth_simulateV1` on the latest block. The difference is the output
 * through every pool's current liquidity, ticks crossed and fees included. (A lone v3 hop
 * cannot be quoted by `quoteRoute`: the router's v3 minimum-output error carries no amount.)
 */
export async function quoteRouteByBalance(
  client: PublicClient,
  p: { from: Address; to: Address; tokenOut: Address; recipient: Address; deadline: bigint; build: (finalMinOut: bigint) => { commands: Hex; inputs: Hex[] } },
): Promise<bigint> {
  const { commands, inputs } = p.build(0n);
  const balance = { to: p.tokenOut, data: encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [p.recipient] }) };
  let results;
  try {
    ({ results } = await client.simulateCalls({
      account: p.from,
      calls: [balance, { to: p.to, data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, functionName: "execute", args: [commands, inputs, p.deadline] }) }, balance],
    }));
  } catch (error) {
    throw new EngineError(`swap quote failed: ${classifyError(error).message}`, { code: classifyError(error).code, retryable: true, cause: error });
  }
  const [before, swap, after] = results;
  if (swap?.status !== "success") {
    const data = swap?.data;
    const reason = data && data !== "0x" ? decodeRevert(data) : (swap?.error?.message ?? "the route reverted");
    throw new EngineError(`swap quote failed: ${reason}`, { code: "revert", retryable: false });
  }
  const read = (r: typeof before) => (r?.status === "success" ? BigInt(r.data) : undefined);
  const [was, is] = [read(before), read(after)];
  if (was === undefined || is === undefined) throw new EngineError(`swap quote failed: could not read the balance of ${p.tokenOut}`, { code: "unknown", retryable: true });
  return is - was;
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
    routerPlan([v3ExactIn({ recipient: ctx.operator, amountIn: p.amountIn, amountOutMin: minOut, path: { tokens: [p.tokenIn, leg.tokenOut], fees: [leg.fee] }, payerIsUser: true })]);
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
    quote: (deadline) => quoteRouteByBalance(ctx.publicClient, { from: ctx.operator, to: router, tokenOut: leg.tokenOut, recipient: ctx.operator, deadline, build }),
  });
  if (plan.minOut === 0n) throw new EngineError(`swap quote failed: ${p.amountIn} of ${p.tokenIn} buys nothing in pool ${p.pool}`, { code: "unknown", retryable: false });
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
  },
): Promise<SwapPlan> {
  const c = p.contracts;
  const leg = await quoteV3Hop(client, c.v3WethUsdcPool, c.weth, p.amountInWei);
  if (leg.tokenOut !== getAddress(c.usdc)) throw new EngineError(`pool ${c.v3WethUsdcPool} does not trade WETH for USDC`, { code: "unknown", retryable: false });
  const spot = await spotV4Hop(client, c.v4PoolManager, p.poolKey, c.usdc, leg.spotOut);
  const wrap: RouterStep = { command: WRAP_ETH, input: encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [ADDRESS_THIS, p.amountInWei]) };
  const build = (minOut: bigint) =>
    routerPlan([
      wrap,
      v3ExactIn({ recipient: ADDRESS_THIS, amountIn: CONTRACT_BALANCE, amountOutMin: 0n, path: { tokens: [c.weth, c.usdc], fees: [leg.fee] }, payerIsUser: false }),
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
    ctx.log.info(
      { key: p.key, route: plan.route, amountIn: String(plan.amountIn), expectedOut: String(plan.expectedOut), minOut: String(plan.minOut), impactBps: plan.impactBps, deadline: Number(plan.deadline) },
      "swap planned",
    );
  }
  let outcome = await ctx.pipeline.send({ key: p.key, kind: "swap", worker: p.worker, to: existing?.to ?? plan!.to, data: existing?.data ?? plan!.data });
  if (outcome.status === "reverted") outcome = { ...outcome, reason: await swapRevertReason(ctx.publicClient, outcome.intent, outcome.receipt, outcome.reason) };
  else if (outcome.status === "failed") outcome = { ...outcome, reason: explainSwapBound(outcome.reason) };
  const amountOut = outcome.status === "mined" ? receivedInReceipt(outcome.receipt, p.tokenOut, ctx.operator) : 0n;
  return { outcome, amountOut, plan };
}

/**
 * Why a swap reverted onchain. The pipeline replays a reverted call on the parent block; a
 * swap undercut by a trade earlier in its own block passes there, so it is replayed on its
 * block's final state, where that trade has moved the pool. A minimum-output revert says so.
 */
export async function swapRevertReason(
  client: PublicClient,
  intent: { signer: Address | null; to: Address; data: Hex; value: bigint },
  receipt: TransactionReceipt,
  reason: string,
): Promise<string> {
  let decoded = reason;
  if (/not reproducible/.test(reason)) {
    try {
      await client.call({ account: intent.signer ?? undefined, to: intent.to, data: intent.data, value: intent.value, blockNumber: receipt.blockNumber });
    } catch (error) {
      const data = revertDataOf(error);
      if (data) decoded = decodeRevert(data);
    }
  }
  return explainSwapBound(decoded);
}

/** A revert reason, saying so when it is the swap's minimum output (or deadline) that refused it. */
export function explainSwapBound(reason: string): string {
  if (/TooLittleReceived/.test(reason)) return `${reason}: the price moved beyond the slippage bound`;
  if (/DeadlinePassed/.test(reason)) return `${reason}: the swap's deadline passed before it was mined`;
  return reason;
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
