/**
 * The public prospectus page of an agent (`GET /p/:idOrToken`): mandate, rules with the
 * onchain charter hash, ledger (fees in by leg and by currency, buybacks, burns with a chart
 * of burns per day, desk PnL) and the agent log. A token no agent launched gets the same page without the
 * agent's parts: its split, ledger, burns and the engine's decisions for it. Server-rendered with hono/jsx, no script at all: every
 * user-supplied text (name, symbol, persona, description, reasons) is a text node or an
 * attribute value, which hono/jsx escapes; the response's CSP forbids scripts besides.
 */
import type { Child, FC } from "hono/jsx";
import { formatDecimal } from "../../common/money.js";
import { USDC_UNIT, WETH_UNIT, formatUnits, groupThousands, showUnits } from "../../common/units.js";
import { describeDecision } from "../../core/log-lines.js";
import { desksOffLine } from "../../core/health.js";
import { TimeChart } from "./chart.js";
import { Table } from "./table.js";
import { When, utcTime } from "./time.js";
import { FUNDING_NOTE, deskStatementText } from "../read/desk-statement.js";
import { PROTOCOL_REWARD_BPS } from "../../common/constants.js";
import { canonicalJson } from "../../core/agents/charter.js";
import type { ProspectusData } from "../read/prospectus.js";

/** Content-Security-Policy of the page: no scripts, no frames, no forms. */
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** USDC, exact, grouped: "1,234.5" (common/units.ts, the one formatter of amounts for people). */
export const showUsdc = (v: bigint) => formatUnits(v, 6);
/** Token amounts (18 decimals), grouped, cut to 2 decimals (4 significant digits below one token). */
export const showTokens = (v: bigint) => formatUnits(v, 18);
export const showPct = (bps: number) => `${formatDecimal(BigInt(bps), 2)}%`;
/** Leverage (1e10 = 1x) as a person reads it: two decimals at most, cut toward zero ("4.98x", "5x"). */
export const showLeverage = (v: bigint) => `${formatUnits(v, 10)}x`;
const shortHex = (h: string) => `${h.slice(0, 10)}…${h.slice(-8)}`;

