/** GET /health: uptime, indexer progress and the engine's per-worker health. */
import { Hono } from "hono";
import { sql } from "ponder";
import { db } from "../db.js";

const startedAt = Date.now();

/** Ponder checkpoints are fixed-width decimal strings; the block number is digits 26..42. */
const blockOfCheckpoint = (checkpoint: string) => Number(checkpoint.slice(26, 42));

export async function indexerStatus(): Promise<{ ready: boolean; block: number | null }> {
  const meta = await db.execute(sql`SELECT value FROM _ponder_meta WHERE key = 'app'`);
  const checkpoint = await db.execute(sql`SELECT latest_checkpoint FROM _ponder_checkpoint LIMIT 1`);
  const metaRow = (meta as unknown as { rows: { value: { is_ready: number } }[] }).rows[0];
  const cpRow = (checkpoint as unknown as { rows: { latest_checkpoint: string }[] }).rows[0];
  return { ready: metaRow?.value.is_ready === 1, block: cpRow ? blockOfCheckpoint(cpRow.latest_checkpoint) : null };
}

export const health = new Hono().get("/health", async (c) => {
  const indexer = await indexerStatus();
  return c.json({
    status: indexer.ready ? "ok" : "starting",
    uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
    indexer,
    workers: [],
  });
});
