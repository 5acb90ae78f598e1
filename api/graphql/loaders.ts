/**
 * Per-request batching (dataloaders), so a page of burns with their tokens is two queries,
 * not 1 + N, and engine state is read once per request.
 */
import DataLoader from "dataloader";
import { type Address, type Hex, getAddress } from "viem";
import type { ApiDeps } from "../deps.js";
import { NO_TOKEN_PENDING, type TokenPending } from "../engine-port.js";
import { type DeskContext, type DeskView, deskContext, latestDeskByToken } from "../read/desks.js";
import { type CurrencyInfo, type FeeCurrencyView, type BuybackSpendView, currencyInfos, tokenBuybackSpends, tokenFeeCurrencies } from "../read/fees.js";
import { type RewardSlotRow, type TokenView, getTokens, rewardSlotsOf } from "../read/tokens.js";
import { type BurnValue, burnValues, poolVolumes } from "../read/market.js";
import { agentsOfTokens } from "../read/agents.js";
import type { AgentView } from "../views/agent.js";
import { type ActivityRow, withDeskTokens } from "../read/activity.js";

export type Loaders = {
  token: DataLoader<Hex, TokenView | null>;
  /** A token's fees per currency, and its buybacks per currency paid in. */
  tokenFees: DataLoader<Hex, FeeCurrencyView[]>;
  tokenSpend: DataLoader<Hex, BuybackSpendView[]>;
  /** A token's LP-locker reward slots, by index. */
  rewardSlots: DataLoader<Hex, RewardSlotRow[]>;
  /** A currency's address, symbol and decimals. */
  currency: DataLoader<Hex, CurrencyInfo>;
  latestDesk: DataLoader<Address, DeskView | null>;
  agentByToken: DataLoader<Address, AgentView | null>;
  /** A burn's value at the price of its moment, by burn id. */
  burnValue: DataLoader<string, BurnValue | null>;
  /** A pool's USDC volume, by pool id. */
  poolVolume: DataLoader<Hex, { volumeUsdc: bigint; unpricedSwaps: number } | null>;
  deskContext: () => Promise<DeskContext>;
  /** An activity row's token, a desk row's the engine's (read/activity.ts `withDeskTokens`), lowercase; null when none. */
  activityToken: DataLoader<ActivityRow, Hex | null, string>;
  tokenPending: DataLoader<Hex, TokenPending>;
};

const once = <T>(fn: () => Promise<T>) => {
  let value: Promise<T> | undefined;
  return () => (value ??= fn());
};

export function createLoaders(deps: ApiDeps): Loaders {
  const ctx = once(() => deskContext(deps.db, deps.engine, deps.config.perpsVenue));
  return {
    token: new DataLoader(async (keys) => {
      const rows = await getTokens(deps.db, keys);
      const byAddress = new Map(rows.map((r) => [r.token.address.toLowerCase(), r]));
      return keys.map((k) => byAddress.get(k.toLowerCase()) ?? null);
    }),
    latestDesk: new DataLoader(async (keys) => {
      const desks = await latestDeskByToken(deps.db, await ctx(), keys);
      return keys.map((k) => desks.get(getAddress(k)) ?? null);
    }),
    tokenFees: new DataLoader(async (keys) => {
      const fees = await tokenFeeCurrencies(deps.db, deps.config, keys);
      return keys.map((k) => fees.get(k.toLowerCase()) ?? []);
    }),
    tokenSpend: new DataLoader(async (keys) => {
      const spend = await tokenBuybackSpends(deps.db, deps.config, keys);
      return keys.map((k) => spend.get(k.toLowerCase()) ?? []);
    }),
    rewardSlots: new DataLoader(async (keys) => {
      const slots = await rewardSlotsOf(deps.db, keys);
      return keys.map((k) => slots.get(k.toLowerCase()) ?? []);
    }),
    currency: new DataLoader(async (keys) => {
      const infos = await currencyInfos(deps.db, deps.config, keys);
      return keys.map((k) => infos.get(k.toLowerCase())!);
    }),
    agentByToken: new DataLoader((keys) => agentsOfTokens(deps.agents, keys)),
    burnValue: new DataLoader(async (ids) => {
      const values = await burnValues(
        deps.db,
        ids.map((id) => ({ id })),
      );
      return ids.map((id) => values.get(id) ?? null);
    }),
    poolVolume: new DataLoader(async (ids) => {
      const volumes = await poolVolumes(deps.db, ids);
      return ids.map((id) => volumes.get(id.toLowerCase()) ?? null);
    }),
    deskContext: ctx,
    activityToken: new DataLoader(async (rows) => (await withDeskTokens(deps.db, deps.engine, [...rows])).map((r) => r.token), { cacheKeyFn: (r) => r.id }),
    tokenPending: new DataLoader(async (keys) => {
      const pending = await deps.engine.tokenPending(keys);
      return keys.map((k) => pending.get(k.toLowerCase()) ?? NO_TOKEN_PENDING);
    }),
  };
}
