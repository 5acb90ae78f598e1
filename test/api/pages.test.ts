/**
 * The pages for people in headless Chromium, after the engine's money path on a private devnet
 * (fees claimed and split, a desk opened and closed at a profit, a creator and a protocol
 * buyback burned, the public audit run), with ponder indexing and serving them: the token page
 * and the dashboard at `/` show every amount in whole units with its currency (no base-unit
 * string in any human text), supply and price figures, the audit badge with its block, the desk
 * statement equal to the ledger and the chain, and charts with points; a difference forced into
 * the books turns the badge. Screenshots (desktop and phone) are saved under test-artifacts/pages/.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type Address, erc20Abi, getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { parseDecimal } from "../../common/money.js";
import { USDC_UNIT, formatUnits, showUnits } from "../../common/units.js";
import { tradesWithStatus } from "../../engine/desks/trades.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { type TestBrowser, launchBrowser } from "../helpers/browser.js";
import { startTestPonder } from "../helpers/env.js";
import { selectionOf } from "../helpers/graphql-selection.js";
import { type Scenario, startScenario } from "../engine/scenario.js";

/** These desks trade on the Avantis v1 simulator (the harness's keeper, `d.execute`, fills Avantis orders); the devnet's default venue is gains-v10. */
const AVANTIS = { PERPS_VENUE: "avantis-v1" };

const USDC = 1_000_000n;
const TRADER = 5;
const CONFIRMATIONS = 3;
const ARTEFACTS = join(process.cwd(), "test-artifacts", "pages");
let sc: Scenario;
let ponder: Awaited<ReturnType<typeof startTestPonder>>;
let browser: TestBrowser;
let usdcToken: Address;

async function json(path: string): Promise<any> {
  const res = await fetch(`${ponder.url}${path}`);
  expect(res.status, path).toBe(200);
  return res.json();
}

/** Every text a person reads (not addresses and hashes in <code>, not the raw JSON folded in <details>). */
async function humanTexts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement?.closest("code, pre, details, style")) continue;
      const text = n.textContent?.trim();
      if (text) out.push(text);
    }
    return out;
  });
}

/** No run of 7+ digits outside a fraction (an amount in base units, or an ungrouped figure), and no "base units". */
async function expectNoBaseUnits(page: Page) {
  const texts = await humanTexts(page);
  expect(texts.length).toBeGreaterThan(20);
  const offending = texts.filter((t) => /(?<![\d.,])\d{7,}/.test(t) || /base units/i.test(t));
  expect(offending).toEqual([]);
}

/**
 * Times as a person reads them: no raw ISO text anywhere; in every table, each time is one
 * "YYYY-MM-DD HH:MM:SS UTC" string on one line (at the page's current width), its instant in `datetime`.
 */
async function expectReadableTimes(page: Page) {
  expect((await humanTexts(page)).filter((t) => /\d{4}-\d\d-\d\dT\d\d/.test(t))).toEqual([]);
  const times = await page.$$eval("table time", (els) =>
    els.map((el) => ({ text: (el as HTMLElement).innerText, datetime: el.getAttribute("datetime"), lines: el.getClientRects().length })),
  );
  expect(times.length).toBeGreaterThan(0);
  for (const t of times) {
    expect(t.text).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    expect(t.datetime).toBe(`${t.text.slice(0, 10)}T${t.text.slice(11, 19)}Z`);
    expect(t.lines, t.text).toBe(1);
  }
  // Every cell under a "Time" header holds one.
  const bare = await page.$$eval("table", (tables) =>
    tables.flatMap((table) => {
      const column = [...table.querySelectorAll("tr:first-child th")].findIndex((th) => th.textContent === "Time");
      if (column < 0) return [];
      return [...table.querySelectorAll("tr")].slice(1).flatMap((tr) => {
        const cell = tr.children[column];
        return cell && !cell.querySelector("time") ? [cell.textContent ?? ""] : [];
      });
    }),
  );
  expect(bare).toEqual([]);
}

/** Opens a page; on any other status than 200, fails with the server's log. */
async function open(page: Page, path: string) {
  const res = await page.goto(`${ponder.url}${path}`, { waitUntil: "load" });
  expect(res?.status(), `${path}\n${ponder.logs.slice(-40).join("\n")}`).toBe(200);
  return res!;
}

