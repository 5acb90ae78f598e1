/**
 * Quoting a swap: the spot price of each hop (the reference of the price impact), and a fresh
 * quote of a whole route by running it on the latest block, through the contracts that will
 * execute it: `quoteRoute` for a route ending in a v4 hop, `quoteRouteByBalance` for a lone
 * v3 hop.
 */
import { assertSniperAuctionOver } from "../auction.js";
import { type Address, type Hex, type PublicClient, decodeErrorResult, encodeFunctionData, erc20Abi, getAddress } from "viem";
import { knownErrorsAbi } from "../../../common/abis/errors.js";
import { FEE_PIPS } from "../../../common/quote.js";
import { type PoolKey, quoteAtSqrtPrice } from "../../../common/uniswap.js";
import { UNIVERSAL_ROUTER_ABI } from "../../../common/universal-router.js";
import { EngineError, classifyError, decodeRevert, revertDataOf } from "../../errors.js";
import { readV3PoolState, readV4PoolState } from "../pool-state.js";

/** The v4 fee flag of dynamic-fee pools (Clanker hooks); the fee is then in slot0. */
const DYNAMIC_FEE_FLAG = 0x800000;
/** The last hop's minimum while quoting: more than any pool can pay, so the router reports what it would. */
const QUOTE_PROBE_MIN = 2n ** 128n - 1n;

/** A v3 hop of `amountIn` of `tokenIn` through `pool`: what it buys, the pool's fee, and its output at the spot price (after the fee). */
export async function quoteV3Hop(client: PublicClient, pool: Address, tokenIn: Address, amountIn: bigint) {
  const state = await readV3PoolState(client, pool);
  const zeroForOne = getAddress(tokenIn) === getAddress(state.token0);
  if (!zeroForOne && getAddress(tokenIn) !== getAddress(state.token1))
    throw new EngineError(`pool ${pool} does not trade ${tokenIn}`, { code: "unknown", retryable: false });
  const tokenOut = zeroForOne ? state.token1 : state.token0;
  return { tokenOut: getAddress(tokenOut), fee: state.fee, spotOut: spotOut(amountIn, state.sqrtPriceX96, zeroForOne, state.fee) };
}

/** Output at the pool's spot price after its fee (no price impact): the reference of `impactBps`. */
function spotOut(amountIn: bigint, sqrtPriceX96: bigint, zeroForOne: boolean, feePips: number): bigint {
  return quoteAtSqrtPrice((amountIn * (FEE_PIPS - BigInt(feePips))) / FEE_PIPS, sqrtPriceX96, zeroForOne);
}

/**
 * The fee and spot-price output of a v4 hop through `key` from its current state. Refuses
 * (retryable) while the pool's sniper auction or decaying fee runs: no swap goes into them.
 */
export async function spotV4Hop(client: PublicClient, poolManager: Address, key: PoolKey, currencyIn: Address, amountIn: bigint, secondsToDecay: number) {
  await assertSniperAuctionOver(client, key, secondsToDecay);
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
    await client.call({
      account: p.from,
      to: p.to,
      value: p.value,
      data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, functionName: "execute", args: [commands, inputs, p.deadline] }),
    });
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
      calls: [
        balance,
        { to: p.to, data: encodeFunctionData({ abi: UNIVERSAL_ROUTER_ABI, functionName: "execute", args: [commands, inputs, p.deadline] }) },
        balance,
      ],
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
  if (was === undefined || is === undefined)
    throw new EngineError(`swap quote failed: could not read the balance of ${p.tokenOut}`, { code: "unknown", retryable: true });
  return is - was;
}
