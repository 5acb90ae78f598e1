/**
 * The trust surface's routes: a burn's proof (GET /burns/:txHash/:logIndex), and a token's
 * reports (GET /tokens/:token/flow, /audit and /desk-statement). Their answers' schemas, and the
 * reports' definitions, are api/views/trust.ts.
 * See docs/api.md, "Proofs, fee flow and public audit".
 */
import type { Hex } from "viem";
import { z } from "zod";
import { notFound } from "../http/errors.js";
import { knownToken } from "../read/tokens.js";
import { burnProof, findBurn } from "../read/proofs.js";
import { TOKEN_REPORTS, type TokenReport, burnProofResponse } from "../views/trust.js";
import { defineRoute, respond } from "./route.js";
import { integerParam, tokenParam } from "./schemas.js";

// ------------------------------------------------------------------ parameters

export const burnProofParams = z.object({
  txHash: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte transaction hash")
    .transform((v) => v.toLowerCase() as Hex),
  logIndex: integerParam(
    z
      .string()
      .regex(/^\d{1,9}$/, "expected a log index: a non-negative integer")
      .transform(Number),
    { minimum: 0 },
  ),
});

// ------------------------------------------------------------------ routes

export const burnProofRoute = defineRoute({
  method: "get",
  path: "/burns/:txHash/:logIndex",
  tag: "trust",
  summary: "Proof of one burn: the transfer checked against the chain, the dead address's balance around its block, and what paid for it",
  description:
    "The transfer (transaction, log index, block number and hash, confirmations, final or not by CONFIRMATIONS); the dead address's balance of the token at the end of the block before and of the burn's block, read from the chain; and what paid for it: the engine's buyback (swap, amount in, route) and the ledger inflows that paid for that (fee claims and legs, or desk profits, each with its transaction), or that an organic burn was nobody's fees.",
  params: burnProofParams,
  responses: {
    200: { description: "The burn's proof", schema: burnProofResponse },
    404: { description: "No indexed burn at this transaction and log index" },
    503: {
      description: "The chain's RPC could not answer, or the database is unavailable or busy",
      codes: ["CHAIN_UNAVAILABLE", "DATABASE_UNAVAILABLE", "DATABASE_BUSY"],
    },
  },
  handler: async (c, { params }, deps) => {
    const row = await findBurn(deps, params.txHash, params.logIndex);
    if (!row) throw notFound(`no burn indexed at ${params.txHash} log ${params.logIndex}`);
    return respond(c, burnProofResponse, await burnProof(deps, row));
  },
});

/** A launched token's reports (api/views/trust.ts): GET /tokens/{token}/{path} each, 404 for a token never launched. */
export const tokenReportRoutes = TOKEN_REPORTS.map((report: TokenReport) =>
  defineRoute({
    method: "get",
    path: `/tokens/:token/${report.path}`,
    tag: "trust",
    summary: report.summary,
    description: report.description,
    params: tokenParam,
    responses: { 200: { description: report.typeDescription, schema: report.schema }, 404: { description: "Not a launched token" } },
    handler: async (c, { params }, deps) => {
      await knownToken(deps, params.token);
      return respond(c, report.schema, await report.read(deps, params.token));
    },
  }),
);
