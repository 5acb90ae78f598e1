/** Launched and enrolled tokens with their enrolment, pool and totals, in one query per page. */
import { type SQL, and, count, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import { type Address, type Hex, getAddress } from "viem";
import { feeInName } from "../../common/abis/clanker.js";
import { type HonouredSplit, type RewardSlot, type SlotRole, honouredSplit, slotRole, unpairedOperatorSlots } from "../../common/honoured-split.js";
import { enrollment, pool, rewardRecipient, token, tokenTotals } from "../../schema/ponder.js";
import type { ApiDeps } from "../deps.js";
import { notFound } from "../http/errors.js";
import type { ReadDb } from "./db.js";
import type { TokenPending } from "../engine-port.js";
import { type DeskView, deskContext, latestDeskByToken } from "./desks.js";
import { type FeeCurrencyView, type BuybackSpendView, tokenBuybackSpends, tokenFeeCurrencies } from "./fees.js";
import { type Ordering, type Page, type PageWindow, keysetWindow } from "./keyset.js";

export type TokenRow = typeof token.$inferSelect;
export type EnrollmentRow = typeof enrollment.$inferSelect;
export type PoolRow = typeof pool.$inferSelect;
export type TokenTotalsRow = typeof tokenTotals.$inferSelect;
export type TokenView = { token: TokenRow; enrollment: EnrollmentRow | null; pool: PoolRow | null; totals: TokenTotalsRow | null };

const columns = { token, enrollment, pool, totals: tokenTotals };

function joined(db: ReadDb) {
  return db
    .select(columns)
    .from(token)
    .leftJoin(enrollment, eq(enrollment.token, token.address))
    .leftJoin(pool, eq(pool.poolId, token.poolId))
    .leftJoin(tokenTotals, eq(tokenTotals.token, token.address));
}

/** Tokens in launch order (block, then address), one way or the other. */
const byLaunch = (name: string, direction: "asc" | "desc"): Ordering<TokenView> => ({
  name,
  direction,
  columns: [token.createdBlock, token.address],
  types: ["int", "hex"],
  key: (v) => [v.token.createdBlock, v.token.address],
});

export const TOKEN_ORDERINGS = {
  /** Newest launch first. */
  NEWEST: byLaunch("token-newest", "desc"),
  OLDEST: byLaunch("token-oldest", "asc"),
} satisfies Record<string, Ordering<TokenView>>;
export type TokenOrder = keyof typeof TOKEN_ORDERINGS;

export type TokenFilter = { enrolled?: boolean | null; protocolToken?: boolean | null };

function tokenConditions(p: TokenFilter): SQL[] {
  const c: SQL[] = [];
  if (p.enrolled === true) c.push(isNotNull(enrollment.token));
  if (p.enrolled === false) c.push(isNull(enrollment.token));
  if (p.protocolToken != null) c.push(eq(token.isProtocolToken, p.protocolToken));
  return c;
}

/** How many tokens match the filter: one count over the token table (joined to enrolments only to filter by them), which grows with launches only. */
export async function countTokens(db: ReadDb, p: TokenFilter): Promise<number> {
  const counted = db.select({ n: count() }).from(token);
  const [row] = await (p.enrolled == null ? counted : counted.leftJoin(enrollment, eq(enrollment.token, token.address))).where(and(...tokenConditions(p)));
  return row?.n ?? 0;
}

export async function listTokens(db: ReadDb, p: PageWindow & TokenFilter & { order: TokenOrder }) {
  const ordering: Ordering<TokenView> = TOKEN_ORDERINGS[p.order];
  const c = tokenConditions(p);
  const w = keysetWindow(ordering, p);
  const rows = await joined(db)
    .where(and(...c, ...w.conditions))
    .orderBy(...w.order)
    .limit(w.fetch);
  return w.finish(rows);
}

export type TokenPage = {
  page: Page<TokenView>;
  /** Per token (lowercase address): its pending perp USDC and creator-buyback queue (absent: none). */
  pending: Map<string, TokenPending>;
  desks: Map<string, DeskView>;
  /** Per token (lowercase address): its fees per currency and its buybacks per currency paid in. */
  fees: Map<string, FeeCurrencyView[]>;
  spend: Map<string, BuybackSpendView[]>;
  /** Per token (lowercase address): its LP-locker reward slots, by index. */
  slots: Map<string, RewardSlotRow[]>;
};

export type RewardSlotRow = typeof rewardRecipient.$inferSelect;

/** The indexed LP-locker reward slots of `addresses`, by token (lowercase) and index. */
export async function rewardSlotsOf(db: ReadDb, addresses: readonly Hex[]): Promise<Map<string, RewardSlotRow[]>> {
  const out = new Map<string, RewardSlotRow[]>();
  if (!addresses.length) return out;
  const rows = await db
    .select()
    .from(rewardRecipient)
    .where(
      inArray(
        rewardRecipient.token,
        addresses.map((a) => a.toLowerCase() as Hex),
      ),
    );
  for (const r of rows.sort((a, b) => a.rewardIndex - b.rewardIndex)) {
    const list = out.get(r.token) ?? [];
    list.push(r);
    out.set(r.token, list);
  }
  return out;
}

/** One reward slot as the views show it: who it pays, how much, in which currency, who may change it. */
export type LockerShareView = {
  rewardIndex: number;
  recipient: Address;
  admin: Address;
  bps: number;
  feeIn: number;
  feeInName: string;
  role: SlotRole;
  updatedBlock: bigint | null;
};

/**
 * What the views show of an enrolled token's locker: the split really honoured (to the bps),
 * every reward slot, and whether the engine routes the operator's share (null: not enrolled,
 * or the operator or the slots unknown yet).
 */
export type HonouredView = { split: HonouredSplit; shares: LockerShareView[]; operatorFeesRouted: boolean; reason: string | null } | null;

export function honouredView(e: EnrollmentRow | null, rows: readonly RewardSlotRow[] | undefined, operator: Address | undefined): HonouredView {
  if (!e || !rows?.length) return null;
  const slots: RewardSlot[] = rows.map((r) => ({
    rewardIndex: r.rewardIndex,
    recipient: getAddress(r.recipient),
    admin: getAddress(r.admin),
    bps: r.bps,
    feeIn: r.feeIn,
  }));
  const creator = getAddress(e.creator);
  const shares = rows.map((r, i) => ({
    ...slots[i]!,
    feeInName: feeInName(r.feeIn),
    role: slotRole(slots[i]!, operator, creator),
    updatedBlock: r.updatedBlock ?? null,
  }));
  const unpaired = unpairedOperatorSlots(slots, operator);
  const reason = unpaired.length
    ? `the operator's reward slot${unpaired.length > 1 ? "s" : ""} ${unpaired.map((s) => s.rewardIndex).join(", ")} ${unpaired.length > 1 ? "are" : "is"} paid in ${unpaired.map((s) => feeInName(s.feeIn)).join(", ")}, not Paired: the engine does not route this token's fees until ${unpaired.length > 1 ? "they return" : "it returns"} to Paired`
    : null;
  return { split: honouredSplit(slots, { operator, creator, split: e }), shares, operatorFeesRouted: !unpaired.length, reason };
}

/**
 * A page of tokens (`GET /tokens`: every token of ours by default, newest launch first, as
 * GraphQL `tokens`; `enrolled` keeps only enrolled or only not enrolled tokens) with the
 * page's own pending amounts, each token's latest desk and its fees per currency. Each read
 * starts as soon as what it needs is known: the page's fees as soon as the page, its desks once
 * the page and the desk context are both in.
 */
export async function readTokenPage(deps: ApiDeps, p: { limit: number; after?: string | null; enrolled?: boolean | null }): Promise<TokenPage> {
  const addresses = listTokens(deps.db, { limit: p.limit, after: p.after, enrolled: p.enrolled, order: "NEWEST" }).then((page) => ({
    page,
    addresses: page.rows.map((v) => v.token.address),
  }));
  // The desks of this page's tokens only: bindings read for them, not for every token.
  const ctx = addresses.then((a) =>
    deskContext(
      deps.db,
      deps.engine,
      deps.config.perpsVenue,
      a.addresses.map((x) => getAddress(x)),
    ),
  );
  const [{ page }, pending, desks, fees, spend, slots] = await Promise.all([
    addresses,
    addresses.then((a) => deps.engine.tokenPending(a.addresses)),
    Promise.all([addresses, ctx]).then(([a, c]) =>
      latestDeskByToken(
        deps.db,
        c,
        a.addresses.map((address) => getAddress(address)),
      ),
    ),
    addresses.then((a) => tokenFeeCurrencies(deps.db, deps.config, a.addresses)),
    addresses.then((a) => tokenBuybackSpends(deps.db, deps.config, a.addresses)),
    addresses.then((a) => rewardSlotsOf(deps.db, a.addresses)),
  ]);
  return { page, pending, desks, fees, spend, slots };
}

/** A token's reward slots as the views show them, enrolled or not (a slot pays the creator only once the token is enrolled with one). */
export function lockerSharesOf(rows: readonly RewardSlotRow[], operator: Address | undefined, creator: Address | null): LockerShareView[] {
  return rows.map((r) => {
    const slot: RewardSlot = { rewardIndex: r.rewardIndex, recipient: getAddress(r.recipient), admin: getAddress(r.admin), bps: r.bps, feeIn: r.feeIn };
    return { ...slot, feeInName: feeInName(r.feeIn), role: slotRole(slot, operator, creator), updatedBlock: r.updatedBlock ?? null };
  });
}

export async function getTokens(db: ReadDb, addresses: readonly Hex[]): Promise<TokenView[]> {
  if (!addresses.length) return [];
  return joined(db).where(inArray(token.address, [...addresses]));
}

/** Throws 404 unless `address` is a launched token the index holds. */
export async function knownToken(deps: Pick<ApiDeps, "db">, address: Hex): Promise<void> {
  const [known] = await deps.db.select({ address: token.address }).from(token).where(eq(token.address, address));
  if (!known) throw notFound(`unknown token ${getAddress(address)}`);
}
