/** Small named values in `engine.state`: cursors of the workers, the heartbeat, the RPC status. */
import { sql } from "drizzle-orm";
import type { Queryable } from "../../core/db/client.js";

export async function getState<T>(q: Queryable, key: string): Promise<T | undefined> {
  const { rows } = await q.execute<{ value: T }>(sql`SELECT value FROM engine.state WHERE key = ${key}`);
  return rows[0]?.value;
}

export async function setState(q: Queryable, key: string, value: unknown): Promise<void> {
  await q.execute(
    sql`INSERT INTO engine.state (key, value, updated_at) VALUES (${key}, ${JSON.stringify(value)}::jsonb, now())
        ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
  );
}
