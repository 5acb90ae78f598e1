/**
 * The whole creator path through the real service (ponder serving the API and indexing the
 * devnet), then the prospectus page in headless Chromium: sign in with a wallet, submit a
 * charter, fund and launch; trade, collect fees, buy back and burn on the devnet; the page
 * shows the mandate, the rules with the onchain charter hash, the ledger figures, the burn
 * chart and the agent log — and a token name holding `<script>` renders as text. A token no
 * agent launched (the devnet's USDC-paired demo token) has a page too: split, ledger, burns,
 * and a line saying it has no agent; an address the service does not know is a 404.
 */
import pg from "pg";
import { type Address, erc20Abi, parseAbi, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { showPct, showTokens, showUsdc } from "../../api/pages/prospectus.js";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { waitForIndexed } from "../../devnet/ponder.js";
import { charterHash, charterSchema } from "../../core/agents/charter.js";
import * as act from "../helpers/actions.js";
import { type TestBrowser, launchBrowser } from "../helpers/browser.js";
import { ANVIL_KEYS, createDatabase, devnetAs, startTestPonder, testEnv } from "../helpers/env.js";
import { AGENT_KEY_SECRET } from "./helpers.js";

const USDC = (n: bigint) => n * 1_000_000n;
// Markup in every creator-given field: the page must show it as text.
const NAME = "P<script>__pwned=1</script>";
const PERSONA = '<img src=x onerror="window.__pwned=2">';
const DESCRIPTION = "</p><script>window.__pwned=3</script><p>";

const CHARTER = charterSchema.parse({
  engine: { strategy: "hold" },
  persona: { name: PERSONA, voice: "terse <b>bold</b>" },
  mandate: { split: { assetPct: 25, perpPct: 60, creatorPct: 10 }, desk: { market: "BTC/USD", maxLeverage: 4, maxDrawdownPct: 15 }, buybackMinUsdc: "12.5" },
});

describe("prospectus page in a browser", () => {
  const env = testEnv();
  const c = env.deployments.contracts as Record<string, Address>;
  const creatorKey = ANVIL_KEYS[5];
  const creator = devnetAs(5);
  const trader = devnetAs(4);
  const operator = devnetAs(0);
  let ponder: Awaited<ReturnType<typeof startTestPonder>>;
  let databaseUrl: string;
  let db: pg.Pool;
  let browser: TestBrowser;
  const s = {} as { agentId: string; wallet: Address; token: Address; organicBurn: bigint; buybackBurn: bigint; demoBurn: bigint };

  async function call(method: string, path: string, p: { token?: string; body?: unknown } = {}) {
    const res = await fetch(`${ponder.url}${path}`, {
      method,
      headers: { ...(p.token ? { authorization: `Bearer ${p.token}` } : {}), ...(p.body !== undefined ? { "content-type": "application/json" } : {}) },
      body: p.body === undefined ? undefined : JSON.stringify(p.body),
    });
    const text = await res.text();
    return { status: res.status, text, json: text.startsWith("{") ? JSON.parse(text) : undefined };
  }

  async function waitForApi() {
    const deadline = Date.now() + 180_000;
    for (;;) {
      const res = await fetch(`${ponder.url}/api/v1/auth/nonce`).catch(() => undefined);
      if (res?.status === 200) return;
      if (Date.now() > deadline) throw new Error(`the API did not answer: ${ponder.logs.slice(-20).join("\n")}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  beforeAll(async () => {
    databaseUrl = await createDatabase("agents_page");
    db = new pg.Pool({ connectionString: databaseUrl });
    ponder = await startTestPonder(databaseUrl, { AGENT_KEY_SECRET });
    await waitForApi();

    // Sign in as the creator with a wallet signature over an EIP-4361 message.
    // The nonce answer names the origin (PUBLIC_URL, by default the listen address) the message must be for.
    const { nonce, domain, uri } = (await call("GET", "/api/v1/auth/nonce")).json;
    const message = createSiweMessage({ address: creator.account.address, chainId: 31337, domain, nonce, uri, version: "1", issuedAt: new Date() });
    const signature = await privateKeyToAccount(creatorKey).signMessage({ message });
    const verified = await call("POST", "/api/v1/auth/verify", { body: { message, signature } });
    expect(verified.status, verified.text).toBe(200);
    const token = verified.json.token as string;

    // Agent, charter, funding, launch.
    const agent = await call("POST", "/api/v1/agents", { token });
    expect(agent.status, agent.text).toBe(201);
    Object.assign(s, { agentId: agent.json.id, wallet: agent.json.wallet });
    expect((await call("POST", `/api/v1/agents/${s.agentId}/charter/submit`, { token, body: CHARTER })).status).toBe(200);
    const fund = await creator.walletClient.sendTransaction({
      to: s.wallet,
      value: parseEther("0.05"),
      account: creator.account,
      chain: creator.walletClient.chain,
    });
    await creator.publicClient.waitForTransactionReceipt({ hash: fund });
    const launched = await call("POST", `/api/v1/agents/${s.agentId}/charter/launch`, {
      token,
      body: { name: NAME, symbol: "PWN", image: "https://example.com/pwn.png", description: DESCRIPTION },
    });
    expect(launched.status, launched.text).toBe(201);
    s.token = launched.json.token;
    await act.passAuction(trader); // past the launch's sniper auction

    // Market activity: a buy and a sell (LP fees), fee collection (split per leg), an
    // operator buyback burned (as the creator-buyback worker does), and an organic burn.
    await act.swapInPool(trader, c, s.token, c.usdc!, USDC(5_000n));
    const held = await act.balanceOf(trader, s.token, trader.account.address);
    await act.swapInPool(trader, c, s.token, s.token, held / 4n);
    await act.collectRewards(trader, c, s.token);
    await act.claimFees(trader, c, operator.account.address, c.usdc!); // the legs count claimed fees
    await operator.write(c.usdc!, parseAbi(["function mint(address to, uint256 amount)"]), "mint", [operator.account.address, USDC(100n)]);
    await act.swapInPool(operator, c, s.token, c.usdc!, USDC(25n));
    s.buybackBurn = (await act.burnAll(operator, s.token)).amount;
    s.organicBurn = held / 10n;
    await trader.write(s.token, erc20Abi, "transfer", [DEAD_ADDRESS, s.organicBurn]);

    // A worker's decision for the token, as the desk manager logs it.
    await db.query("INSERT INTO engine.agent_log (token, worker, decision, reason, data) VALUES ($1, 'desk-manager', 'wait', $2, '{}')", [
      s.token,
      "perp USDC 3.2 below the 100 USDC notional minimum <i>yet</i>",
    ]);
    // The demo token (launched by a creator's wallet, no agent): a buy and an organic burn.
    await act.swapInPool(trader, c, c.usdcPairedToken!, c.usdc!, USDC(100n));
    s.demoBurn = (await act.balanceOf(trader, c.usdcPairedToken!, trader.account.address)) / 3n;
    await trader.write(c.usdcPairedToken!, erc20Abi, "transfer", [DEAD_ADDRESS, s.demoBurn]);
    await waitForIndexed(ponder, await operator.publicClient.getBlockNumber());

    browser = await launchBrowser({ localOnly: true });
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await ponder?.stop();
    await db?.end();
  });

  it("serves HTML with a no-script policy, by agent id and by token address; unknown → 404", async () => {
    const res = await fetch(`${ponder.url}/p/${s.agentId}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).not.toContain("<script>__pwned");
    expect(html).toContain("P&lt;script&gt;__pwned=1&lt;/script&gt;");
    expect((await fetch(`${ponder.url}/p/${s.token}`)).status).toBe(200);
    expect((await fetch(`${ponder.url}/p/${s.token.toLowerCase()}`)).status).toBe(200);
    expect((await fetch(`${ponder.url}/p/0x000000000000000000000000000000000000beef`)).status).toBe(404);
    expect((await fetch(`${ponder.url}/p/nothing`)).status).toBe(404);
  });

  it("shows mandate, rules, ledger, chart and log; injected markup stays text", async () => {
    const totals = (await db.query("SELECT * FROM app.token_totals WHERE token = $1", [s.token.toLowerCase()])).rows[0];
    expect(totals, "the indexer has the token's totals").toBeDefined();
    expect(BigInt(totals.protocol_leg_usdc)).toBeGreaterThan(0n);
    const enrolled = (await db.query("SELECT charter_hash FROM app.enrollment WHERE token = $1", [s.token.toLowerCase()])).rows[0];
    expect(enrolled.charter_hash).toBe(charterHash(CHARTER));

    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const response = await page.goto(`${ponder.url}/p/${s.agentId}`, { waitUntil: "load" });
    expect(response?.status()).toBe(200);
    const text = (selector: string) => page.locator(selector).first().innerText();

    // Injected markup is text, nothing ran.
    expect(await text('[data-field="title"]')).toBe(`${NAME} (PWN)`);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator("script").count()).toBe(0);
    expect(await page.locator("main img").count()).toBe(1); // the logo only, not the persona's
    expect(await text('[data-field="persona-name"]')).toBe(PERSONA);
    expect(await text('[data-field="description"]')).toBe(DESCRIPTION);
    expect(await page.title()).toBe(`${NAME} (PWN) — prospectus`);

    // Mandate and rules.
    const mandate = await text('[data-section="mandate"]');
    for (const part of ["asset 25%", "perp desk 60%", "creator 10%", "protocol 5%", "BTC/USD", "4x", "15%", "12.5 USDC"]) expect(mandate).toContain(part);
    expect(await text('[data-field="strategy"]')).toBe("hold");
    expect(await text('[data-field="status"]')).toBe("running");
    expect(await text('[data-field="charter-hash"]')).toBe(charterHash(CHARTER));
    expect(await text('[data-field="onchain-charter-hash"]')).toBe(charterHash(CHARTER));
    expect(await text('[data-section="rules"]')).toContain("matches the charter");
    expect(await text('[data-field="locked-split"]')).toContain("500 / 2500 / 6000 / 1000");

    // Ledger: fees in by leg, buybacks, burns, desk PnL — the indexed figures.
    for (const [leg, column] of [
      ["protocol", "protocol_leg_usdc"],
      ["asset", "asset_leg_usdc"],
      ["perp", "perp_leg_usdc"],
      ["creator", "creator_leg_usdc"],
    ] as const) {
      expect(await text(`[data-table="fees"] [data-leg="${leg}"] td.num`), leg).toBe(showUsdc(BigInt(totals[column])));
    }
    expect(await text('[data-figure="buybacks"] .v')).toBe("1");
    expect(await text('[data-figure="buyback-usdc"] .v')).toBe("25 USDC");
    expect(await text('[data-figure="bought"] .v')).toBe(`${showTokens(s.buybackBurn)} PWN`);
    expect(await text('[data-figure="burned"] .v')).toBe(`${showTokens(s.buybackBurn + s.organicBurn)} PWN`);
    expect(await text('[data-figure="desk-realised"] .v')).toBe("0 USDC");
    expect(await page.locator('[data-table="burns"] tr').count()).toBe(3); // header + two burns
    expect(await text('[data-table="burns"]')).toMatch(/creator-buyback[\s\S]*organic|organic[\s\S]*creator-buyback/);

    // The chart's axis fits its data: hours (all burns happened within the hour or two of the test), bars and points.
    expect(await page.locator('svg[data-chart="burns"]').getAttribute("data-bucket")).toBe("hour");
    expect(await page.locator('svg[data-chart="burns"] rect').count()).toBeGreaterThan(0);
    expect(await page.locator('svg[data-chart="burns"] circle[data-point]').count()).toBeGreaterThan(0);

    // Agent log: the launch steps and the worker's decision, newest first; its markup is text.
    const log = await text('[data-table="log"]');
    for (const decision of ["charter-locked", "platform-fee-paid", "token-deployed", "enrolled", "activated", "wait"]) expect(log).toContain(decision);
    expect(log).toContain("perp USDC 3.2 below the 100 USDC notional minimum <i>yet</i>");
    expect(await page.locator('[data-table="log"] tr').nth(1).getAttribute("data-decision")).toBe("wait");
    expect(errors).toEqual([]);

    // By token address: the same agent.
    await page.goto(`${ponder.url}/p/${s.token}`);
    expect(await text('[data-field="wallet"]')).toBe(s.wallet);

    // On a phone 390 px wide nothing is wider than the screen: the 66-character hashes wrap.
    await page.goto(`${ponder.url}/p/${s.agentId}`, { waitUntil: "load" });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.close();
  });

  it("a token no agent launched: its split, ledger and burns, and no agent; unknown addresses 404", async () => {
    const demo = c.usdcPairedToken!;
    const hex = demo.toLowerCase();
    const [row] = (await db.query("SELECT name, symbol FROM app.token WHERE address = $1", [hex])).rows;
    const [enrolled] = (await db.query("SELECT protocol_bps, asset_bps, perp_bps, creator_bps FROM app.enrollment WHERE token = $1", [hex])).rows;
    const [totals] = (await db.query("SELECT * FROM app.token_totals WHERE token = $1", [hex])).rows;
    expect(row, "the indexer has the demo token").toBeDefined();
    expect(enrolled, "the demo token is enrolled").toBeDefined();
    expect(BigInt(totals.burned)).toBeGreaterThanOrEqual(s.demoBurn);

    const res = await fetch(`${ponder.url}/p/${demo}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toMatch(/default-src 'none'/);
    expect((await fetch(`${ponder.url}/p/${hex}`)).status).toBe(200);

    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    expect((await page.goto(`${ponder.url}/p/${demo}`, { waitUntil: "load" }))?.status()).toBe(200);
    const text = (selector: string) => page.locator(selector).first().innerText();
    expect(await text('[data-field="title"]')).toBe(`${row.name} (${row.symbol})`);
    expect(await text('[data-field="agent"]')).toContain("No agent");
    expect(await text('[data-field="token"]')).toBe(demo);
    expect(await text('[data-field="locked-split"]')).toContain(
      `${enrolled.protocol_bps} / ${enrolled.asset_bps} / ${enrolled.perp_bps} / ${enrolled.creator_bps}`,
    );
    expect(await text('[data-field="split"]')).toContain(`protocol ${showPct(enrolled.protocol_bps)}`);
    for (const [leg, column] of [
      ["protocol", "protocol_leg_usdc"],
      ["asset", "asset_leg_usdc"],
      ["perp", "perp_leg_usdc"],
      ["creator", "creator_leg_usdc"],
    ] as const) {
      expect(await text(`[data-table="fees"] [data-leg="${leg}"] td.num`), leg).toBe(showUsdc(BigInt(totals[column])));
    }
    expect(await text('[data-figure="burned"] .v')).toBe(`${showTokens(BigInt(totals.burned))} ${row.symbol}`);
    expect(await text('[data-table="burns"]')).toContain("organic");
    expect(await text('[data-table="burns"]')).toContain(showTokens(s.demoBurn));
    expect(await page.locator('svg[data-chart="burns"] circle[data-point]').count()).toBeGreaterThan(0);
    // No agent's parts: no persona, mandate or charter.
    expect(await page.locator('[data-section="mandate"], [data-field="persona-name"], [data-field="charter-json"]').count()).toBe(0);
    expect(await page.locator("script").count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();

    // Addresses the service does not know: a contract that is no launched or enrolled token, and nothing at all.
    const unknown = await fetch(`${ponder.url}/p/${c.usdc}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain("No agent or token");
    expect((await fetch(`${ponder.url}/p/0x000000000000000000000000000000000000dEaD`)).status).toBe(404);
  });

  it("the agent record is public JSON", async () => {
    const res = await call("GET", `/api/v1/agents/${s.agentId}`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: s.agentId, status: "running", token: s.token, charterHash: charterHash(CHARTER) });
    expect(res.json.charter.persona.name).toBe(PERSONA);
  });
});
