/**
 * A desk: one leveraged perps trade the engine opened for a token (notional = collateral ×
 * leverage). One definition for REST (GET /desks, a token's `desk`, the largest desks of
 * /stats) and GraphQL (`Desk`). Rows are computed (api/read/desks.ts `deskView`), so the view
 * reads no table and has no export.
 */
import { PERPS_VENUE_IDS } from "../../common/perps-venues.js";
import { USDC_DECIMALS } from "../../common/money.js";
import { DESK_STATUSES, type DeskView } from "../read/desks.js";
import { type ViewJson, defineView, viewJson, viewSchema } from "./view.js";

const DESK_SIDES = ["long", "short"] as const;

/** Leverage and prices: fixed point at 1e10, as the venues write them. */
const PERPS_DECIMALS = 10;

export const deskView = defineView({
  name: "desk",
  description: "A leveraged perps position funded by a token's perp leg (notional = collateral × leverage).",
  fields: {
    id: { kind: "text", description: "The desk's id: the venue's trade" },
    token: { kind: "address", nullable: true, description: "The token the engine opened it for", graphqlName: "tokenAddress" },
    venue: { kind: "enum", values: PERPS_VENUE_IDS, description: "The perps venue it trades on (PERPS_VENUE)" },
    protocol: { kind: "text", description: "The exchange and version of that venue, e.g. Avantis v1, Gains Network gTrade v10" },
    pairIndex: { kind: "int", graphql: "BigInt", description: "The venue's pair index" },
    tradeIndex: { kind: "int", graphql: "BigInt", description: "The venue's trade index of the operator" },
    status: { kind: "enum", values: DESK_STATUSES, description: "Open, closed, or liquidated by the venue" },
    halted: { kind: "bool", description: "Halted by the engine (drawdown) or the registry: no growth while halted" },
    haltReason: { kind: "text", nullable: true, description: "Why it is halted" },
    side: { kind: "enum", values: DESK_SIDES, description: "Long or short" },
    collateral: { kind: "amount", decimals: USDC_DECIMALS, description: "Collateral (USDC)" },
    leverage: { kind: "amount", decimals: PERPS_DECIMALS, description: "Leverage (×)" },
    notional: { kind: "amount", decimals: USDC_DECIMALS, description: "Collateral × leverage (USDC)" },
    entryPrice: { kind: "amount", decimals: PERPS_DECIMALS, description: "Entry price (USD)" },
    markPrice: { kind: "amount", decimals: PERPS_DECIMALS, nullable: true, description: "Latest oracle price while open, when known (USD)" },
    liquidationPrice: {
      kind: "amount",
      decimals: PERPS_DECIMALS,
      nullable: true,
      description:
        "Where the venue liquidates the open desk: the venue's own figure at the engine's latest mark of it (gains-v10: the diamond's getTradeLiquidationPrice, fees included), or before that mark its formula (90% of the collateral lost, before fees); null once closed",
    },
    unrealisedPnl: {
      kind: "amount",
      decimals: USDC_DECIMALS,
      nullable: true,
      description: "PnL of closing it at the mark price, the venue's charges deducted (USDC)",
    },
    realisedPnl: { kind: "amount", decimals: USDC_DECIMALS, description: "Realised PnL (USDC)" },
    usdcReturned: { kind: "amount", decimals: USDC_DECIMALS, description: "USDC paid back by closes" },
    openedAt: { kind: "time", description: "When it opened" },
    closedAt: { kind: "time", nullable: true, description: "When it closed" },
    openTx: { kind: "hash", description: "The transaction that opened it" },
  },
});

export const deskSchema = viewSchema(deskView);
export type DeskJson = ViewJson<typeof deskView.fields>;

/** A desk as its view writes it. */
export const deskJson = (d: DeskView): DeskJson => viewJson(deskView, d);
