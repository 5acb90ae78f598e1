/**
 * GET /desks: every desk (the operator's perps trades bound to their tokens), newest first,
 * paged by keyset cursor, with the fields and filters of GraphQL `desks`. `/stats` keeps only
 * a fixed-size summary of the open desks.
 */
import { getAddress } from "viem";
import { deskContext, listDesks } from "../read/desks.js";
import { listBody } from "../read/keyset.js";
import { deskJson } from "../views/desk.js";
import { defineRoute, respond } from "./route.js";
import { desksQuery, desksResponse } from "./schemas.js";

export const desksRoute = defineRoute({
  method: "get",
  path: "/desks",
  tag: "desks",
  summary: "Desks (perps positions funded by the tokens' perp legs), newest first: filter by status, token and halt state",
  description:
    "The same desks, fields and filters as GraphQL `desks`. Open desks are marked to the latest oracle price (markPrice, unrealisedPnl; null while unknown). Paged by `cursor`: latency depends on the page size, not on the number of desks.",
  query: desksQuery,
  responses: { 200: { description: "A page of desks", schema: desksResponse } },
  handler: async (c, { query }, deps) => {
    const ctx = await deskContext(deps.db, deps.engine, deps.config.perpsVenue);
    const filter = { statuses: query.status, token: query.token ? getAddress(query.token) : undefined, halted: query.halted ?? null };
    const page = await listDesks(deps.db, ctx, { limit: query.limit, after: query.cursor, filter });
    return respond(c, desksResponse, listBody(page, deskJson));
  },
});
