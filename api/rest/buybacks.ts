/**
 * GET /buybacks (the protocol token) and GET /buybacks/:token (one creator token): each buyback
 * with what it paid in (USDC, or WETH for a legacy-WETH buyback) and its USDC, and totals per
 * currency paid in.
 */
import type { Hex } from "viem";
import { eq } from "drizzle-orm";
import { token as tokenTable } from "../../schema/ponder.js";
import { notFound } from "../http/errors.js";
import { type BuybackRow, type BuybackTotals, listBuybacks, protocolBuybackTotals, tokenBuybackTotals } from "../read/buybacks.js";
import { type CurrencyInfo, type BuybackSpendView, buybackSpendByKind, currencyInfos, tokenBuybackSpends } from "../read/fees.js";
import { checksum, tokenAmount, usdcAmount } from "../read/format.js";
import { listBody } from "../read/keyset.js";
import type { ApiDeps } from "../deps.js";
import { buybackView } from "../views/buyback.js";
import { spendJson } from "../views/fees.js";
import { viewCurrencies, viewJson } from "../views/view.js";
import { defineRoute, respond } from "./route.js";
import { buybacksResponse, pageQuery, tokenParam } from "./schemas.js";

/** A buyback as its view writes it, with `spent` in this route's first shape: its currency's facts and the amount together. */
const buybackJson = (row: BuybackRow, currencies: Map<string, CurrencyInfo>) => {
  const json = viewJson(buybackView, row, currencies);
  const currency = currencies.get(row.spentCurrency.toLowerCase())!;
  return { ...json, spent: { currency: currency.address, symbol: currency.symbol, decimals: currency.decimals, amount: json.spent } };
};

const totalsJson = (t: BuybackTotals, spent: BuybackSpendView[]) => ({
  count: t.count,
  usdcIn: usdcAmount(t.usdcIn),
  tokensBought: tokenAmount(t.tokensBought),
  tokensBurned: tokenAmount(t.tokensBurned),
  spent: spent.map(spendJson),
});

async function buybacksBody(
  deps: ApiDeps,
  filter: { token?: Hex; kinds?: string[] },
  totals: Promise<[BuybackTotals, BuybackSpendView[]]>,
  query: { limit: number; cursor?: string },
) {
  // Read alongside the page: if the page fails first (the database unreachable), the totals'
  // failure must not go unhandled (an unhandled rejection stops the API process).
  totals.catch(() => {});
  const page = await listBuybacks(deps.db, { filter, order: "NEWEST", limit: query.limit, after: query.cursor });
  const currencies = await currencyInfos(deps.db, deps.config, viewCurrencies(buybackView, page.rows));
  return { ...listBody(page, (r) => buybackJson(r, currencies)), totals: totalsJson(...(await totals)) };
}

export const protocolBuybacksRoute = defineRoute({
  method: "get",
  path: "/buybacks",
  tag: "buybacks",
  summary: "Protocol-token buybacks and burns, newest first, with totals",
  query: pageQuery,
  responses: { 200: { description: "A page of buybacks", schema: buybacksResponse } },
  handler: async (c, { query }, deps) => {
    const protocolToken = deps.config.protocolToken?.toLowerCase() as Hex | undefined;
    const totals = Promise.all([protocolBuybackTotals(deps.db, protocolToken), buybackSpendByKind(deps.db, deps.config).then((s) => s["protocol-buyback"])]);
    return respond(c, buybacksResponse, await buybacksBody(deps, { kinds: ["protocol-buyback"] }, totals, query));
  },
});

export const tokenBuybacksRoute = defineRoute({
  method: "get",
  path: "/buybacks/:token",
  tag: "buybacks",
  summary: "Buybacks and burns of one token, newest first, with totals",
  params: tokenParam,
  query: pageQuery,
  responses: {
    200: { description: "A page of buybacks", schema: buybacksResponse },
    404: { description: "Not a token launched through the launcher" },
  },
  handler: async (c, { params, query }, deps) => {
    const [known] = await deps.db.select({ address: tokenTable.address }).from(tokenTable).where(eq(tokenTable.address, params.token));
    if (!known) throw notFound(`unknown token ${checksum(params.token)}`);
    const totals = Promise.all([
      tokenBuybackTotals(deps.db, params.token),
      tokenBuybackSpends(deps.db, deps.config, [params.token]).then((s) => s.get(params.token) ?? []),
    ]);
    return respond(c, buybacksResponse, await buybacksBody(deps, { token: params.token }, totals, query));
  },
});
