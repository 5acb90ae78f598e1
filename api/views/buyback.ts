/**
 * A buyback: the operator's swap into a launched token (a protocol or a creator buyback), paid
 * in USDC, or in WETH for a legacy-WETH buyback. One definition for REST (GET /buybacks and
 * GET /buybacks/{token}), GraphQL (`Buyback`) and the buybacks export (its columns and
 * documented row).
 */
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import { buyback, pool } from "../../schema/ponder.js";
import { BUYBACK_KINDS } from "../../common/activity.js";
import { type ViewJson, defineView, viewSchema } from "./view.js";

export const buybackView = defineView({
  name: "buyback",
  description: "A buyback: the operator's swap into a launched token, paid in USDC (or WETH for a legacy-WETH buyback)",
  fields: {
    id: { kind: "text", description: "The buyback's id: its transaction hash and log index" },
    token: { kind: "address", description: "The token bought back", graphqlName: "tokenAddress" },
    kind: { kind: "enum", values: BUYBACK_KINDS, description: "Whose buyback: the protocol token's, or a creator token's" },
    usdcIn: {
      kind: "amount",
      decimals: USDC_DECIMALS,
      description: "USDC spent: paid in, or what the WETH paid in was sold for in the same transaction",
    },
    pairedIn: { kind: "amount", currency: "pairedCurrency", description: "Paired currency paid into the pool (USDC, or WETH for a WETH-paired token)" },
    spentCurrency: { kind: "address", description: "What the operator paid in: USDC, or WETH for a legacy-WETH buyback" },
    spentSymbol: { kind: "symbol", currency: "spentCurrency", description: "The symbol of spentCurrency" },
    spent: { kind: "amount", currency: "spentCurrency", description: "Paid in, in spentCurrency; usdcIn is its USDC" },
    tokensBought: { kind: "amount", decimals: TOKEN_DECIMALS, description: "Tokens bought" },
    tokensBurned: { kind: "amount", decimals: TOKEN_DECIMALS, description: "Of those, burned" },
    txHash: { kind: "hash", description: "The buyback's transaction" },
    blockNumber: { kind: "int", graphql: "BigInt", description: "The buyback's block" },
    logIndex: { kind: "int", description: "The swap's log index in its block" },
    timestamp: { kind: "time", description: "The block's time" },
  },
  columns: {
    id: buyback.id,
    token: buyback.token,
    kind: buyback.kind,
    usdcIn: buyback.usdcIn,
    pairedIn: buyback.pairedIn,
    // The token's pool's paired currency (read through the token's pool).
    pairedCurrency: pool.pairedToken,
    spentCurrency: buyback.currencyIn,
    spent: buyback.amountIn,
    tokensBought: buyback.tokensBought,
    tokensBurned: buyback.tokensBurned,
    txHash: buyback.txHash,
    blockNumber: buyback.blockNumber,
    logIndex: buyback.logIndex,
    timestamp: buyback.timestamp,
  },
});

export const buybackSchema = viewSchema(buybackView);
export type BuybackJson = ViewJson<typeof buybackView.fields>;
