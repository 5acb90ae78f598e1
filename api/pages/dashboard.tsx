/**
 * `GET /`: the protocol dashboard for people (docs/design.md §7). Burns over time on an axis
 * that fits them, fees by leg, the open desks, the latest activity in sentences and every
 * token's public reconciliation status, each token linked to its page. Every amount in whole
 * units with its currency (common/units.ts); no script, the prospectus page's policy and style;
 * readable on a phone.
 */
import { desc, eq, inArray } from "drizzle-orm";
import type { Hono } from "hono";
import type { FC } from "hono/jsx";
import { type Address, type Hex, getAddress } from "viem";
import { USDC_UNIT, type Unit, formatUnits, groupThousands, showUnits } from "../../common/units.js";
import { activity, token as tokenTable, tokenTotals } from "../../schema/ponder.js";
import type { ApiDeps } from "../deps.js";
import { RateLimiter, DEFAULT_RATE_LIMITS, rateLimit } from "../http/rate-limit.js";
import { type ActivityRow, withDeskTokens } from "../read/activity.js";
import type { DeskView } from "../read/desks.js";
import { type TokenAuditJson, tokenAudits } from "../read/public-audit.js";
import { type Stats, readStats } from "../read/stats.js";
import { TimeChart } from "./chart.js";
import { Table } from "./table.js";
import { pageApp, pageHeaders } from "./page-app.js";
import { Figure, STYLE, showLeverage } from "./prospectus.js";
import { type Series, burnSeries } from "../read/series.js";
import { When } from "./time.js";

/** Tokens on the dashboard (newest first), and activity lines. */
export const DASHBOARD_TOKENS = 50;
export const DASHBOARD_ACTIVITY = 20;

type TokenLine = {
  address: Address;
  name: string;
  symbol: string;
  protocolToken: boolean;
  burned: bigint;
  feesUsdc: bigint;
  audit: TokenAuditJson;
};

export type DashboardData = {
  now: Date;
  stats: Stats;
  /** The protocol token (null until one is indexed) and its burns over time. */
  protocolToken: { address: Address; symbol: string } | null;
  series: Series | null;
  tokens: TokenLine[];
  activity: ActivityRow[];
  /** Symbols of tokens and currencies by lower-case address. */
  units: Map<string, Unit>;
};

export async function loadDashboard(deps: ApiDeps, now: Date): Promise<DashboardData> {
  const db = deps.db;
  const chainNow = BigInt(Math.floor(now.getTime() / 1000));
  const [stats, tokens, [protocolToken], rows] = await Promise.all([
    readStats(deps),
    db
      .select({
        address: tokenTable.address,
        name: tokenTable.name,
        symbol: tokenTable.symbol,
        protocolToken: tokenTable.isProtocolToken,
        burned: tokenTotals.burned,
        feesUsdc: tokenTotals.feesToOperatorUsdc,
      })
      .from(tokenTable)
      .leftJoin(tokenTotals, eq(tokenTotals.token, tokenTable.address))
      .orderBy(desc(tokenTable.createdBlock))
      .limit(DASHBOARD_TOKENS),
    db.select({ address: tokenTable.address, symbol: tokenTable.symbol }).from(tokenTable).where(eq(tokenTable.isProtocolToken, true)).limit(1),
    db
      .select()
      .from(activity)
      .orderBy(desc(activity.id))
      .limit(DASHBOARD_ACTIVITY)
      .then((r) => withDeskTokens(db, deps.engine, r)),
  ]);
  const units = new Map<string, Unit>();
  const { usdc, weth } = deps.config.contracts;
  if (usdc) units.set(usdc.toLowerCase(), USDC_UNIT);
  if (weth) units.set(weth.toLowerCase(), { symbol: "WETH", decimals: 18 });
  for (const t of tokens) units.set(t.address.toLowerCase(), { symbol: t.symbol, decimals: 18 });
  const missing = [...new Set(rows.map((r) => r.token).filter((t): t is Hex => !!t && !units.has(t.toLowerCase())))];
  if (missing.length) {
    for (const t of await db.select({ address: tokenTable.address, symbol: tokenTable.symbol }).from(tokenTable).where(inArray(tokenTable.address, missing))) {
      units.set(t.address.toLowerCase(), { symbol: t.symbol, decimals: 18 });
    }
  }
  // One token's burns: amounts of different tokens do not add up.
  const series = protocolToken ? await burnSeries(db, protocolToken.address, chainNow) : null;
  const audits = await tokenAudits(
    deps,
    tokens.map((t) => getAddress(t.address)),
  );
  return {
    now,
    stats,
    protocolToken: protocolToken ? { address: getAddress(protocolToken.address), symbol: protocolToken.symbol } : null,
    series,
    tokens: tokens.map((t, i) => ({ ...t, address: getAddress(t.address), burned: t.burned ?? 0n, feesUsdc: t.feesUsdc ?? 0n, audit: audits[i]! })),
    activity: rows,
    units,
  };
}

