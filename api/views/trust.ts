/**
 * The trust surface's answers: a burn's proof, a token's fee flow, its public reconciliation
 * and its desk statement. One schema each, served by REST (api/rest/trust.ts), GraphQL (typed
 * objects derived from these: api/graphql/zod-objects.ts) and MCP; a token's three reports are
 * defined once each in `TOKEN_REPORTS` below. Every amount is `Money`:
 * `{ amount, amountRaw, currency, symbol, decimals }`, the exact decimal in whole units, the
 * integer in base units and its currency (docs/api.md, "Proofs, fee flow and public audit").
 */
import { type Hex, getAddress } from "viem";
import { z } from "zod";
import { PERPS_VENUE_IDS } from "../../common/perps-venues.js";
import { BURN_KINDS, BUYBACK_KINDS } from "../../common/activity.js";
import type { ApiDeps } from "../deps.js";
import { deskStatement } from "../read/desk-statement.js";
import { tokenFlow } from "../read/flow.js";
import { tokenAudit } from "../read/public-audit.js";
import { json } from "../../common/edge.js";

const { checksummed, hash } = json;
const iso = z.string().datetime();
const int = z.number().int();
/** An audit's amount in base units (empty for a ledger invariant violation, which has none). */
export const auditBaseUnits = z
  .string()
  .regex(/^-?\d*$/)
  .describe("Base units (empty for a ledger invariant violation)");
const baseUnits = auditBaseUnits;

export const moneyResponse = z
  .object({
    amount: json.decimal,
    amountRaw: json.digits.describe("Integer in base units of the currency"),
    currency: checksummed.describe("The currency's (token's) address"),
    symbol: z.string(),
    decimals: int,
  })
  .strict();

export const deskTradeSummary = z
  .object({
    id: int,
    status: z.string(),
    openTx: hash.nullable(),
    closeTx: hash.nullable(),
    collateral: moneyResponse,
    returned: moneyResponse,
    realisedPnl: moneyResponse,
  })
  .strict();

export const burnProofResponse = z
  .object({
    burn: z
      .object({
        id: z.string(),
        token: checksummed,
        kind: z.enum(BURN_KINDS),
        from: checksummed,
        txFrom: checksummed,
        burned: moneyResponse,
        txHash: hash,
        logIndex: int,
        blockNumber: int,
        blockHash: hash.nullable().describe("From the chain's receipt (null when the chain no longer has the transaction)"),
        timestamp: iso,
      })
      .strict(),
    finality: z
      .object({
        head: int.describe("The chain's head when answered"),
        confirmations: int.describe("head − the burn's block"),
        confirmationsRequired: int.describe("CONFIRMATIONS: how deep a block must be to be final"),
        final: z.boolean(),
        canonical: z.boolean().describe("The chain's receipt is in the indexed block and carries the indexed transfer to the dead address"),
        detail: z.string(),
      })
      .strict(),
    deadAddress: z
      .object({
        address: checksummed,
        before: moneyResponse
          .nullable()
          .describe("The dead address's balance of the token at the end of the block before (null when the transfer is not canonical)"),
        after: moneyResponse.nullable().describe("… at the end of the burn's block"),
        beforeBlock: int,
        afterBlock: int,
        delta: moneyResponse.nullable().describe("after − before: every transfer of the token to the dead address in the block"),
        indexedInBlock: moneyResponse.describe("The burns of the token the index holds in that block"),
        burnsInBlock: int,
        matches: z.boolean().nullable().describe("delta = indexedInBlock"),
        cached: z.boolean().describe("Answered from memory (a final block's balances never change)"),
      })
      .strict(),
    paidBy: z
      .object({
        kind: z
          .enum(["organic", "buyback", "unbooked"])
          .describe("organic: a holder's own burn; buyback: the engine's; unbooked: from the operator wallet but not in the engine's books"),
        detail: z.string(),
        buybacks: z.array(
          z
            .object({
              id: int,
              kind: z.enum(BUYBACK_KINDS),
              status: z.string(),
              token: checksummed,
              paidIn: moneyResponse.describe("What the swap paid in (USDC, or WETH for a legacy-WETH buyback)"),
              usdcIn: moneyResponse.nullable().describe("Its USDC as the index read it from the swap's logs"),
              route: z.array(z.object({ from: z.string(), to: z.string(), pool: z.string() }).strict()),
              swapTx: hash.nullable(),
              burnTxs: z.array(hash),
              tokensBought: moneyResponse.nullable(),
              tokensBurned: moneyResponse.nullable(),
              leg: z.string().nullable().describe("The ledger leg that paid"),
              sources: z
                .array(
                  z
                    .object({
                      kind: z.string().describe("fees, fees (WETH converted), desk-profit, legacy-weth-found, unattributed, …"),
                      leg: z.string(),
                      token: checksummed.nullable().describe("The token whose fees (or desk) the money came from"),
                      paid: moneyResponse.describe("The part of the buyback this source paid"),
                      txHash: hash
                        .nullable()
                        .describe("The source's own transaction: the fee collection (ClaimedRewards), the conversion swap, the desk close"),
                      blockNumber: int.nullable(),
                      claimTx: hash.nullable().describe("The operator's claim from the fee locker that settled the fee"),
                      conversionId: int.nullable(),
                      deskTrade: deskTradeSummary.nullable(),
                      ledgerKey: z.string(),
                    })
                    .strict(),
                )
                .describe("The ledger inflows that paid, first in, first out"),
              unfunded: moneyResponse.describe("The part no inflow covered (a reorg deficit being repaid)"),
            })
            .strict(),
        ),
      })
      .strict(),
  })
  .strict();

