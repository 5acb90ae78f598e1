/**
 * What the prospectus page shows, read in one pass: the agent and its charter (engine
 * tables), the token, its enrolment with the onchain charter hash, its ledger (fees in by
 * leg and by currency, buybacks, burns and daily burns, desk PnL) from the indexed tables, and
 * the agent log.
 * Without the indexed tables (or before the indexer has seen the token) the ledger is empty.
 * A token launched or enrolled without an agent has a page too: its split, ledger, burns and
 * the engine's decisions for it.
 */
import { and, asc, desc, eq, gte } from "drizzle-orm";
import { type Address, type Hex, getAddress, isAddress } from "viem";
import { activity, auction, auctionConfig, burnDaily, enrollment, pool as poolTable, token as tokenTable, tokenTotals } from "../../schema/ponder.js";
import type { Mandate } from "../../core/mandate.js";
import { type DesksHealth, desksHealth, readDesksHealth } from "../../core/health.js";
import { type Strategy, charterMandate } from "../../core/agents/charter.js";
import { type AgentLogEntry, readAgentLog } from "../../core/agent-log.js";
import { type Agent, getAgent, getAgentByToken } from "../../core/agents/store.js";
import type { AgentServices } from "../../core/agents/services.js";
import type { ReadDb } from "./db.js";
import { createEnginePort } from "../engine-port.js";
import { type BurnRow, listBurns } from "./burns.js";
import { type BuybackRow, listBuybacks } from "./buybacks.js";
import { type DeskView, deskContext, listDesks } from "./desks.js";
import { type FeeCurrencyView, tokenFeeCurrencies } from "./fees.js";
import { type HonouredView, honouredView, rewardSlotsOf } from "./tokens.js";
import { type TokenMarketView, marketView } from "./market.js";
import { tokenAudit } from "./public-audit.js";
import { type Series, burnSeries } from "./series.js";
import { type DeskStatementView, readDeskStatement } from "./desk-statement.js";

export const LOG_ENTRIES = 50;
export const RECENT_ROWS = 10;
export const CHART_DAYS = 30;

export type LedgerView = {
  /**
   * Fees in USDC by leg (WETH at its conversion's realised rate; the creator's leg as paid in
   * USDC), and per currency: the amount in its currency beside its USDC.
   */
  fees: {
    toOperatorUsdc: bigint;
    protocolUsdc: bigint;
    assetUsdc: bigint;
    perpUsdc: bigint;
    operatorUsdc: bigint;
    creatorUsdc: bigint;
    byCurrency: FeeCurrencyView[];
  };
  buybacks: { count: number; usdcIn: bigint; tokensBought: bigint; recent: BuybackRow[] };
  burns: { count: number; burned: bigint; recent: BurnRow[]; daily: { day: bigint; burned: bigint }[] };
  /** `status`: whether desks trade on this chain (off where the perps adapter does not declare it). */
  desk: { realisedPnlUsdc: bigint; unrealisedPnlUsdc: bigint | null; trades: DeskView[]; status: DesksHealth };
  /** Burns per bucket on an axis that fits them (api/read/series.ts). */
  burnSeries: Series | null;
  /** Supply, burned, circulating, price and market cap, from the indexed pool and totals. */
  market: TokenMarketView | null;
  /** Where the price comes from: the pool, its paired currency, its last swap's time. */
  price: { paired: "USDC" | "WETH" | "other"; swaps: number; updatedAt: bigint } | null;
  /** The public audit of the token (GET /tokens/{token}/audit). */
  audit: Awaited<ReturnType<typeof tokenAudit>> | null;
  /** The desk accountability statement (GET /tokens/{token}/desk-statement). */
  deskStatement: DeskStatementView | null;
};

/**
 * The launch's sniper auction: round 1's block, the decaying fee (pips: 1% = 10,000) and when it
 * ends (unix seconds, from the last round won), and every round won with its bid (WETH base
 * units; up to five rounds, one every two blocks while they are won), or null if nobody bid.
 */
export type AuctionView = {
  auctionBlock: bigint | null;
  startingFee: number;
  endingFee: number;
  decayEndsAt: bigint;
  won: { amount: bigint; rounds: { round: number | null; payee: Hex; amount: bigint; blockNumber: bigint }[] } | null;
  /** The chain's time as indexed (the newest indexed event's block time): the auction runs on chain time. */
  chainTime: bigint | null;
};

export type ProspectusData = {
  /** Null for a token the service knows that no agent launched. */
  agent: Agent | null;
  mandate: (Mandate & { strategy: Strategy }) | null;
  token: { address: Address; name: string; symbol: string; image: string; description: string } | null;
  enrollment: { charterHash: Hex; active: boolean; halted: boolean; protocolBps: number; assetBps: number; perpBps: number; creatorBps: number } | null;
  /** The split really honoured and the locker's reward slots (null when not enrolled or not indexed yet). */
  honoured?: HonouredView;
  /** Null when the indexed tables are not reachable. */
  ledger: LedgerView | null;
  /** Undefined for a launch without a sniper auction, or not indexed yet. */
  auction?: AuctionView;
  log: AgentLogEntry[];
  now: Date;
  /** The token's address, for a token without an agent. */
  address?: Address;
};

