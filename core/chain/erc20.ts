/** ERC20 reads, transfers read from receipts, and the approvals the engine needs (ERC20 allowances, Permit2 → UniversalRouter). */
import { and, count, eq, like } from "drizzle-orm";
import { type Address, type TransactionReceipt, encodeFunctionData, erc20Abi, getAddress, maxUint48, maxUint160, maxUint256, parseEventLogs } from "viem";
import { permit2AllowanceAbi } from "../../common/abis/engine.js";
import type { EngineContext } from "../context.js";
import { tables } from "../db/client.js";
import { EngineError } from "../errors.js";

/** Below this allowance an approval is renewed. */
const ALLOWANCE_FLOOR = 2n ** 128n;

export function balanceOf(ctx: Pick<EngineContext, "publicClient">, token: Address, owner: Address, blockNumber?: bigint): Promise<bigint> {
  return ctx.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner], blockNumber });
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

async function approvalKey(ctx: EngineContext, prefix: string): Promise<string> {
  // A new generation per mined approval, so a later renewal gets a fresh key while
  // concurrent callers needing the same approval share one intent.
  const { txIntents } = tables;
  const [row] = await ctx.db
    .select({ n: count() })
    .from(txIntents)
    .where(and(like(txIntents.key, `${prefix}:%`), eq(txIntents.status, "mined")));
  return `${prefix}:${row!.n + 1}`;
}

/** Ensures `spender` may pull `token` from the operator (ERC20 `approve(max)` when low). */
export async function ensureAllowance(ctx: EngineContext, token: Address, spender: Address, worker: string): Promise<void> {
  const allowance = await ctx.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "allowance", args: [ctx.operator, spender] });
  if (allowance >= ALLOWANCE_FLOOR) return;
  const key = await approvalKey(ctx, `approve:${token}:${spender}`);
  const outcome = await ctx.pipeline.send({
    key,
    kind: "approve",
    worker,
    to: token,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
  });
  if (outcome.status !== "mined")
    throw new EngineError(`approve ${token} for ${spender} failed: ${"reason" in outcome ? outcome.reason : ""}`, { code: "revert", retryable: false });
}

/** Ensures the UniversalRouter may pull `token` through Permit2 (ERC20 → Permit2, then Permit2 → router). */
export async function ensureRouterAllowance(ctx: EngineContext, token: Address, worker: string): Promise<void> {
  const permit2 = ctx.contract("permit2");
  const router = ctx.contract("universalRouter");
  await ensureAllowance(ctx, token, permit2, worker);
  const [amount, expiration] = await ctx.publicClient.readContract({
    address: permit2,
    abi: permit2AllowanceAbi,
    functionName: "allowance",
    args: [ctx.operator, token, router],
  });
  const block = await ctx.publicClient.getBlock();
  if (amount >= ALLOWANCE_FLOOR && BigInt(expiration) > block.timestamp + 86_400n) return;
  const key = await approvalKey(ctx, `permit2:${token}:${router}`);
  const outcome = await ctx.pipeline.send({
    key,
    kind: "approve",
    worker,
    to: permit2,
    data: encodeFunctionData({ abi: permit2AllowanceAbi, functionName: "approve", args: [token, router, maxUint160, Number(maxUint48)] }),
  });
  if (outcome.status !== "mined") throw new EngineError(`Permit2 approval of ${token} failed`, { code: "revert", retryable: false });
}
