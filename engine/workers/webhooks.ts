/**
 * webhooks: fills the webhook outbox from the indexed facts (engine/webhooks/outbox.ts) and
 * sends what is due (engine/webhooks/deliver.ts); docs/design.md §7.1 says why this runs on
 * the engine's leader. Its interval is short: a fact leaves within seconds of becoming final.
 */
import type { EngineContext } from "../../core/context.js";
import { deliverDue } from "../webhooks/deliver.js";
import { enqueueFacts } from "../webhooks/outbox.js";
import type { Worker } from "./types.js";

export async function runWebhooksCycle(ctx: EngineContext, indexSchema?: string) {
  // No endpoint, nothing to send (deletion takes the deliveries with it): one query.
  const { rows } = await ctx.pool.query<{ any: boolean }>("SELECT EXISTS (SELECT 1 FROM engine.webhook_endpoints) AS any");
  if (!rows[0]?.any) return { idle: true };
  const queued = await enqueueFacts(ctx, { indexSchema });
  const sent = await deliverDue(ctx.pool, ctx.config, ctx.log);
  return { queued: { final: queued.final, pending: queued.pending, retracted: queued.retracted }, finalBlock: queued.finalBlock, ...sent };
}

export const webhooks: Worker = { name: "webhooks", minSeconds: 1, maxSeconds: 2, run: (ctx) => runWebhooksCycle(ctx) };
