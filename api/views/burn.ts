/**
 * A burn: a transfer of a launched token to the dead address (docs/glossary.md). One
 * definition for REST (GET /burns/{token}), GraphQL (`Burn`), MCP (`burns`) and the burns
 * export (its columns and documented row).
 */
import { TOKEN_DECIMALS } from "../../common/money.js";
import { burn } from "../../schema/ponder.js";
import { BURN_KINDS } from "../../common/activity.js";
import { type ViewJson, defineView, viewSchema } from "./view.js";

export const burnView = defineView({
  name: "burn",
  description: "A transfer of a launched token to the dead address",
  fields: {
    id: { kind: "text", description: "The burn's id: its transaction hash and log index" },
    token: { kind: "address", description: "The token burned", graphqlName: "tokenAddress" },
    kind: { kind: "enum", values: BURN_KINDS, description: "Who burned: a protocol buyback, a creator buyback, or anyone else (organic)" },
    from: { kind: "address", description: "Holder whose tokens were burned" },
    txFrom: { kind: "address", description: "Sender of the transaction" },
    amount: { kind: "amount", decimals: TOKEN_DECIMALS, description: "Tokens burned" },
    txHash: { kind: "hash", description: "The burn's transaction" },
    blockNumber: { kind: "int", graphql: "BigInt", description: "The burn's block" },
    logIndex: {
      kind: "int",
      description: "The burn's log index in its block: with txHash, what GET /burns/{txHash}/{logIndex} proves",
    },
    timestamp: { kind: "time", description: "The block's time" },
  },
  columns: {
    id: burn.id,
    token: burn.token,
    kind: burn.kind,
    from: burn.from,
    txFrom: burn.txFrom,
    amount: burn.amount,
    txHash: burn.txHash,
    blockNumber: burn.blockNumber,
    logIndex: burn.logIndex,
    timestamp: burn.timestamp,
  },
});

export const burnSchema = viewSchema(burnView);
export type BurnJson = ViewJson<typeof burnView.fields>;
