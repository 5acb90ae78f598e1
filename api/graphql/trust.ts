/**
 * The trust surface in GraphQL: `Burn.proofReport`, `Token.feeFlowReport`, `Token.auditReport`,
 * `Token.deskStatementReport` and the root `burnProofReport(txHash, logIndex)`. Each is the same
 * answer as its REST route (GET /burns/:txHash/:logIndex, /tokens/:token/flow, /audit,
 * /desk-statement), typed from the same schema (api/views/trust.ts, through zod-objects.ts):
 * amounts are `Money` (`{ amount, amountRaw, currency, symbol, decimals }`), exact, never
 * floats. The fields of the old names (`proof`, `feeFlow`, …) are the same answers as `JSON`,
 * deprecated.
 */
import { GraphQLError } from "graphql";
import type { Hex } from "viem";
import { ApiError } from "../http/errors.js";
import { burnProof, findBurn } from "../read/proofs.js";
import { TOKEN_REPORTS, type TokenReport, burnProofResponse, deskTradeSummary, moneyResponse } from "../views/trust.js";
import { type GraphqlContext, builder } from "./builder.js";
import { reportFields, zodObject } from "./zod-objects.js";
import { asUserErrors, userError } from "./errors.js";
import { BurnRef, TokenRef } from "./refs.js";

/** Each reads the chain or walks a ledger leg: priced like a page of 20 nodes. */
const COST = 20;

/** An RPC the API cannot reach is a typed 503-like error, never a masked one. */
async function exposed<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await asUserErrors(fn);
  } catch (error) {
    if (error instanceof ApiError)
      throw new GraphQLError(error.message, {
        extensions: { code: error.status === 503 ? "SERVICE_UNAVAILABLE" : "BAD_REQUEST", http: { status: error.status } },
      });
    throw error;
  }
}

// Shared objects, named before the answers that hold them.
zodObject("Money", moneyResponse, "An exact amount: its decimal in whole units, its base units and its currency");
zodObject("DeskTradeSummary", deskTradeSummary, "A desk trade's money: collateral in, returned and realised PnL");
const BurnProof = zodObject("BurnProof", burnProofResponse, "A burn checked against the chain, and what paid for it");
const reports = TOKEN_REPORTS.map((report: TokenReport) => ({ report, type: zodObject(report.typeName, report.schema, report.typeDescription) }));

builder.objectFields(BurnRef, (t) =>
  reportFields(t, "proof", BurnProof, {
    // Null with an error when the chain cannot be read, leaving the rest of the page intact.
    nullable: true,
    complexity: COST,
    description:
      "The burn's proof, as GET /api/v1/burns/{txHash}/{logIndex}: the transfer checked against the chain (block hash, confirmations, final by CONFIRMATIONS), the dead address's balance before and after its block, and what paid for it (the buyback and its ledger sources with their transactions, or organic).",
    resolve: (row, _args, ctx) => exposed(() => burnProof(ctx.deps, row)),
  }),
);

builder.objectFields(TokenRef, (t) =>
  Object.assign(
    {},
    ...reports.map(({ report, type }) =>
      reportFields(t, report.graphqlName, type, {
        complexity: COST,
        description: `${report.summary} (as GET /api/v1/tokens/{address}/${report.path}).`,
        resolve: (view, _args, ctx) => exposed(() => report.read(ctx.deps, view.token.address as Hex)),
      }),
    ),
  ),
);

builder.queryFields((t) => {
  const args = { txHash: t.arg.string({ required: true }), logIndex: t.arg.int({ required: true }) };
  const resolve = (_root: unknown, a: { txHash: string; logIndex: number }, ctx: GraphqlContext) =>
    exposed(async () => {
      if (!/^0x[0-9a-fA-F]{64}$/.test(a.txHash)) throw userError("txHash: expected a 0x-prefixed 32-byte transaction hash");
      if (a.logIndex < 0) throw userError("logIndex: expected a non-negative integer");
      const row = await findBurn(ctx.deps, a.txHash.toLowerCase() as Hex, a.logIndex);
      return row ? burnProof(ctx.deps, row) : null;
    });
  const common = { nullable: true as const, complexity: COST, args, resolve };
  const description = "The proof of the burn at a transaction and log index (null when no burn is indexed there); see Burn.proofReport.";
  return {
    burnProof: t.field({ ...common, type: "JSON", description, deprecationReason: "Use burnProofReport: the same answer, typed" }),
    burnProofReport: t.field({ ...common, type: BurnProof, description }),
  };
});
