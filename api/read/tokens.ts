/** Launched and enrolled tokens with their enrolment, pool and totals, in one query per page. */
import { type SQL, and, count, eq, inArray, isNotNull, isNull } from "drizzle-orm";
import { type Hex, getAddress } from "viem";
import { enrollment, pool, token, tokenTotals } from "../../schema/ponder.js";
import type { ApiDeps, ReadDb } from "../deps.js";
import type { PendingAmounts } from "../engine-port.js";
import { type DeskView, deskContext, latestDeskByToken } from "./desks.js";
import { type FeeCurrencyView, type SpendView, tokenBuybackSpends, tokenFeeCurrencies } from "./fees.js";
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

export const TOKEN_ORDERINGS = {
  /** Newest launch first. */
  NEWEST: {
    name: "token-newest",
    direction: "desc",
    columns: [token.createdBlock, token.address],
    types: ["int", "hex"],
    key: (v) => [v.token.createdBlock, v.token.address],
  },
  OLDEST: {
    name: "token-oldest",
    direction: "asc",
    columns: [token.createdBlock, token.address],
    types: ["int", "hex"],
    key: (v) => [v.token.createdBlock, v.token.address],
  },
} satisfies Record<string, Ordering<TokenView>>;
export type TokenOrder = keyof typeof TOKEN_ORDERINGS;

/** Enrolled tokens, most recently enrolled first (`GET /tokens`). */
export const ENROLLED_ORDERING: Ordering<TokenView> = {
  name: "enrolled",
  direction: "desc",
  columns: [enrollment.enrolledBlock, enrollment.token],
  types: ["int", "hex"],
  key: (v) => [v.enrollment!.enrolledBlock, v.enrollment!.token],
};

export type TokenFilter = { enrolled?: boolean | null; protocolToken?: boolean | null };

function tokenConditions(p: TokenFilter): SQL[] {
  const c: SQL[] = [];
  if (p.enrolled === true) c.push(isNotNull(enrollment.token));
  if (p.enrolled === false) c.push(isNull(enrollment.token));
  if (p.protocolToken != null) c.push(eq(token.isProtocolToken, p.protocolToken));
  return c;
}

/** How many tokens match the filter: one count over the token table, which grows with launches only. */
export async function countTokens(db: ReadDb, p: TokenFilter): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(token)
    .leftJoin(enrollment, eq(enrollment.token, token.address))
    .where(and(...tokenConditions(p)));
  return row?.n ?? 0;
}

export async function listTokens(db: ReadDb, p: PageWindow & TokenFilter & { order: TokenOrder }) {
  const ordering: Ordering<TokenView> = TOKEN_ORDERINGS[p.order];
  const c = tokenConditions(p);
  const w = keysetWindow(ordering, p);
  const rows = await joined(db).where(and(...c, ...w.conditions)).orderBy(...w.order).limit(w.fetch);
  return w.finish(rows);
}

export async function listEnrolledTokens(db: ReadDb, p: PageWindow) {
  const w = keysetWindow(ENROLLED_ORDERING, p);
  const rows = await joined(db).where(and(isNotNull(enrollment.token), ...w.conditions)).orderBy(...w.order).limit(w.fetch);
  return w.finish(rows);
}

export type EnrolledTokensPage = {
  page: Page<TokenView>;
  pending: PendingAmounts;
  desks: Map<string, DeskView>;
  /** Per token (lowercase address): its fees per currency and its buybacks per currency paid in. */
  fees: Map<string, FeeCurrencyView[]>;
  spend: Map<string, SpendView[]>;
};

/**
 * A page of enrolled tokens with the engine's pending amounts, each token's latest desk and its
 * fees per currency (`GET /tokens`). Each read starts as soon as what it needs is known: the
 * page's fees as soon as the page, its desks once the page and the desk context are both in.
 */
export async function readEnrolledTokens(deps: ApiDeps, p: { limit: number; after?: string | null }): Promise<EnrolledTokensPage> {
  const addresses = listEnrolledTokens(deps.db, p).then((page) => ({ page, addresses: page.rows.map((v) => v.token.address) }));
  const ctx = deskContext(deps.db, deps.engine);
  const [{ page }, pending, desks, fees, spend] = await Promise.all([
    addresses,
    deps.engine.pending(),
    Promise.all([addresses, ctx]).then(([a, c]) => latestDeskByToken(deps.db, c, a.addresses.map((address) => getAddress(address)))),
    addresses.then((a) => tokenFeeCurrencies(deps.db, deps.config, a.addresses)),
    addresses.then((a) => tokenBuybackSpends(deps.db, deps.config, a.addresses)),
  ]);
  return { page, pending, desks, fees, spend };
}

export async function getTokens(db: ReadDb, addresses: readonly Hex[]): Promise<TokenView[]> {
  if (!addresses.length) return [];
  return joined(db).where(inArray(token.address, [...addresses]));
}
