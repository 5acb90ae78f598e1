/**
 * The service's health as Prometheus metrics (prom-client), at `GET /api/v1/metrics` on every
 * API process: the indexer's lag behind the chain's head and the time since it last advanced,
 * the engine lease's age (time since its last renewal) and whether it is live, and whether
 * PostgreSQL answers, and the webhook outbox's backlog. Read from the same coalesced health read as `/health`, so a scrape costs
 * what one health request does. (ponder's own metrics stay at `/metrics`; the engine's at
 * `ENGINE_METRICS_PORT`.)
 */
import { Gauge, Registry } from "prom-client";
import type { ApiDeps } from "../deps.js";
import { HealthUnavailable, readHealth } from "./health.js";

type Metrics = {
  registry: Registry;
  databaseUp: Gauge;
  indexedBlock: Gauge;
  headBlock: Gauge;
  lagBlocks: Gauge;
  sinceAdvanced: Gauge;
  leaseAge: Gauge;
  leaseLive: Gauge;
  degraded: Gauge;
  webhooksQueued: Gauge;
  webhooksRetrying: Gauge;
  webhooksDead: Gauge;
  webhooksOldest: Gauge;
};

const byDeps = new WeakMap<object, Metrics>();

function metricsOf(deps: ApiDeps): Metrics {
  let m = byDeps.get(deps.config);
  if (!m) {
    const registry = new Registry();
    const gauge = (name: string, help: string) => new Gauge({ name, help, registers: [registry] });
    m = {
      registry,
      databaseUp: gauge("launchpad_database_up", "1 when PostgreSQL answers this API process, 0 when it cannot be reached"),
      indexedBlock: gauge("launchpad_indexer_block", "The last block the indexer has indexed"),
      headBlock: gauge("launchpad_chain_head_block", "The chain's head as last seen by this API process"),
      lagBlocks: gauge("launchpad_indexer_lag_blocks", "How many blocks the index is behind the chain's head"),
      sinceAdvanced: gauge("launchpad_indexer_seconds_since_advance", "Seconds since the indexed block last advanced"),
      leaseAge: gauge("launchpad_engine_lease_age_seconds", "Seconds since the engine's leadership lease was last renewed (NaN before any engine led)"),
      leaseLive: gauge("launchpad_engine_lease_live", "1 while an engine holds a live (unexpired) leadership lease"),
      degraded: gauge("launchpad_health_degraded", "1 while /health is degraded or unavailable"),
      webhooksQueued: gauge("launchpad_webhook_deliveries_queued", "Webhook deliveries waiting to be sent (never tried, or retrying)"),
      webhooksRetrying: gauge("launchpad_webhook_deliveries_retrying", "Queued webhook deliveries that failed at least once"),
      webhooksDead: gauge("launchpad_webhook_deliveries_dead", "Dead-lettered webhook deliveries"),
      webhooksOldest: gauge("launchpad_webhook_oldest_queued_seconds", "Age of the oldest queued webhook delivery (0 when none)"),
    };
    byDeps.set(deps.config, m);
  }
  return m;
}

export async function metricsText(deps: ApiDeps): Promise<string> {
  const m = metricsOf(deps);
  const now = Date.now();
  try {
    const h = await readHealth(deps);
    m.databaseUp.set(1);
    m.indexedBlock.set(h.indexer.block ?? Number.NaN);
    m.headBlock.set(h.indexer.head ?? Number.NaN);
    m.lagBlocks.set(h.indexer.lagBlocks ?? Number.NaN);
    m.sinceAdvanced.set(h.indexer.advancedAt ? (now - Date.parse(h.indexer.advancedAt)) / 1000 : Number.NaN);
    const leader = h.leader;
    m.leaseAge.set(leader?.renewedAt ? Math.max(0, (now - Date.parse(leader.renewedAt)) / 1000) : Number.NaN);
    m.leaseLive.set(leader && Date.parse(leader.expiresAt) > now ? 1 : 0);
    m.degraded.set(h.status === "ok" ? 0 : 1);
    m.webhooksQueued.set(h.webhooks?.queued ?? Number.NaN);
    m.webhooksRetrying.set(h.webhooks?.retrying ?? Number.NaN);
    m.webhooksDead.set(h.webhooks?.dead ?? Number.NaN);
    m.webhooksOldest.set(h.webhooks?.oldestQueuedSeconds ?? Number.NaN);
  } catch (error) {
    if (!(error instanceof HealthUnavailable)) throw error;
    m.databaseUp.set(0);
    m.degraded.set(1);
  }
  return m.registry.metrics();
}