const big = (v: unknown): bigint | undefined => (typeof v === "string" && /^-?\d+$/.test(v) ? BigInt(v) : typeof v === "bigint" ? v : undefined);
const shortHex = (h: string) => `${h.slice(0, 6)}…${h.slice(-4)}`;

/** One activity row as a sentence, amounts in whole units of their currency. */
export function activitySentence(row: ActivityRow, units: Map<string, Unit>): string {
  const d = (row.data ?? {}) as Record<string, unknown>;
  const tokenUnit = row.token ? units.get(row.token.toLowerCase()) : undefined;
  const sym = tokenUnit?.symbol ?? (row.token ? shortHex(row.token) : "");
  const tokens = (v: bigint) => showUnits(v, { symbol: sym || "tokens", decimals: 18 });
  const usdc = (v: bigint) => showUnits(v, USDC_UNIT);
  const inCurrency = (v: bigint, currency: unknown) => {
    const unit = typeof currency === "string" ? units.get(currency.toLowerCase()) : undefined;
    return unit ? showUnits(v, unit) : `${formatUnits(v, 18)} of ${typeof currency === "string" ? shortHex(currency) : "a currency"}`;
  };
  switch (row.kind) {
    case "burn": {
      const amount = big(d.amount);
      if (amount !== undefined)
        return `${tokens(amount)} burned${d.kind === "organic" ? " by a holder" : d.kind ? ` (${String(d.kind).replace("-", " ")})` : ""}`;
      break;
    }
    case "protocol-buyback":
    case "creator-buyback": {
      const usdcIn = big(d.usdcIn);
      const bought = big(d.tokensBought);
      if (usdcIn !== undefined && bought !== undefined)
        return `${row.kind === "protocol-buyback" ? "protocol" : "creator"} buyback: bought ${tokens(bought)} for ${usdc(usdcIn)}`;
      break;
    }
    case "fees-claimed":
    case "fees-attributed":
    case "auction-fees":
    case "auction-won": {
      const amount = big(d.amount);
      if (amount !== undefined) {
        const what = {
          "fees-claimed": "fees claimed",
          "fees-attributed": "fees attributed",
          "auction-fees": "auction fees",
          "auction-won": "sniper auction won",
        }[row.kind];
        return `${what}${sym ? ` for ${sym}` : ""}: ${inCurrency(amount, d.currency)}`;
      }
      break;
    }
    case "fees-collected": {
      const collected = Array.isArray(d.collected) ? (d.collected as Record<string, unknown>[]) : [];
      const parts = collected.map((c) => (big(c.amount) === undefined ? null : inCurrency(big(c.amount)!, c.currency))).filter(Boolean);
      if (parts.length) return `fees collected for ${sym}: ${parts.join(" + ")}`;
      break;
    }
    case "asset-purchased": {
      const usdcIn = big(d.usdcIn);
      const bought = big(d.assetBought);
      if (usdcIn !== undefined && bought !== undefined) return `secondary asset bought: ${formatUnits(bought, 18)} for ${usdc(usdcIn)}`;
      break;
    }
    case "token-launched":
      return `${sym || "a token"} launched${typeof d.name === "string" ? ` (${d.name})` : ""}`;
    case "token-enrolled":
      return `${sym || "a token"} enrolled: its fees are split`;
    case "desk-opened":
    case "desk-increased":
    case "desk-decreased":
    case "desk-closed":
    case "desk-liquidated": {
      const delta = big(d.collateralDelta);
      const pnl = big(d.realisedPnl);
      const returned = big(d.usdcReturned);
      const what = row.kind.replace("desk-", "desk ");
      const parts = [
        delta !== undefined && delta !== 0n ? `collateral ${delta > 0n ? "+" : ""}${usdc(delta)}` : null,
        returned ? `${usdc(returned)} returned` : null,
        pnl ? `PnL ${usdc(pnl)}` : null,
      ].filter(Boolean);
      return `${what}${sym ? ` for ${sym}` : ""}${parts.length ? `: ${parts.join(", ")}` : ""}`;
    }
  }
  return `${row.kind.replaceAll("-", " ")}${sym ? ` (${sym})` : ""}`;
}

