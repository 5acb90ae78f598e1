/** Read access to the indexed tables: ponder's `db`, or a drizzle client on the same schema. */
import type { NodePgDatabase } from "drizzle-orm/node-postgres";

export type ReadDb = Pick<NodePgDatabase<Record<string, never>>, "select" | "execute">;
