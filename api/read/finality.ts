/**
 * Final and pending parts of every total (docs/api.md, "Final and pending"). A total's pending
 * part is what blocks above the final block added to it: the final block is the indexed head
 * less `CONFIRMATIONS`; the indexer keeps each total's change per block (`totals_delta`), so
 * the pending part is one small read over the last `CONFIRMATIONS` blocks, and
 * final = total − pending. With `CONFIRMATIONS` 0 every total is final.
 */
import { and, gt, inArray, sql } from "drizzle-orm";
import { totalsDelta } from "../../schema/ponder.js";
import type { Config } from "../../common/config.js";
import type { ReadDb } from "./db.js";
import { indexerStatus } from "./health.js";
import { tokenAmount, usdcAmount } from "./format.js";
import { legsJson } from "../views/legs.js";

export type Finality = {
  confirmations: number;
  /** The block the index has reached (null before it started). */
  indexedBlock: number | null;
  /** The newest final block: indexedBlock − CONFIRMATIONS (null before the index started). */
  finalBlock: number | null;
  /** Per scope ("protocol" or a token's lower-case address), each total's pending part. */
  pending: Map<string, Map<string, bigint>>;
};

export async function readFinality(db: ReadDb, config: Pick<Config, "confirmations">, scopes: readonly string[]): Promise<Finality> {
  const confirmations = config.confirmations;
  const { block } = await indexerStatus(db);
  const pending = new Map<string, Map<string, bigint>>();
  const finalBlock = block === null ? null : Math.max(0, block - confirmations);
  if (block === null || confirmations <= 0 || scopes.length === 0) return { confirmations, indexedBlock: block, finalBlock, pending };
  const rows = await db
    .select({ scope: totalsDelta.scope, field: totalsDelta.field, sum: sql<string>`SUM(${totalsDelta.delta})::text` })
    .from(totalsDelta)
    .where(and(inArray(totalsDelta.scope, [...scopes]), gt(totalsDelta.blockNumber, BigInt(finalBlock!))))
    .groupBy(totalsDelta.scope, totalsDelta.field);
  for (const r of rows) {
    let m = pending.get(r.scope);
    if (!m) pending.set(r.scope, (m = new Map()));
    m.set(r.field, BigInt(r.sum));
  }
  return { confirmations, indexedBlock: block, finalBlock, pending };
}

type Get = (field: string) => bigint;
const count = (v: bigint) => Number(v);

/** The protocol's totals in the `/stats` shape (the figures the indexer aggregates). */
function protocolFigures(get: Get) {
  return {
    tokens: { launched: count(get("tokensLaunched")), enrolled: count(get("tokensEnrolled")) },
    fees: {
      toOperatorUsdc: usdcAmount(get("feesToOperatorUsdc")),
      claimedUsdc: usdcAmount(get("feesClaimedUsdc")),
      protocolTokenFeesUsdc: usdcAmount(get("protocolTokenFeesUsdc")),
      legs: legsJson(get),
    },
    buybacks: {
      protocol: {
        count: count(get("protocolBuybacks")),
        usdcIn: usdcAmount(get("protocolBuybackUsdc")),
        tokensBought: tokenAmount(get("protocolTokensBought")),
        tokensBurned: tokenAmount(get("protocolTokensBurned")),
      },
      creator: { count: count(get("creatorBuybacks")), usdcIn: usdcAmount(get("creatorBuybackUsdc")) },
    },
    assetPurchasesUsdc: usdcAmount(get("assetPurchaseUsdc")),
    desks: { opened: count(get("desksOpened")), open: count(get("desksOpen")), realisedPnlUsdc: usdcAmount(get("deskRealisedPnl")) },
  };
}

/** A token's totals in the `/tokens` shape. */
function tokenFigures(get: Get) {
  return {
    feesToOperatorUsdc: usdcAmount(get("feesToOperatorUsdc")),
    creatorLegUsdc: usdcAmount(get("creatorLegUsdc")),
    buybacks: count(get("buybacks")),
    buybackUsdc: usdcAmount(get("buybackUsdc")),
    burned: tokenAmount(get("burned")),
    burns: count(get("burns")),
    legs: legsJson(get),
  };
}

const asBig = (v: unknown): bigint => (typeof v === "bigint" ? v : typeof v === "number" ? BigInt(v) : 0n);

function graded<T>(figures: (get: Get) => T, f: Finality, scope: string, row: Record<string, unknown> | null | undefined) {
  const pending = f.pending.get(scope) ?? new Map<string, bigint>();
  const total: Get = (field) => asBig(row?.[field]);
  const part: Get = (field) => pending.get(field) ?? 0n;
  return {
    confirmations: f.confirmations,
    indexedBlock: f.indexedBlock,
    finalBlock: f.finalBlock,
    final: figures((field) => total(field) - part(field)),
    pending: figures(part),
  };
}

/** The protocol totals' final and pending parts (`/stats` `finality`). */
export const protocolFinalityJson = (f: Finality, row: Record<string, unknown> | null | undefined) => graded(protocolFigures, f, "protocol", row);
/** A token's totals' final and pending parts (`/tokens` `totals.finality`, GraphQL `TokenTotals.finality`). */
export const tokenFinalityJson = (f: Finality, token: string, row: Record<string, unknown> | null | undefined) =>
  graded(tokenFigures, f, token.toLowerCase(), row);