async function shoot(page: Page, name: string) {
  mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  sc = await startScenario({ env: AVANTIS });
  usdcToken = sc.usdcToken;
  const { d, run } = sc;
  await d.buy(TRADER, usdcToken, 6_000n * USDC);
  await d.sell(TRADER, usdcToken, (await d.balance(usdcToken, d.as(TRADER).account.address)) / 3n);
  await d.buy(TRADER, sc.wethToken, 4_000n * USDC);
  await d.buy(TRADER, d.protocolToken, 500n * USDC);
  const held = await d.balance(usdcToken, d.as(TRADER).account.address);
  await d.as(TRADER).write(usdcToken, erc20Abi, "transfer", [DEAD_ADDRESS, held / 10n]);
  for (let i = 0; i < 6; i++) await run("price-sampler");
  await run("fee-claimer");
  await run("desk-manager");
  await d.execute((await tradesWithStatus(sc.engine.ctx.db, ["opening"])).map((t) => t.orderId!).filter(Boolean));
  await run("profit-checker");
  await d.setPrice("ETH_USD", ((await d.price("ETH_USD")) * 105n) / 100n);
  await run("profit-checker");
  await d.execute((await tradesWithStatus(sc.engine.ctx.db, ["closing"])).map((t) => t.closeOrderId!).filter(Boolean));
  await run("profit-checker");
  await run("creator-buyback");
  await run("buyback-engine");
  await run("auditor");
  // An entry written as the engine once wrote them, amounts in base units in its reason: the page speaks from its data.
  await sc.engine.ctx.pool.query(
    "INSERT INTO engine.agent_log (token, worker, decision, reason, data) VALUES ($1, 'buyback-engine', 'protocol-buyback', $2, $3)",
    [
      usdcToken,
      "bought 5696326210919413364684110 with 663743 USDC base units and burned 5696326210919413364684110 to 0x…dEaD",
      JSON.stringify({ currencyIn: "USDC", amountIn: "663743", bought: "5696326210919413364684110", burned: "5696326210919413364684110" }),
    ],
  );
  // The API counts the last 3 blocks as not final yet: totals come as a final and a pending part.
  ponder = await startTestPonder(d.databaseUrl, { ...d.env(AVANTIS), CONFIRMATIONS: String(CONFIRMATIONS) });
  const head = await d.as(1).publicClient.getBlockNumber({ cacheTime: 0 });
  await waitForIndexed(ponder, head, 180_000);
  browser = await launchBrowser({ localOnly: true });
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await ponder?.stop();
  await sc?.stop();
});

