/**
 * The trust surface in GraphQL: `Burn.proof`, `Token.feeFlow`, `Token.audit` and the root
 * `burnProof(txHash, logIndex)`. Each is the same document as its REST route
 * (GET /burns/:txHash/:logIndex, /tokens/:token/flow, /tokens/:token/audit; their shapes are in
 * the OpenAPI document), as a `JSON` value: amounts `{ amount, amountRaw, currency, symbol,
 * decimals }`, exact, never floats.
 */
import { GraphQLError } from "graphql";
import type { Hex } from "viem";
import { ApiError } from "../http/errors.js";
import { tokenFlow } from "../read/flow.js";
import { checksum } from "../read/format.js";
import { burnProof, findBurn } from "../read/proofs.js";
import { tokenAudit } from "../read/public-audit.js";
import { deskStatement } from "../read/desk-statement.js";
import { builder } from "./builder.js";
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

builder.objectField(BurnRef, "proof", (t) =>
  t.field({
    type: "JSON",
    // Null with an error when the chain cannot be read, leaving the rest of the page intact.
    nullable: true,
    complexity: COST,
    description:
      "The burn's proof, as GET /api/v1/burns/{txHash}/{logIndex}: the transfer checked against the chain (block hash, confirmations, final by CONFIRMATIONS), the dead address's balance before and after its block, and what paid for it (the buyback and its ledger sources with their transactions, or organic).",
    resolve: (row, _args, ctx) => exposed(() => burnProof(ctx.deps, row)),
  }),
);

builder.objectFields(TokenRef, (t) => ({
  feeFlow: t.field({
    type: "JSON",
    complexity: COST,
    description:
      "The token's fee flow, as GET /api/v1/tokens/{address}/flow: collected, claimed, split into legs, spent, outcomes, each amount exact with its transactions, and the identity in = out + pending checked at every stage.",
    resolve: (view, _args, ctx) => exposed(() => tokenFlow(ctx.deps, view.token.address)),
  }),
  audit: t.field({
    type: "JSON",
    complexity: COST,
    description:
      'The token\'s public reconciliation, as GET /api/v1/tokens/{address}/audit: "clean at block N, time T", or each difference by check, leg and amount.',
    resolve: (view, _args, ctx) => exposed(() => tokenAudit(ctx.deps, checksum(view.token.address))),
  }),
  deskStatement: t.field({
    type: "JSON",
    complexity: COST,
    description:
      "The token's desk accountability statement, as GET /api/v1/tokens/{address}/desk-statement: collateral in from fees, realised and open PnL, funding, liquidations, profit → creator buybacks → tokens burned, tokens burned per USDC of fees.",
    resolve: (view, _args, ctx) => exposed(() => deskStatement(ctx.deps, view.token.address)),
  }),
}));

builder.queryField("burnProof", (t) =>
  t.field({
    type: "JSON",
    nullable: true,
    complexity: COST,
    description: "The proof of the burn at a transaction and log index (null when no burn is indexed there); see Burn.proof.",
    args: { txHash: t.arg.string({ required: true }), logIndex: t.arg.int({ required: true }) },
    resolve: (_root, args, ctx) =>
      exposed(async () => {
        if (!/^0x[0-9a-fA-F]{64}$/.test(args.txHash)) throw userError("txHash: expected a 0x-prefixed 32-byte transaction hash");
        if (args.logIndex < 0) throw userError("logIndex: expected a non-negative integer");
        const row = await findBurn(ctx.deps, args.txHash.toLowerCase() as Hex, args.logIndex);
        return row ? burnProof(ctx.deps, row) : null;
      }),
  }),
);
