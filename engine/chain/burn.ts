/** `burnTokens`: the operator's full balance of a token to 0x…dEaD (a transfer, not a burn opcode). */
import { type Address, encodeFunctionData, erc20Abi } from "viem";
import { DEAD_ADDRESS } from "../../common/constants.js";
import type { EngineContext } from "../../core/context.js";
import { balanceOf, sentInReceipt } from "../../core/chain/erc20.js";
import type { TxOutcome } from "../../core/chain/pipeline/index.js";

export type BurnResult = { outcome: TxOutcome | undefined; burned: bigint };

/**
 * Transfers the operator's whole balance of `token` to the dead address as the intent `key`.
 * The amount is fixed when the intent is created; a resumed burn sends the same transfer.
 * Nothing to burn (zero balance, no intent yet) returns `burned: 0` without a transaction.
 */
export async function burnTokens(ctx: EngineContext, p: { key: string; worker: string; token: Address }): Promise<BurnResult> {
  let existing = await ctx.pipeline.get(p.key);
  if (!existing) {
    const amount = await balanceOf(ctx, p.token, ctx.operator);
    if (amount === 0n) return { outcome: undefined, burned: 0n };
    existing = undefined;
    const outcome = await ctx.pipeline.send({
      key: p.key,
      kind: "burn",
      worker: p.worker,
      to: p.token,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [DEAD_ADDRESS, amount] }),
    });
    return { outcome, burned: outcome.status === "mined" ? sentInReceipt(outcome.receipt, p.token, ctx.operator, DEAD_ADDRESS) : 0n };
  }
  const outcome = await ctx.pipeline.send({ key: p.key, kind: "burn", worker: p.worker, to: existing.to, data: existing.data });
  return { outcome, burned: outcome.status === "mined" ? sentInReceipt(outcome.receipt, p.token, ctx.operator, DEAD_ADDRESS) : 0n };
}