const AuditCell: FC<{ t: TokenLine }> = ({ t }) => {
  const a = t.audit;
  const cls = a.status === "clean" ? "ok" : a.status === "differences" ? "bad" : "warn";
  const text =
    a.status === "not-audited"
      ? "not audited yet"
      : a.status === "differences"
        ? `${a.differences.length} difference${a.differences.length === 1 ? "" : "s"} at block ${groupThousands(String(a.block))}`
        : `${a.status === "clean" ? "clean" : "clean so far"} at block ${groupThousands(String(a.block))}`;
  return (
    <span class={`badge ${cls}`} data-field="audit-badge" data-status={a.status}>
      {text}
    </span>
  );
};

const LEGS = [
  ["protocol", "Protocol token buybacks", "protocolLegUsdc"],
  ["asset", "Secondary asset", "assetLegUsdc"],
  ["perp", "Perp desks", "perpLegUsdc"],
  ["creator", "Creators", "creatorLegUsdc"],
  ["operator", "Operator (tokens it does not split)", "operatorLegUsdc"],
] as const;

export const DashboardPage: FC<{ data: DashboardData }> = ({ data }) => {
  const t = data.stats.totals;
  const legs = LEGS.map(([id, label, key]) => ({ id, label, value: (t?.[key] as bigint | undefined) ?? 0n }));
  const legTotal = legs.reduce((s, l) => s + l.value, 0n);
  const protocol = data.protocolToken;
  const symbolOf = (token: string | null) => (token ? (data.units.get(token.toLowerCase())?.symbol ?? shortHex(token)) : "—");
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Launchpad — dashboard</title>
        <style>{STYLE}</style>
      </head>
      <body>
        <main>
          <h1 data-field="title">Launchpad</h1>
          <p class="muted">Every token's fees split, bought back and burned in public; the books checked against the index and the chain.</p>
          <div class="cols">
            <Figure label="Tokens launched" id="tokens" value={groupThousands(String(t?.tokensLaunched ?? 0))} />
            <Figure label="Enrolled" id="enrolled" value={groupThousands(String(data.stats.enrolled))} />
            <Figure label="Fees to the operator" id="fees" value={formatUnits(t?.feesToOperatorUsdc ?? 0n, 6)} unit="USDC" />
            <Figure
              label="Spent on buybacks"
              id="buybacks"
              value={formatUnits((t?.protocolBuybackUsdc ?? 0n) + (t?.creatorBuybackUsdc ?? 0n), 6)}
              unit="USDC"
            />
            <Figure label="Open desks" id="open-desks" value={groupThousands(String(t?.desksOpen ?? 0))} />
            <Figure label="Desk PnL (realised)" id="desk-pnl" value={formatUnits(t?.deskRealisedPnl ?? 0n, 6)} unit="USDC" />
          </div>

          <h2>Burns over time</h2>
          {protocol ? (
            <>
              <p class="muted" data-field="burns-chart-token">
                The protocol token, <a href={`/p/${protocol.address}`}>{protocol.symbol}</a>: what its buybacks and its holders burned. Each token's burns are
                on its own page, in its own unit (below, each token's total).
              </p>
              <TimeChart id="burns" series={data.series} unit={{ symbol: protocol.symbol, decimals: 18 }} what={`${protocol.symbol} burned`} />
            </>
          ) : (
            <p class="muted" data-chart-empty="burns">
              No protocol token indexed yet; each token's burns are on its own page.
            </p>
          )}

          <h2>Fees by leg</h2>
          <div class="scroll">
            <table data-table="fee-legs">
              <tr>
                <th>Leg</th>
                <th class="num">USDC</th>
                <th>Share</th>
              </tr>
              {legs.map((l) => {
                const pct = legTotal === 0n ? 0n : (l.value * 10_000n) / legTotal;
                return (
                  <tr data-leg={l.id}>
                    <td>{l.label}</td>
                    <td class="num">{formatUnits(l.value, 6)}</td>
                    <td style="min-width:90px">
                      <div
                        style={`background:#e0663a;height:8px;border-radius:4px;width:${formatUnits(pct, 2, { exact: true })}%`}
                        data-share={formatUnits(pct, 2, { exact: true })}
                      />
                    </td>
                  </tr>
                );
              })}
              <tr data-leg="total">
                <th>Total</th>
                <th class="num">{formatUnits(legTotal, 6)}</th>
                <th />
              </tr>
            </table>
          </div>

          <h2>Largest open desks</h2>
          <Table
            name="open-desks"
            rows={data.stats.desks.largest}
            empty="No desk is open."
            columns={[
              { head: "Token", cell: (d: DeskView) => (d.token ? <a href={`/p/${d.token}`}>{symbolOf(d.token)}</a> : "—") },
              { head: "Side", cell: (d) => (d.halted ? `${d.side} (halted)` : d.side) },
              { head: "Collateral (USDC)", num: true, cell: (d) => formatUnits(d.collateral, 6) },
              { head: "Leverage", num: true, cell: (d) => showLeverage(d.leverage) },
              { head: "Open PnL (USDC)", num: true, cell: (d) => (d.unrealisedPnl === null ? "—" : formatUnits(d.unrealisedPnl, 6)) },
            ]}
          />
          {data.stats.desks.largest.length ? (
            <p
              class="muted"
              data-field="open-desks-note"
            >{`The ${data.stats.desks.largest.length} largest by notional of ${groupThousands(String(t?.desksOpen ?? 0))} open desks; every desk at /api/v1/desks?status=open.`}</p>
          ) : null}

          <h2>Tokens and their books</h2>
          <Table
            name="tokens"
            rows={data.tokens}
            empty="No token launched yet."
            row={(x) => ({ "data-token": x.address })}
            columns={[
              {
                head: "Token",
                cell: (x) => (
                  <>
                    <a href={`/p/${x.address}`}>{x.symbol}</a>
                    {x.protocolToken ? <span class="muted"> (protocol token)</span> : null}
                  </>
                ),
              },
              { head: "Fees (USDC)", num: true, cell: (x) => formatUnits(x.feesUsdc, 6) },
              { head: "Burned", num: true, cell: (x) => showUnits(x.burned, { symbol: x.symbol, decimals: 18 }) },
              { head: "Books", cell: (x) => <AuditCell t={x} /> },
            ]}
          />

          <h2>Latest activity</h2>
          <Table
            name="activity"
            rows={data.activity}
            empty="Nothing indexed yet."
            row={(r) => ({ "data-kind": r.kind })}
            columns={[
              { head: "Time", cell: (r) => <When t={r.timestamp} /> },
              {
                head: "What",
                cell: (r) => (r.token ? <a href={`/p/${getAddress(r.token)}`}>{activitySentence(r, data.units)}</a> : activitySentence(r, data.units)),
              },
              { head: "Transaction", cell: (r) => <code>{shortHex(r.txHash)}</code> },
            ]}
          />
          <p class="muted" style="margin-top:32px">
            Figures are read from the chain as indexed; amounts are cut for reading, and exact in the API (<a href="/api/v1/docs">/api/v1/docs</a>).
          </p>
        </main>
      </body>
    </html>
  );
};

export async function renderDashboard(data: DashboardData): Promise<string> {
  return `<!DOCTYPE html>${await (<DashboardPage data={data} />).toString()}`;
}

/** `GET /`: the dashboard, with the page's no-script policy. */
export function dashboardPage(deps: ApiDeps): Hono {
  const app = pageApp("dashboard", deps.logError);
  const limits = { ...DEFAULT_RATE_LIMITS, ...deps.rateLimits };
  app.get("/", rateLimit(new RateLimiter(limits.read, { name: "page", overlap: true })), async (c) => {
    pageHeaders(c);
    return c.html(await renderDashboard(await loadDashboard(deps, new Date())));
  });
  return app;
}
