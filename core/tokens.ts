/**
 * The registry cache: enrolled tokens with their split and flags, and every token's locker
 * configuration (pool key, paired currency, reward recipients). Refreshed from the chain by
 * the fee-claimer; read by every worker.
 */
import { asc, eq } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import { clankerLpLockerAbi } from "../common/abis/clanker.js";
import { registryAbi } from "../common/abis/registry.js";
import type { PoolKey } from "../common/uniswap.js";
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

/** A token's locker configuration read from the LP locker. */
export async function readLockerInfo(ctx: EngineContext, token: Address): Promise<{ poolKey: PoolKey; pairedToken: Address; rewardRecipients: Address[] }> {
  const info = await ctx.publicClient.readContract({ address: ctx.contract("lpLocker"), abi: clankerLpLockerAbi, functionName: "tokenRewards", args: [token] });
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

/**
 * Refreshes the cache from the registry (every enrolled token, its split, active and halted
 * flags) and the locker (pool key and recipients). Returns the enrolled tokens in enrolment order.
 */
export async function refreshTokenCache(ctx: EngineContext): Promise<TokenInfo[]> {
  const registry = ctx.contract("registry");
  const count = Number(await ctx.publicClient.readContract({ address: registry, abi: registryAbi, functionName: "enrolledCount" }));
  for (let i = 0; i < count; i++) {
    const token = getAddress(await ctx.publicClient.readContract({ address: registry, abi: registryAbi, functionName: "enrolledAt", args: [BigInt(i)] }));
    const [creator, , assetBps, perpBps, creatorBps, , active, halted] = await ctx.publicClient.readContract({
      address: registry,
      abi: registryAbi,
      functionName: "enrollment",
      args: [token],
    });
    const locker = await readLockerInfo(ctx, token);
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
      updatedAt: new Date(),
    };
    await ctx.db.insert(tables.tokens).values(values).onConflictDoUpdate({ target: tables.tokens.token, set: values });
  }
  return listEnrolledTokens(ctx.db);
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
