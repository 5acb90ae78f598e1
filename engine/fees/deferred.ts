/**
 * Collections deferred because their conversion would yield nothing.
 *
 * The LP locker's `collectRewards` converts what its recipients want in the other currency
 * through the UniversalRouter with a minimum output of 1. After a sell, the hook's per-swap
 * collection leaves the pool only the last swap's fee in the launched token; when that is dust
 * (worth less than a USDC base unit) the conversion yields 0 and the whole `collectRewards`
 * reverts `V4TooLittleReceived(1, 0)`, as it does on Base. Such a collect is simulated first
 * and not sent: the token's fees stay waiting in its pool (none is lost: the pool's next swap
 * collects them inside the swap, where no minimum applies, and the next cycle collects again
 * once more fees accrued), the fee locker's balances are still claimed, and the deferral is
 * kept under `engine.state` (`fee-collections`) for `/health` and logged.
 */
import { type Address, encodeFunctionData, getAddress } from "viem";
import { clankerLpLockerAbi } from "../../common/abis/clanker.js";
import type { EngineContext } from "../../core/context.js";
import type { Queryable } from "../../core/db/client.js";
import { RevertError, classifyError } from "../../core/errors.js";
import { getState, setState } from "../runtime/state.js";

export const DEFERRED_KEY = "fee-collections";

/** A conversion that received nothing against a minimum (`V4TooLittleReceived(min, 0)`), however wrapped. */
const YIELDS_NOTHING = /V4TooLittleReceived\(\d+, 0\)/;

export function conversionYieldsNothing(reason: string | null | undefined): boolean {
  return !!reason && YIELDS_NOTHING.test(reason);
}

export type DeferredCollection = { token: Address; reason: string; since: string; attempts: number };
export type DeferredCollections = { deferred: DeferredCollection[]; updatedAt: string };

export const deferralReason = (revert: string) =>
  `collection deferred: converting the pool's token-side dust would yield nothing (${revert}); its fees stay in the pool for the next swap's collection or a later cycle, and the fee locker's balances are still claimed`;

/**
 * Simulates the operator's `collectRewards(token)`: the revert reason when its conversion would
 * yield nothing, else undefined (a collect that would go through, or fail for another reason the
 * pipeline records as it always has).
 */
export async function collectYieldsNothing(ctx: EngineContext, token: Address): Promise<string | undefined> {
  try {
    await ctx.publicClient.call({
      account: ctx.operator,
      to: ctx.contract("lpLocker"),
      data: encodeFunctionData({ abi: clankerLpLockerAbi, functionName: "collectRewards", args: [token] }),
    });
    return undefined;
  } catch (error) {
    const e = classifyError(error);
    if (e instanceof RevertError && conversionYieldsNothing(e.reason)) return e.reason;
    return undefined;
  }
}

export async function readDeferred(q: Queryable): Promise<DeferredCollection[]> {
  return (await getState<DeferredCollections>(q, DEFERRED_KEY))?.deferred ?? [];
}

/**
 * Stores the deferrals after a cycle: the batch's tokens as this cycle left them (`now`: those
 * deferred again or newly), the others kept while their fees still wait (`stillWaiting`, when
 * this cycle read it).
 */
export async function storeDeferred(
  q: Queryable,
  previous: DeferredCollection[],
  batch: readonly Address[],
  now: { token: Address; reason: string }[],
  stillWaiting?: ReadonlySet<Address>,
): Promise<DeferredCollection[]> {
  const inBatch = new Set(batch.map((t) => getAddress(t)));
  const before = new Map(previous.map((d) => [getAddress(d.token), d]));
  const at = new Date().toISOString();
  const kept = previous.filter((d) => !inBatch.has(getAddress(d.token)) && (!stillWaiting || stillWaiting.has(getAddress(d.token))));
  const fresh = now.map(({ token, reason }) => {
    const was = before.get(getAddress(token));
    return { token: getAddress(token), reason, since: was?.since ?? at, attempts: (was?.attempts ?? 0) + 1 };
  });
  const deferred = [...kept, ...fresh];
  if (deferred.length || previous.length) await setState(q, DEFERRED_KEY, { deferred, updatedAt: at } satisfies DeferredCollections);
  return deferred;
}
