/**
 * Webhooks (operator key; docs/design.md §7.1, docs/api.md "Webhooks"): register an endpoint
 * (its secret is answered once), list and delete endpoints, list dead letters and queue one
 * again. The engine's webhooks worker sends the deliveries.
 */
import { z } from "zod";
import { ACTIVITY_KINDS } from "../../common/activity.js";
import { textField } from "../../common/text.js";
import { TooManyEndpoints } from "../../core/webhooks/store.js";
import type { ApiDeps } from "../deps.js";
import type { WebhookPort } from "../engine-port.js";
import { conflict, notConfigured, notFound } from "../http/errors.js";
import { indexerStatus } from "../read/health.js";
import { defineRoute, respond } from "./route.js";
import { documented } from "../openapi/zod-schema.js";
import { address, integerParam } from "./schemas.js";

const checksummed = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .describe("EIP-55 checksummed address");
const iso = z.string().datetime().describe("ISO-8601 timestamp");
const int = z.number().int();
const endpointId = z.string().regex(/^wh_[0-9a-f]{16}$/, "expected a webhook endpoint id (wh_ and 16 hex digits)");

export const webhookBody = z
  .object({
    url: z
      .string()
      .max(2048)
      .refine((v) => URL.canParse(v) && ["http:", "https:"].includes(new URL(v).protocol), { message: "expected an http(s) URL" })
      .describe("Where deliveries are POSTed"),
    events: z
      .array(z.enum(ACTIVITY_KINDS))
      .min(1)
      .max(ACTIVITY_KINDS.length)
      .describe(`The activity kinds to send: ${ACTIVITY_KINDS.join(", ")}`),
    token: address.optional().describe("Only facts of this token"),
    pending: z.boolean().default(false).describe("Also send facts before they are final, and a retraction when a reorg removes one that was sent"),
    description: textField("description", { min: 1, maxBytes: 200 }).optional(),
  })
  .strict();

const endpointShape = {
  id: endpointId,
  url: z.string(),
  events: z.array(z.enum(ACTIVITY_KINDS)),
  token: checksummed.nullable(),
  pending: z.boolean(),
  description: z.string().nullable(),
  sinceBlock: int.describe("The block the index had reached at registration: facts of later blocks are sent"),
  createdAt: iso,
};

export const webhookCreatedResponse = z
  .object({
    ...endpointShape,
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9_-]{43}$/)
      .describe("Signs every delivery (HMAC-SHA256). Shown only in this answer: keep it."),
  })
  .strict();

export const webhooksResponse = z
  .object({
    items: z.array(
      z.object({ ...endpointShape, deliveries: z.object({ queued: int, delivered: int, dead: int }).strict().describe("Its deliveries by status") }).strict(),
    ),
  })
  .strict();

export const deadLettersResponse = z
  .object({
    items: z.array(
      z
        .object({
          id: z.string().regex(/^\d+$/).describe("The delivery id (the Launchpad-Delivery header)"),
          endpointId,
          url: z.string(),
          event: z.string().describe("`<kind>.<phase>`, e.g. burn.final"),
          phase: z.enum(["pending", "final", "retracted"]),
          factKey: z.string().describe("The fact: `<activity id>:<transaction hash>`"),
          attempts: int,
          lastStatus: int.nullable().describe("The last HTTP status the endpoint answered (null: no answer)"),
          lastError: z.string().nullable(),
          createdAt: iso,
          deadAt: iso,
          payload: documented(z.record(z.unknown()), { additionalProperties: {} }).describe("The body every attempt sent"),
        })
        .strict(),
    ),
    nextCursor: z.string().nullable(),
  })
  .strict();

function port(deps: ApiDeps): WebhookPort {
  if (!deps.engine.webhooks) throw notConfigured("the engine's database is not configured (DATABASE_URL)");
  return deps.engine.webhooks;
}

const NOT_CONFIGURED = {
  description: "The operator key or the engine's database (DATABASE_URL) is not configured, or the database is busy or unavailable",
  codes: ["NOT_CONFIGURED"] as const,
};

