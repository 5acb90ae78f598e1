/**
 * Why a mined transaction reverted. Out of gas is told apart from a revert: the receipt's gas
 * used equals its limit when the top call ran out, and a call trace (where the node offers
 * `debug_traceTransaction`) names an inner call that ran out, as a fee conversion inside the
 * locker's `collectRewards` does when the swap crosses more ticks than the estimate saw.
 */
import type { Address, Hex, PublicClient, TransactionReceipt } from "viem";
import { decodeRevert } from "../errors.js";

/** The revert reason recorded for an out-of-gas transaction starts with this. */
export const OUT_OF_GAS = "out of gas";

export type RevertCause = { outOfGas: boolean; reason: string };

/** One frame of geth's `callTracer` output (anvil, geth, reth and most providers' debug APIs). */
type CallFrame = { to?: Address; error?: string; revertReason?: string; output?: Hex; calls?: CallFrame[] };

/** The deepest failed frame of a trace: where the failure started. */
function deepestFailure(frame: CallFrame): CallFrame | undefined {
  if (!frame.error) return undefined;
  for (const call of frame.calls ?? []) {
    const inner = deepestFailure(call);
    if (inner) return inner;
  }
  return frame;
}

function findOutOfGas(frame: CallFrame): CallFrame | undefined {
  if (frame.error && /out of gas/i.test(frame.error)) return frame;
  for (const call of frame.calls ?? []) {
    const found = findOutOfGas(call);
    if (found) return found;
  }
  return undefined;
}

/** The trace's account of a failed transaction, or undefined when the node has no debug API. */
export async function traceFailure(client: PublicClient, hash: Hex): Promise<{ outOfGasIn?: Address | "the top call"; reason?: string } | undefined> {
  let trace: CallFrame;
  try {
    trace = (await client.request({
      method: "debug_traceTransaction" as never,
      params: [hash, { tracer: "callTracer" }] as never,
    })) as CallFrame;
  } catch {
    return undefined;
  }
  if (!trace || typeof trace !== "object") return undefined;
  const starved = findOutOfGas(trace);
  if (starved) return { outOfGasIn: starved === trace ? "the top call" : (starved.to ?? "the top call") };
  const failed = deepestFailure(trace);
  if (!failed) return {};
  const reason = failed.revertReason ?? (failed.output && failed.output !== "0x" ? decodeRevert(failed.output) : failed.error);
  return { reason };
}

/**
 * Out of gas by the receipt alone: the whole limit was used. (A call that ran out inside a
 * subcall leaves 1/64 of the gas to its caller, so only a trace tells that case.)
 */
export function usedWholeLimit(receipt: Pick<TransactionReceipt, "gasUsed">, gasLimit: bigint | null): boolean {
  return gasLimit !== null && receipt.gasUsed >= gasLimit;
}

export function outOfGasReason(gasLimit: bigint | null, gasUsed: bigint, where?: string): string {
  return `${OUT_OF_GAS} at limit ${gasLimit ?? "unknown"} (used ${gasUsed}${where && where !== "the top call" ? `, ran out in a call to ${where}` : ""})`;
}

export function isOutOfGas(revertReason: string | null | undefined): boolean {
  return Boolean(revertReason?.startsWith(OUT_OF_GAS));
}
