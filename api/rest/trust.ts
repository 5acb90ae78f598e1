/**
 * The trust surface's routes: a burn's proof (GET /burns/:txHash/:logIndex), a token's fee flow
 * (GET /tokens/:token/flow), its public reconciliation (GET /tokens/:token/audit) and its desk
 * statement (GET /tokens/:token/desk-statement). Their answers' schemas are api/views/trust.ts.
 * See docs/api.md, "Proofs, fee flow and public audit".
 */
import type { Hex } from "viem";
import { z } from "zod";
import { notFound } from "../http/errors.js";
import { tokenFlow } from "../read/flow.js";
import { knownToken } from "../read/tokens.js";
import { checksum } from "../read/format.js";
import { burnProof, findBurn } from "../read/proofs.js";
import { tokenAudit } from "../read/public-audit.js";
import { deskStatement } from "../read/desk-statement.js";
import { burnProofResponse, deskStatementResponse, flowResponse, tokenAuditResponse } from "../views/trust.js";
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

export const tokenFlowRoute = defineRoute({
  method: "get",
  path: "/tokens/:token/flow",
  tag: "trust",
  summary: "The token's fee flow: collected, claimed, split into legs, spent, and the outcomes, with their transactions",
  description:
    "Every stage checks in = out + pending (stated in `identity`). Lists of transactions are the newest 100 with their full `count`. Pooled legs are divided among tokens first in, first out.",
  params: tokenParam,
  responses: { 200: { description: "The token's fee flow", schema: flowResponse }, 404: { description: "Not a launched token" } },
  handler: async (c, { params }, deps) => {
    await knownToken(deps, params.token);
    return respond(c, flowResponse, await tokenFlow(deps, params.token));
  },
});

export const tokenAuditRoute = defineRoute({
  method: "get",
  path: "/tokens/:token/audit",
  tag: "trust",
  summary: "The token's public reconciliation: the engine's latest three-way audit (ledger, index, chain) for it",
  description:
    "Public: \"clean at block N, time T\", or each difference by check, leg and amount (base units), with the protocol-wide checks beside the token's own. The engine's auditor runs it every 10 to 15 minutes and keeps the results.",
  params: tokenParam,
  responses: { 200: { description: "The token's latest audit", schema: tokenAuditResponse }, 404: { description: "Not a launched token" } },
  handler: async (c, { params }, deps) => {
    await knownToken(deps, params.token);
    return respond(c, tokenAuditResponse, await tokenAudit(deps, checksum(params.token)));
  },
});

export const tokenDeskStatementRoute = defineRoute({
  method: "get",
  path: "/tokens/:token/desk-statement",
  tag: "trust",
  summary: "The token's desk accountability statement: collateral in from fees, PnL, funding, liquidations, profit → creator buybacks → tokens burned",
  description:
    "From the engine's ledger and desk trades and the indexed buybacks: the perp leg's fees in, put on trades, returned and waiting; realised and open PnL; liquidations; the desk profits that paid creator buybacks and the tokens they burned; and tokens burned per USDC of the token's fees.",
  params: tokenParam,
  responses: { 200: { description: "The token's desk statement", schema: deskStatementResponse }, 404: { description: "Not a launched token" } },
  handler: async (c, { params }, deps) => {
    await knownToken(deps, params.token);
    return respond(c, deskStatementResponse, await deskStatement(deps, params.token));
  },
});
