/**
 * Single-leader guard: the engine holds a session-level PostgreSQL advisory lock on one
 * dedicated connection for its whole life. A second engine waits as a hot standby.
 */
import pg from "pg";
import type { Logger } from "../../common/logger.js";

export const ENGINE_LOCK_KEY = 0x6c61756e6368n; // "launch"

export type Leadership = { client: pg.Client; release: () => Promise<void> };

export async function acquireLeadership(
  databaseUrl: string,
  log: Logger,
  options: { pollMs?: number; signal?: AbortSignal } = {},
): Promise<Leadership | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "launchpad-engine-leader" });
  await client.connect();
  // Losing this connection means losing the lock: another engine may take over, so stop.
  client.on("error", (error) => {
    if (options.signal?.aborted) process.exit(0);
    log.fatal({ err: error.message }, "lost the leadership connection; stopping");
    process.exit(70);
  });
  let waitingLogged = false;
  while (!options.signal?.aborted) {
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [ENGINE_LOCK_KEY.toString()]);
    if (rows[0]?.locked) {
      log.info("engine leadership acquired");
      return {
        client,
        release: async () => {
          await client.query("SELECT pg_advisory_unlock($1)", [ENGINE_LOCK_KEY.toString()]).catch(() => {});
          await client.end().catch(() => {});
        },
      };
    }
    if (!waitingLogged) log.info("another engine holds leadership; waiting as standby");
    waitingLogged = true;
    await new Promise((r) => setTimeout(r, options.pollMs ?? 2_000));
  }
  await client.end();
  return undefined;
}
