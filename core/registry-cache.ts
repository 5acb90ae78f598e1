/**
 * The registry cache: enrolled tokens with their split and flags, and every token's locker
 * configuration (pool key, paired currency, reward recipients). Refreshed from the chain by
 * the fee-claimer; read by every worker.
 */
import { asc, eq, inArray, sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { clankerLpLockerAbi } from "../common/abis/clanker.js";
import { registryAbi } from "../common/abis/registry.js";
import type { PoolKey } from "../common/uniswap.js";
import { readMany } from "./chain/multicall.js";
import type { EngineContext } from "./context.js";
import { type Queryable, tables } from "./db/client.js";

export type TokenInfo = {
  token: Address;
  enrolled: boolean;
  enrolOrder: number | null;
  creator: Address | null;
  assetBps: number;
  perpBps: number;
  creatorBps: number;
  active: boolean;
  halted: boolean;
  pairedToken: Address;
  poolKey: PoolKey;
  rewardRecipients: Address[];
};

type Row = typeof tables.tokens.$inferSelect;

function fromRow(r: Row): TokenInfo {
  return {
    token: r.token as Address,
    enrolled: r.enrolled,
    enrolOrder: r.enrolOrder,
    creator: (r.creator as Address | null) ?? null,
    assetBps: r.assetBps ?? 0,
    perpBps: r.perpBps ?? 0,
    creatorBps: r.creatorBps ?? 0,
    active: r.active,
    halted: r.halted,
    pairedToken: r.pairedToken as Address,
    poolKey: r.poolKey as PoolKey,
    rewardRecipients: (r.rewardRecipients ?? []) as Address[],
  };
}

type LockerInfo = { poolKey: PoolKey; pairedToken: Address; rewardRecipients: Address[] };

function lockerInfoOf(token: Address, info: { poolKey: PoolKey; rewardRecipients: readonly Address[] }): LockerInfo {
  const poolKey: PoolKey = {
    currency0: getAddress(info.poolKey.currency0),
    currency1: getAddress(info.poolKey.currency1),
    fee: info.poolKey.fee,
    tickSpacing: info.poolKey.tickSpacing,
    hooks: getAddress(info.poolKey.hooks),
  };
  const pairedToken = poolKey.currency0 === getAddress(token) ? poolKey.currency1 : poolKey.currency0;
  return { poolKey, pairedToken, rewardRecipients: info.rewardRecipients.map((a) => getAddress(a)) };
}

/** A token's locker configuration read from the LP locker. */
export async function readLockerInfo(ctx: EngineContext, token: Address): Promise<LockerInfo> {
  const info = await ctx.publicClient.readContract({ address: ctx.contract("lpLocker"), abi: clankerLpLockerAbi, functionName: "tokenRewards", args: [token] });
  return lockerInfoOf(token, info as never);
}

/** Rows per statement of the cache's batched upsert (12 parameters a row, far below Postgres' 65,535). */
const UPSERT_ROWS = 1_000;

/**
 * Refreshes the cache from the registry (every enrolled token, its split, active and halted
 * flags) and the locker (pool key and recipients). Returns the enrolled tokens in enrolment order.
 *
 * Three multicalls (`enrolledAt`, `enrollment`, `tokenRewards` of every index), however many
 * tokens are enrolled, and one read of the cache; only rows that changed are written, in
 * batches (docs/design.md §6).
 */
export async function refreshTokenCache(ctx: EngineContext): Promise<TokenInfo[]> {
  const registry = ctx.contract("registry");
  const lpLocker = ctx.contract("lpLocker");
  const count = Number(await ctx.publicClient.readContract({ address: registry, abi: registryAbi, functionName: "enrolledCount" }));
  const indexes = Array.from({ length: count }, (_, i) => BigInt(i));
  const tokens = (
    await readMany<Address>(
      ctx.publicClient,
      indexes.map((i) => ({ address: registry, abi: registryAbi, functionName: "enrolledAt", args: [i] })),
    )
  ).map((t) => getAddress(t));
  const enrollments = await readMany<readonly [Address, number, number, number, number, string, boolean, boolean, bigint]>(
    ctx.publicClient,
    tokens.map((token) => ({ address: registry, abi: registryAbi, functionName: "enrollment", args: [token] })),
  );
  const rewards = await readMany<{ poolKey: PoolKey; rewardRecipients: readonly Address[] }>(
    ctx.publicClient,
    tokens.map((token) => ({ address: lpLocker, abi: clankerLpLockerAbi, functionName: "tokenRewards", args: [token] })),
  );
  const cached = new Map((tokens.length ? await ctx.db.select().from(tables.tokens).where(inArray(tables.tokens.token, tokens)) : []).map((r) => [r.token, r]));
  const changed: (typeof tables.tokens.$inferInsert)[] = [];
  for (const [i, token] of tokens.entries()) {
    const [creator, , assetBps, perpBps, creatorBps, , active, halted] = enrollments[i]!;
    const locker = lockerInfoOf(token, rewards[i]!);
    const values = {
      token,
      enrolled: true,
      enrolOrder: i,
      creator: getAddress(creator),
      assetBps,
      perpBps,
      creatorBps,
      active,
      halted,
      pairedToken: locker.pairedToken,
      poolKey: locker.poolKey,
      rewardRecipients: locker.rewardRecipients,
    };
    const row = cached.get(token);
    const same =
      row?.enrolled &&
      row.enrolOrder === i &&
      row.creator === values.creator &&
      row.assetBps === assetBps &&
      row.perpBps === perpBps &&
      row.creatorBps === creatorBps &&
      row.active === active &&
      row.halted === halted &&
      row.pairedToken === values.pairedToken &&
      samePoolKey(row.poolKey as PoolKey | null, values.poolKey) &&
      JSON.stringify(row.rewardRecipients) === JSON.stringify(values.rewardRecipients);
    if (!same) changed.push({ ...values, updatedAt: new Date() });
  }
  for (let i = 0; i < changed.length; i += UPSERT_ROWS) {
    await ctx.db
      .insert(tables.tokens)
      .values(changed.slice(i, i + UPSERT_ROWS))
      .onConflictDoUpdate({ target: tables.tokens.token, set: upsertSet() });
  }
  return listEnrolledTokens(ctx.db);
}

/** jsonb keeps its own key order: compared field by field. */
function samePoolKey(a: PoolKey | null, b: PoolKey): boolean {
  return !!a && a.currency0 === b.currency0 && a.currency1 === b.currency1 && a.fee === b.fee && a.tickSpacing === b.tickSpacing && a.hooks === b.hooks;
}

/** Every column of the cache from the proposed row (`excluded`), for the batched upsert. */
function upsertSet() {
  const cols = [
    "enrolled",
    "enrol_order",
    "creator",
    "asset_bps",
    "perp_bps",
    "creator_bps",
    "active",
    "halted",
    "paired_token",
    "pool_key",
    "reward_recipients",
    "updated_at",
  ] as const;
  const keys = [
    "enrolled",
    "enrolOrder",
    "creator",
    "assetBps",
    "perpBps",
    "creatorBps",
    "active",
    "halted",
    "pairedToken",
    "poolKey",
    "rewardRecipients",
    "updatedAt",
  ] as const;
  return Object.fromEntries(keys.map((k, i) => [k, sql.raw(`excluded.${cols[i]}`)]));
}

/** Enrolled tokens from the cache, in enrolment order. */
export async function listEnrolledTokens(q: Queryable, options: { activeOnly?: boolean } = {}): Promise<TokenInfo[]> {
  const rows = await q.select().from(tables.tokens).where(eq(tables.tokens.enrolled, true)).orderBy(asc(tables.tokens.enrolOrder));
  return rows.map(fromRow).filter((t) => !options.activeOnly || t.active);
}

/**
 * A token's cached info; a token the cache has not seen (e.g. the protocol token, or any
 * token of the launcher) is read from the locker and cached as not enrolled.
 */
export async function tokenInfo(ctx: EngineContext, token: Address): Promise<TokenInfo> {
  const address = getAddress(token);
  const [row] = await ctx.db.select().from(tables.tokens).where(eq(tables.tokens.token, address));
  if (row?.poolKey) return fromRow(row);
  const locker = await readLockerInfo(ctx, address);
  const values = { token: address, enrolled: false, active: false, halted: false, ...locker, updatedAt: new Date() };
  await ctx.db.insert(tables.tokens).values(values).onConflictDoNothing();
  const [stored] = await ctx.db.select().from(tables.tokens).where(eq(tables.tokens.token, address));
  return fromRow(stored!);
}
