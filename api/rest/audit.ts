/** GET /audit (operator key): the three-way audit — ledger, indexed facts, chain balances. */
import { notConfigured } from "../http/errors.js";
import { defineRoute, respond } from "./route.js";
import { auditResponse } from "./schemas.js";

export const auditRoute = defineRoute({
  method: "get",
  path: "/audit",
  tag: "operator",
  summary: "Three-way audit: the ledger, the indexed facts and the chain balances, to the base unit",
  description:
    "Every difference names its check, token, leg and amount (base units). Amounts explained by work in flight (a claim collected and not attributed yet, a transaction broadcast and not mined, a buyback between swap and burn, a desk order executed and not applied) or by blocks the index has not reached yet are listed in `pending` with their amounts, never in `differences`. `ok` is false only for a difference no unsettled work explains: one that stays once `settled` (nothing in flight, the index at the engine's block). Needs the operator API key.",
  operatorKey: true,
  responses: {
    200: { description: "The audit report (`ok` is false when a difference was found that no work in flight explains)", schema: auditResponse },
    503: {
      description: "The operator key or the engine's database (DATABASE_URL) is not configured, or the database is busy or unavailable",
      codes: ["NOT_CONFIGURED"],
    },
  },
  handler: async (c, _input, deps) => {
    const report = await deps.engine.audit(deps.config);
    if (!report) throw notConfigured("the engine's database is not configured (DATABASE_URL)");
    return respond(c, auditResponse, report);
  },
});
