/** Relay connections over keyset pages: forward pagination (`first`, `after`), at most 200 a page. */
import { DEFAULT_LIMIT, MAX_LIMIT, type Page } from "../read/keyset.js";
import { userError } from "./errors.js";

export type ConnectionArgs = { first?: number | null; after?: string | null; last?: number | null; before?: string | null };

/** The page size and cursor of a connection's arguments. */
export function pageArgs(args: ConnectionArgs): { limit: number; after: string | null } {
  if (args.last != null || args.before != null) throw userError("only forward pagination is supported: use first and after");
  const first = args.first ?? DEFAULT_LIMIT;
  if (!Number.isInteger(first) || first < 1 || first > MAX_LIMIT) throw userError(`first must be an integer from 1 to ${MAX_LIMIT}`);
  return { limit: first, after: args.after ?? null };
}

/** Complexity of a connection: its own cost plus `first` times its nodes' cost. */
export const connectionComplexity = (args: ConnectionArgs) => ({
  field: 2,
  multiplier: Math.min(Math.max(args.first ?? DEFAULT_LIMIT, 1), MAX_LIMIT),
});

export function toConnection<Row>(page: Page<Row>, args: ConnectionArgs) {
  const edges = page.rows.map((node) => ({ node, cursor: page.cursorOf(node) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.hasMore,
      hasPreviousPage: Boolean(args.after),
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
