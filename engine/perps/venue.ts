/**
 * The perps exchange behind one interface. The desks (actions, event sync, reconciliation,
 * the desk workers) reach the exchange only through a `PerpsVenue`: the calls they send
 * (open, increase, update margin, close), what they read (pair limits, free slots, the
 * operator's open trades, mark prices) and the events they apply, decoded into one shape.
 *
 * `PERPS_VENUE` picks the adapter; it trades only on the chains it declares
 * (common/perps-venues.ts). Elsewhere `perpsVenue` answers `undefined` with the reason and the
 * desks send nothing: no calldata of one protocol version ever reaches another's contracts.
 *
 * The interface an adapter implements is in types.ts.
 */
import { type PerpsVenueId, type PerpsVenueStatus, perpsVenueStatus } from "../../common/perps-venues.js";
import type { EngineContext } from "../../core/context.js";
import { type DesksHealth, type DesksPreflight, desksHealth } from "../../core/health.js";
import { setState } from "../runtime/state.js";
import { avantisV1 } from "./avantis-v1.js";
import { gainsPreflightFromConfig, preflightOffReason } from "./gains-preflight.js";
import { gainsV10 } from "./gains-v10.js";
import { ServiceError } from "../../core/errors.js";
import type { PerpsVenue } from "./types.js";

/** Every adapter, by its `PERPS_VENUE` name. */
export const VENUES: Record<PerpsVenueId, PerpsVenue> = { "avantis-v1": avantisV1, "gains-v10": gainsV10 };

/** The configured adapter, or why desks are off on this chain. */
export function selectPerpsVenue(config: {
  perpsVenue: PerpsVenueId;
  chainId: number;
}): { venue: PerpsVenue; status: PerpsVenueStatus } | { venue: undefined; status: PerpsVenueStatus } {
  const status = perpsVenueStatus(config);
  return status.enabled ? { venue: VENUES[config.perpsVenue], status } : { venue: undefined, status };
}

/** Why desks are off on the configured chain, or undefined when the configured adapter declares it. */
export function desksOffReason(config: { perpsVenue: PerpsVenueId; chainId: number }): string | undefined {
  const status = perpsVenueStatus(config);
  return status.enabled ? undefined : status.reason;
}

/**
 * The venue's preflight against its exchange (gains-v10: engine/perps/gains-preflight.ts), or
 * undefined for a venue that has none. Reads the chain with `eth_call` only; never throws.
 */
export async function runVenuePreflight(ctx: Pick<EngineContext, "config" | "publicClient">): Promise<DesksPreflight | undefined> {
  return ctx.config.perpsVenue === "gains-v10" ? gainsPreflightFromConfig(ctx.publicClient, ctx.config) : undefined;
}

/**
 * Whether desks may trade now, the one question every desk cycle (desk-manager, profit-checker,
 * desk-risk, the startup reconciliation) asks before reading or calling the exchange: the reason
 * desks are off, or undefined when they are on. Off when the configured adapter does not declare
 * the chain; for a venue with a preflight, also off when a check fails. The answer, with the
 * preflight's checks, is stored as the engine's `desks` state, which `/health` and the pages read.
 */
export async function desksOff(ctx: Pick<EngineContext, "config" | "publicClient" | "db">): Promise<string | undefined> {
  const off = desksOffReason(ctx.config);
  if (off) return off;
  const preflight = await runVenuePreflight(ctx);
  if (!preflight) return undefined;
  const reason = preflightOffReason(preflight);
  const health: DesksHealth = { ...desksHealth(ctx.config), enabled: !reason, reason: reason ?? null, preflight };
  await setState(ctx.db, "desks", health);
  return reason;
}

/** The engine's perps venue, or undefined when desks are off on its chain (then nothing is sent). */
export function perpsVenue(ctx: Pick<EngineContext, "config">): PerpsVenue | undefined {
  return selectPerpsVenue(ctx.config).venue;
}

/** A perps call was about to be built on a chain the configured adapter does not declare. */
export class PerpsVenueOffError extends ServiceError {
  override name = "PerpsVenueOffError";
  constructor(message: string) {
    super(message, { code: "NOT_CONFIGURED" });
  }
}

/** The engine's perps venue; throws (sending nothing) when desks are off on its chain. */
export function requirePerpsVenue(ctx: Pick<EngineContext, "config">): PerpsVenue {
  const { venue, status } = selectPerpsVenue(ctx.config);
  if (!venue) throw new PerpsVenueOffError(status.enabled ? `no adapter ${status.venue}` : status.reason);
  return venue;
}
