/**
 * The webhook outbox's producer (docs/design.md §7.1): turns indexed facts (the activity feed,
 * one row per event) into deliveries, one per (endpoint, fact, phase), in PostgreSQL.
 *
 * - **final**: a fact whose block is at least `CONFIRMATIONS` below the head and that the index
 *   has reached. A cursor (`engine.state` `webhooks-cursor`, the last activity id made final)
 *   walks the feed in chain order; it only passes blocks the index has finished, so no fact is
 *   skipped, and it is written in the transaction that queues the deliveries, so none is
 *   queued twice (the unique index says the same).
 * - **pending**: for endpoints that ask for them, facts above that line, as soon as indexed.
 * - **retracted**: a pending fact that the index no longer has (a reorg removed it): its
 *   pending delivery is followed by a retraction naming the same fact. A fact is identified
 *   by its activity id and its transaction hash, since another fact of a new branch can take
 *   the same position (block number, log index).
 *
 * A reorg deeper than `CONFIRMATIONS` can take back a fact already delivered as final; like
 * the ledger (docs/design.md §5.5) that is beyond what finality promises, and it is not retracted.
 */
import type pg from "pg";
import { type Address, getAddress } from "viem";
import { type ActivityKind, formatActivityData } from "../../common/activity.js";
import { VIEWS_SCHEMA } from "../../common/constants.js";
import type { EngineContext } from "../../core/context.js";
import type { WebhookPhase } from "../../core/webhooks/store.js";

export const CURSOR_KEY = "webhooks-cursor";
/** Facts made final per pass (the cycle loops until the cursor catches up or its budget ends). */
const FINAL_BATCH = 500;
/** Most pending facts read per pass (those of the last CONFIRMATIONS blocks). */
const PENDING_BATCH = 2_000;

type Endpoint = { id: string; events: string[]; token: string | null; pending: boolean; since_block: string };

type Fact = { id: string; kind: string; token: string | null; tx_hash: string; block_number: string; log_index: number; timestamp: string; data: unknown };

export type EnqueueReport = { final: number; pending: number; retracted: number; cursor: string; finalBlock: number | null; indexedTo: number | null };

const blockOfCheckpoint = (checkpoint: string) => Number(checkpoint.slice(26, 42));

function assertIdentifier(schema: string) {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`index schema "${schema}" is not a plain identifier`);
}

const factKey = (f: Pick<Fact, "id" | "tx_hash">) => `${f.id}:${f.tx_hash.toLowerCase()}`;

const matches = (e: Endpoint, f: Pick<Fact, "kind" | "token" | "block_number">) =>
  e.events.includes(f.kind) && (!e.token || e.token === f.token?.toLowerCase()) && Number(f.block_number) > Number(e.since_block);

/** The fact as the webhook body carries it: exact decimals (`data`) and base units as indexed (`raw`). */
export function factPayload(f: Fact, usdc: Address | undefined) {
  return {
    id: f.id,
    kind: f.kind,
    token: f.token ? getAddress(f.token) : null,
    txHash: f.tx_hash,
    blockNumber: Number(f.block_number),
    logIndex: f.log_index,
    timestamp: new Date(Number(f.timestamp) * 1000).toISOString(),
    data: formatActivityData(f.kind as ActivityKind, f.data, usdc),
    raw: f.data,
  };
}

/** Queues one delivery (nothing when that endpoint already has this phase of this fact); its id, or null. */
async function queue(
  client: pg.PoolClient,
  ctx: Pick<EngineContext, "config">,
  e: Endpoint,
  phase: WebhookPhase,
  fact: { key: string; kind: string; token: string | null; blockNumber: number; payload: unknown },
  extra: { afterId?: number | null; open?: boolean } = {},
): Promise<number | null> {
  const exists = await client.query("SELECT 1 FROM engine.webhook_deliveries WHERE endpoint_id = $1 AND fact_key = $2 AND phase = $3", [e.id, fact.key, phase]);
  if (exists.rowCount) return null;
  const { rows } = await client.query<{ id: string; now: Date }>(
    "SELECT nextval(pg_get_serial_sequence('engine.webhook_deliveries', 'id'))::text AS id, now() AS now",
  );
  const id = rows[0]!.id;
  const body = JSON.stringify({
    id,
    event: `${fact.kind}.${phase}`,
    phase,
    endpoint: e.id,
    createdAt: rows[0]!.now.toISOString(),
    confirmations: ctx.config.confirmations,
    fact: fact.payload,
  });
  const inserted = await client.query(
    `INSERT INTO engine.webhook_deliveries (id, endpoint_id, fact_key, kind, token, block_number, phase, body, open, after_id, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now() + make_interval(secs => $11))
     ON CONFLICT (endpoint_id, fact_key, phase) DO NOTHING`,
    [
      id,
      e.id,
      fact.key,
      fact.kind,
      fact.token?.toLowerCase() ?? null,
      fact.blockNumber,
      phase,
      body,
      extra.open ?? false,
      extra.afterId ?? null,
      ctx.config.webhooks.giveUpSeconds,
    ],
  );
  return inserted.rowCount ? Number(id) : null;
}