const listOf = <T extends z.ZodTypeAny>(item: T) =>
  z.object({ count: int.describe("How many there are (items are capped at 100, newest first)"), items: z.array(item) }).strict();

export const flowResponse = z
  .object({
    token: checksummed,
    identity: z.string().describe("The identity every stage and the totals check"),
    attribution: z.string(),
    engine: z.boolean().describe("Whether the engine's books were readable (false: only the index's stages)"),
    collected: z.array(
      moneyResponse
        .extend({
          toOperator: moneyResponse,
          toCreator: moneyResponse.describe("Paid to the creator directly by the locker: the creator payments"),
          toOthers: moneyResponse,
          claimed: moneyResponse,
          unclaimed: moneyResponse.describe("Pending: collected, not claimed by the operator yet"),
          converted: moneyResponse.nullable(),
          awaitingConversion: moneyResponse.nullable().describe("Pending: WETH claimed, not converted yet"),
          usdc: moneyResponse,
          holds: z.object({ collected: z.boolean(), claimed: z.boolean(), converted: z.boolean() }).strict(),
          collections: listOf(
            z
              .object({
                txHash: hash,
                blockNumber: int,
                timestamp: iso,
                recipient: checksummed,
                role: z.enum(["operator", "creator", "other"]),
                collected: moneyResponse,
              })
              .strict(),
          ),
        })
        .strict(),
    ),
    claimed: z
      .object({
        usdc: moneyResponse.describe("The USDC the token's claimed fees became (the ledger)"),
        byCurrency: z.array(moneyResponse),
        indexedUsdc: moneyResponse,
        indexAgrees: z.boolean(),
        legsSumToClaimed: z.boolean(),
        facts: listOf(
          z
            .object({
              kind: z.string(),
              amount: moneyResponse,
              txHash: hash.nullable(),
              claimTx: hash.nullable(),
              blockNumber: int.nullable(),
              conversionId: int.nullable(),
            })
            .strict(),
        ),
      })
      .strict(),
    legs: z.array(
      z
        .object({
          leg: z.string(),
          description: z.string(),
          allocated: moneyResponse,
          returned: moneyResponse.describe("Inflows other than fees: desk principal returned, desk profits"),
          spent: moneyResponse,
          pending: moneyResponse,
          holds: z.boolean().describe("allocated + returned = spent + pending"),
          spends: listOf(
            z
              .object({
                what: z.string(),
                id: int,
                paid: moneyResponse.describe("This token's part of the spend"),
                ofTotal: moneyResponse,
                status: z.string().nullable(),
                txHashes: z.array(hash),
                tokensBurned: moneyResponse.nullable(),
              })
              .strict(),
          ),
          inflows: listOf(z.object({ kind: z.string(), amount: moneyResponse, txHash: hash.nullable(), deskTradeId: int.nullable() }).strict()),
        })
        .strict(),
    ),
    outcomes: z
      .object({
        tokensBurned: z.array(z.object({ token: checksummed, burned: moneyResponse }).strict()),
        deskPnl: moneyResponse,
        desks: z.array(deskTradeSummary),
        deskCount: int,
        operatorRevenue: moneyResponse,
        creatorPaid: z.array(moneyResponse),
      })
      .strict(),
    totals: z.object({ in: moneyResponse, out: moneyResponse, pending: moneyResponse, holds: z.boolean() }).strict(),
  })
  .strict();

