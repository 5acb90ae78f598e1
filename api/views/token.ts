/**
 * A token of ours, declared once: what its launch wrote (`tokenView`: the fields of a token in
 * GET /tokens and of GraphQL `Token`, read from the same row), its running totals (`totals` of a token in
 * GET /tokens; GraphQL `TokenTotals`) and the USDC the engine holds for it (`pending`;
 * GraphQL `TokenPending`), under the same names on both (docs/glossary.md, "Public figures").
 * The legs, the fees and spending per currency and the finality beside them have views of
 * their own (legs.ts, fees.ts, finality.ts).
 */
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import type { TokenPending } from "../engine-port.js";
import type { PoolRow, TokenRow, TokenTotalsRow } from "../read/tokens.js";
import { defineView, viewJson, viewSchema } from "./view.js";

export const tokenView = defineView({
  name: "token",
  description: "A token of ours, as its launch wrote it",
  fields: {
    address: { kind: "address", description: "The token" },
    name: { kind: "text", description: "Its name" },
    symbol: { kind: "text", description: "Its symbol" },
    image: { kind: "text", description: "Its image URL, as launched" },
    metadata: { kind: "text", description: "Its metadata (JSON text), as launched" },
    admin: { kind: "address", description: "Its admin in Clanker (may update the image and metadata)" },
    deployer: { kind: "address", description: "Who sent the launch" },
    isProtocolToken: { kind: "bool", description: "The configured protocol token" },
    launchTx: { kind: "hash", description: "The launch's transaction" },
    createdAt: { kind: "time", description: "When it was launched" },
    createdBlock: { kind: "int", graphql: "BigInt", description: "The launch's block" },
  },
});

/** A price of one whole token in USDC base units per 1e18 (`priceUsdcE18`): 6 + 18 decimals. */
const PRICE_USDC_DECIMALS = USDC_DECIMALS + 18;

export const poolView = defineView({
  name: "pool",
  description: "The token's Uniswap v4 pool",
  fields: {
    poolId: { kind: "hash", description: "The v4 pool id" },
    pairedToken: { kind: "address", description: "The currency the token is paired with" },
    currency0: { kind: "address", description: "The pool key's currency0" },
    currency1: { kind: "address", description: "The pool key's currency1" },
    fee: { kind: "int", description: "LP fee in hundredths of a bip" },
    tickSpacing: { kind: "int", description: "The pool key's tick spacing" },
    hooks: { kind: "address", description: "The pool's hook" },
    tick: { kind: "int", description: "The current tick" },
    sqrtPriceX96: { kind: "digits", description: "The current sqrt price, Q64.96" },
    liquidity: { kind: "digits", description: "The in-range liquidity" },
    priceUsdc: { kind: "amount", decimals: PRICE_USDC_DECIMALS, description: "USDC per whole token" },
    volumeToken: { kind: "amount", decimals: TOKEN_DECIMALS, description: "Tokens traded" },
    volumePairedRaw: { kind: "digits", description: "Paired currency traded (base units)" },
    swaps: { kind: "int", description: "Swaps indexed" },
    updatedAt: { kind: "time", description: "When the pool last changed" },
  },
});

/** A pool row under its public names. */
export const poolViewRow = (p: PoolRow) => ({ ...p, priceUsdc: p.priceUsdcE18, volumePairedRaw: p.volumePaired });

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

export const tokenSchema = viewSchema(tokenView);
export const tokenViewJson = (token: TokenRow) => viewJson(tokenView, token);
export const poolSchema = viewSchema(poolView);
export const poolJson = (pool: PoolRow) => viewJson(poolView, poolViewRow(pool));
export const tokenTotalsSchema = viewSchema(tokenTotalsView);
export const tokenPendingSchema = viewSchema(tokenPendingView);
export const tokenTotalsJson = (totals: TokenTotalsRow | null) => viewJson(tokenTotalsView, totals ?? NO_TOTALS);
export const tokenPendingJson = (pending: TokenPending) => viewJson(tokenPendingView, pending);
