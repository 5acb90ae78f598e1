/**
 * The webhook endpoints and the outbox as the operator sees them (docs/design.md §7.1):
 * register, list and delete endpoints, list the dead letters and send one again, and the
 * backlog `/health` and the metrics show. The API writes through these; the engine's webhooks
 * worker (engine/webhooks/) fills and drains the outbox.
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { type Address, getAddress } from "viem";
import type { ActivityKind } from "../../common/activity.js";
import { newWebhookSecret } from "../../common/webhook-signature.js";

/** Most endpoints one service keeps (every fact is written once per matching endpoint). */
export const MAX_WEBHOOK_ENDPOINTS = 100;

export type WebhookEndpointInput = {
  url: string;
  events: ActivityKind[];
  token?: Address | null;
  pending?: boolean;
  description?: string | null;
};

export type WebhookEndpoint = {
  id: string;
  url: string;
  events: ActivityKind[];
  token: Address | null;
  pending: boolean;
  description: string | null;
  sinceBlock: number;
  createdAt: string;
};

export type WebhookBacklog = {
  /** Deliveries waiting to be sent (never tried, or retrying). */
  queued: number;
  /** Of those, how many failed at least once. */
  retrying: number;
  /** Dead-lettered: still failing 24 h (WEBHOOK_GIVE_UP_SECONDS) after they were queued. */
  dead: number;
  /** Age of the oldest queued delivery in seconds (0 when none). */
  oldestQueuedSeconds: number;
};

/** A delivery's phase: the fact seen (pending), final, or retracted by a reorg. */
export type WebhookPhase = "pending" | "final" | "retracted";

export type DeadLetter = {
  id: string;
  endpointId: string;
  url: string;
  event: string;
  phase: WebhookPhase;
  factKey: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deadAt: string;
  /** The delivery's JSON body (an object). */
  payload: Record<string, unknown>;
};

type EndpointRow = {
  id: string;
  url: string;
  events: ActivityKind[];
  token: string | null;
  pending: boolean;
  description: string | null;
  since_block: string;
  created_at: Date;
};

const endpointOf = (r: EndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  events: r.events,
  token: r.token ? getAddress(r.token) : null,
  pending: r.pending,
  description: r.description,
  sinceBlock: Number(r.since_block),
  createdAt: r.created_at.toISOString(),
});

export class TooManyEndpoints extends Error {}

/**
 * Registers an endpoint; its secret is in the answer and nowhere else the API shows.
 * `sinceBlock` is the block the index had reached: the endpoint gets facts of later blocks.
 */
export async function createWebhookEndpoint(pool: pg.Pool, input: WebhookEndpointInput, sinceBlock: number): Promise<WebhookEndpoint & { secret: string }> {
  const id = `wh_${randomBytes(8).toString("hex")}`;
  const secret = newWebhookSecret();
  const { rows } = await pool.query<EndpointRow>(
    `INSERT INTO engine.webhook_endpoints (id, url, events, token, pending, secret, description, since_block)
     SELECT $1, $2, $3::jsonb, $4, $5, $6, $7, $8
      WHERE (SELECT count(*) FROM engine.webhook_endpoints) < $9
     RETURNING id, url, events, token, pending, description, since_block::text, created_at`,
    [
      id,
      input.url,
      JSON.stringify([...new Set(input.events)]),
      input.token?.toLowerCase() ?? null,
      input.pending ?? false,
      secret,
      input.description ?? null,
      sinceBlock,
      MAX_WEBHOOK_ENDPOINTS,
    ],
  );
  if (!rows[0]) throw new TooManyEndpoints(`at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints`);
  return { ...endpointOf(rows[0]), secret };
}

/** Every endpoint (never its secret), oldest first, with its deliveries by status. */
export async function listWebhookEndpoints(pool: pg.Pool): Promise<(WebhookEndpoint & { deliveries: { queued: number; delivered: number; dead: number } })[]> {
  const { rows } = await pool.query<EndpointRow & { queued: number; delivered: number; dead: number }>(
    `SELECT e.id, e.url, e.events, e.token, e.pending, e.description, e.since_block::text, e.created_at,
            coalesce(d.queued, 0)::int AS queued, coalesce(d.delivered, 0)::int AS delivered, coalesce(d.dead, 0)::int AS dead
       FROM engine.webhook_endpoints e
       LEFT JOIN LATERAL (
         SELECT count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE status = 'delivered') AS delivered,
                count(*) FILTER (WHERE status = 'dead') AS dead
           FROM engine.webhook_deliveries WHERE endpoint_id = e.id) d ON true
      ORDER BY e.created_at, e.id`,
  );
  return rows.map((r) => ({ ...endpointOf(r), deliveries: { queued: r.queued, delivered: r.delivered, dead: r.dead } }));
}

