/** GET /buybacks (the protocol token) and GET /buybacks/:token (one creator token). */
import type { Hex } from "viem";
import { eq } from "drizzle-orm";
import { token as tokenTable } from "../../schema/ponder.js";
import { notFound } from "../http/errors.js";
import { type BuybackRow, type BuybackTotals, listBuybacks, protocolBuybackTotals, tokenBuybackTotals } from "../read/buybacks.js";
import { checksum, isoTime, tokenAmount, usdcAmount } from "../read/format.js";
import { listBody } from "../read/keyset.js";
import type { ApiDeps } from "../deps.js";
import { defineRoute } from "./route.js";
import { buybacksResponse, pageQuery, tokenParam } from "./schemas.js";

const buybackJson = (row: BuybackRow) => ({
  id: row.id,
  token: checksum(row.token),
  kind: row.kind as "protocol-buyback" | "creator-buyback",
  usdcIn: usdcAmount(row.usdcIn),
  tokensBought: tokenAmount(row.tokensBought),
  tokensBurned: tokenAmount(row.tokensBurned),
  txHash: row.txHash,
  blockNumber: Number(row.blockNumber),
  timestamp: isoTime(row.timestamp),
});

const totalsJson = (t: BuybackTotals) => ({ count: t.count, usdcIn: usdcAmount(t.usdcIn), tokensBought: tokenAmount(t.tokensBought), tokensBurned: tokenAmount(t.tokensBurned) });

async function buybacksBody(deps: ApiDeps, filter: { token?: Hex; kinds?: string[] }, totals: Promise<BuybackTotals>, query: { limit: number; cursor?: string }) {
  const page = await listBuybacks(deps.db, { filter, order: "NEWEST", limit: query.limit, after: query.cursor });
  return { ...listBody(page, buybackJson), totals: totalsJson(await totals) };
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
    const totals = protocolBuybackTotals(deps.db, protocolToken);
    return c.json(await buybacksBody(deps, { kinds: ["protocol-buyback"] }, totals, query));
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
    return c.json(await buybacksBody(deps, { token: params.token }, tokenBuybackTotals(deps.db, params.token), query));
  },
});
