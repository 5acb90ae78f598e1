/**
 * The service's health as served: GET /health and /ready (REST) and GraphQL's `health`
 * (whose `Worker`, `IndexerStatus` and `EngineLeader` are these objects, typed by
 * api/graphql/zod-objects.ts).
 */
import { z } from "zod";
import { json } from "../../common/edge.js";

const { checksummed, iso } = json;
const int = z.number().int();

/** A worker's schedule and last runs. */
export const workerResponse = z
  .object({
    name: z.string(),
    minIntervalSeconds: int,
    maxIntervalSeconds: int,
    lastRunAt: iso.nullable(),
    lastSuccessAt: iso.nullable(),
    lastError: z.string().nullable(),
    runs: int,
    failures: int,
    nextRunAt: iso.nullable(),
  })
  .strict();

/** /health and /ready while PostgreSQL cannot be reached (503). */
export const healthUnavailableResponse = z
  .object({
    status: z.literal("unavailable"),
    reasons: z.array(z.string()).describe("What is down, by how much and since when"),
    since: iso.describe("Since when the database has been unreachable (as seen by this API process)"),
  })
  .strict();

/** What /health answers (and /ready while ready). */
export const healthResponse = z
  .object({
    status: z.enum(["ok", "starting", "degraded"]),
    uptimeSeconds: int,
    protocolToken: checksummed.nullable(),
    indexer: z
      .object({
        ready: z.boolean(),
        block: int.nullable(),
        head: int.nullable().describe("The chain's head as last seen by this API process"),
        lagBlocks: int.nullable().describe("How many blocks the index is behind the head"),
        advancedAt: iso.nullable().describe("When the indexed block last advanced"),
      })
      .strict(),
    workers: z.array(workerResponse),
    reasons: z.array(z.string()).describe("Why the service is degraded (failing workers, RPC unreachable, engine stopped, a stuck transaction)"),
    transactions: z
      .object({
        notFinal: z
          .array(
            z
              .object({
                key: z.string().describe("Idempotency key of the intent (what caused it)"),
                kind: z.string(),
                status: z.enum(["pending", "signed", "broadcast", "mined", "reverted"]),
                nonce: int.nullable(),
                ageSeconds: int,
                reorgs: int.describe("How many times a reorg took its block away"),
                error: z.string().nullable(),
              })
              .strict(),
          )
          .describe("Transactions not final yet: not mined, or mined under CONFIRMATIONS blocks"),
        lastReorg: z
          .object({ at: iso, forkBlock: int, reopened: z.array(z.string()), reversed: int.describe("Ledger rows reversed") })
          .strict()
          .nullable()
          .describe("The last reorg the engine undid"),
      })
      .strict(),
    leader: z
      .object({
        holder: z.string().describe("The leading engine process: host:pid:suffix"),
        epoch: z.string().regex(/^\d+$/).describe("Leadership epoch (fencing token), raised by every takeover"),
        since: iso.describe("When this engine took the lease"),
        renewedAt: iso.optional().describe("When the lease was last renewed"),
        expiresAt: iso.describe("When its lease ends unless renewed"),
      })
      .strict()
      .nullable()
      .describe("The engine that leads (null before any engine ran against this database)"),
    desks: z
      .object({
        enabled: z.boolean().describe("Whether the desks trade on this chain"),
        venue: z.string().describe("The perps adapter (PERPS_VENUE)"),
        protocol: z.string().describe("The exchange and version the adapter speaks, e.g. Avantis v1"),
        chainId: int,
        reason: z.string().nullable().describe("Why desks are off (no perps call is sent; the perp leg keeps accumulating)"),
        preflight: z
          .object({
            ok: z.boolean().describe("Whether every check passed"),
            diamond: z.string().describe("The exchange contract the checks read"),
            checkedAt: iso.describe("When the engine last ran the checks"),
            checks: z
              .array(
                z
                  .object({
                    id: z.string().describe("The check, e.g. facet:openTrade, collateral-index, trading-activated, pair:0"),
                    verdict: z.enum(["pass", "fail"]),
                    says: z.string().describe("What the check read, in words"),
                  })
                  .strict(),
              )
              .describe("Every check, in order"),
          })
          .strict()
          .optional()
          .describe("The venue's last preflight against its exchange (eth_call only), for a venue that has one (gains-v10)"),
      })
      .strict()
      .describe("The perps desks: on only on a chain the configured adapter declares and whose preflight passes"),
    webhooks: z
      .object({
        queued: int.describe("Deliveries waiting to be sent (never tried, or retrying)"),
        retrying: int.describe("Queued deliveries that failed at least once"),
        dead: int.describe("Dead letters: deliveries still failing 24 h after they were queued (GET /webhooks/dead-letters)"),
        oldestQueuedSeconds: int.describe("Age of the oldest queued delivery (0 when none)"),
      })
      .strict()
      .nullable()
      .describe("The webhook outbox's backlog (null before the engine's tables exist)"),
    deferredCollections: z
      .array(
        z
          .object({
            token: checksummed,
            reason: z.string(),
            since: iso.describe("When the fee-claimer first deferred it"),
            attempts: int.describe("Cycles that deferred it in a row"),
          })
          .strict(),
      )
      .optional()
      .describe(
        "Fee collections the fee-claimer did not send because their conversion would yield nothing (the pool's token-side dust converts to 0, and the locker asks at least 1): their fees wait in the pool for its next swap or a later cycle. Absent when there are none; not a degradation",
      ),
  })
  .strict();