/** The agent named by an id or by its token's address. */
export async function findAgent(services: AgentServices, idOrToken: string): Promise<Agent | undefined> {
  await services.ready();
  if (isAddress(idOrToken, { strict: false })) return getAgentByToken(services.pool, getAddress(idOrToken));
  return getAgent(services.pool, idOrToken);
}

function descriptionOf(metadata: string | undefined, fallback: string): string {
  if (!metadata) return fallback;
  try {
    const parsed = JSON.parse(metadata) as { description?: unknown };
    return typeof parsed.description === "string" ? parsed.description : fallback;
  } catch {
    return fallback;
  }
}

async function readLedger(
  db: ReadDb,
  services: AgentServices,
  token: Address,
  now: Date,
): Promise<{
  ledger: LedgerView;
  tokenRow: typeof tokenTable.$inferSelect | undefined;
  enrolled: typeof enrollment.$inferSelect | undefined;
  honoured: HonouredView;
  auction?: AuctionView;
}> {
  const hex = token.toLowerCase() as Hex;
  const since = BigInt(Math.floor(now.getTime() / 1000)) - BigInt(CHART_DAYS) * 86_400n;
  const engine = createEnginePort(services.pool);
  const chainNow = BigInt(Math.floor(now.getTime() / 1000));
  const [[tokenRow], [enrolled], [totals], buybacks, burns, daily, ctx, fees, slots, [poolRow], series, audit] = await Promise.all([
    db.select().from(tokenTable).where(eq(tokenTable.address, hex)),
    db.select().from(enrollment).where(eq(enrollment.token, hex)),
    db.select().from(tokenTotals).where(eq(tokenTotals.token, hex)),
    listBuybacks(db, { filter: { token: hex }, order: "NEWEST", limit: RECENT_ROWS }),
    listBurns(db, { filter: { token: hex }, order: "NEWEST", limit: RECENT_ROWS }),
    db
      .select({ day: burnDaily.day, burned: burnDaily.burned })
      .from(burnDaily)
      .where(and(eq(burnDaily.token, hex), gte(burnDaily.day, (since / 86_400n) * 86_400n)))
      .orderBy(desc(burnDaily.day))
      .limit(CHART_DAYS + 1),
    deskContext(db, engine, services.config.perpsVenue, [getAddress(token)]),
    tokenFeeCurrencies(db, services.config, [hex]),
    rewardSlotsOf(db, [hex]),
    db.select().from(poolTable).where(eq(poolTable.token, hex)).limit(1),
    burnSeries(db, hex, chainNow),
    tokenAudit({ engine }, token).catch(() => null),
  ]);
  const statement = await readDeskStatement({ db, engine, config: services.config }, hex).catch(() => null);
  const desks = await listDesks(db, ctx, { filter: { token }, limit: RECENT_ROWS });
  const views: DeskView[] = desks.rows;
  const unrealised = views.filter((v) => v.status === "open");
  return {
    tokenRow,
    enrolled,
    auction: tokenRow ? await readAuction(db, tokenRow.poolId) : undefined,
    honoured: honouredView(enrolled ?? null, slots.get(hex), services.config.operator),
    ledger: {
      fees: {
        toOperatorUsdc: totals?.feesToOperatorUsdc ?? 0n,
        protocolUsdc: totals?.protocolLegUsdc ?? 0n,
        assetUsdc: totals?.assetLegUsdc ?? 0n,
        perpUsdc: totals?.perpLegUsdc ?? 0n,
        operatorUsdc: totals?.operatorLegUsdc ?? 0n,
        creatorUsdc: totals?.creatorLegUsdc ?? 0n,
        byCurrency: fees.get(hex) ?? [],
      },
      buybacks: { count: totals?.buybacks ?? 0, usdcIn: totals?.buybackUsdc ?? 0n, tokensBought: totals?.tokensBought ?? 0n, recent: buybacks.rows },
      burns: { count: totals?.burns ?? 0, burned: totals?.burned ?? 0n, recent: burns.rows, daily: [...daily].reverse() },
      desk: {
        realisedPnlUsdc: views.reduce((a, v) => a + v.realisedPnl, 0n),
        unrealisedPnlUsdc:
          unrealised.length === 0 ? 0n : unrealised.some((v) => v.unrealisedPnl === null) ? null : unrealised.reduce((a, v) => a + v.unrealisedPnl!, 0n),
        trades: views,
        status: (await readDesksHealth(services.pool).catch(() => null)) ?? desksHealth(services.config),
      },
      burnSeries: series,
      market: tokenRow
        ? marketView(services.config, { token: tokenRow, enrollment: enrolled ?? null, pool: poolRow ?? null, totals: totals ?? null }, undefined)
        : null,
      price: poolRow
        ? {
            paired:
              poolRow.pairedToken.toLowerCase() === services.config.contracts.usdc?.toLowerCase()
                ? "USDC"
                : poolRow.pairedToken.toLowerCase() === services.config.contracts.weth?.toLowerCase()
                  ? "WETH"
                  : "other",
            swaps: poolRow.swaps,
            updatedAt: poolRow.updatedAt,
          }
        : null,
      audit,
      deskStatement: statement,
    },
  };
}