const finding = {
  scope: z
    .enum(["token", "protocol"])
    .describe("token: this token's check; protocol: a check that belongs to no token (fees claimed per currency, the operator's USDC and WETH)"),
  check: z.string(),
  leg: z.string().nullable(),
  currency: z.string().nullable(),
  expected: baseUnits,
  actual: baseUnits,
};
const when = z.object({ block: int, blockTime: iso, auditedAt: iso }).strict();

export const tokenAuditResponse = z
  .object({
    token: checksummed,
    status: z.enum(["clean", "clean-so-far", "differences", "not-audited"]),
    summary: z.string().describe('"clean at block N, time T", or each difference'),
    ok: z.boolean().nullable(),
    settled: z.boolean().nullable(),
    block: int.nullable(),
    blockTime: iso.nullable(),
    auditedAt: iso.nullable(),
    indexedTo: int.nullable(),
    differences: z.array(z.object({ ...finding, difference: baseUnits.describe("actual − expected"), detail: z.string().nullable() }).strict()),
    pending: z.array(z.object({ ...finding, amount: baseUnits, what: z.array(z.string()) }).strict()),
    checks: z.array(z.string()),
    lastClean: when.nullable().describe("The newest run that found the token and the protocol-wide checks clean and settled"),
  })
  .strict();

const usdcMoney = moneyResponse;
const perpsDecimal = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .describe("Perps price: exact decimal string in whole units");
export const deskStatementResponse = z
  .object({
    token: checksummed,
    engine: z.boolean().describe("Whether the engine's ledger was readable (false: the ledger figures are zero)"),
    venue: z.enum(PERPS_VENUE_IDS).describe("The perps venue the desks trade on (PERPS_VENUE)"),
    protocol: z.string().describe("The exchange and version of that venue, e.g. Avantis v1, Gains Network gTrade v10"),
    openDesks: z
      .array(
        z
          .object({
            id: z.string(),
            side: z.enum(["long", "short"]),
            leverage: perpsDecimal.describe("Leverage (×): exact decimal string"),
            collateral: usdcMoney,
            entryPrice: perpsDecimal,
            markPrice: perpsDecimal.nullable().describe("The latest oracle price (null: unknown)"),
            liquidationPrice: perpsDecimal
              .nullable()
              .describe(
                "Where the venue liquidates it: 90% of its collateral lost (gains-v10: gTrade's reference formula, before its closing and holding fees)",
              ),
            unrealisedPnl: usdcMoney.nullable().describe("PnL of closing it at the mark price (null: no mark price)"),
            realisedPnl: usdcMoney,
          })
          .strict(),
      )
      .describe("The token's open desks, newest first (at most 100)"),
    fees: z.object({ claimedUsdc: usdcMoney.describe("USDC the token's fees became (USDC as claimed, WETH at its conversion)") }).strict(),
    collateral: z
      .object({
        fromFees: usdcMoney.describe("Fees allocated to the token's perp leg: the desk's collateral in"),
        deployed: usdcMoney.describe("Put on desk trades (openings and top-ups)"),
        returned: usdcMoney.describe("Principal back from closed trades"),
        waiting: usdcMoney.describe("Held by the perp leg, not on a trade yet"),
      })
      .strict(),
    trades: z.object({ total: int, open: int, closed: int, liquidated: int }).strict(),
    pnl: z
      .object({
        realised: usdcMoney.describe("USDC returned − USDC put in, over every trade"),
        open: usdcMoney.nullable().describe("Open trades at the venue's latest mark price (null: no mark price)"),
      })
      .strict(),
    funding: z.object({ separate: z.boolean(), note: z.string() }).strict().describe("Where the venue's funding and fees are: inside realised PnL"),
    liquidations: z.object({ count: int, collateralLost: usdcMoney }).strict(),
    profit: z
      .object({
        toCreatorBuybacks: usdcMoney.describe("Desk profits the creator-buyback queue received"),
        spent: usdcMoney.describe("Spent by the queue on buybacks"),
        waiting: usdcMoney.describe("Held by the queue"),
        buybacks: int.describe("Creator buybacks of the token, as indexed"),
        buybackUsdc: usdcMoney,
        tokensBurned: moneyResponse.describe("Tokens those buybacks burned, as indexed"),
      })
      .strict(),
    burnedPerUsdcOfFees: moneyResponse.nullable().describe("Tokens burned by creator buybacks per whole USDC of the token's fees (null: no fees yet)"),
    statement: z.string().describe("The statement in one paragraph, amounts in whole units"),
  })
  .strict();