/** Closes the open pending delivery of a fact for an endpoint; its id (what the next phase waits for), or null. */
async function closePending(client: pg.PoolClient, endpointId: string, key: string): Promise<number | null> {
  const { rows } = await client.query<{ id: string }>(
    "UPDATE engine.webhook_deliveries SET open = false WHERE endpoint_id = $1 AND fact_key = $2 AND phase = 'pending' AND open RETURNING id::text",
    [endpointId, key],
  );
  return rows[0] ? Number(rows[0].id) : null;
}

/** The newest delivery of a fact to an endpoint, or null. */
async function lastDelivery(client: pg.PoolClient, endpointId: string, key: string): Promise<number | null> {
  const { rows } = await client.query<{ id: string | null }>(
    "SELECT max(id)::text AS id FROM engine.webhook_deliveries WHERE endpoint_id = $1 AND fact_key = $2",
    [endpointId, key],
  );
  return rows[0]?.id ? Number(rows[0].id) : null;
}

/** The block the index has finished (ponder's checkpoint), or its newest fact's without one. */
async function indexedBlock(client: pg.PoolClient, schema: string): Promise<number | null> {
  if ((await client.query("SELECT to_regclass($1) IS NOT NULL AS ok", [`"${schema}"._ponder_checkpoint`])).rows[0]?.ok) {
    const { rows } = await client.query<{ c: string | null }>(`SELECT latest_checkpoint AS c FROM "${schema}"._ponder_checkpoint LIMIT 1`);
    return rows[0]?.c ? blockOfCheckpoint(rows[0].c) : null;
  }
  const { rows } = await client.query<{ b: string | null }>(`SELECT max(block_number)::text AS b FROM "${schema}".activity`);
  return rows[0]?.b ? Number(rows[0].b) : null;
}

/**
 * One pass of the producer: final facts past the cursor (up to `maxFinal`), pending facts for
 * the endpoints that want them, and retractions of pending facts a reorg removed. One
 * transaction: the cursor moves with the deliveries it queued.
 */
