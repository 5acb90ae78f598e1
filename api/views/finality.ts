/**
 * Final and pending (docs/api.md, "Final and pending"): the protocol's and a token's totals as
 * a part from final blocks and a part a reorg may still change. One schema each, served by
 * REST (`finality` of GET /stats and of each GET /tokens item) and GraphQL
 * (`Stats.finalityReport`, `Token.finalityReport`); the JSON is api/read/finality.ts's.
 */
import { legsSchema } from "./legs.js";
import { z } from "zod";
import { deprecatedAs } from "./view.js";
import { decimalOf as decimal, usdcOf as usdc } from "../../common/edge.js";

const int = z.number().int();

/** A total's final and pending parts (docs/api.md, "Final and pending"). */
const graded = <T extends z.ZodTypeAny>(figures: T) =>
  z
    .object({
      confirmations: int.describe("CONFIRMATIONS: how deep a block must be to be final"),
      indexedBlock: int.nullable().describe("The block the index has reached"),
      finalBlock: int.nullable().describe("indexedBlock − CONFIRMATIONS: the newest final block"),
      final: figures.describe("The part from blocks at or below finalBlock"),
      pending: figures.describe("The part from blocks above finalBlock: a reorg may still change it"),
    })
    .strict();

export const protocolFigures = z
  .object({
    tokens: z.object({ launched: int, enrolled: int }).strict(),
    fees: z
      .object({
        toOperatorUsdc: usdc("Fees to the operator"),
        claimedUsdc: usdc("Claimed"),
        protocolTokenFeesUsdc: usdc("The protocol token's own pool fees"),
        legs: legsSchema,
      })
      .strict(),
    buybacks: z
      .object({
        protocol: z.object({ count: int, usdcIn: usdc("Spent"), tokensBought: decimal("Bought"), tokensBurned: decimal("Burned") }).strict(),
        creator: z.object({ count: int, usdcIn: usdc("Spent") }).strict(),
      })
      .strict(),
    assetPurchasesUsdc: usdc("Spent on the secondary asset"),
    desks: z.object({ opened: int, open: int, realisedPnlUsdc: usdc("Realised PnL") }).strict(),
  })
  .strict();

export const tokenFigures = z
  .object({
    feesToOperatorUsdc: usdc("Fees to the operator"),
    creatorLegUsdc: deprecatedAs(usdc("Creator leg"), "legs.creatorUsdc"),
    buybacks: int,
    buybackUsdc: usdc("Spent on buybacks"),
    burned: decimal("Tokens burned"),
    burns: int,
    legs: legsSchema,
  })
  .strict();

export const protocolFinalityResponse = graded(protocolFigures);
export const tokenFinalityResponse = graded(tokenFigures);
