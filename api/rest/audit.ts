/** GET /audit (operator key): the three-way audit — ledger, indexed facts, chain balances. */
import { unavailable } from "../http/errors.js";
import { defineRoute } from "./route.js";
import { auditResponse } from "./schemas.js";

export const auditRoute = defineRoute({
  method: "get",
  path: "/audit",
  tag: "operator",
  summary: "Three-way audit: the ledger, the indexed facts and the chain balances, to the base unit",
  description:
    "Every difference names its check, token, leg and amount (base units). The operator's holdings are compared only when the engine has no work in flight (listed in `inFlight`). Needs the operator API key.",
  operatorKey: true,
  responses: { 200: { description: "The audit report (`ok` is false when any difference was found)", schema: auditResponse } },
  handler: async (c, _input, deps) => {
    const report = await deps.engine.audit(deps.config);
    if (!report) throw unavailable("the engine's database is not configured (DATABASE_URL)");
    return c.json(report);
  },
});