export async function enqueueFacts(
  ctx: Pick<EngineContext, "config" | "pool" | "publicClient">,
  options: { indexSchema?: string; maxFinal?: number } = {},
): Promise<EnqueueReport> {
  const schema = options.indexSchema ?? VIEWS_SCHEMA;
  assertIdentifier(schema);
  const report: EnqueueReport = { final: 0, pending: 0, retracted: 0, cursor: "", finalBlock: null, indexedTo: null };
  if (!(await ctx.pool.query("SELECT to_regclass($1) IS NOT NULL AS ok", [`"${schema}".activity`])).rows[0]?.ok) return report;
  // The head first: a block the index reaches later is only more final.
  const head = ctx.config.confirmations > 0 ? Number(await ctx.publicClient.getBlockNumber({ cacheTime: 0 })) : Infinity;
  const usdc = ctx.config.contracts.usdc;
  const client = await ctx.pool.connect();
  try {
    await client.query("BEGIN");
    const indexedTo = await indexedBlock(client, schema);
    report.indexedTo = indexedTo;
    if (indexedTo === null) {
      await client.query("ROLLBACK");
      return report;
    }
    const finalBlock = Math.min(indexedTo, head - ctx.config.confirmations);
    report.finalBlock = finalBlock;
    // The cursor row, locked: one producer at a time (a second engine in the CLI waits here).
    await client.query(`INSERT INTO engine.state (key, value) VALUES ($1, '{"id": ""}'::jsonb) ON CONFLICT (key) DO NOTHING`, [CURSOR_KEY]);
    const cursorRow = await client.query<{ id: string }>("SELECT value->>'id' AS id FROM engine.state WHERE key = $1 FOR UPDATE", [CURSOR_KEY]);
    let cursor = cursorRow.rows[0]?.id ?? "";
    const endpoints = (await client.query<Endpoint>("SELECT id, events, token, pending, since_block::text FROM engine.webhook_endpoints ORDER BY id")).rows;
    const q = <T extends pg.QueryResultRow>(text: string, params: unknown[]) => client.query<T>(text.replaceAll("$schema", `"${schema}"`), params);
    const columns = "id, kind, token, tx_hash, block_number::text, log_index, timestamp::text, data";

    if (!endpoints.length) {
      // Nobody listens: the cursor jumps to the final line (history is never replayed to an endpoint anyway).
      const { rows } = await q<{ id: string }>(`SELECT id FROM $schema.activity WHERE block_number <= $1 ORDER BY id DESC LIMIT 1`, [finalBlock]);
      if (rows[0] && rows[0].id > cursor) cursor = rows[0].id;
    } else {
      // History before every endpoint's registration is never sent: the cursor skips it at once.
      const skipTo = `${String(Math.min(...endpoints.map((e) => Number(e.since_block)))).padStart(12, "0")}-~`;
      if (cursor < skipTo) cursor = skipTo;
      // Final facts, in chain order.
      const maxFinal = options.maxFinal ?? FINAL_BATCH * 10;
      for (let done = 0; done < maxFinal; ) {
        const { rows } = await q<Fact>(`SELECT ${columns} FROM $schema.activity WHERE id > $1 AND block_number <= $2 ORDER BY id LIMIT $3`, [
          cursor,
          finalBlock,
          FINAL_BATCH,
        ]);
        for (const f of rows) {
          const key = factKey(f);
          const payload = factPayload(f, usdc);
          for (const e of endpoints) {
            if (!matches(e, f)) continue;
            // After the fact's earlier deliveries (pending, or a retraction when it came back on the new branch).
            const afterId = e.pending ? ((await closePending(client, e.id, key)) ?? (await lastDelivery(client, e.id, key))) : null;
            if (await queue(client, ctx, e, "final", { key, kind: f.kind, token: f.token, blockNumber: Number(f.block_number), payload }, { afterId }))
              report.final++;
          }
          cursor = f.id;
        }
        done += rows.length;
        if (rows.length < FINAL_BATCH) break;
      }

      const pendingEndpoints = endpoints.filter((e) => e.pending);
      if (pendingEndpoints.length) {
        // Facts above the final line, not yet passed by the cursor (after a reorg the head can
        // fall below a block already made final: those are not sent as pending again).
        const { rows } = await q<Fact>(`SELECT ${columns} FROM $schema.activity WHERE id > $1 AND block_number > $2 ORDER BY id LIMIT $3`, [
          cursor,
          finalBlock,
          PENDING_BATCH,
        ]);
        for (const f of rows) {
          const payload = factPayload(f, usdc);
          for (const e of pendingEndpoints) {
            if (!matches(e, f)) continue;
            if (
              await queue(
                client,
                ctx,
                e,
                "pending",
                { key: factKey(f), kind: f.kind, token: f.token, blockNumber: Number(f.block_number), payload },
                { open: true },
              )
            )
              report.pending++;
          }
        }
        // Pending facts sent (or queued) that the index no longer has: retracted.
        const open = await client.query<{
          id: string;
          endpoint_id: string;
          fact_key: string;
          kind: string;
          token: string | null;
          block_number: string;
          body: string;
        }>("SELECT id::text, endpoint_id, fact_key, kind, token, block_number::text, body FROM engine.webhook_deliveries WHERE open ORDER BY id");
        for (const p of open.rows) {
          const sep = p.fact_key.lastIndexOf(":");
          const [id, txHash] = [p.fact_key.slice(0, sep), p.fact_key.slice(sep + 1)];
          const still = await q(`SELECT 1 FROM $schema.activity WHERE id = $1 AND lower(tx_hash) = $2`, [id, txHash]);
          if (still.rowCount) continue;
          const e = endpoints.find((x) => x.id === p.endpoint_id);
          if (!e) continue;
          const afterId = await closePending(client, e.id, p.fact_key);
          const fact = (JSON.parse(p.body) as { fact: unknown }).fact;
          if (
            await queue(
              client,
              ctx,
              e,
              "retracted",
              { key: p.fact_key, kind: p.kind, token: p.token, blockNumber: Number(p.block_number), payload: fact },
              { afterId },
            )
          )
            report.retracted++;
        }
      }
    }
    await client.query("UPDATE engine.state SET value = jsonb_build_object('id', $2::text), updated_at = now() WHERE key = $1", [CURSOR_KEY, cursor]);
    await client.query("COMMIT");
    report.cursor = cursor;
    return report;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
