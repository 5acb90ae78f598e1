/**
 * The Clanker V2 hooks' protocol fee as production takes it (clanker-v4-real.md items 5-6), for
 * tests: p = 20% of the swap's LP fee (pips); an exact-input buy pays amountIn·p/(1e6+p) and an
 * exact-output sell amountOut·p/(1e6−p), each through a rate scaled by 1e18 and rounded down
 * twice as the hook computes it; the other two kinds pay amount·p/1e6 of the paired side the pool
 * moved. The hook mints itself PoolManager ERC-6909 claims for each fee and pays them to the
 * factory at the start of a later swap.
 */
import { type Address, type Log, parseAbi, parseEventLogs, zeroAddress } from "viem";

const SCALE = 10n ** 18n;
const PIPS = 1_000_000n;

/** p: the protocol fee rate of a swap that pays `lpFee` pips. */
export const protocolRate = (lpFee: number | bigint) => (BigInt(lpFee) * 200_000n) / PIPS;

/** The protocol fee of an exact-input buy of `amountIn` paired base units. */
export function exactInBuyProtocolFee(amountIn: bigint, lpFee: number | bigint): bigint {
  const p = protocolRate(lpFee);
  return (amountIn * ((p * SCALE) / (PIPS + p))) / SCALE;
}

/** The protocol fee of an exact-output sell of `amountOut` paired base units. */
export function exactOutSellProtocolFee(amountOut: bigint, lpFee: number | bigint): bigint {
  const p = protocolRate(lpFee);
  return (amountOut * ((p * SCALE) / (PIPS - p))) / SCALE;
}

/** The protocol fee of an exact-input sell or an exact-output buy that moved `paired` base units of the paired token. */
export const afterSwapProtocolFee = (paired: bigint, lpFee: number | bigint) => (paired * protocolRate(lpFee)) / PIPS;

const claimsAbi = parseAbi(["event Transfer(address caller, address indexed from, address indexed to, uint256 indexed id, uint256 amount)"]);

/** The claims of `currency` the PoolManager minted to `hook` in a receipt's logs, in order. */
export function protocolFeeMints(logs: readonly Log[], poolManager: Address, hook: Address, currency: Address): bigint[] {
  return parseEventLogs({ abi: claimsAbi, eventName: "Transfer", logs: logs.filter((l) => l.address.toLowerCase() === poolManager.toLowerCase()) })
    .filter((l) => l.args.from === zeroAddress && l.args.to.toLowerCase() === hook.toLowerCase() && l.args.id === BigInt(currency))
    .map((l) => l.args.amount);
}
