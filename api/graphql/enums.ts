/** GraphQL enums; their values are the strings stored in the tables. */
import { ACTIVITY_KINDS } from "../read/activity.js";
import { BURN_KINDS, BUYBACK_KINDS } from "../../common/activity.js";
import { DESK_STATUSES } from "../read/desks.js";
import { builder } from "./builder.js";

/** An enum's values from the strings it stands for: `protocol-buyback` is `PROTOCOL_BUYBACK`, its value the string. */
export const valuesOf = <K extends string>(kinds: readonly K[]) =>
  Object.fromEntries(kinds.map((k) => [k.toUpperCase().replace(/-/g, "_"), { value: k }])) as Record<string, { value: K }>;

export const BurnKindEnum = builder.enumType("BurnKind", {
  description: "Who burned: the protocol-token buyback, a creator-token buyback (both by the operator), or anyone else.",
  values: valuesOf(BURN_KINDS),
});

export const BuybackKindEnum = builder.enumType("BuybackKind", {
  values: valuesOf(BUYBACK_KINDS),
});

export const ActivityKindEnum = builder.enumType("ActivityKind", { values: valuesOf(ACTIVITY_KINDS) });

export const DeskStatusEnum = builder.enumType("DeskStatus", { values: valuesOf(DESK_STATUSES) });
export const DeskSideEnum = builder.enumType("DeskSide", { values: valuesOf(["long", "short"] as const) });

export const EventOrderEnum = builder.enumType("EventOrder", {
  description: "NEWEST and OLDEST follow chain order; LARGEST sorts by amount (burned tokens, or USDC spent).",
  values: { NEWEST: { value: "NEWEST" }, OLDEST: { value: "OLDEST" }, LARGEST: { value: "LARGEST" } } as const,
});

export const TokenOrderEnum = builder.enumType("TokenOrder", {
  values: { NEWEST: { value: "NEWEST" }, OLDEST: { value: "OLDEST" } } as const,
});

export const BurnGroupEnum = builder.enumType("BurnGroup", {
  description: "Bucket size of burn totals: UTC day, ISO week (from Monday), UTC month.",
  values: { DAY: { value: "DAY" }, WEEK: { value: "WEEK" }, MONTH: { value: "MONTH" } } as const,
});