describe("the token page", () => {
  it("shows supply, price, the audit badge with its block, the desk statement and a chart with points, every amount in whole units", async () => {
    const market = await json(`/api/v1/tokens/${usdcToken}/market`);
    const audit = await json(`/api/v1/tokens/${usdcToken}/audit`);
    const statement = await json(`/api/v1/tokens/${usdcToken}/desk-statement`);
    expect(audit.status).toBe("clean");

    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await open(page, `/p/${usdcToken}`);
    const text = (selector: string) => page.locator(selector).first().innerText();

    expect(await text('[data-figure="supply"] .v')).toMatch(/^100,000,000,000 \S+$/);
    const symbol = (await text('[data-figure="supply"] .v')).split(" ")[1]!;
    expect(await text('[data-figure="circulating"] .v')).toBe(`${showUnits(BigInt(market.circulatingRaw), { symbol, decimals: 18 })}`);
    const burnedText = await text('[data-figure="supply-burned"] .v');
    expect(burnedText.startsWith(`${showUnits(BigInt(market.burnedRaw), { symbol, decimals: 18 })} (`)).toBe(true);
    expect(burnedText).toMatch(/\(\d+\.?\d*% of supply\)$/);
    expect(await text('[data-figure="price"] .v')).toMatch(/^0\.\d+ USDC per /);
    expect(await text('[data-figure="market-cap"] .v')).toBe(`${showUnits(BigInt(market.marketCapUsdcRaw), USDC_UNIT)}`);
    expect(await text('[data-field="price-source"]')).toMatch(/Uniswap v4 pool after its last indexed swap/);

    const badge = page.locator('[data-field="audit-badge"]');
    expect(await badge.getAttribute("data-status")).toBe("clean");
    expect(await badge.getAttribute("data-block")).toBe(String(audit.block));
    expect(await badge.innerText()).toContain(`at block ${Number(audit.block).toLocaleString("en-US")}`);

    // The desk statement: the ledger's and the index's figures, as the API serves them.
    expect(BigInt(statement.pnl.realised.amountRaw)).toBe(
      (await tradesWithStatus(sc.engine.ctx.db, ["closed"])).filter((t) => t.token === usdcToken).reduce((s, t) => s + t.realisedPnl, 0n),
    );
    const { rows } = await sc.engine.ctx.pool.query(
      "SELECT tokens_burned::text FROM engine.buybacks WHERE kind = 'creator' AND token = $1 AND status = 'done'",
      [usdcToken],
    );
    expect(statement.profit.tokensBurned.amountRaw).toBe(rows.reduce((s: bigint, r: any) => s + BigInt(r.tokens_burned), 0n).toString());
    expect(BigInt(statement.profit.toCreatorBuybacks.amountRaw)).toBeGreaterThan(0n);
    expect(BigInt(statement.collateral.fromFees.amountRaw)).toBeGreaterThan(0n);
    expect(await text('[data-table="desk-statement"] [data-row="collateral-in"] td.num')).toBe(
      showUnits(BigInt(statement.collateral.fromFees.amountRaw), USDC_UNIT),
    );
    expect(await text('[data-table="desk-statement"] [data-row="realised"] td.num')).toBe(showUnits(BigInt(statement.pnl.realised.amountRaw), USDC_UNIT));
    expect(await text('[data-table="desk-statement"] [data-row="burned"] td.num')).toBe(
      showUnits(BigInt(statement.profit.tokensBurned.amountRaw), { symbol, decimals: 18 }),
    );
    expect(await text('[data-field="desk-statement"]')).toBe(statement.statement);
    // The venue the desks trade on, and each desk's leverage as people read it, prices and PnL in USDC, to the base unit.
    expect(statement).toMatchObject({ venue: "avantis-v1", protocol: "Avantis v1" });
    expect(await text('[data-table="desk-statement"] [data-row="venue"] td.num')).toBe("Avantis v1 (avantis-v1)");
    expect(await text('[data-field="desk-venue"]')).toMatch(/^Trades on Avantis v1 \(avantis-v1\)\./);
    const desks = (await json(`/api/v1/desks?token=${usdcToken}&limit=100`)).items as {
      id: string;
      leverage: string;
      liquidationPrice: string | null;
      realisedPnl: string;
      unrealisedPnl: string | null;
      venue: string;
    }[];
    expect(desks.length).toBeGreaterThan(0);
    const usdcOf = (v: string) => (v.startsWith("-") ? -parseDecimal(v.slice(1), 6) : parseDecimal(v, 6));
    for (const d of desks) {
      expect(d.venue).toBe("avantis-v1");
      const row = page.locator(`[data-table="desk"] [data-desk="${d.id}"]`);
      expect(await row.locator('[data-field="leverage"]').innerText()).toBe(`${formatUnits(parseDecimal(d.leverage, 10), 10)}x`);
      expect(await row.locator('[data-field="leverage"]').innerText()).toMatch(/^\d+(\.\d+)?x$/);
      expect(await row.locator('[data-field="liquidation-price"]').innerText()).toBe(
        d.liquidationPrice === null ? "—" : formatUnits(parseDecimal(d.liquidationPrice, 10), 10),
      );
      expect(await row.locator('[data-field="realised-pnl"]').innerText()).toBe(formatUnits(usdcOf(d.realisedPnl), 6));
      expect(await row.locator('[data-field="unrealised-pnl"]').innerText()).toBe(d.unrealisedPnl === null ? "—" : formatUnits(usdcOf(d.unrealisedPnl), 6));
    }

    // The chart: bars and a running total with points, on an axis of hours (all burns are today's).
    const chart = page.locator('svg[data-chart="burns"]');
    expect(await chart.getAttribute("data-bucket")).toBe("hour");
    expect(await chart.locator("circle[data-point]").count()).toBeGreaterThan(0);
    expect(await chart.locator("rect").count()).toBeGreaterThan(0);

    // The old entry with base units in its reason reads in whole units.
    expect(await text('[data-table="log"]')).toContain("swapped 0.663743 USDC for 5,696,326.21");
    await expectNoBaseUnits(page);
    expect(errors).toEqual([]);
    await expectReadableTimes(page);
    await shoot(page, "token-desktop");
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(376);
    await expectReadableTimes(page);
    await shoot(page, "token-phone");
    await page.close();
  });

  it("a difference forced into the books turns the badge", async () => {
    await sc.engine.ctx.pool.query(
      "INSERT INTO engine.ledger (key, kind, leg, token, currency, amount) VALUES ('injected:pages', 'allocation', 'perp', $1, 'USDC', 1234567)",
      [usdcToken],
    );
    try {
      await sc.run("auditor");
      const page = await browser.context.newPage();
      await open(page, `/p/${usdcToken}`);
      const badge = page.locator('[data-field="audit-badge"]');
      expect(await badge.getAttribute("data-status")).toBe("differences");
      expect(await badge.innerText()).toMatch(/^2 differences at block [\d,]+$/);
      expect(await badge.getAttribute("class")).toContain("bad");
      await page.goto(`${ponder.url}/`, { waitUntil: "load" });
      expect(await page.locator(`[data-table="tokens"] tr[data-token="${usdcToken}"] [data-field="audit-badge"]`).getAttribute("data-status")).toBe(
        "differences",
      );
      await page.close();
    } finally {
      await sc.engine.ctx.pool.query("DELETE FROM engine.ledger WHERE key = 'injected:pages'");
      await sc.run("auditor");
    }
  });
});

