/**
 * A token's own figures, each declared once: its running totals (`totals` of a token in
 * GET /tokens; GraphQL `TokenTotals`) and the USDC the engine holds for it (`pending`;
 * GraphQL `TokenPending`), under the same names on both (docs/glossary.md, "Public figures").
 * The legs, the fees and spending per currency and the finality beside them have views of
 * their own (legs.ts, fees.ts, finality.ts).
 */
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import type { TokenPending } from "../engine-port.js";
import type { TokenTotalsRow } from "../read/tokens.js";
import { defineView, viewJson, viewSchema } from "./view.js";

const usdc = (description: string) => ({ kind: "amount", decimals: USDC_DECIMALS, description: `${description} (USDC)` }) as const;
const tokens = (description: string) => ({ kind: "amount", decimals: TOKEN_DECIMALS, description }) as const;

export const tokenTotalsView = defineView({
  name: "tokenTotals",
  description: "The token's running totals (incremental aggregates)",
  fields: {
    feesToOperatorUsdc: usdc("LP fees collected for the operator, WETH at its conversion's realised rate (= the sum of the legs)"),
    buybacks: { kind: "int", description: "Buybacks of the token" },
    buybackUsdc: usdc("Spent on buybacks"),
    tokensBought: tokens("Tokens bought back"),
    burned: tokens("Tokens burned (all burns)"),
    burns: { kind: "int", description: "Burns indexed" },
    buybackBurned: tokens("Bought-back tokens burned"),
  },
});

export const tokenPendingView = defineView({
  name: "tokenPending",
  description: "The token's USDC waiting in the engine's ledger",
  fields: {
    perpUsdc: usdc("Allocated to the desk, not yet traded"),
    creatorBuybackUsdc: usdc("Queued for a creator buyback"),
  },
});

/** A token's totals before its first fee, buyback or burn. */
const NO_TOTALS = { feesToOperatorUsdc: 0n, buybacks: 0, buybackUsdc: 0n, tokensBought: 0n, burned: 0n, burns: 0, buybackBurned: 0n };

export const tokenTotalsSchema = viewSchema(tokenTotalsView);
export const tokenPendingSchema = viewSchema(tokenPendingView);
export const tokenTotalsJson = (totals: TokenTotalsRow | null) => viewJson(tokenTotalsView, totals ?? NO_TOTALS);
export const tokenPendingJson = (pending: TokenPending) => viewJson(tokenPendingView, pending);
