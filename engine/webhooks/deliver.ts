/**
 * The webhook outbox's sender (docs/design.md §7.1): at least once, with exponential backoff,
 * dead-lettered after WEBHOOK_GIVE_UP_SECONDS (24 h).
 *
 * An attempt is claimed before it is made: one statement raises the delivery's attempt count
 * and moves its next attempt to the backoff, so a process killed mid-request leaves a
 * delivery that the next engine sends again once that backoff has passed (the receiver may
 * see it twice, with the same delivery id and body; it dedupes on the id). A 2xx answer is
 * delivered; anything else (another status, a redirect, a refused connection, no answer
 * within WEBHOOK_TIMEOUT_MS) is a failed attempt, and one made after the delivery's deadline
 * dead-letters it. A delivery that must follow another (a retraction or a final after the
 * pending delivery of its fact) waits until that one is delivered or dead.
 */
import type pg from "pg";
import { DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signWebhook } from "../../common/webhook-signature.js";
import type { Config } from "../../common/config.js";
import type { Logger } from "../../common/logger.js";
import { describeError } from "../../core/errors.js";

/** Deliveries claimed per pass. */
const CLAIM_BATCH = 100;
/** Requests in flight at once. */
const CONCURRENCY = 8;
/** The most of an error answer's body kept as `last_error`. */
const ERROR_BODY_CHARS = 200;

type Claimed = { id: string; endpoint_id: string; kind: string; phase: string; body: string; attempts: number; url: string; secret: string };

export type DeliverReport = { attempted: number; delivered: number; failed: number; dead: number };

/**
 * Claims the due deliveries: raises their attempt count and sets their next attempt to
 * base × 2^(attempts before) ms, capped, with jitter (half to all of it).
 */
async function claimDue(pool: pg.Pool, config: Pick<Config, "webhooks">, limit: number): Promise<Claimed[]> {
  const { rows } = await pool.query<Claimed>(
    `WITH due AS (
       SELECT x.id FROM engine.webhook_deliveries x
        WHERE x.status = 'queued' AND x.next_attempt_at <= now()
          AND (x.after_id IS NULL OR NOT EXISTS (SELECT 1 FROM engine.webhook_deliveries p WHERE p.id = x.after_id AND p.status = 'queued'))
        ORDER BY x.next_attempt_at, x.id LIMIT $1 FOR UPDATE SKIP LOCKED)
     UPDATE engine.webhook_deliveries d
        SET attempts = d.attempts + 1, last_attempt_at = now(),
            next_attempt_at = now() + make_interval(secs => least($3::float8, $2::float8 * power(2, least(d.attempts, 40))) * (0.5 + random() / 2) / 1000)
       FROM due, engine.webhook_endpoints e
      WHERE d.id = due.id AND e.id = d.endpoint_id
     RETURNING d.id::text, d.endpoint_id, d.kind, d.phase, d.body, d.attempts, e.url, e.secret`,
    [limit, config.webhooks.retryBaseMs, config.webhooks.retryMaxMs],
  );
  return rows;
}

/** One attempt: the status it answered (2xx delivered), or why there was none. */
async function post(d: Claimed, timeoutMs: number): Promise<{ ok: boolean; status: number | null; error: string | null }> {
  try {
    const res = await fetch(d.url, {
      method: "POST",
      redirect: "manual",
      headers: {
        "content-type": "application/json",
        "user-agent": "launchpad-webhooks/1",
        [SIGNATURE_HEADER]: signWebhook(d.secret, d.body),
        [DELIVERY_HEADER]: d.id,
        [EVENT_HEADER]: `${d.kind}.${d.phase}`,
      },
      body: d.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status >= 200 && res.status < 300) {
      await res.body?.cancel().catch(() => {});
      return { ok: true, status: res.status, error: null };
    }
    const text = await res.text().catch(() => "");
    return { ok: false, status: res.status, error: `HTTP ${res.status}${text ? `: ${text.slice(0, ERROR_BODY_CHARS)}` : ""}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, status: null, error: cause?.code ?? cause?.message ?? describeError(error) };
  }
}

/** Records an attempt's outcome: delivered, or failed (dead once past its deadline). */
async function record(
  pool: pg.Pool,
  d: Claimed,
  outcome: { ok: boolean; status: number | null; error: string | null },
): Promise<"delivered" | "failed" | "dead"> {
  if (outcome.ok) {
    await pool.query(
      "UPDATE engine.webhook_deliveries SET status = 'delivered', delivered_at = now(), last_status = $2, last_error = NULL WHERE id = $1 AND status = 'queued'",
      [d.id, outcome.status],
    );
    return "delivered";
  }
  const { rows } = await pool.query<{ status: string }>(
    `UPDATE engine.webhook_deliveries
        SET last_status = $2, last_error = $3,
            status = CASE WHEN expires_at <= now() THEN 'dead' ELSE status END,
            dead_at = CASE WHEN expires_at <= now() THEN now() ELSE dead_at END
      WHERE id = $1 AND status = 'queued' RETURNING status`,
    [d.id, outcome.status, outcome.error],
  );
  return rows[0]?.status === "dead" ? "dead" : "failed";
}

/** Sends the due deliveries, up to `maxPasses` claims of a batch each, until none is due. */
export async function deliverDue(pool: pg.Pool, config: Pick<Config, "webhooks">, log: Logger, options: { maxPasses?: number } = {}): Promise<DeliverReport> {
  const report: DeliverReport = { attempted: 0, delivered: 0, failed: 0, dead: 0 };
  for (let pass = 0; pass < (options.maxPasses ?? 5); pass++) {
    const claimed = await claimDue(pool, config, CLAIM_BATCH);
    if (!claimed.length) break;
    let next = 0;
    const lane = async () => {
      while (next < claimed.length) {
        const d = claimed[next++]!;
        const outcome = await post(d, config.webhooks.timeoutMs);
        const result = await record(pool, d, outcome);
        report.attempted++;
        report[result]++;
        if (result === "dead")
          log.warn({ delivery: d.id, endpoint: d.endpoint_id, attempts: d.attempts, err: outcome.error }, "webhook delivery dead-lettered");
        else if (result === "failed")
          log.debug({ delivery: d.id, endpoint: d.endpoint_id, attempts: d.attempts, err: outcome.error }, "webhook delivery failed; retrying later");
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, claimed.length) }, lane));
    if (claimed.length < CLAIM_BATCH) break;
  }
  return report;
}