describe("the dashboard", () => {
  it("shows burns over time, fees by leg, open desks, the latest activity and every token's books, readable on a phone", async () => {
    const stats = await json("/api/v1/stats");
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const res = await open(page, "/");
    expect(res.headers()["content-security-policy"]).toMatch(/default-src 'none'/);
    expect(await page.locator("script").count()).toBe(0);
    const text = (selector: string) => page.locator(selector).first().innerText();

    // The burn chart is one token's, the protocol token's: its caption's total is that token's burned total, in its unit.
    expect(await page.locator('svg[data-chart="burns"] circle[data-point]').count()).toBeGreaterThan(0);
    const protocolRow = page.locator(`[data-table="tokens"] tr[data-token="${getAddress(sc.d.protocolToken)}"]`);
    const protocolSymbol = await protocolRow.locator("a").first().innerText();
    expect(await text('[data-field="burns-chart-token"]')).toContain(protocolSymbol);
    const protocolBurned = await protocolRow.locator("td.num").nth(1).innerText();
    expect(protocolBurned).toMatch(new RegExp(` ${protocolSymbol}$`));
    expect(await text("figure.chart figcaption")).toContain(`${protocolBurned} in all`);
    for (const [leg, key] of [
      ["protocol", "protocolUsdc"],
      ["asset", "assetUsdc"],
      ["perp", "perpUsdc"],
      ["creator", "creatorUsdc"],
    ] as const) {
      expect(await text(`[data-table="fee-legs"] [data-leg="${leg}"] td.num`), leg).toBe(formatUnits(parseDecimal(stats.fees.legs[key], 6), 6));
    }
    // Every token with its books' status from the public audit.
    const tokens = page.locator('[data-table="tokens"] tr[data-token]');
    expect(await tokens.count()).toBeGreaterThanOrEqual(3);
    const status = await page.locator(`[data-table="tokens"] tr[data-token="${usdcToken}"] [data-field="audit-badge"]`).getAttribute("data-status");
    expect(status).toBe("clean");
    expect(await page.locator('[data-table="tokens"] [data-field="audit-badge"]').count()).toBe(await tokens.count());
    // The list's audits, read in one batch, are each token's own audit (GET /tokens/{token}/audit).
    for (const token of await tokens.evaluateAll((rows) => rows.map((r) => r.getAttribute("data-token")!))) {
      const own = await json(`/api/v1/tokens/${token}/audit`);
      const badge = page.locator(`[data-table="tokens"] tr[data-token="${token}"] [data-field="audit-badge"]`);
      expect(await badge.getAttribute("data-status"), token).toBe(own.status);
    }
    // The largest open desks as /stats lists them; the latest activity in sentences.
    expect(await page.locator('[data-table="open-desks"] tr').count()).toBe(stats.desks.largest.length === 0 ? 0 : stats.desks.largest.length + 1);
    // Leverage as a person reads it: at most two decimals.
    for (const cell of await page.locator('[data-table="open-desks"] tr td.num:nth-child(4)').allInnerTexts()) expect(cell).toMatch(/^[\d,]+(\.\d{1,2})?x$/);
    const activity = await text('[data-table="activity"]');
    expect(activity).toMatch(/burned|buyback|fees/);
    await expectNoBaseUnits(page);
    expect(errors).toEqual([]);
    await expectReadableTimes(page);
    await shoot(page, "dashboard-desktop");
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(376);
    await expectReadableTimes(page);
    await shoot(page, "dashboard-phone");
    await page.close();
  });
});

