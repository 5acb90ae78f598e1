/**
 * A token's desk accountability statement (GET /tokens/:token/desk-statement, GraphQL
 * `Token.deskStatement`, the token's page): what its perp desk did with the fees it was given.
 *
 * - collateral: the perp leg's fees allocated, put on desks, returned as principal, waiting
 *   (the ledger, core/ledger/flow.ts);
 * - the trades by status, realised PnL (the engine's desk trades: USDC returned − USDC put in)
 *   and the open PnL at the venue's latest mark price (the indexed open desks);
 * - funding: the venue nets its opening fee, borrowing and funding into what a close returns, so
 *   they are inside realised PnL and not a separate figure;
 * - liquidations: how many, and the USDC they lost;
 * - profit → creator buybacks → tokens burned: the desk profits the creator-buyback queue
 *   received and spent (the ledger), and the buybacks and burns the chain shows (the index);
 * - tokens burned per USDC of fees: those burns over the USDC the token's fees became;
 * - the venue the desk trades on (the API's `PERPS_VENUE`) and its open trades: leverage,
 *   liquidation price by the venue's formula, unrealised PnL at the latest mark.
 */
import { and, eq, sql } from "drizzle-orm";
import { type Hex, getAddress } from "viem";
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import { USDC_UNIT, showUnits } from "../../common/units.js";
import { buyback, token as tokenTable } from "../../schema/ponder.js";
import type { ApiDeps } from "../deps.js";
import { type DeskVenue, type DeskView, deskContext, deskVenue, listDesks } from "./desks.js";
import { checksum, perpsDecimal } from "./format.js";
import { money } from "./proofs.js";

/** Raw figures of the statement (base units). */
export type DeskStatementView = {
  engine: boolean;
  venue: DeskVenue;
  /** The token's open desks (at most 100), newest first. */
  openDesks: DeskView[];
  symbol: string;
  feesUsdc: bigint;
  collateral: { fromFees: bigint; deployed: bigint; returned: bigint; waiting: bigint };
  trades: { total: number; open: number; closed: number; liquidated: number };
  realisedPnl: bigint;
  openPnl: bigint | null;
  liquidations: { count: number; lost: bigint };
  profit: { toCreatorBuybacks: bigint; spent: bigint; waiting: bigint; buybacks: number; usdcIn: bigint; tokensBurned: bigint };
  /** Token base units burned per whole USDC of fees (null without fees). */
  burnedPerUsdc: bigint | null;
};

const OPEN = new Set(["opening", "open", "closing", "topping-up"]);

export async function readDeskStatement(deps: Pick<ApiDeps, "db" | "engine" | "config">, token: Hex): Promise<DeskStatementView> {
  const address = checksum(token);
  const hex = token.toLowerCase() as Hex;
  const [flow, ctx, [row], [burns]] = await Promise.all([
    deps.engine.tokenFlow(address),
    deskContext(deps.db, deps.engine, deps.config.perpsVenue, [address]),
    deps.db.select({ symbol: tokenTable.symbol }).from(tokenTable).where(eq(tokenTable.address, hex)),
    deps.db
      .select({
        n: sql<number>`COUNT(*)::int`,
        usdcIn: sql<string>`COALESCE(SUM(${buyback.usdcIn}), 0)::text`,
        burned: sql<string>`COALESCE(SUM(${buyback.tokensBurned}), 0)::text`,
      })
      .from(buyback)
      .where(and(eq(buyback.token, hex), eq(buyback.kind, "creator-buyback"))),
  ]);
  const open = (await listDesks(deps.db, ctx, { filter: { token: address, statuses: ["open"] }, limit: 100 })).rows;
  const perp = flow?.legs.find((l) => l.leg === "perp");
  const cb = flow?.legs.find((l) => l.leg === "creator-buyback");
  const trades = flow?.desks ?? [];
  const liquidated = trades.filter((t) => t.status === "liquidated");
  const feesUsdc = flow?.claimedUsdc ?? 0n;
  const tokensBurned = BigInt(burns?.burned ?? "0");
  return {
    engine: flow !== null,
    venue: deskVenue(deps.config.perpsVenue),
    openDesks: open,
    symbol: row?.symbol ?? "tokens",
    feesUsdc,
    collateral: { fromFees: perp?.allocated ?? 0n, deployed: perp?.spent ?? 0n, returned: perp?.returned ?? 0n, waiting: perp?.pending ?? 0n },
    trades: {
      total: trades.length,
      open: trades.filter((t) => OPEN.has(t.status)).length,
      closed: trades.filter((t) => t.status === "closed").length,
      liquidated: liquidated.length,
    },
    realisedPnl: trades.reduce((s, t) => s + t.realisedPnl, 0n),
    openPnl: open.length === 0 ? 0n : open.some((d) => d.unrealisedPnl === null) ? null : open.reduce((s, d) => s + d.unrealisedPnl!, 0n),
    liquidations: { count: liquidated.length, lost: liquidated.reduce((s, t) => s + (t.basisUsdc - t.usdcReturned), 0n) },
    profit: {
      toCreatorBuybacks: cb?.returned ?? 0n,
      spent: cb?.spent ?? 0n,
      waiting: cb?.pending ?? 0n,
      buybacks: burns?.n ?? 0,
      usdcIn: BigInt(burns?.usdcIn ?? "0"),
      tokensBurned,
    },
    burnedPerUsdc: feesUsdc === 0n ? null : (tokensBurned * 10n ** BigInt(USDC_DECIMALS)) / feesUsdc,
  };
}

