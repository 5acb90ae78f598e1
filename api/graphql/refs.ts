/** Object refs declared before their types, so types can point at each other. */
import type { ActivityRow } from "../read/activity.js";
import type { BurnBucket } from "../read/burn-totals.js";
import type { BurnRow } from "../read/burns.js";
import type { BuybackRow } from "../read/buybacks.js";
import type { DeskView } from "../read/desks.js";
import type { TokenView } from "../read/tokens.js";
import { builder } from "./builder.js";

export const TokenRef = builder.objectRef<TokenView>("Token");
export const BurnRef = builder.objectRef<BurnRow>("Burn");
export const BuybackRef = builder.objectRef<BuybackRow>("Buyback");
export const DeskRef = builder.objectRef<DeskView>("Desk");
export const ActivityRef = builder.objectRef<ActivityRow>("Activity");
export const BurnBucketRef = builder.objectRef<BurnBucket>("BurnBucket");

/** Connection types shared by the root fields and the fields of Token. */
export const BurnConnection = builder.connectionObject({ type: BurnRef, name: "BurnConnection" }, { name: "BurnEdge" });
export const BuybackConnection = builder.connectionObject({ type: BuybackRef, name: "BuybackConnection" }, { name: "BuybackEdge" });