describe("final and pending totals", () => {
  it("serve every total of /stats and of each token as final + pending, the pending part being the blocks above the head less CONFIRMATIONS", async () => {
    const stats = await json("/api/v1/stats");
    const f = stats.finality;
    expect(f.confirmations).toBe(CONFIRMATIONS);
    expect(f.finalBlock).toBe(f.indexedBlock - CONFIRMATIONS);
    const dec = (v: string, decimals: number) => parseDecimal(v.replace(/^-/, ""), decimals) * (v.startsWith("-") ? -1n : 1n);
    // final + pending = the total, for every figure.
    expect(dec(f.final.fees.toOperatorUsdc, 6) + dec(f.pending.fees.toOperatorUsdc, 6)).toBe(dec(stats.fees.toOperatorUsdc, 6));
    for (const leg of ["protocolUsdc", "assetUsdc", "perpUsdc", "creatorUsdc", "operatorUsdc"]) {
      expect(dec(f.final.fees.legs[leg], 6) + dec(f.pending.fees.legs[leg], 6), leg).toBe(dec(stats.fees.legs[leg], 6));
    }
    expect(f.final.buybacks.protocol.count + f.pending.buybacks.protocol.count).toBe(stats.buybacks.protocol.count);
    expect(dec(f.final.desks.realisedPnlUsdc, 6) + dec(f.pending.desks.realisedPnlUsdc, 6)).toBe(dec(stats.desks.realisedPnlUsdc, 6));
    expect(f.final.tokens.launched + f.pending.tokens.launched).toBe(stats.tokens.launched);

    // A token's burned total: its pending part is exactly its indexed burns above the final block.
    const page = await json("/api/v1/tokens?limit=100");
    const item = page.items.find((t: any) => t.address === usdcToken);
    const tf = item.totals.finality;
    expect(tf.finalBlock).toBe(f.finalBlock);
    const burns = (await json(`/api/v1/burns/${usdcToken}?limit=200`)).items;
    const recent = burns.filter((b: any) => b.blockNumber > tf.finalBlock).reduce((s: bigint, b: any) => s + BigInt(b.amountRaw), 0n);
    expect(dec(tf.pending.burned, 18)).toBe(recent);
    expect(dec(tf.final.burned, 18) + dec(tf.pending.burned, 18)).toBe(dec(item.totals.burned, 18));
    expect(tf.final.burns + tf.pending.burns).toBe(burns.length);

    // GraphQL answers the same documents.
    const res = await fetch(`${ponder.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        query: `{ stats { finality finalityReport ${selectionOf("ProtocolFinality")} } token(address: "${usdcToken}") { totals { finality finalityReport ${selectionOf("TokenFinality")} } } }`,
      }),
    });
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.stats.finality).toEqual(f);
    expect(body.data.token.totals.finality).toEqual(tf);
    // The typed forms: the same answers, field for field.
    expect(body.data.stats.finalityReport).toEqual(f);
    expect(body.data.token.totals.finalityReport).toEqual(tf);
  });
});