async function readAuction(db: ReadDb, poolId: Hex): Promise<AuctionView | undefined> {
  const [[config], won, [newest]] = await Promise.all([
    db.select().from(auctionConfig).where(eq(auctionConfig.poolId, poolId)),
    db.select().from(auction).where(eq(auction.poolId, poolId)).orderBy(asc(auction.blockNumber)),
    db.select({ timestamp: activity.timestamp }).from(activity).orderBy(desc(activity.id)).limit(1),
  ]);
  if (!config) return undefined;
  return {
    auctionBlock: config.auctionBlock,
    startingFee: config.startingFee,
    endingFee: config.endingFee,
    decayEndsAt: config.decayEndsAt,
    won: won.length
      ? {
          amount: won.reduce((sum, r) => sum + r.amount, 0n),
          rounds: won.map((r) => ({ round: r.round, payee: r.payee, amount: r.amount, blockNumber: r.blockNumber })),
        }
      : null,
    chainTime: newest?.timestamp ?? null,
  };
}

/**
 * The page of a token no agent launched, or undefined when the service does not know the
 * address (neither launched through the launcher nor enrolled, as indexed).
 */
export async function loadTokenProspectus(services: AgentServices, db: ReadDb, address: Address, now = new Date()): Promise<ProspectusData | undefined> {
  const read = await readLedger(db, services, address, now);
  if (!read.tokenRow && !read.enrolled) return undefined;
  const t = read.tokenRow;
  const e = read.enrolled;
  return {
    agent: null,
    mandate: null,
    token: t ? { address, name: t.name, symbol: t.symbol, image: t.image, description: descriptionOf(t.metadata, "") } : null,
    enrollment: e ? enrollmentView(e) : null,
    honoured: read.honoured,
    ledger: read.ledger,
    auction: read.auction,
    log: await readAgentLog(services.pool, { agentId: null, token: address, limit: LOG_ENTRIES }),
    now,
    address,
  };
}

/** A token's enrolment as the page shows it: its charter, state and split. */
function enrollmentView(e: NonNullable<ProspectusData["enrollment"]>): NonNullable<ProspectusData["enrollment"]> {
  const { charterHash, active, halted, protocolBps, assetBps, perpBps, creatorBps } = e;
  return { charterHash, active, halted, protocolBps, assetBps, perpBps, creatorBps };
}

export async function loadProspectus(services: AgentServices, db: ReadDb | undefined, agent: Agent, now = new Date()): Promise<ProspectusData> {
  const log = await readAgentLog(services.pool, { agentId: agent.id, token: agent.token, limit: LOG_ENTRIES });
  const launch = agent.launch;
  let token: ProspectusData["token"] =
    agent.token && launch ? { address: agent.token, name: launch.name, symbol: launch.symbol, image: launch.image, description: launch.description } : null;
  let enrolled: ProspectusData["enrollment"] = null;
  let ledger: LedgerView | null = null;
  let honoured: HonouredView = null;
  let auctionView: AuctionView | undefined;
  if (agent.token && db) {
    try {
      const read = await readLedger(db, services, agent.token, now);
      ledger = read.ledger;
      honoured = read.honoured;
      auctionView = read.auction;
      if (read.tokenRow) {
        token = {
          address: getAddress(read.tokenRow.address),
          name: read.tokenRow.name,
          symbol: read.tokenRow.symbol,
          image: read.tokenRow.image,
          description: descriptionOf(read.tokenRow.metadata, token?.description ?? ""),
        };
      }
      if (read.enrolled) enrolled = enrollmentView(read.enrolled);
    } catch (error) {
      // The indexed tables are unreachable (or not created yet): show the page without a ledger.
      services.log.warn({ err: (error as Error).message }, "prospectus ledger unavailable");
      ledger = null;
    }
  }
  return {
    agent,
    mandate: agent.charter ? charterMandate(agent.charter) : null,
    token,
    enrollment: enrolled,
    honoured,
    ledger,
    auction: auctionView,
    log,
    now,
  };
}