export const FUNDING_NOTE =
  "The venue nets its opening fee, borrowing and funding into what a close returns: they are inside realised PnL, not a separate figure.";

/** The statement in one paragraph, amounts in whole units (common/units.ts). */
export function deskStatementText(s: DeskStatementView): string {
  const usdc = (v: bigint) => showUnits(v, USDC_UNIT);
  const tokens = (v: bigint) => showUnits(v, { symbol: s.symbol, decimals: TOKEN_DECIMALS });
  const parts = [
    `Fees gave the desk ${usdc(s.collateral.fromFees)} of collateral; ${usdc(s.collateral.deployed)} went on ${s.trades.total} trade${s.trades.total === 1 ? "" : "s"} and ${usdc(s.collateral.waiting)} waits.`,
    `Realised PnL ${usdc(s.realisedPnl)}; open PnL ${s.openPnl === null ? "unknown (no mark price)" : usdc(s.openPnl)}.`,
    s.liquidations.count ? `${s.liquidations.count} liquidation${s.liquidations.count === 1 ? "" : "s"} lost ${usdc(s.liquidations.lost)}.` : "No liquidation.",
    `Profits of ${usdc(s.profit.toCreatorBuybacks)} went to creator buybacks: ${s.profit.buybacks} bought ${s.symbol} for ${usdc(s.profit.usdcIn)} and burned ${tokens(s.profit.tokensBurned)}.`,
    s.burnedPerUsdc === null ? "No fees yet." : `That is ${tokens(s.burnedPerUsdc)} burned per USDC of fees.`,
  ];
  return parts.join(" ");
}

/** The statement as the API serves it: exact amounts with their raw base units. */
export async function deskStatement(deps: ApiDeps, token: Hex) {
  const s = await readDeskStatement(deps, token);
  const address = checksum(token);
  const usdcAddress = deps.config.contracts.usdc ? getAddress(deps.config.contracts.usdc) : getAddress("0x0000000000000000000000000000000000000000");
  const usdc = (v: bigint) => money(v, { address: usdcAddress, symbol: "USDC", decimals: USDC_DECIMALS });
  const tokens = (v: bigint) => money(v, { address, symbol: s.symbol, decimals: TOKEN_DECIMALS });
  return {
    token: address,
    engine: s.engine,
    venue: s.venue.id,
    protocol: s.venue.protocol,
    openDesks: s.openDesks.map((d) => ({
      id: d.id,
      side: d.side,
      leverage: perpsDecimal(d.leverage),
      collateral: usdc(d.collateral),
      entryPrice: perpsDecimal(d.entryPrice),
      markPrice: d.markPrice === null ? null : perpsDecimal(d.markPrice),
      liquidationPrice: d.liquidationPrice === null ? null : perpsDecimal(d.liquidationPrice),
      unrealisedPnl: d.unrealisedPnl === null ? null : usdc(d.unrealisedPnl),
      realisedPnl: usdc(d.realisedPnl),
    })),
    fees: { claimedUsdc: usdc(s.feesUsdc) },
    collateral: {
      fromFees: usdc(s.collateral.fromFees),
      deployed: usdc(s.collateral.deployed),
      returned: usdc(s.collateral.returned),
      waiting: usdc(s.collateral.waiting),
    },
    trades: s.trades,
    pnl: { realised: usdc(s.realisedPnl), open: s.openPnl === null ? null : usdc(s.openPnl) },
    funding: { separate: false, note: FUNDING_NOTE },
    liquidations: { count: s.liquidations.count, collateralLost: usdc(s.liquidations.lost) },
    profit: {
      toCreatorBuybacks: usdc(s.profit.toCreatorBuybacks),
      spent: usdc(s.profit.spent),
      waiting: usdc(s.profit.waiting),
      buybacks: s.profit.buybacks,
      buybackUsdc: usdc(s.profit.usdcIn),
      tokensBurned: tokens(s.profit.tokensBurned),
    },
    burnedPerUsdcOfFees: s.burnedPerUsdc === null ? null : tokens(s.burnedPerUsdc),
    statement: deskStatementText(s),
  };
}
