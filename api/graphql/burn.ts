/** `Burn`: a transfer of a tracked token to the dead address. */
import { and, desc, eq, lt, or } from "ponder";
import { burn } from "../../schema/ponder.js";
import { formatDecimal, TOKEN_DECIMALS } from "../../common/money.js";
import { db } from "../db.js";
import { builder } from "./builder.js";

type BurnRow = typeof burn.$inferSelect;

export const BurnType = builder.objectRef<BurnRow>("Burn").implement({
  fields: (t) => ({
    id: t.exposeString("id"),
    token: t.exposeString("token"),
    from: t.exposeString("from"),
    kind: t.exposeString("kind"),
    amount: t.string({ description: "Exact decimal amount in whole tokens.", resolve: (r) => formatDecimal(r.amount, TOKEN_DECIMALS) }),
    amountRaw: t.field({ type: "BigInt", description: "Amount in base units.", resolve: (r) => r.amount }),
    txHash: t.exposeString("txHash"),
    blockNumber: t.field({ type: "BigInt", resolve: (r) => r.blockNumber }),
    logIndex: t.exposeInt("logIndex"),
    timestamp: t.string({ description: "ISO-8601", resolve: (r) => new Date(Number(r.timestamp) * 1000).toISOString() }),
  }),
});

const encodeCursor = (r: BurnRow) => Buffer.from(`${r.blockNumber}:${r.logIndex}`).toString("base64url");
function decodeCursor(cursor: string): { block: bigint; logIndex: number } {
  const match = /^(\d+):(\d+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw new Error("invalid cursor");
  return { block: BigInt(match[1]!), logIndex: Number(match[2]) };
}

builder.queryField("burns", (t) =>
  t.connection({
    type: BurnType,
    description: "Burns, newest first.",
    args: { token: t.arg.string() },
    resolve: async (_root, args) => {
      const first = Math.min(args.first ?? 50, 200);
      const conditions = [];
      if (args.token) conditions.push(eq(burn.token, args.token.toLowerCase() as `0x${string}`));
      if (args.after) {
        const c = decodeCursor(args.after);
        conditions.push(or(lt(burn.blockNumber, c.block), and(eq(burn.blockNumber, c.block), lt(burn.logIndex, c.logIndex))));
      }
      const rows = await db
        .select()
        .from(burn)
        .where(conditions.length ? and(...conditions) : undefined)
        .orderBy(desc(burn.blockNumber), desc(burn.logIndex))
        .limit(first + 1);
      const page = rows.slice(0, first);
      return {
        edges: page.map((node) => ({ node, cursor: encodeCursor(node) })),
        pageInfo: {
          hasNextPage: rows.length > first,
          hasPreviousPage: Boolean(args.after),
          startCursor: page[0] ? encodeCursor(page[0]) : null,
          endCursor: page.at(-1) ? encodeCursor(page.at(-1)!) : null,
        },
      };
    },
  }),
);