// ------------------------------------------------------------------ a launched token's reports

/**
 * A report on one launched token, defined once for REST (GET /tokens/{token}/{path}), GraphQL
 * (`Token.<graphqlName>Report`, and its deprecated `JSON` twin) and MCP (its tool, whose output
 * schema is `schema`). `read` takes a known token; each surface answers "not a launched token"
 * first.
 */
export type TokenReport<S extends z.ZodObject<z.ZodRawShape> = z.ZodObject<z.ZodRawShape>> = {
  path: string;
  graphqlName: string;
  /** The GraphQL object's name and description. */
  typeName: string;
  typeDescription: string;
  tool: string;
  summary: string;
  description: string;
  schema: S;
  read: (deps: ApiDeps, token: Hex) => Promise<z.input<S>>;
};

const tokenReport = <S extends z.ZodObject<z.ZodRawShape>>(report: TokenReport<S>) => report;

export const TOKEN_REPORTS = [
  tokenReport({
    path: "flow",
    graphqlName: "feeFlow",
    typeName: "FeeFlow",
    typeDescription: "A token's fee flow, every stage checking in = out + pending",
    tool: "fee_flow",
    summary: "The token's fee flow: collected, claimed, split into legs, spent, and the outcomes, with their transactions",
    description:
      "Every stage checks in = out + pending (stated in `identity`). Lists of transactions are the newest 100 with their full `count`. Pooled legs are divided among tokens first in, first out.",
    schema: flowResponse,
    read: tokenFlow,
  }),
  tokenReport({
    path: "audit",
    graphqlName: "audit",
    typeName: "PublicAudit",
    typeDescription: "A token's public reconciliation",
    tool: "audit_status",
    summary: "The token's public reconciliation: the engine's latest three-way audit (ledger, index, chain) for it",
    description:
      "Public: \"clean at block N, time T\", or each difference by check, leg and amount (base units), with the protocol-wide checks beside the token's own. The engine's auditor runs it every 10 to 15 minutes and keeps the results.",
    schema: tokenAuditResponse,
    read: (deps, token) => tokenAudit(deps, getAddress(token)),
  }),
  tokenReport({
    path: "desk-statement",
    graphqlName: "deskStatement",
    typeName: "DeskStatement",
    typeDescription: "A token's desk accountability statement",
    tool: "desk_statement",
    summary: "The token's desk accountability statement: collateral in from fees, PnL, funding, liquidations, profit → creator buybacks → tokens burned",
    description:
      "From the engine's ledger and desk trades and the indexed buybacks: the perp leg's fees in, put on trades, returned and waiting; realised and open PnL; liquidations; the desk profits that paid creator buybacks and the tokens they burned; and tokens burned per USDC of the token's fees.",
    schema: deskStatementResponse,
    read: deskStatement,
  }),
] as const;
