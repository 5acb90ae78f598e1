/**
 * What "ours" means, in one place (docs/design.md §4.6). On Base the launcher, the lockers and
 * the v4 PoolManager serve everyone; the indexer, the engine's log scans and every figure
 * follow only our tokens:
 *
 *   1. the protocol token (configured: `PROTOCOL_TOKEN_ADDRESS`);
 *   2. tokens our flows launched: every flow of ours (the operator's launch route, agent
 *      wallets, the protocol token) names the operator among the launch's LP reward
 *      recipients, so a launch is ours when its `TokenRewardAdded` pays the operator. Agent
 *      wallets are created at run time and cannot be listed in a static filter; the reward
 *      slots are in the launch itself;
 *   3. tokens enrolled in our registry (from their enrolment on, when not ours at launch).
 *
 * Everything else (strangers' launches through the same launcher, other v4 pools) is foreign:
 * no row, no figure. Pure functions; the indexer and the engine apply them to what they know.
 */
import type { Address } from "viem";

export type OursContext = {
  /** The operator wallet (lowercase or checksummed); without one, only the protocol token and enrolled tokens are ours. */
  operator: Address | string | undefined;
  protocolToken: Address | string | undefined;
};

const same = (a: string | undefined | null, b: string | undefined | null) => !!a && !!b && a.toLowerCase() === b.toLowerCase();

/** Whether a launch is ours from its first block: the protocol token, or a launch whose reward recipients include the operator. */
export function isOurLaunch(ctx: OursContext, launch: { token: string; rewardRecipients: readonly string[] }): boolean {
  if (same(launch.token, ctx.protocolToken)) return true;
  return launch.rewardRecipients.some((r) => same(r, ctx.operator));
}

/** Whether a token is ours: launched as ours (see `isOurLaunch`), or enrolled in the registry. */
export function isOurToken(ctx: OursContext, t: { token: string; rewardRecipients: readonly string[]; enrolled: boolean }): boolean {
  return t.enrolled || isOurLaunch(ctx, t);
}
