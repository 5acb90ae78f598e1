/**
 * GET /stats: totals, pending accumulators, a fixed-size summary of the open desks. The body is formatted and
 * serialised once per read and shared by the requests that read shares, and not even that
 * while reads return what the previous one did (see coalesce.ts).
 */
import type { ApiDeps } from "../deps.js";
import { coalescerFor, lastShaped } from "../read/coalesce.js";
import { type Stats, readStats } from "../read/stats.js";
import { statsJson } from "../views/stats.js";
import { defineRoute } from "./route.js";
import { statsResponse } from "./schemas.js";

/** The body of a read, formatted again only when the read differs from the previous one. */
const statsBody = lastShaped((s: Stats) => JSON.stringify(statsJson(s)));
const bodies = coalescerFor(async (deps: ApiDeps, _key: "stats") => statsBody(await readStats(deps)));

export const statsRoute = defineRoute({
  method: "get",
  path: "/stats",
  tag: "service",
  summary: "Fee, buyback and burn totals, pending accumulators, a summary of the open desks",
  description:
    "Totals come from the indexer's incremental aggregates; the answer time does not grow with history. Fees are shown per currency (the amount in its own currency) and in USDC: USDC as claimed, WETH at the realised rate of the operator's conversion swap. The per-leg totals are the ledger's allocations, fact by fact. Desks are summarised in a fixed size (aggregates of the open desks and the largest few): GET /desks lists every desk, paged.",
  responses: { 200: { description: "Stats", schema: statsResponse } },
  handler: async (c, _input, deps) => c.body(await bodies(deps).get("stats"), 200, { "content-type": "application/json" }),
});
