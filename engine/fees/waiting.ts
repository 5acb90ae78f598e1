/**
 * Which enrolled tokens have LP fees waiting in their pool (docs/design.md §6, fee-claimer).
 *
 * Every swap of a v4 pool that pays an LP fee raises the pool's `feeGrowthGlobal0X128` or
 * `feeGrowthGlobal1X128`. Clanker's hook collects on every swap, one swap late (the fees of
 * the swaps before it), so after a pool's last swap its fees always wait in the pool until the
 * next swap or a `collectRewards`. A token therefore has fees waiting exactly when its pool's
 * fee growth moved since the engine last collected it: the growth read before a mined collect
 * is remembered per token (`engine.state`, key `fee-growth:<token>`), and a pool that never
 * paid a fee (growth 0) has nothing to collect. A collect by someone else after the last swap
 * only makes the engine's next collect an empty one.
 *
 * The growths of every pool are read in a few `extsload(bytes32[])` calls to the PoolManager
 * (two storage words per pool), and the remembered ones in one query.
 */
import { sql } from "drizzle-orm";
import { type Address, type Hex, hexToBigInt } from "viem";
import { extsloadSlotsAbi } from "../../common/abis/engine.js";
import type { EngineContext } from "../../core/context.js";
import type { Queryable } from "../../core/db/client.js";
import { v4PoolStateSlot } from "../../common/uniswap.js";
import type { TokenInfo } from "../../core/registry-cache.js";

/** Pools per `extsload` request (two words each: 64 KB of calldata). */
const POOLS_PER_READ = 1_000;

export const FEE_GROWTH_KEY = (token: Address) => `fee-growth:${token}`;

/** A pool's fee growth as one comparable string: `growth0:growth1` (hex). */
export type FeeGrowth = string;
const NO_FEES: FeeGrowth = "0:0";

const plus = (slot: Hex, n: bigint): Hex => `0x${(hexToBigInt(slot) + n).toString(16).padStart(64, "0")}`;

/** The fee growth of each token's pool, read from the PoolManager. */
export async function readFeeGrowth(ctx: EngineContext, tokens: readonly TokenInfo[]): Promise<Map<Address, FeeGrowth>> {
  const out = new Map<Address, FeeGrowth>();
  const manager = ctx.contract("v4PoolManager");
  for (let i = 0; i < tokens.length; i += POOLS_PER_READ) {
    const chunk = tokens.slice(i, i + POOLS_PER_READ);
    const slots = chunk.flatMap((t) => {
      const state = v4PoolStateSlot(t.poolKey);
      return [plus(state, 1n), plus(state, 2n)];
    });
    const words = await ctx.publicClient.readContract({ address: manager, abi: extsloadSlotsAbi, functionName: "extsload", args: [slots] });
    for (const [n, t] of chunk.entries()) out.set(t.token, `${hexToBigInt(words[2 * n]!).toString(16)}:${hexToBigInt(words[2 * n + 1]!).toString(16)}`);
  }
  return out;
}

/** The growth remembered at each token's last collect by the engine. */
export async function collectedFeeGrowth(q: Queryable): Promise<Map<Address, FeeGrowth>> {
  const { rows } = await q.execute<{ key: string; growth: string }>(
    sql`SELECT key, value->>'growth' AS growth FROM engine.state WHERE key LIKE 'fee-growth:%'`,
  );
  return new Map(rows.map((r) => [r.key.slice("fee-growth:".length) as Address, r.growth]));
}

/** Remembers the growth read before a mined collect of `token`. */
export async function rememberCollected(q: Queryable, token: Address, growth: FeeGrowth): Promise<void> {
  await q.execute(
    sql`INSERT INTO engine.state (key, value, updated_at) VALUES (${FEE_GROWTH_KEY(token)}, ${JSON.stringify({ growth })}::jsonb, now())
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
  );
}

/** The tokens of `tokens` whose pool has fees waiting, with the growth just read, in the given order. */
export async function tokensWithFeesWaiting(
  ctx: EngineContext,
  tokens: readonly TokenInfo[],
): Promise<{ waiting: TokenInfo[]; growth: Map<Address, FeeGrowth> }> {
  const growth = await readFeeGrowth(ctx, tokens);
  const collected = await collectedFeeGrowth(ctx.db);
  const waiting = tokens.filter((t) => {
    const now = growth.get(t.token)!;
    return now !== NO_FEES && now !== collected.get(t.token);
  });
  return { waiting, growth };
}