export const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;background:#0f1115;color:#e6e6e6}
main{max-width:960px;margin:0 auto;padding:24px}
h1{margin:0 0 4px;font-size:28px;word-break:break-word}h2{margin:32px 0 8px;font-size:19px;border-bottom:1px solid #2a2f3a;padding-bottom:4px}
.muted{color:#9aa3b2}.badge{display:inline-block;padding:1px 8px;border-radius:10px;background:#2a2f3a;font-size:13px;margin-left:6px}
.ok{background:#1f4d2e}.warn{background:#5a4410}.bad{background:#5a1c1c}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:4px 8px;border-bottom:1px solid #22262f;vertical-align:top}
th{color:#9aa3b2;font-weight:500}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0}dt{color:#9aa3b2}dd{margin:0;min-width:0;overflow-wrap:anywhere}
p,li{overflow-wrap:anywhere}code{overflow-wrap:anywhere}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{white-space:pre-wrap;word-break:break-all;background:#161a21;padding:12px;border-radius:6px}
.cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(180px,1fr));gap:12px}.card{background:#161a21;border-radius:8px;padding:12px}
.card .v{font-size:20px;font-variant-numeric:tabular-nums}img.logo{width:64px;height:64px;border-radius:12px;object-fit:cover;float:right}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}figure.chart{margin:0}details summary{cursor:pointer;color:#9aa3b2}
a{color:#7fb3ff}nav{margin-bottom:12px}.when{white-space:nowrap}
@media (max-width:600px){main{padding:12px}h1{font-size:22px}dl{grid-template-columns:1fr}dt{margin-top:6px}.cols{grid-template-columns:repeat(2,minmax(0,1fr))}.card .v{font-size:16px;word-break:break-word}td,th{padding:4px}}
`;

export const Figure: FC<{ label: string; id: string; value: string; unit?: string }> = ({ label, id, value, unit }) => (
  <div class="card" data-figure={id}>
    <div class="muted">{label}</div>
    <div class="v">
      {value}
      {unit ? <span class="muted"> {unit}</span> : null}
    </div>
  </div>
);

/** An amount in whole units of its currency, grouped (common/units.ts). */
export const showAmount = (v: bigint, decimals: number) => formatUnits(v, decimals);

/** Fees per currency: collected, claimed (and not yet), converted, and the USDC they became at the realised rate. */
const FeesByCurrency: FC<{ fees: NonNullable<ProspectusData["ledger"]>["fees"]["byCurrency"] }> = ({ fees }) => (
  <div>
    <h3>Fees in, by currency</h3>
    <Table
      name="fee-currencies"
      rows={fees}
      row={(f) => ({ "data-currency": f.currency.symbol })}
      columns={[
        { head: "Currency", cell: (f) => f.currency.symbol },
        { head: "To the operator", num: true, field: "to-operator", cell: (f) => showAmount(f.toOperator, f.currency.decimals) },
        { head: "Claimed", num: true, field: "claimed", cell: (f) => showAmount(f.claimed, f.currency.decimals) },
        { head: "Not claimed yet", num: true, field: "unclaimed", cell: (f) => showAmount(f.unclaimed, f.currency.decimals) },
        { head: "Awaiting conversion", num: true, field: "awaiting-conversion", cell: (f) => showAmount(f.awaitingConversion, f.currency.decimals) },
        { head: "Converted", num: true, field: "converted", cell: (f) => showAmount(f.converted, f.currency.decimals) },
        { head: "USDC", num: true, field: "usdc", cell: (f) => showUsdc(f.usdc) },
        {
          head: "Realised rate",
          num: true,
          field: "rate",
          cell: (f) => (f.usdcPerUnit === null ? "—" : `${showUsdc(f.usdcPerUnit)} USDC / ${f.currency.symbol}`),
        },
        { head: "To the creator", num: true, field: "to-creator", cell: (f) => showAmount(f.toCreator, f.currency.decimals) },
      ]}
    />
  </div>
);

/** Burned as a share of the supply, a percentage to 4 decimals (bigint). */
const sharePct = (part: bigint, whole: bigint) => (whole === 0n ? "0%" : `${formatUnits((part * 1_000_000n) / whole, 4, { exact: true })}%`);

/**
 * Supply, burned (and its share), circulating, price and market cap, from the indexed pool and
 * the token's totals, with where the price comes from.
 */
const MarketFigures: FC<{ data: ProspectusData }> = ({ data }) => {
  const m = data.ledger?.market;
  if (!m) return <p class="muted">Not indexed yet: supply and price appear once the indexer has seen the launch.</p>;
  const symbol = data.token?.symbol ?? "tokens";
  const price = data.ledger?.price;
  // Price per whole token: USDC base units per 1e18 whole tokens = 6 + 18 decimals.
  const perToken = m.priceUsdcE18 === null ? "—" : formatUnits(m.priceUsdcE18, 24);
  const source = !price
    ? "No pool indexed yet: no price."
    : price.swaps === 0
      ? "The pool has not traded yet: the price is its starting price."
      : `Price: the token's Uniswap v4 pool after its last indexed swap (${utcTime(price.updatedAt)}, ${groupThousands(String(price.swaps))} swaps)${
          price.paired === "WETH" ? ", in WETH, turned into USDC at the indexed WETH/USDC pool price" : price.paired === "USDC" ? ", paired with USDC" : ""
        }. Market cap = circulating supply × price. Supply: every launcher token mints 100 billion once; burned = what holders and buybacks sent to the dead address.`;
  return (
    <div>
      <div class="cols" data-section="market">
        <Figure label="Supply" id="supply" value={formatUnits(m.totalSupply, 18)} unit={symbol} />
        <Figure label="Burned" id="supply-burned" value={formatUnits(m.burned, 18)} unit={`${symbol} (${sharePct(m.burned, m.totalSupply)} of supply)`} />
        <Figure label="Circulating" id="circulating" value={formatUnits(m.circulating, 18)} unit={symbol} />
        <Figure label="Price" id="price" value={perToken} unit={`USDC per ${symbol}`} />
        <Figure label="Market cap" id="market-cap" value={m.marketCapUsdc === null ? "—" : showUsdc(m.marketCapUsdc)} unit="USDC" />
      </div>
      <p class="muted" data-field="price-source">
        {source}
      </p>
    </div>
  );
};

/** The public audit's result as a badge with its block (GET /api/v1/tokens/{token}/audit). */
const AuditBadge: FC<{ data: ProspectusData }> = ({ data }) => {
  const a = data.ledger?.audit;
  if (!a) return null;
  const cls = a.status === "clean" ? "ok" : a.status === "differences" ? "bad" : "warn";
  const label =
    a.status === "clean"
      ? `Books clean at block ${groupThousands(String(a.block))}`
      : a.status === "clean-so-far"
        ? `Books clean so far at block ${groupThousands(String(a.block))}`
        : a.status === "differences"
          ? `${a.differences.length} difference${a.differences.length === 1 ? "" : "s"} at block ${groupThousands(String(a.block))}`
          : "Not audited yet";
  return (
    <p data-section="audit">
      <span class={`badge ${cls}`} data-field="audit-badge" data-status={a.status} data-block={a.block === null ? undefined : String(a.block)}>
        {label}
      </span>
      <span class="muted">
        {a.blockTime ? (
          <>
            {" "}
            <When t={new Date(a.blockTime)} />
            {" · "}
          </>
        ) : (
          " "
        )}
        the engine checks this token's books against the index and the chain on a schedule (public audit).
      </span>
    </p>
  );
};

/** The desk accountability statement: what the desk did with the fees it was given. */
const DeskStatement: FC<{ data: ProspectusData }> = ({ data }) => {
  const s = data.ledger?.deskStatement;
  if (!s) return null;
  const usdc = (v: bigint) => showUnits(v, USDC_UNIT);
  const tokens = (v: bigint) => showUnits(v, { symbol: s.symbol, decimals: 18 });
  const rows: [string, string, string][] = [
    ["venue", "Venue", `${s.venue.protocol} (${s.venue.id})`],
    ["collateral-in", "Collateral in from fees (perp leg)", usdc(s.collateral.fromFees)],
    [
      "deployed",
      `Put on ${s.trades.total} trade${s.trades.total === 1 ? "" : "s"} (${s.trades.open} open, ${s.trades.closed} closed, ${s.trades.liquidated} liquidated)`,
      usdc(s.collateral.deployed),
    ],
    ["principal-back", "Principal back from closed trades", usdc(s.collateral.returned)],
    ["waiting", "Waiting in the perp leg", usdc(s.collateral.waiting)],
    ["realised", "Realised PnL", usdc(s.realisedPnl)],
    ["open", "Open PnL (latest mark price)", s.openPnl === null ? "unknown" : usdc(s.openPnl)],
    ["funding", "Funding and venue fees", "inside realised PnL"],
    ["liquidations", `Liquidations (${s.liquidations.count})`, usdc(s.liquidations.lost)],
    ["profit", "Profit to creator buybacks", usdc(s.profit.toCreatorBuybacks)],
    ["buybacks", `Creator buybacks (${s.profit.buybacks})`, usdc(s.profit.usdcIn)],
    ["burned", "Tokens burned by them", tokens(s.profit.tokensBurned)],
    ["per-usdc", "Tokens burned per USDC of fees", s.burnedPerUsdc === null ? "—" : tokens(s.burnedPerUsdc)],
  ];
  return (
    <div data-section="desk-statement">
      <p data-field="desk-statement">{deskStatementText(s)}</p>
      <div class="scroll">
        <table data-table="desk-statement">
          {rows.map(([id, label, value]) => (
            <tr data-row={id}>
              <td>{label}</td>
              <td class="num">{value}</td>
            </tr>
          ))}
        </table>
      </div>
      <p class="muted">{`${FUNDING_NOTE} From the engine's ledger and desk trades, and the buybacks as indexed.`}</p>
    </div>
  );
};

const Ledger: FC<{ data: ProspectusData }> = ({ data }) => {
  const l = data.ledger;
  if (!(data.agent ? data.agent.token : data.address)) return <p class="muted">No token yet: the ledger starts at launch.</p>;
  if (!l) return <p class="muted">The ledger is not available right now (the indexer has not caught up); it fills in as the chain is indexed.</p>;
  const symbol = data.token?.symbol ?? "tokens";
  return (
    <div>
      <h3>Fees in, by leg</h3>
      <div class="scroll">
        <table data-table="fees">
          <tr>
            <th>Leg</th>
            <th class="num">USDC</th>
          </tr>
          <tr data-leg="protocol">
            <td>Protocol token (tithe)</td>
            <td class="num">{showUsdc(l.fees.protocolUsdc)}</td>
          </tr>
          <tr data-leg="asset">
            <td>Secondary asset</td>
            <td class="num">{showUsdc(l.fees.assetUsdc)}</td>
          </tr>
          <tr data-leg="perp">
            <td>Perp desk</td>
            <td class="num">{showUsdc(l.fees.perpUsdc)}</td>
          </tr>
          {l.fees.operatorUsdc > 0n ? (
            <tr data-leg="operator">
              <td>Operator (before enrolment)</td>
              <td class="num">{showUsdc(l.fees.operatorUsdc)}</td>
            </tr>
          ) : null}
          <tr data-leg="creator">
            <td>Creator</td>
            <td class="num">{showUsdc(l.fees.creatorUsdc)}</td>
          </tr>
          <tr data-leg="total">
            <th>Total</th>
            <th class="num">{showUsdc(l.fees.protocolUsdc + l.fees.assetUsdc + l.fees.perpUsdc + l.fees.operatorUsdc + l.fees.creatorUsdc)}</th>
          </tr>
        </table>
      </div>
      <p class="muted">
        The operator's USDC once it claims it from the fee locker; WETH at the rate its conversion swap realised, once claimed and converted; the creator's
        share as collected. Fees collected and not claimed yet, and a creator paid in WETH, are shown by currency below.
      </p>
      {l.fees.byCurrency.length ? <FeesByCurrency fees={l.fees.byCurrency} /> : null}
      {l.desk.status.enabled ? null : (
        <p class="muted" data-field="desks-off">
          {desksOffLine(l.desk.status)}
        </p>
      )}
      <div class="cols" style="margin-top:12px">
        <Figure label="Buybacks" id="buybacks" value={String(l.buybacks.count)} />
        <Figure label="Spent on buybacks" id="buyback-usdc" value={showUsdc(l.buybacks.usdcIn)} unit="USDC" />
        <Figure label="Bought back" id="bought" value={showTokens(l.buybacks.tokensBought)} unit={symbol} />
        <Figure label="Burned" id="burned" value={showTokens(l.burns.burned)} unit={symbol} />
        <Figure label="Desk PnL (realised)" id="desk-realised" value={showUsdc(l.desk.realisedPnlUsdc)} unit="USDC" />
        <Figure label="Desk PnL (open)" id="desk-unrealised" value={l.desk.unrealisedPnlUsdc === null ? "—" : showUsdc(l.desk.unrealisedPnlUsdc)} unit="USDC" />
      </div>
      <h3>Burns over time</h3>
      <TimeChart id="burns" series={l.burnSeries} unit={{ symbol, decimals: 18 }} what="tokens burned" />
      <h3>Recent burns</h3>
      <Table
        name="burns"
        rows={l.burns.recent}
        empty="No burns yet."
        columns={[
          { head: "Time", cell: (b) => <When t={b.timestamp} /> },
          { head: "Kind", cell: (b) => b.kind },
          { head: symbol, num: true, cell: (b) => showTokens(b.amount) },
          { head: "Transaction", cell: (b) => <code>{shortHex(b.txHash)}</code> },
        ]}
      />
      <h3>Recent buybacks</h3>
      <Table
        name="buybacks"
        rows={l.buybacks.recent}
        empty="No buybacks yet."
        columns={[
          { head: "Time", cell: (b) => <When t={b.timestamp} /> },
          { head: "Kind", cell: (b) => b.kind },
          { head: "USDC in", num: true, cell: (b) => showUsdc(b.usdcIn) },
          { head: `${symbol} bought`, num: true, cell: (b) => showTokens(b.tokensBought) },
          { head: "Transaction", cell: (b) => <code>{shortHex(b.txHash)}</code> },
        ]}
      />
      {l.desk.trades.length ? (
        <div>
          <h3>Desk</h3>
          <p class="muted" data-field="desk-venue">{`Trades on ${l.desk.trades[0]!.protocol} (${l.desk.trades[0]!.venue}). PnL in USDC; prices in USD.`}</p>
          <Table
            name="desk"
            rows={l.desk.trades}
            row={(t) => ({ "data-desk": t.id })}
            columns={[
              { head: "Side", cell: (t) => t.side },
              { head: "Status", cell: (t) => (t.halted ? `${t.status} (halted)` : t.status) },
              { head: "Collateral", num: true, cell: (t) => showUsdc(t.collateral) },
              { head: "Leverage", num: true, field: "leverage", cell: (t) => showLeverage(t.leverage) },
              { head: "Entry", num: true, cell: (t) => formatUnits(t.entryPrice, 10) },
              {
                head: "Liquidation",
                num: true,
                field: "liquidation-price",
                cell: (t) => (t.liquidationPrice === null ? "—" : formatUnits(t.liquidationPrice, 10)),
              },
              { head: "Realised PnL", num: true, field: "realised-pnl", cell: (t) => showUsdc(t.realisedPnl) },
              { head: "Open PnL", num: true, field: "unrealised-pnl", cell: (t) => (t.unrealisedPnl === null ? "—" : showUsdc(t.unrealisedPnl)) },
            ]}
          />
        </div>
      ) : null}
    </div>
  );
};

/**
 * A log entry as a person reads it: the sentence of a known decision, from its structured data,
 * with amounts in whole units and the token's symbol (core/log-lines.ts); otherwise its reason.
 */
export function logSentence(e: ProspectusData["log"][number], symbol: string | undefined): string {
  const sentence = describeDecision({ worker: e.worker, decision: e.decision, reason: e.reason, data: e.data ?? undefined }, symbol);
  return sentence.startsWith(`${e.worker}: ${e.decision}`) ? e.reason : sentence;
}

const LogTable: FC<{ log: ProspectusData["log"]; symbol?: string }> = ({ log, symbol }) => (
  <Table
    name="log"
    rows={log}
    empty="No entries yet."
    row={(e) => ({ "data-decision": e.decision })}
    columns={[
      { head: "Time", cell: (e) => <When t={e.createdAt} /> },
      { head: "Worker", cell: (e) => e.worker },
      { head: "Decision", cell: (e) => e.decision },
      { head: "Reason", cell: (e) => logSentence(e, symbol) },
    ]}
  />
);

/** What every prospectus shows after its header: how its fees are honoured, its auction, market, ledger, desk and log. */
const Figures: FC<{ data: ProspectusData; log: string }> = ({ data, log }) => (
  <>
    <Honoured data={data} />
    <Auction data={data} />

    <h2>Supply and price</h2>
    <MarketFigures data={data} />

    <h2>Ledger</h2>
    <Ledger data={data} />

    <h2>Desk accountability</h2>
    <DeskStatement data={data} />

    <h2>{log}</h2>
    <LogTable log={data.log} symbol={data.token?.symbol} />
  </>
);

/** The document around a prospectus: head, logo and title, then the page's sections, then the footnote. */
const Shell: FC<{ title: string; image: string | null; children?: Child }> = ({ title, image, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${title} — prospectus`}</title>
      <style>{STYLE}</style>
    </head>
    <body>
      <main>
        {image ? <img class="logo" src={image} alt="" referrerpolicy="no-referrer" /> : null}
        <h1 data-field="title">{title}</h1>
        {children}
        <p class="muted" style="margin-top:32px">
          Figures are read from the chain as indexed; amounts are exact.
        </p>
      </main>
    </body>
  </html>
);

/**
 * The split the locker and the engine really honour, and every reward slot of the locker: its
 * recipient, share, current fee preference and admin.
 */
const Honoured: FC<{ data: ProspectusData }> = ({ data }) => {
  const h = data.honoured;
  if (!h) return null;
  const s = h.split;
  return (
    <>
      <dl data-section="honoured-split">
        <dt>Honoured split</dt>
        <dd data-field="honoured-split">
          {`protocol ${showPct(s.protocolBps)} · asset ${showPct(s.assetBps)} · perp desk ${showPct(s.perpBps)} · creator ${showPct(s.creatorBps)} (paid by the locker directly)${s.otherBps ? ` · others ${showPct(s.otherBps)} (paid by the locker directly)` : ""}`}
        </dd>
        <dt>Operator's fees</dt>
        <dd data-field="operator-fees-routed">
          {h.operatorFeesRouted ? `routed by the engine (${showPct(s.operatorBps)} of all LP fees)` : `not routed: ${h.reason}`}
        </dd>
      </dl>
      <div class="scroll">
        <table data-section="locker-shares">
          <thead>
            <tr>
              <th>Slot</th>
              <th>Recipient</th>
              <th>Share</th>
              <th>Paid in</th>
              <th>Admin</th>
              <th>Pays</th>
            </tr>
          </thead>
          <tbody>
            {h.shares.map((slot) => (
              <tr data-slot={String(slot.rewardIndex)}>
                <td>{String(slot.rewardIndex)}</td>
                <td>
                  <code data-field="slot-recipient">{slot.recipient}</code>
                </td>
                <td data-field="slot-share">{showPct(slot.bps)}</td>
                <td data-field="slot-fee-in">{slot.feeInName}</td>
                <td>
                  <code data-field="slot-admin">{slot.admin}</code>
                </td>
                <td data-field="slot-role">{slot.role}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
};

/** A fee in Uniswap pips (1% = 10,000) as a percentage. */
const showPips = (pips: number) => `${formatDecimal(BigInt(pips), 4)}%`;

/**
 * The launch's sniper auction: while its fee decays, "auction until …" (swaps then pay more
 * than the pool's fee, and the engine waits); afterwards when it ended, and what every round
 * won paid if anyone bid.
 */
const Auction: FC<{ data: ProspectusData }> = ({ data }) => {
  const a = data.auction;
  if (!a) return null;
  // Chain time where the index has moved past the clock (a devnet whose time was advanced).
  const clock = BigInt(Math.floor(data.now.getTime() / 1000));
  const now = a.chainTime !== null && a.chainTime > clock ? a.chainTime : clock;
  const block = a.auctionBlock === null ? "" : ` (block ${a.auctionBlock} auctioned)`;
  const rounds = a.won?.rounds ?? [];
  const won = !a.won
    ? "; no bid"
    : rounds.length === 1
      ? `; won for ${showUnits(a.won.amount, WETH_UNIT)} in block ${rounds[0]!.blockNumber}, 80% of it to the reward recipients`
      : `; won in ${rounds.length} rounds for ${showUnits(a.won.amount, WETH_UNIT)} in all (blocks ${rounds.map((r) => r.blockNumber).join(", ")}), 80% of it to the reward recipients`;
  return (
    <p data-field="auction" class={now < a.decayEndsAt ? undefined : "muted"}>
      {now < a.decayEndsAt
        ? `Sniper auction until ${utcTime(a.decayEndsAt)}${block}: swaps pay a fee decaying from ${showPips(a.startingFee)} to ${showPips(a.endingFee)}; the engine and the agent's dev buy wait for its end${a.won ? won : ""}.`
        : `Sniper auction ended ${utcTime(a.decayEndsAt)}${block}${won}.`}
    </p>
  );
};

/** The page of a token the service knows that no agent launched. */
const TokenPage: FC<{ data: ProspectusData }> = ({ data }) => {
  const { token, enrollment } = data;
  const address = token?.address ?? data.address!;
  const title = token ? `${token.name} (${token.symbol})` : address;
  const image = token?.image && /^https?:\/\//i.test(token.image) ? token.image : null;
  return (
    <Shell title={title} image={image}>
      <p class="muted" data-field="agent">
        No agent: this token was not launched by an agent, so it has no charter, persona or mandate.
      </p>
      {token?.description ? <p data-field="description">{token.description}</p> : null}
      <dl style="margin-top:12px">
        <dt>Token</dt>
        <dd>
          <code data-field="token">{address}</code>
        </dd>
      </dl>
      <AuditBadge data={data} />

      <h2>Fee split</h2>
      {enrollment ? (
        <dl data-section="split">
          <dt>Split</dt>
          <dd data-field="split">
            {`protocol ${showPct(enrollment.protocolBps)} · asset ${showPct(enrollment.assetBps)} · perp desk ${showPct(enrollment.perpBps)} · creator ${showPct(enrollment.creatorBps)}`}
          </dd>
          <dt>Locked split</dt>
          <dd data-field="locked-split">{`${enrollment.protocolBps} / ${enrollment.assetBps} / ${enrollment.perpBps} / ${enrollment.creatorBps} bps (protocol / asset / perp / creator)`}</dd>
          <dt>Registry state</dt>
          <dd data-field="registry-state">{`${enrollment.active ? "active" : "inactive"}${enrollment.halted ? ", halted" : ""}`}</dd>
        </dl>
      ) : (
        <p class="muted" data-field="split">
          Not enrolled: the service does not split this token's fees.
        </p>
      )}
      <Figures data={data} log="Engine log" />
    </Shell>
  );
};

export const ProspectusPage: FC<{ data: ProspectusData }> = ({ data }) => {
  if (!data.agent) return <TokenPage data={data} />;
  const { token, mandate, enrollment } = data;
  const agent = data.agent;
  const charter = agent.charter;
  const title = token ? `${token.name} (${token.symbol})` : charter ? charter.persona.name : "Agent";
  const statusClass = agent.status === "running" ? "ok" : agent.status === "failed" ? "bad" : "warn";
  const hashMatches = enrollment && agent.charterHash && enrollment.charterHash.toLowerCase() === agent.charterHash.toLowerCase();
  const image = token?.image && /^https?:\/\//i.test(token.image) ? token.image : null;
  return (
    <Shell title={title} image={image}>
      <div class="muted">
        Agent <code>{agent.id}</code>
        <span class={`badge ${statusClass}`} data-field="status">
          {agent.status}
        </span>
      </div>
      {agent.statusReason ? (
        <p class="muted" data-field="status-reason">
          {agent.statusReason}
        </p>
      ) : null}
      {token?.description ? <p data-field="description">{token.description}</p> : null}
      <dl style="margin-top:12px">
        <dt>Token</dt>
        <dd>
          <code data-field="token">{token?.address ?? "not launched"}</code>
        </dd>
        <dt>Agent wallet</dt>
        <dd>
          <code data-field="wallet">{agent.wallet}</code>
        </dd>
        <dt>Creator</dt>
        <dd>
          <code data-field="owner">{agent.owner}</code>
        </dd>
      </dl>
      <AuditBadge data={data} />

      <h2>Persona</h2>
      {charter ? (
        <dl>
          <dt>Name</dt>
          <dd data-field="persona-name">{charter.persona.name}</dd>
          <dt>Voice</dt>
          <dd data-field="persona-voice">{charter.persona.voice || "—"}</dd>
          <dt>Engine</dt>
          <dd data-field="strategy">{charter.engine.strategy}</dd>
        </dl>
      ) : (
        <p class="muted">No charter yet.</p>
      )}

      <h2>Mandate</h2>
      {charter && mandate ? (
        <p data-field="mandate-text">
          {`Of every fee ${token?.symbol ?? "the token"} earns for the operator: ${showPct(PROTOCOL_REWARD_BPS)} buys back and burns the protocol token; ${showPct(Math.round(charter.mandate.split.assetPct * 100))} buys the secondary asset; ${showPct(Math.round(charter.mandate.split.perpPct * 100))} funds a ${charter.mandate.desk.market} perp desk run by the ${charter.engine.strategy} strategy, at most ${showLeverage(mandate.maxLeverage)} leverage, halted at a ${showPct(mandate.maxDrawdownBps)} drawdown, profit taken at ${showPct(mandate.takeProfitBps)}; the desk's profits buy back and burn ${token?.symbol ?? "the token"} once at least ${showUnits(mandate.buybackMinUsdc, USDC_UNIT)} is waiting. The creator's ${showPct(Math.round(charter.mandate.split.creatorPct * 100))} is paid by the fee locker directly.`}
        </p>
      ) : null}
      {charter && mandate ? (
        <dl data-section="mandate">
          <dt>Fee split</dt>
          <dd data-field="split">
            {`protocol ${showPct(PROTOCOL_REWARD_BPS)} · asset ${showPct(Math.round(charter.mandate.split.assetPct * 100))} · perp desk ${showPct(Math.round(charter.mandate.split.perpPct * 100))} · creator ${showPct(Math.round(charter.mandate.split.creatorPct * 100))}`}
          </dd>
          <dt>Desk market</dt>
          <dd data-field="market">{charter.mandate.desk.market}</dd>
          <dt>Max leverage</dt>
          <dd data-field="max-leverage">{showLeverage(mandate.maxLeverage)}</dd>
          <dt>Drawdown halt</dt>
          <dd data-field="max-drawdown">{showPct(mandate.maxDrawdownBps)}</dd>
          <dt>Take profit</dt>
          <dd data-field="take-profit">{showPct(mandate.takeProfitBps)}</dd>
          <dt>Buyback minimum</dt>
          <dd data-field="buyback-min">{`${showUsdc(mandate.buybackMinUsdc)} USDC`}</dd>
        </dl>
      ) : (
        <p class="muted">No mandate yet.</p>
      )}

      <h2>Rules</h2>
      <dl data-section="rules">
        <dt>Charter hash</dt>
        <dd>
          <code data-field="charter-hash">{agent.charterHash ?? "—"}</code>
        </dd>
        <dt>Onchain (registry)</dt>
        <dd>
          <code data-field="onchain-charter-hash">{enrollment?.charterHash ?? "not enrolled yet"}</code>
          {enrollment ? <span class={`badge ${hashMatches ? "ok" : "bad"}`}>{hashMatches ? "matches the charter" : "differs from the charter"}</span> : null}
        </dd>
        <dt>Locked split</dt>
        <dd data-field="locked-split">
          {enrollment
            ? `${enrollment.protocolBps} / ${enrollment.assetBps} / ${enrollment.perpBps} / ${enrollment.creatorBps} bps (protocol / asset / perp / creator)`
            : "locked at enrolment"}
        </dd>
        <dt>Registry state</dt>
        <dd data-field="registry-state">{enrollment ? `${enrollment.active ? "active" : "inactive"}${enrollment.halted ? ", halted" : ""}` : "—"}</dd>
        <dt>Immutability</dt>
        <dd>The charter cannot change once the launch has begun; its hash is stored in the registry.</dd>
      </dl>
      <Figures data={data} log="Agent log" />

      {charter ? (
        <div>
          <h2>Charter</h2>
          <p>{`The charter above, as the agent submitted it: its hash ${agent.charterHash ?? "—"} is what the registry stores.`}</p>
          <details data-section="charter-raw">
            <summary>Raw charter (JSON)</summary>
            <pre data-field="charter-json">{canonicalJson(charter)}</pre>
          </details>
        </div>
      ) : null}
    </Shell>
  );
};

/** The page as an HTML document. */
export async function renderProspectus(data: ProspectusData): Promise<string> {
  return `<!DOCTYPE html>${await (<ProspectusPage data={data} />).toString()}`;
}

export const NotFoundPage: FC<{ what: string }> = ({ what }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <title>Not found</title>
      <style>{STYLE}</style>
    </head>
    <body>
      <main>
        <h1>Not found</h1>
        <p class="muted">{`No agent or token ${what} is known here.`}</p>
      </main>
    </body>
  </html>
);

export async function renderNotFound(what: string): Promise<string> {
  return `<!DOCTYPE html>${await (<NotFoundPage what={what} />).toString()}`;
}
