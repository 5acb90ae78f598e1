/**
 * An activity entry's facts (`data`), one schema per kind, as served: amounts as exact
 * decimals in whole units of their currency (`formatActivityData`, common/activity.ts: USDC 6
 * decimals, tokens and WETH 18, perps prices and leverage 10), addresses checksummed, indexes
 * as the indexer wrote them. One definition for REST (`data` of GET /activity, documented per
 * kind) and GraphQL (`Activity.details`, a union of one typed object per kind). The desk kinds
 * share one shape: the trade's amounts, and the venue's own facts where it gives them.
 */
import { z } from "zod";
import type { ActivityKind } from "../../common/activity.js";
import { BURN_KINDS } from "../read/burns.js";
import { decimalOf, json, usdcOf } from "./view.js";

const { checksummed: address, hash } = json;
const int = z.number().int();
/** An integer the indexer keeps as a string of digits (a chain's uint256). */
const digits = json.digits.describe("An integer as a string of digits");
/** An amount in the currency its object names (`currency`). */
const amount = (what: string) => decimalOf(`${what} (in currency)`);

const legs = z
  .object({
    protocolUsdc: usdcOf("Protocol leg"),
    assetUsdc: usdcOf("Asset leg"),
    perpUsdc: usdcOf("Perp leg"),
    operatorUsdc: usdcOf("Operator leg (fees the service does not split)"),
  })
  .describe("How the USDC split into the operator's legs");

const paid = { recipient: address.describe("Who the fees went to"), currency: address, amount: amount("Fees") };

const buyback = z.object({
  usdcIn: usdcOf("USDC spent"),
  pairedIn: decimalOf("Paid into the pool (in pairedToken)"),
  pairedToken: address.describe("The pool's paired currency"),
  amountIn: decimalOf("Paid in (in currencyIn)"),
  currencyIn: address.describe("What the operator paid in"),
  tokensBought: decimalOf("Tokens bought"),
});

const desk = z.object({
  tradeId: z.string().describe("The desk trade (pair, trade index, open order id)"),
  collateralDelta: usdcOf("Collateral added (negative: removed)"),
  price: decimalOf("The fill's price (USD per unit of the pair's asset)"),
  realisedPnl: usdcOf("PnL realised by this event"),
  usdcReturned: usdcOf("USDC the venue paid back"),
  pairIndex: digits.optional().describe("The venue's pair index"),
  tradeIndex: digits.optional().describe("The venue's trade index"),
  buy: z.boolean().optional().describe("Long (an open)"),
  leverage: decimalOf("Leverage after the event").optional(),
  openOrderId: digits.optional().describe("The open's order id (an open)"),
  full: z.boolean().optional().describe("The whole trade closed (a close)"),
  cancelReason: int.optional().describe("gTrade's reason for a refused order"),
  fee: usdcOf("The fee a refused order paid").optional(),
  openingFees: usdcOf("Opening fees of a margin top-up").optional(),
  closingFee: usdcOf("Closing fee of a margin withdrawal").optional(),
  marginFees: usdcOf("Avantis v1's margin fees").optional(),
});

const halt = z.object({ halted: z.boolean().describe("Halted in the registry") });

/** Each kind's facts. */
export const ACTIVITY_DATA = {
  "token-launched": z.object({
    name: z.string(),
    symbol: z.string(),
    admin: address,
    poolId: hash,
    pairedToken: address,
    isProtocolToken: z.boolean(),
  }),
  "token-enrolled": z.object({
    creator: address,
    split: z.object({ protocolBps: int, assetBps: int, perpBps: int, creatorBps: int }).describe("The split in basis points"),
    charterHash: hash,
  }),
  "fees-collected": z.object({
    collected: z
      .array(z.object({ rewardIndex: int, recipient: address, currency: address, amount: amount("Collected") }))
      .describe("What each reward slot was paid"),
  }),
  "auction-won": z.object({ payee: address, currency: address, amount: amount("Paid for the round"), round: digits }),
  "auction-fees": z.object({ ...paid, auctionTx: hash.optional().describe("The auction's transaction, when paid later") }),
  "fees-swapped": z.object({
    rewardToken: address,
    amountSwapped: decimalOf("Swapped (in rewardToken)"),
    swappedToken: address,
    amountOut: decimalOf("Received (in swappedToken)"),
  }),
  "fees-claimed": z.object({ owner: address, currency: address, amount: amount("Claimed") }),
  "fees-converted": z.object({
    currencyIn: address,
    amountIn: decimalOf("Converted (in currencyIn)"),
    usdcOut: usdcOf("USDC received"),
    shares: z.array(z.object({ token: address, currency: address, amount: amount("The token's share"), usdc: usdcOf("Its USDC") })),
  }),
  "fees-attributed": z.object({
    currency: address,
    amount: amount("Settled for the token"),
    usdc: usdcOf("Its USDC (converted fees)").optional(),
    legs: legs.optional(),
    awaitingConversion: z.boolean().optional().describe("Waiting to be converted to USDC (no legs yet)"),
  }),
  "protocol-buyback": buyback,
  "creator-buyback": buyback,
  burn: z.object({ amount: decimalOf("Tokens burned"), kind: z.enum(BURN_KINDS), from: address }),
  "asset-purchased": z.object({ usdcIn: usdcOf("USDC spent"), assetBought: decimalOf("Secondary asset bought") }),
  "desk-opened": desk,
  "desk-increased": desk,
  "desk-decreased": desk,
  "desk-closed": desk,
  "desk-liquidated": desk,
  "desk-halted": halt,
  "desk-unhalted": halt,
} satisfies Record<ActivityKind, z.AnyZodObject>;

/** The GraphQL type of each kind's facts (the desk kinds share one, as do the buybacks and the halts). */
export const ACTIVITY_DATA_TYPES: Record<ActivityKind, string> = {
  "token-launched": "TokenLaunchedFacts",
  "token-enrolled": "TokenEnrolledFacts",
  "fees-collected": "FeesCollectedFacts",
  "auction-won": "AuctionWonFacts",
  "auction-fees": "AuctionFeesFacts",
  "fees-swapped": "FeesSwappedFacts",
  "fees-claimed": "FeesClaimedFacts",
  "fees-converted": "FeesConvertedFacts",
  "fees-attributed": "FeesAttributedFacts",
  "protocol-buyback": "BuybackFacts",
  "creator-buyback": "BuybackFacts",
  burn: "BurnFacts",
  "asset-purchased": "AssetPurchasedFacts",
  "desk-opened": "DeskFacts",
  "desk-increased": "DeskFacts",
  "desk-decreased": "DeskFacts",
  "desk-closed": "DeskFacts",
  "desk-liquidated": "DeskFacts",
  "desk-halted": "HaltFacts",
  "desk-unhalted": "HaltFacts",
};

/** Any kind's facts, as REST documents `data`. */
export const activityDataSchema = z
  .union(Object.values(ACTIVITY_DATA) as unknown as [z.AnyZodObject, z.AnyZodObject, ...z.AnyZodObject[]])
  .describe("The event's facts, by kind (amounts as exact decimals in whole units)");
