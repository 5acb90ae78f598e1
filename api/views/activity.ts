/**
 * An activity entry's facts (`data`) as the API serves them: one schema per kind, declared once
 * in common/activity.ts (`ACTIVITY_DATA`, shared with the engine's webhooks), here given their
 * GraphQL names and the union REST documents. REST's `data` of GET /activity is documented per
 * kind; GraphQL's `Activity.details` is a union of one typed object per kind. The desk kinds
 * share one shape: the trade's amounts, and the venue's own facts where it gives them.
 */
import { z } from "zod";
import { ACTIVITY_DATA, type ActivityData, type ActivityKind } from "../../common/activity.js";

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
  .describe("The event's facts, by kind (amounts as exact decimals in whole units)") as unknown as z.ZodType<ActivityData>;
