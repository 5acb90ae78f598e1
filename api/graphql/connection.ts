/**
 * Relay connections over keyset pages, both ways: `first`/`after` pages forward, `last`/`before`
 * backward (the last rows before a cursor, or of the whole list); at most 200 a page.
 */
import { DEFAULT_LIMIT, MAX_LIMIT, type Page, type PageWindow } from "../read/keyset.js";
import { userError } from "./errors.js";

export type ConnectionArgs = { first?: number | null; after?: string | null; last?: number | null; before?: string | null };

function pageSize(name: "first" | "last", value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT) throw userError(`${name} must be an integer from 1 to ${MAX_LIMIT}`);
  return value;
}

/**
 * The window of a connection's arguments. `first` and `last` together are refused (Relay
 * discourages it and its answer surprises); `after` and `before` together bound a range.
 */
export function pageArgs(args: ConnectionArgs): PageWindow {
  if (args.first != null && args.last != null) throw userError("give first or last, not both");
  const window = { after: args.after ?? null, before: args.before ?? null };
  if (args.last != null) return { ...window, limit: pageSize("last", args.last), backward: true };
  // `before` alone pages backward from it, as a client following `startCursor` expects.
  if (args.first == null && args.before != null) return { ...window, limit: DEFAULT_LIMIT, backward: true };
  return { ...window, limit: pageSize("first", args.first ?? DEFAULT_LIMIT), backward: false };
}

/** Complexity of a connection: its own cost plus the page size times its nodes' cost. */
export const connectionComplexity = (args: ConnectionArgs) => ({
  field: 2,
  multiplier: Math.min(Math.max(args.first ?? args.last ?? DEFAULT_LIMIT, 1), MAX_LIMIT),
});

export function toConnection<Row>(page: Page<Row>) {
  const edges = page.rows.map((node) => ({ node, cursor: page.cursorOf(node) }));
  return {
    edges,
    pageInfo: {
      hasNextPage: page.hasNext,
      hasPreviousPage: page.hasPrevious,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}