export const createWebhookRoute = defineRoute({
  method: "post",
  path: "/webhooks",
  tag: "operator",
  summary: "Register a webhook endpoint: a URL, activity kinds, an optional token; the signing secret is answered once",
  description:
    'Each fact (an activity row) is POSTed once it is final (`CONFIRMATIONS` blocks deep), signed with the endpoint\'s secret: `Launchpad-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. With `pending: true`, facts are also sent as soon as indexed, and a retraction follows when a reorg removes one. At least once (dedupe on `Launchpad-Delivery`), retried with exponential backoff for 24 h, then dead-lettered. Needs the operator API key.',
  operatorKey: true,
  body: webhookBody,
  responses: {
    201: { description: "The endpoint and its secret", schema: webhookCreatedResponse },
    409: { description: "Too many endpoints (at most 100)" },
    503: NOT_CONFIGURED,
  },
  handler: async (c, { body }, deps) => {
    const webhooks = port(deps);
    const { block } = await indexerStatus(deps.db).catch(() => ({ block: null }));
    try {
      const created = await webhooks.create(
        { url: body.url, events: body.events, token: body.token ?? null, pending: body.pending, description: body.description ?? null },
        block ?? 0,
      );
      return respond(c, webhookCreatedResponse, created, 201);
    } catch (error) {
      if (error instanceof TooManyEndpoints) throw conflict(error.message);
      throw error;
    }
  },
});

export const listWebhooksRoute = defineRoute({
  method: "get",
  path: "/webhooks",
  tag: "operator",
  summary: "The webhook endpoints (never their secrets), with their deliveries by status",
  operatorKey: true,
  responses: { 200: { description: "Every endpoint, oldest first", schema: webhooksResponse }, 503: NOT_CONFIGURED },
  handler: async (c, _input, deps) => respond(c, webhooksResponse, { items: await port(deps).list() }),
});

const deletedResponse = z.object({ id: endpointId, deleted: z.literal(true) }).strict();

export const deleteWebhookRoute = defineRoute({
  method: "delete",
  path: "/webhooks/:id",
  tag: "operator",
  summary: "Delete a webhook endpoint and its deliveries (queued ones are not sent)",
  operatorKey: true,
  params: z.object({ id: endpointId }),
  responses: {
    200: { description: "Deleted", schema: deletedResponse },
    404: { description: "No such endpoint" },
    503: NOT_CONFIGURED,
  },
  handler: async (c, { params }, deps) => {
    if (!(await port(deps).remove(params.id))) throw notFound(`no webhook endpoint ${params.id}`);
    return respond(c, deletedResponse, { id: params.id, deleted: true });
  },
});

const requeuedResponse = z.object({ id: z.string(), status: z.literal("queued") }).strict();

export const deadLettersRoute = defineRoute({
  method: "get",
  path: "/webhooks/dead-letters",
  tag: "operator",
  summary: "Dead letters: deliveries still failing 24 h after they were queued, newest first",
  operatorKey: true,
  query: z.object({
    endpoint: endpointId.optional().describe("Only this endpoint's"),
    limit: integerParam(
      z
        .string()
        .regex(/^\d{1,3}$/, "expected an integer from 1 to 200")
        .transform(Number)
        .refine((n) => n >= 1 && n <= 200, "expected an integer from 1 to 200")
        .default("50")
        .describe("Page size, 1 to 200"),
      { minimum: 1, maximum: 200, default: 50 },
    ),
    cursor: z
      .string()
      .regex(/^\d{1,19}$/, "expected the nextCursor of the previous page")
      .optional(),
  }),
  responses: { 200: { description: "A page of dead letters", schema: deadLettersResponse }, 503: NOT_CONFIGURED },
  handler: async (c, { query }, deps) => {
    const page = await port(deps).deadLetters({ endpointId: query.endpoint, limit: query.limit, before: query.cursor ? Number(query.cursor) : undefined });
    return respond(c, deadLettersResponse, { items: page.items, nextCursor: page.next === null ? null : String(page.next) });
  },
});

export const redriveRoute = defineRoute({
  method: "post",
  path: "/webhooks/dead-letters/:id/retry",
  tag: "operator",
  summary: "Queue a dead letter again: sent at once, retried for another 24 h",
  operatorKey: true,
  params: z.object({ id: z.string().regex(/^\d{1,19}$/, "expected a delivery id") }),
  responses: {
    200: { description: "Queued again", schema: requeuedResponse },
    404: { description: "No dead letter with that id" },
    503: NOT_CONFIGURED,
  },
  handler: async (c, { params }, deps) => {
    if (!(await port(deps).redrive(Number(params.id), deps.config.webhooks.giveUpSeconds))) throw notFound(`no dead letter ${params.id}`);
    return respond(c, requeuedResponse, { id: params.id, status: "queued" });
  },
});

export const WEBHOOK_ROUTES = [createWebhookRoute, listWebhooksRoute, deadLettersRoute, deleteWebhookRoute, redriveRoute];