/** Deletes an endpoint and every delivery of it (queued, delivered or dead); false when there was none. */
export async function deleteWebhookEndpoint(pool: pg.Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query("DELETE FROM engine.webhook_endpoints WHERE id = $1", [id]);
  return (rowCount ?? 0) > 0;
}

/** The outbox's backlog, for `/health` and the metrics. */
export async function readWebhookBacklog(pool: pg.Pool): Promise<WebhookBacklog> {
  const { rows } = await pool.query<{ queued: number; retrying: number; dead: number; oldest: number | null }>(
    `SELECT (SELECT count(*) FROM engine.webhook_deliveries WHERE status = 'queued')::int AS queued,
            (SELECT count(*) FROM engine.webhook_deliveries WHERE status = 'queued' AND attempts > 0)::int AS retrying,
            (SELECT count(*) FROM engine.webhook_deliveries WHERE status = 'dead')::int AS dead,
            (SELECT extract(epoch FROM now() - min(created_at))::float8 FROM engine.webhook_deliveries WHERE status = 'queued') AS oldest`,
  );
  const r = rows[0]!;
  return { queued: r.queued, retrying: r.retrying, dead: r.dead, oldestQueuedSeconds: r.oldest === null ? 0 : Math.max(0, Math.floor(r.oldest)) };
}

/** Dead letters, newest first, after the cursor `before` (a delivery id); optionally of one endpoint. */
export async function listDeadLetters(
  pool: pg.Pool,
  p: { endpointId?: string; limit: number; before?: number },
): Promise<{ items: DeadLetter[]; next: number | null }> {
  const { rows } = await pool.query<{
    id: string;
    endpoint_id: string;
    url: string;
    phase: WebhookPhase;
    kind: string;
    fact_key: string;
    attempts: number;
    last_status: number | null;
    last_error: string | null;
    created_at: Date;
    dead_at: Date;
    body: string;
  }>(
    `SELECT d.id::text, d.endpoint_id, e.url, d.phase, d.kind, d.fact_key, d.attempts, d.last_status, d.last_error, d.created_at, d.dead_at, d.body
       FROM engine.webhook_deliveries d JOIN engine.webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.status = 'dead' AND ($1::text IS NULL OR d.endpoint_id = $1) AND ($2::bigint IS NULL OR d.id < $2)
      ORDER BY d.id DESC LIMIT $3`,
    [p.endpointId ?? null, p.before ?? null, p.limit + 1],
  );
  const items = rows.slice(0, p.limit).map((r) => ({
    id: r.id,
    endpointId: r.endpoint_id,
    url: r.url,
    event: `${r.kind}.${r.phase}`,
    phase: r.phase,
    factKey: r.fact_key,
    attempts: r.attempts,
    lastStatus: r.last_status,
    lastError: r.last_error,
    createdAt: r.created_at.toISOString(),
    deadAt: r.dead_at.toISOString(),
    payload: JSON.parse(r.body) as Record<string, unknown>,
  }));
  return { items, next: rows.length > p.limit ? Number(items[items.length - 1]!.id) : null };
}

/**
 * Queues a dead letter again (the operator fixed the receiver): sent at once, retried for
 * another `giveUpSeconds`. False when no dead delivery has that id.
 */
export async function redriveDeadLetter(pool: pg.Pool, id: number, giveUpSeconds: number): Promise<boolean> {
  const { rowCount } = await pool.query(
    `UPDATE engine.webhook_deliveries SET status = 'queued', dead_at = NULL, next_attempt_at = now(), expires_at = now() + make_interval(secs => $2)
      WHERE id = $1 AND status = 'dead'`,
    [id, giveUpSeconds],
  );
  return (rowCount ?? 0) > 0;
}
