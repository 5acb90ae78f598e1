/**
 * The REST shim on real PostgreSQL and the devnet: every route's answer (exact shape and the
 * response schema), every class of invalid input (the right 4xx and `{ error }`), the operator
 * key, rate limits, and the launch and register routes end to end.
 */
import { getAddress, parseAbi, zeroAddress } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { registryAbi } from "../../../common/abis/registry.js";
import { TOKEN_DECIMALS, formatDecimal, parseDecimal } from "../../../common/money.js";
import { LARGEST_OPEN_DESKS, deskContextOf, deskLiquidationPrice, openDeskSummary, unrealisedPnl } from "../../../api/read/desks.js";
import type { ReadDb } from "../../../api/deps.js";
import { PERPS_PRECISION } from "../../../common/abis/perps.js";
import { gainsLiquidationPrice, liquidationPrice, notionalOf } from "../../../common/perps-math.js";
import { PERPS_VENUES, PERPS_VENUE_IDS } from "../../../common/perps-venues.js";
import { deskTrade } from "../../../schema/ponder.js";
import { ERROR_STATUS } from "../../../api/http/errors.js";
import * as schemas from "../../../api/rest/schemas.js";
import { healthResponse } from "../../../api/views/health.js";
import { deskStatementResponse } from "../../../api/views/trust.js";
import { selectionOf } from "../../helpers/graphql-selection.js";
import { SERVICE_ERROR_CODES, type ServiceErrorCode } from "../../../core/errors.js";
import * as act from "../../helpers/actions.js";
import { type Answer, type Harness, OPERATOR_API_KEY, actors } from "../harness.js";
import { type Scenario, shapeOf } from "../scenario.js";
import { seededWorld } from "./world.js";

const formatTokens = (units: bigint) => formatDecimal(units, TOKEN_DECIMALS);
/** A signed USDC decimal in base units. */
const parseUsdc = (v: string) => (v.startsWith("-") ? -parseDecimal(v.slice(1), 6) : parseDecimal(v, 6));

let h: Harness;
let s: Scenario;
const { operator, trader } = actors();

/** Registers the suite; its hooks and tests run inside the describe that calls it (test/api/seeded.test.ts). */
export function restSuite(): void {
  beforeAll(async () => {
    ({ h, s } = seededWorld());
  }, 300_000);

  const get = (path: string) => h.call("GET", `/api/v1${path}`);
  /** The venue the API names on desks: its PERPS_VENUE, and that venue's protocol and version. */
  const venueOf = () => {
    const v = PERPS_VENUES[h.deps.config.perpsVenue];
    return { venue: h.deps.config.perpsVenue, protocol: `${v.protocol} ${v.version}` };
  };
  const post = (path: string, json: unknown, key: string | null = OPERATOR_API_KEY) => h.call("POST", `/api/v1${path}`, { json, key: key ?? undefined });

  /** An error answer: `{ error, code }` with the status of its code; `code` defaults to the status's only code. */
  function expectError(a: Answer, status: number, message?: string | RegExp, code?: ServiceErrorCode) {
    expect(a.status, a.text).toBe(status);
    expect(a.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Object.keys(a.json)).toEqual(["error", "code"]);
    expect(typeof a.json.error).toBe("string");
    if (message !== undefined) expect(a.json.error).toMatch(message);
    const only = SERVICE_ERROR_CODES.filter((c) => ERROR_STATUS[c] === status);
    expect(a.json.code, a.text).toBe(code ?? (only.length === 1 ? only[0] : "a code given for this status"));
  }

  describe("REST answers", () => {
    it("GET /health", async () => {
      const a = await get("/health");
      expect(a.status).toBe(200);
      healthResponse.parse(a.json);
      expect(shapeOf(a.json)).toMatchSnapshot();
      expect(a.json).toMatchObject({ status: "ok", protocolToken: getAddress(h.protocolToken), indexer: { ready: true } });
      // The devnet runs the default venue, gTrade v10 on its twin of the diamond: desks trade.
      expect(a.json.desks).toEqual({ enabled: true, venue: "gains-v10", protocol: "Gains Network gTrade v10", chainId: 31337, reason: null });
      // Over HTTP, from ponder's own server: the same answer.
      const http = await h.fetch("GET", "/api/v1/health");
      expect(http.status).toBe(200);
      expect(healthResponse.parse(http.json).protocolToken).toBe(getAddress(h.protocolToken));
    });

    it("GET /health with the engine's workers: ok while they succeed, degraded with the reason when one fails", async () => {
      const engine = h.deps.agents!.services.pool;
      await h.deps.agents!.services.ready();
      const heartbeat = JSON.stringify({ heartbeatAt: new Date().toISOString(), startedAt: new Date().toISOString(), pid: 1, workerIntervalScale: 1 });
      await engine.query("INSERT INTO engine.state (key, value) VALUES ('engine', $1::jsonb) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", [
        heartbeat,
      ]);
      await engine.query(
        `INSERT INTO engine.worker_state (name, min_interval_seconds, max_interval_seconds, last_run_at, last_success_at, runs, failures, next_run_at)
       VALUES ('fee-claimer', 180, 300, now(), now(), 3, 0, now() + interval '200 seconds')`,
      );
      try {
        const ok = await get("/health");
        healthResponse.parse(ok.json);
        expect(shapeOf(ok.json.workers)).toMatchSnapshot();
        expect(ok.json).toMatchObject({
          status: "ok",
          reasons: [],
          workers: [{ name: "fee-claimer", minIntervalSeconds: 180, maxIntervalSeconds: 300, runs: 3, failures: 0, lastError: null }],
        });
        await engine.query(
          "UPDATE engine.worker_state SET last_error = 'rpc-unavailable: fetch failed', last_error_at = now() + interval '1 second', failures = 1",
        );
        const degraded = await get("/health");
        expect(degraded.json).toMatchObject({
          status: "degraded",
          reasons: ["fee-claimer: rpc-unavailable: fetch failed"],
          workers: [{ lastError: "rpc-unavailable: fetch failed", failures: 1 }],
        });
      } finally {
        await engine.query("DELETE FROM engine.worker_state; DELETE FROM engine.state WHERE key = 'engine'");
      }
    });

    it("GET /stats reads aggregates only: its cost does not grow with history", async () => {
      const queries: string[] = [];
      const pg = await import("pg");
      const { drizzle } = await import("drizzle-orm/node-postgres");
      const pool = new pg.default.Pool({ connectionString: h.databaseUrl, max: 2, options: "-c search_path=app" });
      try {
        const db = drizzle(pool, { casing: "snake_case", logger: { logQuery: (q) => queries.push(q) } });
        const res = await h.appWith({ db: db as never }).request("http://api.test/api/v1/stats");
        expect(res.status).toBe(200);
        const tables = new Set(queries.flatMap((q) => [...q.matchAll(/from "(\w+)"/gi)].map((m) => m[1])));
        // One-row aggregates (protocol totals; one row per fee currency and per buyback kind and currency), the enrolments, open desks.
        expect([...tables].sort()).toEqual(["buyback_spend", "desk_trade", "enrollment", "fee_currency_totals", "protocol_totals"]);
        // The desk queries read open desks only (an index on status), never the closed history.
        const deskQueries = queries.filter((q) => /from "desk_trade"/i.test(q));
        expect(deskQueries.length).toBeGreaterThan(0);
        for (const q of deskQueries) expect(q).toMatch(/"status" = \$1/);
        // Fixed size: the desks are aggregated in SQL and at most a few rows come back.
        expect(deskQueries.some((q) => /limit \$\d+/i.test(q))).toBe(true);
      } finally {
        await pool.end();
      }
    });

    it("GET /stats marks desks to the price-sampler's latest price", async () => {
      const engine = h.deps.agents!.services.pool;
      await engine.query("INSERT INTO engine.price_samples (feed, price, decimals, round_id, updated_at) VALUES ('ETH_USD', 330000000000, 8, '1', 0)");
      try {
        // /stats shows the largest open desks; /desks every desk, marked alike.
        const stats = (await get("/stats")).json;
        const [mine] = (await get(`/desks?token=${s.token}&status=open`)).json.items;
        expect(stats.desks.largest.find((d: { token: string }) => d.token === s.token)).toEqual(mine);
        const collateral = Number(mine.collateral);
        expect(mine.markPrice).toBe("3300");
        // +10% on a 5x long: +50% of the collateral, less the exchange's rounding.
        expect(Number(mine.unrealisedPnl)).toBeCloseTo(collateral * 0.5, 5);
        // The summary's PnL, computed in SQL, is the exact sum of every open desk's, computed in TypeScript.
        const open = (await get("/desks?status=open&limit=200")).json.items as { unrealisedPnl: string | null }[];
        expect(open.every((d) => d.unrealisedPnl !== null)).toBe(true);
        expect(stats.desks.unpriced).toBe(0);
        expect(parseUsdc(stats.desks.openUnrealisedPnlUsdc)).toBe(open.reduce((a, d) => a + parseUsdc(d.unrealisedPnl!), 0n));
      } finally {
        await engine.query("DELETE FROM engine.price_samples WHERE feed = 'ETH_USD'");
      }
    });

    it("the desk summary's sums, computed in SQL, equal the TypeScript formulas integer for integer", async () => {
      const pg = await import("pg");
      const { drizzle } = await import("drizzle-orm/node-postgres");
      const client = new pg.default.Client({ connectionString: h.databaseUrl, options: "-c search_path=app" });
      await client.connect();
      // Deterministic pseudo-random values (a 64-bit LCG), in a transaction rolled back after.
      let seed = 42n;
      const next = (below: bigint) => {
        seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
        return (seed >> 16n) % below;
      };
      try {
        await client.query("BEGIN");
        // A temporary desk_trade of the same columns shadows the indexed one for this connection only.
        await client.query("CREATE TEMP TABLE desk_trade (LIKE app.desk_trade INCLUDING ALL) ON COMMIT DROP");
        const writable = drizzle(client, { casing: "snake_case" });
        const db = writable as unknown as ReadDb;
        const rows = Array.from({ length: 300 }, (_, i) => ({
          id: `t-${i}`,
          openOrderId: BigInt(1_000_000 + i),
          pairIndex: next(3n),
          tradeIndex: BigInt(i),
          buy: next(2n) === 0n,
          collateral: 1n + next(10n ** 12n),
          leverage: PERPS_PRECISION + next(100n * PERPS_PRECISION),
          openPrice: i % 50 === 0 ? 0n : 1n + next(10n ** 14n),
          status: "open",
          realisedPnl: 0n,
          usdcReturned: 0n,
          openedAt: BigInt(i),
          closedAt: null,
          openTx: `0x${i.toString(16).padStart(64, "0")}` as `0x${string}`,
        }));
        await writable.insert(deskTrade).values(rows);
        // Pair 2 has no mark; pair 0's is far from most entries (losses floored at the collateral).
        const marks = new Map<number, bigint>([
          [0, 1n + next(10n ** 12n)],
          [1, 1n + next(10n ** 14n)],
        ]);
        // Each venue's close value: the SQL sum equals the TypeScript one integer for integer (the two round apart).
        for (const venue of PERPS_VENUE_IDS) {
          const sum = await openDeskSummary(db, deskContextOf([], marks, [], venue));
          const expected = rows
            .filter((r) => marks.has(Number(r.pairIndex)))
            .reduce((a, r) => a + unrealisedPnl(r, marks.get(Number(r.pairIndex))!, venue), 0n);
          expect(sum.openUnrealisedPnl, venue).toBe(expected);
          expect(sum.venue.id).toBe(venue);
          expect(sum.largest.every((d) => d.venue === venue && d.liquidationPrice === deskLiquidationPrice(rows.find((r) => r.id === d.id)!, venue))).toBe(
            true,
          );
        }
        // With the engine's venue marks on two rows in three (charges of either sign, up to 5,000 USDC, and the
        // venue's liquidation price): gTrade's close value less each trade's charges, in SQL as in TypeScript.
        const bindings = rows
          .filter((_, i) => i % 3 !== 0)
          .map((r) => ({
            token: getAddress(`0x${"ab".repeat(20)}`),
            openOrderId: r.openOrderId,
            pairIndex: Number(r.pairIndex),
            halted: false,
            haltReason: null,
            venueMark: { price: 1n, charges: next(10_000_000_000n) - 5_000_000_000n, liquidationPrice: 1n + next(10n ** 14n), at: new Date(0) },
          }));
        const charged = new Map(bindings.map((b) => [b.openOrderId, b.venueMark]));
        const withMarks = await openDeskSummary(db, deskContextOf(bindings, marks, [], "gains-v10"));
        const chargedExpected = rows
          .filter((r) => marks.has(Number(r.pairIndex)))
          .reduce((a, r) => a + unrealisedPnl(r, marks.get(Number(r.pairIndex))!, "gains-v10", charged.get(r.openOrderId)?.charges ?? 0n), 0n);
        expect(withMarks.openUnrealisedPnl).toBe(chargedExpected);
        expect(chargedExpected).not.toBe(
          rows.filter((r) => marks.has(Number(r.pairIndex))).reduce((a, r) => a + unrealisedPnl(r, marks.get(Number(r.pairIndex))!, "gains-v10"), 0n),
        );
        for (const d of withMarks.largest) {
          const mark = charged.get(rows.find((r) => r.id === d.id)!.openOrderId);
          if (mark) expect(d.liquidationPrice).toBe(mark.liquidationPrice);
        }
        const ctx = deskContextOf([], marks, []);
        const summary = await openDeskSummary(db, ctx);
        const priced = rows.filter((r) => marks.has(Number(r.pairIndex)));
        expect(priced.some((r) => unrealisedPnl(r, marks.get(Number(r.pairIndex))!) === -r.collateral)).toBe(true);
        expect(summary.openCollateral).toBe(rows.reduce((a, r) => a + r.collateral, 0n));
        expect(summary.openNotional).toBe(rows.reduce((a, r) => a + notionalOf(r.collateral, r.leverage), 0n));
        expect(summary.openUnrealisedPnl).toBe(priced.reduce((a, r) => a + unrealisedPnl(r, marks.get(Number(r.pairIndex))!), 0n));
        expect(summary.unpriced).toBe(rows.length - priced.length);
        const bySize = [...rows].sort((a, b) => Number(notionalOf(b.collateral, b.leverage) - notionalOf(a.collateral, a.leverage)) || (a.id < b.id ? 1 : -1));
        expect(summary.largest.map((d) => d.id)).toEqual(bySize.slice(0, LARGEST_OPEN_DESKS).map((r) => r.id));
      } finally {
        await client.query("ROLLBACK");
        await client.end();
      }
    });

    it("GET /stats", async () => {
      const a = await get("/stats");
      expect(a.status).toBe(200);
      schemas.statsResponse.parse(a.json);
      const mine = a.json.desks.largest.find((d: { token: string }) => d.token === s.token);
      expect(shapeOf({ ...a.json, desks: { ...a.json.desks, largest: [mine] } })).toMatchSnapshot();
      // The desk summary: aggregates of the open desks as /desks lists them, and the largest few.
      const open = (await get("/desks?status=open&limit=200")).json.items as { id: string; collateral: string; notional: string; halted: boolean }[];
      expect(a.json.desks.open).toBe(open.length);
      expect(parseUsdc(a.json.desks.openCollateralUsdc)).toBe(open.reduce((x, d) => x + parseUsdc(d.collateral), 0n));
      expect(parseUsdc(a.json.desks.openNotionalUsdc)).toBe(open.reduce((x, d) => x + parseUsdc(d.notional), 0n));
      expect(a.json.desks.halted).toBe(open.filter((d) => d.halted).length);
      const bySize = [...open].sort((x, y) => Number(parseUsdc(y.notional) - parseUsdc(x.notional)) || (x.id < y.id ? 1 : -1));
      expect(a.json.desks.largest.map((d: { id: string }) => d.id)).toEqual(bySize.slice(0, LARGEST_OPEN_DESKS).map((d) => d.id));
      expect(a.json.tokens.launched).toBeGreaterThanOrEqual(4);
      expect(a.json.buybacks.protocol.count).toBeGreaterThanOrEqual(1);
      // The legs: one shape in REST and GraphQL (Stats.legs, the type TokenTotals.legs has too), the same figures.
      const legs = ["protocolUsdc", "assetUsdc", "perpUsdc", "creatorUsdc", "operatorUsdc"].flatMap((leg) => [leg, `${leg}Raw`]);
      const gql = await h.gql(`{ stats { legs { ${legs.join(" ")} } } }`);
      expect(gql.json.errors, gql.text).toBeUndefined();
      expect(Object.keys(a.json.fees.legs)).toEqual(legs);
      expect(gql.json.data.stats.legs).toEqual(a.json.fees.legs);
      expect(parseUsdc(a.json.fees.legs.protocolUsdc)).toBeGreaterThan(0n);
      // The aggregate row, as the indexer keeps it.
      const [totals] = await h.query<{ protocol_buyback_usdc: string; fees_to_operator_usdc: string }>("SELECT * FROM protocol_totals WHERE id = 'protocol'");
      expect(a.json.buybacks.protocol.usdcIn).toBe(String(Number(totals!.protocol_buyback_usdc) / 1e6));
      // Collateral after the exchange's opening fee, as indexed.
      const [trade] = await h.query<{ collateral: string }>("SELECT collateral FROM desk_trade WHERE open_order_id = $1", [s.desk.openOrderId.toString()]);
      const collateral = BigInt(trade!.collateral);
      expect(mine).toMatchObject({
        token: s.token,
        status: "open",
        side: "long",
        collateral: formatDecimal(collateral, 6),
        leverage: "5",
        notional: formatDecimal(collateral * 5n, 6),
        entryPrice: "3000",
        halted: false,
        // The venue of the API's PERPS_VENUE; the liquidation price by its formula: 3000 × (1 − 90% / 5).
        ...venueOf(),
        liquidationPrice: "2460",
      });
      expect(a.json.desks).toMatchObject(venueOf());
    });

    it("GET /desks and the desk statement: venue, leverage, liquidation price and PnL in USDC, to the base unit", async () => {
      const [desk] = (await get(`/desks?token=${s.token}&status=open`)).json.items;
      const [trade] = await h.query<{ collateral: string; open_price: string; leverage: string; buy: boolean }>(
        "SELECT collateral, open_price, leverage, buy FROM desk_trade WHERE open_order_id = $1",
        [s.desk.openOrderId.toString()],
      );
      const row = { collateral: BigInt(trade!.collateral), openPrice: BigInt(trade!.open_price), leverage: BigInt(trade!.leverage), buy: trade!.buy };
      // The liquidation price by the venue's formula (Avantis v1's, or gTrade's reference formula before its fees): 3000 × (1 − 90% / 5).
      const venue = h.deps.config.perpsVenue;
      expect(deskLiquidationPrice(row, venue)).toBe(2_460n * PERPS_PRECISION);
      expect(gainsLiquidationPrice({ openPrice: row.openPrice, side: "long", leverage: row.leverage, collateral: row.collateral })).toBe(
        liquidationPrice(row.openPrice, "long", row.leverage),
      );
      expect(desk).toMatchObject({ ...venueOf(), leverage: "5", liquidationPrice: "2460" });
      expect(desk.markPrice).toBeNull();
      // Unrealised PnL at the price-sampler's mark of the pair, numbered as the venue numbers it (ETH/USD is gTrade's 1 and
      // Avantis' 0, BTC/USD the other), by the venue's close value, to the base unit: +10% on a 5x long is +50% of the collateral.
      const engine = h.deps.agents!.services.pool;
      await engine.query(
        "INSERT INTO engine.price_samples (feed, price, decimals, round_id, updated_at) VALUES ('ETH_USD', 330000000000, 8, '1', 0), ('BTC_USD', 6000000000000, 8, '1', 0)",
      );
      try {
        const [marked] = (await get(`/desks?token=${s.token}&status=open`)).json.items;
        expect(marked.markPrice).toBe("3300");
        expect(parseUsdc(marked.unrealisedPnl)).toBe(unrealisedPnl(row, 3_300n * PERPS_PRECISION, venue));
        expect(parseUsdc(marked.unrealisedPnl)).toBe(row.collateral / 2n);
        const st = (await get(`/tokens/${s.token}/desk-statement`)).json;
        const o = st.openDesks.find((d: { id: string }) => d.id === desk.id);
        expect(o).toMatchObject({ markPrice: "3300", unrealisedPnl: { amountRaw: (row.collateral / 2n).toString() } });
        expect(st.pnl.open.amountRaw).toBe((row.collateral / 2n).toString());
      } finally {
        await engine.query("DELETE FROM engine.price_samples WHERE feed IN ('ETH_USD', 'BTC_USD')");
      }
      const statement = await get(`/tokens/${s.token}/desk-statement`);
      expect(statement.status, statement.text).toBe(200);
      deskStatementResponse.parse(statement.json);
      // GraphQL's typed statement is the same answer, field for field.
      const typed = await h.gql(`{ token(address: "${s.token}") { deskStatementReport ${selectionOf("DeskStatement")} } }`);
      expect(typed.json.errors, typed.text).toBeUndefined();
      expect(typed.json.data.token.deskStatementReport).toEqual(statement.json);
      expect(statement.json).toMatchObject(venueOf());
      const open = statement.json.openDesks.find((d: { id: string }) => d.id === desk.id);
      expect(open).toMatchObject({ side: "long", leverage: "5", entryPrice: "3000", liquidationPrice: "2460", markPrice: desk.markPrice });
      expect(open.collateral).toMatchObject({ amount: desk.collateral, amountRaw: row.collateral.toString(), symbol: "USDC" });
      expect(open.realisedPnl.amountRaw).toBe("0");
      expect(open.unrealisedPnl === null ? null : open.unrealisedPnl.amountRaw).toBe(
        desk.unrealisedPnl === null ? null : parseUsdc(desk.unrealisedPnl).toString(),
      );
      // GraphQL names the same figures.
      const gql = await h.gql(
        `{ desks(first: 200, status: [OPEN], token: "${s.token}") { edges { node { id venue protocol leverage liquidationPrice liquidationPriceRaw unrealisedPnl } } } stats { deskSummary { venue protocol } } }`,
      );
      expect(gql.json.errors, gql.text).toBeUndefined();
      const node = gql.json.data.desks.edges.map((e: { node: { id: string } }) => e.node).find((n: { id: string }) => n.id === desk.id);
      expect(node).toMatchObject({ ...venueOf(), leverage: "5", liquidationPrice: "2460", liquidationPriceRaw: (2_460n * PERPS_PRECISION).toString() });
      expect(node.unrealisedPnl).toBe(desk.unrealisedPnl);
      expect(gql.json.data.stats.deskSummary).toEqual(venueOf());
    });

    it("GET /activity: the feed with kinds and token filters", async () => {
      const a = await get(`/activity?token=${s.token}&limit=200`);
      expect(a.status).toBe(200);
      schemas.activityResponse.parse(a.json);
      expect(shapeOf({ ...a.json, items: a.json.items.slice(0, 1) })).toMatchSnapshot();
      const kinds = a.json.items.map((i: { kind: string }) => i.kind);
      expect(kinds).toEqual(expect.arrayContaining(["token-launched", "token-enrolled", "burn", "creator-buyback", "fees-collected"]));
      expect(a.json.items.every((i: { token: string }) => i.token === s.token)).toBe(true);
      // Newest first.
      const ids = a.json.items.map((i: { id: string }) => i.id);
      expect([...ids].sort().reverse()).toEqual(ids);
      const burns = await get(`/activity?kind=burn,creator-buyback&token=${s.token}`);
      expect(new Set(burns.json.items.map((i: { kind: string }) => i.kind))).toEqual(new Set(["burn", "creator-buyback"]));
      const buyback = burns.json.items.find((i: { kind: string }) => i.kind === "creator-buyback");
      expect(buyback.data.usdcIn).toBe("100");
    });

    it("GET /activity: a desk row names the token the engine opened its trade for, or null when none did", async () => {
      const a = await get("/activity?kind=desk-opened,desk-increased,desk-decreased,desk-closed,desk-liquidated&limit=200");
      expect(a.status).toBe(200);
      schemas.activityResponse.parse(a.json);
      const items = a.json.items as { id: string; token: string | null; data: { tradeId: string; openOrderId?: string } }[];
      expect(items.length).toBeGreaterThan(0);
      // The scenario's desk, opened for its token (the engine's desk_trades row, by open order id).
      const opened = items.find((i) => i.data.openOrderId === s.desk.openOrderId.toString());
      expect(opened, JSON.stringify(items)).toMatchObject({ token: s.token });
      // Every desk row: the engine's token of its trade, joined here in SQL, and null for a trade no token owns.
      const bound = await h.query<{ id: string; token: string }>(
        `SELECT t.id, e.token FROM desk_trade t JOIN engine.desk_trades e ON e.order_id = t.open_order_id`,
      );
      const tokenOf = new Map(bound.map((r) => [r.id, getAddress(r.token)]));
      for (const i of items) expect(i.token, i.id).toBe(tokenOf.get(i.data.tradeId) ?? null);
      // A token's feed takes in its desk rows.
      const mine = (await get(`/activity?token=${s.token}&kind=desk-opened`)).json.items as { id: string; token: string }[];
      expect(mine.map((i) => i.id)).toContain(opened!.id);
      expect(mine.every((i) => i.token === s.token)).toBe(true);
      const lower = (await get(`/activity?token=${s.token.toLowerCase()}&kind=desk-opened`)).json.items as { id: string }[];
      expect(lower.map((i) => i.id)).toEqual(mine.map((i) => i.id));
      // GraphQL names the same token.
      const gql = await h.gql(`{ activity(first: 200, kinds: [DESK_OPENED]) { edges { node { id tokenAddress token { address } } } } }`);
      expect(gql.json.errors, gql.text).toBeUndefined();
      const node = gql.json.data.activity.edges.map((e: { node: { id: string } }) => e.node).find((n: { id: string }) => n.id === opened!.id);
      expect(node).toMatchObject({ tokenAddress: s.token });
      expect(getAddress(node.token.address)).toBe(s.token);
    });

    it("GET /activity: pages join up without gaps or duplicates", async () => {
      const all = (await get("/activity?limit=200")).json.items.map((i: { id: string }) => i.id);
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Answer = await get(`/activity?limit=7${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.status).toBe(200);
        expect(page.json.items.length).toBeLessThanOrEqual(7);
        paged.push(...page.json.items.map((i: { id: string }) => i.id));
        cursor = page.json.nextCursor;
      } while (cursor && paged.length < all.length);
      expect(paged.slice(0, all.length)).toEqual(all);
      expect(new Set(paged).size).toBe(paged.length);
    });

    it("GET /buybacks: protocol-token buybacks with totals", async () => {
      const a = await get("/buybacks");
      expect(a.status).toBe(200);
      schemas.buybacksResponse.parse(a.json);
      expect(shapeOf({ ...a.json, items: a.json.items.slice(0, 1) })).toMatchSnapshot();
      expect(a.json.items.every((i: { kind: string; token: string }) => i.kind === "protocol-buyback" && i.token === getAddress(h.protocolToken))).toBe(true);
      const mine = a.json.items.find((i: { txHash: string }) => i.txHash === s.protocolBuyback.tx);
      expect(mine).toMatchObject({ usdcIn: "50", tokensBought: formatTokens(s.protocolBuyback.bought), tokensBurned: formatTokens(s.protocolBuyback.bought) });
      expect(a.json.totals.count).toBeGreaterThanOrEqual(1);
    });

    it("GET /buybacks/:token: one token's buybacks", async () => {
      const a = await get(`/buybacks/${s.token}`);
      expect(a.status).toBe(200);
      schemas.buybacksResponse.parse(a.json);
      expect(a.json.items).toHaveLength(1);
      expect(a.json.items[0]).toMatchObject({
        token: s.token,
        kind: "creator-buyback",
        txHash: s.creatorBuyback.tx,
        usdcIn: "100",
        tokensBought: formatTokens(s.creatorBuyback.bought),
      });
      expect(a.json.items[0].tokensBurned).toBe(a.json.items[0].tokensBought);
      expect(a.json.items[0].spent).toEqual({ currency: getAddress(h.contracts.usdc!), symbol: "USDC", decimals: 6, amount: "100" });
      // One definition (api/views/buyback.ts): the item is the export's row, but for the cursor and `spent`'s first shape.
      const exported = await get(`/export/buybacks.ndjson?token=${s.token}`);
      const [{ cursor: _cursor, ...row }] = exported.text
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect({ ...a.json.items[0], spent: a.json.items[0].spent.amount }).toEqual(row);
      expect(row).toMatchObject({ spentCurrency: getAddress(h.contracts.usdc!), spentSymbol: "USDC", spent: "100", spentRaw: "100000000", pairedIn: "100" });
      expect(a.json.totals).toEqual({
        count: 1,
        usdcIn: "100",
        tokensBought: formatTokens(s.creatorBuyback.bought),
        tokensBurned: formatTokens(s.creatorBuyback.bought),
        spent: [
          {
            currency: getAddress(h.contracts.usdc!),
            symbol: "USDC",
            decimals: 6,
            buybacks: 1,
            amount: "100",
            amountRaw: "100000000",
            usdc: "100",
            usdcRaw: "100000000",
          },
        ],
      });
      // Lowercase addresses are the same token.
      expect((await get(`/buybacks/${s.token.toLowerCase()}`)).json.totals.count).toBe(1);
    });

    it("GET /tokens: every token of ours with split, creator, pool, flags and desk", async () => {
      const a = await get("/tokens?limit=200");
      expect(a.status).toBe(200);
      schemas.tokensResponse.parse(a.json);
      const mine = a.json.items.find((t: { address: string }) => t.address === s.token);
      expect(shapeOf({ ...a.json, items: [mine] })).toMatchSnapshot();
      expect(mine).toMatchObject({
        name: "Api Cat",
        symbol: "ACAT",
        creator: s.creator,
        admin: s.creator,
        split: { protocolBps: 500, assetBps: 3000, perpBps: 5000, creatorBps: 1500 },
        active: true,
        halted: false,
        pool: { poolId: s.launch.json.poolId, pairedToken: getAddress(h.contracts.usdc!) },
        desk: { token: s.token, status: "open", side: "long", leverage: "5" },
      });
      expect(mine.enrolled).toBe(true);
      // Every token of ours by default (as GraphQL `tokens`), the protocol token too, not enrolled;
      // `enrolled=true` keeps the enrolled ones only (the default before: docs/api.md, "Tokens").
      const protocol = a.json.items.find((t: { address: string }) => t.address === getAddress(h.protocolToken));
      expect(protocol).toMatchObject({
        isProtocolToken: true,
        enrolled: false,
        creator: null,
        split: null,
        enrolledAt: null,
        active: false,
        halted: false,
        honouredSplit: null,
      });
      const enrolled = await get("/tokens?limit=200&enrolled=true");
      schemas.tokensResponse.parse(enrolled.json);
      expect(enrolled.json.items.some((t: { address: string }) => t.address === getAddress(h.protocolToken))).toBe(false);
      expect(enrolled.json.items.every((t: { enrolled: boolean }) => t.enrolled)).toBe(true);
      expect(enrolled.json.items.map((t: { address: string }) => t.address)).toContain(s.token);
      const others = await get("/tokens?limit=200&enrolled=false");
      schemas.tokensResponse.parse(others.json);
      expect(others.json.items.map((t: { address: string }) => t.address)).toContain(getAddress(h.protocolToken));
      expect(others.json.items.every((t: { enrolled: boolean }) => !t.enrolled)).toBe(true);
      expect(enrolled.json.items.length + others.json.items.length).toBe(a.json.items.length);
      // Fees: per leg and per currency, from the token's aggregates (the trader's collection paid USDC, the operator claimed it).
      const usdc = (v: string) => formatDecimal(BigInt(v), 6);
      const [tt] = await h.query<Record<string, string>>("SELECT * FROM token_totals WHERE token = $1", [s.token.toLowerCase()]);
      const [fee] = await h.query<Record<string, string>>("SELECT * FROM token_fee WHERE token = $1", [s.token.toLowerCase()]);
      expect(BigInt(fee!.to_operator!)).toBeGreaterThan(0n);
      // The hook collects on every swap: what the swaps after the operator's claim collected is still unclaimed.
      const claimed = (BigInt(fee!.to_operator!) - BigInt(fee!.unclaimed!)).toString();
      expect(fee!.usdc).toBe(claimed);
      expect(mine.totals).toMatchObject({
        feesToOperatorUsdc: usdc(claimed),
        creatorLegUsdc: usdc(fee!.to_creator!),
        legs: {
          protocolUsdc: usdc(tt!.protocol_leg_usdc!),
          assetUsdc: usdc(tt!.asset_leg_usdc!),
          perpUsdc: usdc(tt!.perp_leg_usdc!),
          creatorUsdc: usdc(fee!.to_creator!),
          operatorUsdc: "0",
        },
        feesByCurrency: [
          {
            currency: getAddress(h.contracts.usdc!),
            symbol: "USDC",
            decimals: 6,
            toOperator: usdc(fee!.to_operator!),
            claimed: usdc(claimed),
            unclaimed: usdc(fee!.unclaimed!),
            awaitingConversion: "0",
            converted: "0",
            usdc: usdc(claimed),
            usdcPerUnit: null,
            toCreator: usdc(fee!.to_creator!),
          },
        ],
        buybackSpent: [{ currency: getAddress(h.contracts.usdc!), symbol: "USDC", decimals: 6, buybacks: 1, amount: "100", usdc: "100" }],
      });
    });

    it("GET /desks: every desk, paged, with GraphQL desks' fields and filters", async () => {
      const a = await get("/desks?limit=200");
      expect(a.status, a.text).toBe(200);
      schemas.desksResponse.parse(a.json);
      const mine = a.json.items.find((d: { token: string }) => d.token === s.token);
      expect(shapeOf({ ...a.json, items: [mine] })).toMatchSnapshot();
      expect(mine).toMatchObject({ token: s.token, status: "open", side: "long", leverage: "5", entryPrice: "3000", halted: false, usdcReturned: "0" });
      // The same desks, in the same order, as GraphQL `desks`; the same figures under the same names.
      const gql = await h.gql(
        `{ desks(first: 200) { edges { node { id tokenAddress status collateral notional leverage entryPrice realisedPnl usdcReturned openTx halted } } } }`,
      );
      expect(gql.json.errors, gql.text).toBeUndefined();
      const nodes = gql.json.data.desks.edges.map((e: { node: Record<string, unknown> }) => e.node);
      expect(a.json.items.map((d: { id: string }) => d.id)).toEqual(nodes.map((n: { id: string }) => n.id));
      for (const [i, n] of nodes.entries()) {
        const r = a.json.items[i];
        expect({
          token: r.token,
          status: r.status.toUpperCase(),
          collateral: r.collateral,
          notional: r.notional,
          leverage: r.leverage,
          realisedPnl: r.realisedPnl,
          usdcReturned: r.usdcReturned,
          openTx: r.openTx,
          halted: r.halted,
        }).toEqual({
          token: n.tokenAddress,
          status: n.status,
          collateral: n.collateral,
          notional: n.notional,
          leverage: n.leverage,
          realisedPnl: n.realisedPnl,
          usdcReturned: n.usdcReturned,
          openTx: n.openTx,
          halted: n.halted,
        });
      }
      // Pages of one join up to the whole list, without gaps or duplicates.
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Answer = await get(`/desks?limit=1${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.status, page.text).toBe(200);
        expect(page.json.items.length).toBeLessThanOrEqual(1);
        paged.push(...page.json.items.map((d: { id: string }) => d.id));
        cursor = page.json.nextCursor;
      } while (cursor);
      expect(paged).toEqual(a.json.items.map((d: { id: string }) => d.id));
      // Filters: status (one or more), token, halt state.
      const open = (await get("/desks?status=open&limit=200")).json.items;
      expect(open.length).toBeGreaterThan(0);
      expect(open.every((d: { status: string }) => d.status === "open")).toBe(true);
      const several = (await get("/desks?status=closed,liquidated&limit=200")).json.items;
      expect(open.length + several.length).toBe(a.json.items.length);
      const byToken = (await get(`/desks?token=${s.token.toLowerCase()}`)).json.items;
      expect(byToken.map((d: { token: string }) => d.token)).toEqual(
        a.json.items.filter((d: { token: string }) => d.token === s.token).map((d: { token: string }) => d.token),
      );
      expect((await get(`/desks?token=${getAddress("0x00000000000000000000000000000000000c0ffe")}`)).json).toEqual({ items: [], nextCursor: null });
      expect((await get("/desks?halted=true")).json.items.every((d: { halted: boolean }) => d.halted)).toBe(true);
      expect((await get("/desks?halted=false&limit=200")).json.items.map((d: { id: string }) => d.id)).toContain(mine.id);
      // Bad filters: 400 with the field named.
      expectError(await get("/desks?status=opened"), 400, /^status: unknown status "opened"/);
      expectError(await get("/desks?token=0xabc"), 400, /^token: /);
      expectError(await get("/desks?halted=yes"), 400, /^halted: expected one of true, false/);
      expectError(await get("/desks?limit=0"), 400, /^limit: /);
      expectError(await get("/desks?cursor=eyJhIjoxfQ"), 400, "invalid cursor");
      // A cursor of another list is refused.
      const tokensCursor = (await get("/tokens?limit=1")).json.nextCursor;
      expectError(await get(`/desks?cursor=${tokensCursor}`), 400, "invalid cursor");
    });

    it("GET /tokens and GraphQL tokens: the same token set by default and under each filter, the same totals per token", async () => {
      const gqlTotals =
        "totals { feesToOperatorUsdc feesToOperatorUsdcRaw creatorLegUsdc buybacks buybackUsdc buybackUsdcRaw tokensBought tokensBoughtRaw burned burnedRaw burns buybackBurned buybackBurnedRaw legs { protocolUsdc protocolUsdcRaw assetUsdc assetUsdcRaw perpUsdc perpUsdcRaw creatorUsdc creatorUsdcRaw operatorUsdc operatorUsdcRaw } }";
      for (const [query, arg] of [
        ["", ""],
        ["&enrolled=true", "enrolled: true"],
        ["&enrolled=false", "enrolled: false"],
      ] as const) {
        const rest = await get(`/tokens?limit=200${query}`);
        expect(rest.status, rest.text).toBe(200);
        const gql = await h.gql(
          `{ tokens(first: 200${arg ? `, ${arg}` : ""}) { totalCount edges { node { address isProtocolToken createdAt enrollment { creator } ${gqlTotals} } } } }`,
        );
        expect(gql.json.errors, gql.text).toBeUndefined();
        const nodes = gql.json.data.tokens.edges.map((e: { node: any }) => e.node);
        expect(
          rest.json.items.map((t: { address: string }) => t.address),
          query,
        ).toEqual(nodes.map((n: { address: string }) => n.address));
        expect(rest.json.items.length).toBe(gql.json.data.tokens.totalCount);
        for (const [i, n] of nodes.entries()) {
          const r = rest.json.items[i];
          expect(r.isProtocolToken).toBe(n.isProtocolToken);
          expect(r.createdAt).toBe(n.createdAt);
          expect(r.enrolled).toBe(n.enrollment !== null);
          expect(r.creator).toBe(n.enrollment?.creator ?? null);
          // A token without totals yet is all zeros in REST and null in GraphQL.
          if (n.totals === null) {
            expect(r.totals.feesToOperatorUsdc).toBe("0");
            continue;
          }
          const { feesByCurrency: _f, buybackSpent: _b, finality: _x, ...figures } = r.totals;
          expect(figures, r.address).toEqual(n.totals);
        }
      }
      // The default set is every token of ours: launched count of /stats.
      const stats = (await get("/stats")).json;
      expect((await get("/tokens?limit=200")).json.items.length).toBe(stats.tokens.launched);
      expect((await get("/tokens?limit=200&enrolled=true")).json.items.length).toBe(stats.tokens.enrolled);
      expectError(await get("/tokens?enrolled=yes"), 400, /^enrolled: expected one of true, false/);
    });

    it("GET /openapi.json: the document generated from the request schemas", async () => {
      const a = await get("/openapi.json");
      expect(a.status).toBe(200);
      expect(a.json.openapi).toBe("3.0.3");
      expect(Object.keys(a.json.paths)).toContain("/buybacks/{token}");
    });
  });

  describe("REST invalid input", () => {
    const valid = { name: "Cat", symbol: "CAT", assetPct: 28.5, perpPct: 57, creatorPct: 9.5 };
    const raw = (path: string, body: string, headers: Record<string, string> = { "content-type": "application/json" }) =>
      h.call("POST", `/api/v1${path}`, { body, key: OPERATOR_API_KEY, headers });

    it("wrong types and missing fields", async () => {
      expectError(await post("/tokens/launch", { ...valid, name: 5 }), 400, "name: expected a string, got number");
      expectError(await post("/tokens/launch", { symbol: "CAT" }), 400, "name: is required");
      expectError(await post("/tokens/launch", { ...valid, assetPct: "28.5" }), 400, "assetPct: expected a number, got string");
      expectError(await post("/tokens/register", { assetPct: 28.5, perpPct: 57, creatorPct: 9.5 }), 400, "token: is required");
      expectError(await post("/tokens/launch", [valid]), 400, "body: expected an object, got array");
      expectError(await post("/tokens/launch", { ...valid, extra: true }), 400, 'unknown field "extra"');
    });

    it("malformed addresses", async () => {
      expectError(await get("/buybacks/0x1234"), 400, /^token: expected a 0x-prefixed 20-byte hex address/);
      expectError(await get("/buybacks/not-an-address"), 400, /^token: /);
      expectError(await get(`/buybacks/${s.token.slice(0, 2)}${s.token.slice(2, 6).toLowerCase()}${s.token.slice(6).toUpperCase()}`), 400, /checksum/);
      expectError(await get("/activity?token=0xzz"), 400, /^token: /);
      expectError(await post("/tokens/launch", { ...valid, creator: "0xabc" }), 400, /^creator: /);
    });

    it("splits not summing to 95, negative, three-decimal, non-number percents", async () => {
      expectError(await post("/tokens/launch", { ...valid, creatorPct: 10 }), 400, "invalid split: assetPct + perpPct + creatorPct must equal 95 (got 95.5)");
      expectError(await post("/tokens/launch", { ...valid, assetPct: -28.5, perpPct: 114 }), 400, /must not be negative/);
      expectError(
        await raw("/tokens/launch", '{"name":"Cat","symbol":"CAT","assetPct":28.505,"perpPct":57,"creatorPct":9.495}'),
        400,
        /at most two decimal places/,
      );
      expectError(
        await raw("/tokens/launch", '{"name":"Cat","symbol":"CAT","assetPct":NaN,"perpPct":57,"creatorPct":9.5}'),
        400,
        /^invalid JSON at position 40: unexpected character "N"/,
      );
      expectError(await raw("/tokens/launch", '{"name":"Cat","symbol":"CAT","assetPct":1e999,"perpPct":57,"creatorPct":9.5}'), 400, /must be at most 95/);
      expectError(await post("/tokens/register", { token: s.token, assetPct: 95, perpPct: 0, creatorPct: 0.01 }), 400, /got 95.01/);
    });

    it("bad JSON, oversized bodies, wrong content types", async () => {
      expectError(await raw("/tokens/launch", '{"name": "Cat",'), 400, /^invalid JSON at position/);
      expectError(await raw("/tokens/launch", ""), 400, "body is empty: expected a JSON object");
      expectError(await raw("/tokens/launch", '{"name":"a","name":"b"}'), 400, /duplicate key/);
      expectError(await raw("/tokens/launch", JSON.stringify({ ...valid, description: "x".repeat(20_000) })), 413, /larger than 16384 bytes/);
      expectError(await raw("/tokens/launch", JSON.stringify(valid), { "content-type": "text/plain" }), 415, "expected Content-Type: application/json");
      // Over HTTP, a body streamed without a length is cut off at the limit too.
      const big = await h.fetch("POST", "/api/v1/tokens/launch", {
        key: OPERATOR_API_KEY,
        headers: { "content-type": "application/json", "x-forwarded-for": "198.51.100.2" },
        body: new Blob([JSON.stringify({ ...valid, description: "y".repeat(100_000) })]).stream(),
        duplex: "half",
      } as RequestInit);
      expectError(big, 413);
      // The rest of that body was never read: the answer closes the connection, and says so, so that
      // a client's pool does not send its next request on it (it once failed that request).
      expect(big.headers.get("connection")).toBe("close");
      expect((await h.fetch("GET", "/api/v1/health")).status).toBe(200);
    });

    it("bad cursors, limits and unknown kinds", async () => {
      expectError(await get("/activity?cursor=!!!"), 400, "invalid cursor");
      expectError(await get("/activity?cursor=WyJidXJuLW5ld2VzdCIsIjEiLCIyIl0"), 400, "invalid cursor"); // another ordering's cursor
      expectError(await get("/tokens?cursor=eyJhIjoxfQ"), 400, "invalid cursor");
      expectError(await get("/buybacks?limit=201"), 400, "limit: expected an integer from 1 to 200");
      expectError(await get("/buybacks?limit=abc"), 400, /^limit: /);
      expectError(await get("/activity?kind=rugpull"), 400, /^kind: unknown kind "rugpull"/);
      expectError(await get("/activity?limit=1&limit=2"), 400, "query parameter limit given 2 times");
    });

    it("unknown tokens and paths", async () => {
      expectError(await get(`/buybacks/${getAddress("0x000000000000000000000000000000000000beef")}`), 404, /^unknown token/);
      expectError(await get("/nope"), 404, "no route GET /api/v1/nope");
      expectError(await h.call("DELETE", "/api/v1/tokens"), 404, "no route DELETE /api/v1/tokens");
      const http = await h.fetch("GET", "/api/v1/does-not-exist");
      expectError(http, 404, "no route GET /api/v1/does-not-exist");
    });
  });

  describe("REST operator key", () => {
    it("is required, refused when wrong, accepted when right", async () => {
      expectError(await post("/tokens/launch", {}, null), 401, /^missing Authorization/);
      expectError(await post("/tokens/register", {}, "wrong-key-wrong-key-wrong"), 403, "invalid operator API key");
      // Accepted: the body is checked next.
      expectError(await post("/tokens/launch", {}), 400, "name: is required");
      expect(s.launch.status).toBe(201);
    });

    it("guards the three-way audit, which answers every check against the indexed facts and the chain", async () => {
      expectError(await h.call("GET", "/api/v1/audit"), 401, /^missing Authorization/);
      const a = await h.call("GET", "/api/v1/audit", { key: OPERATOR_API_KEY });
      expect(a.status, a.text).toBe(200);
      const report = schemas.auditResponse.parse(a.json);
      // The harness indexes the chain and keeps an engine database; the audit reads both.
      expect(report.checks).toEqual(
        expect.arrayContaining(["ledger invariants", "fees claimed: ledger vs indexed ClaimTokens", "dead address: chain vs indexed burns"]),
      );
      expect(report.differences.filter((d) => d.check === "dead address balance (index vs chain)")).toEqual([]);
    });

    it("is not needed with LEGACY_LAUNCH_OPEN=true, and a 503 naming OPERATOR_API_KEY when unset", async () => {
      const open = h.appWith({ config: { ...h.deps.config, legacyLaunchOpen: true } });
      const a = await open.request("http://api.test/api/v1/tokens/launch", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(a.status).toBe(400);
      const unset = h.appWith({ config: { ...h.deps.config, operatorApiKey: undefined } });
      const b = await unset.request("http://api.test/api/v1/tokens/launch", { method: "POST", headers: { authorization: `Bearer ${OPERATOR_API_KEY}` } });
      expect(b.status).toBe(503);
      expect(await b.json()).toEqual({ error: "missing configuration: OPERATOR_API_KEY is not set", code: "NOT_CONFIGURED" });
    });
  });

  describe("REST rate limits", () => {
    it("answers 429 with Retry-After past a client's burst, stricter on the POSTs", async () => {
      const app = h.appWith({ rateLimits: { read: { capacity: 3, refillPerSecond: 0.01 }, write: { capacity: 1, refillPerSecond: 0.01 } } });
      const ask = (client: string, method = "GET", path = "/api/v1/health") =>
        app.request(`http://api.test${path}`, { method, headers: { "x-forwarded-for": client } });
      for (let i = 0; i < 3; i++) expect((await ask("203.0.113.1")).status).toBe(200);
      const refused = await ask("203.0.113.1");
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.json()).toEqual({ error: expect.stringMatching(/^rate limit exceeded/), code: "RATE_LIMITED" });
      // Per client; every route, unknown ones included.
      expect((await ask("203.0.113.2", "GET", "/api/v1/nope")).status).toBe(404);
      expect((await ask("203.0.113.1", "GET", "/api/v1/nope")).status).toBe(429);
      expect((await ask("203.0.113.3", "POST", "/api/v1/tokens/launch")).status).toBe(401);
      expect((await ask("203.0.113.3", "POST", "/api/v1/tokens/launch")).status).toBe(429);
    });

    it("over HTTP with the default limits", async () => {
      const client = { headers: { "x-forwarded-for": "203.0.113.50" } };
      const answers = await Promise.all(Array.from({ length: 130 }, () => h.fetch("GET", "/api/v1/health", client)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((x) => x === 200).length).toBeGreaterThanOrEqual(120);
      const refused = answers.find((a) => a.status === 429)!;
      expectError(refused, 429, /^rate limit exceeded/);
      expect(refused.headers.get("retry-after")).toBe("1");
      // Another client is unaffected.
      expect((await h.fetch("GET", "/api/v1/health", { headers: { "x-forwarded-for": "203.0.113.51" } })).status).toBe(200);
    });
  });

  describe("POST /tokens/launch end to end", () => {
    it("deploys, enrols, and the token appears in the registry, GET /tokens and GraphQL", async () => {
      const a = s.launch;
      schemas.launchResponse.parse(a.json);
      expect(shapeOf(a.json)).toMatchSnapshot();
      expect(a.json).toMatchObject({ creator: s.creator, split: { protocolBps: 500, assetBps: 3000, perpBps: 5000, creatorBps: 1500 } });
      const enrolled = await operator.read<readonly unknown[]>(h.contracts.registry!, registryAbi, "enrollment", [a.json.token]);
      expect(enrolled.slice(0, 5)).toEqual([s.creator, 500, 3000, 5000, 1500]);
      const receipt = await operator.publicClient.getTransactionReceipt({ hash: a.json.txHash });
      expect(receipt.status).toBe("success");
      expect(receipt.from).toBe(operator.account.address.toLowerCase());
      const tokens = await h.fetch("GET", "/api/v1/tokens?limit=200");
      expect(tokens.json.items.map((t: { address: string }) => t.address)).toContain(a.json.token);
      const g = await h.gql(
        `query($a: String!) { token(address: $a) { address name enrollment { creator split { assetBps perpBps creatorBps } } pool { poolId } } }`,
        { a: a.json.token },
        "http",
      );
      expect(g.json).toEqual({
        data: {
          token: {
            address: a.json.token,
            name: "Api Cat",
            enrollment: { creator: s.creator, split: { assetBps: 3000, perpBps: 5000, creatorBps: 1500 } },
            pool: { poolId: a.json.poolId },
          },
        },
      });
      // Every operator transaction went through the pipeline as an intent.
      const intents = (await h.deps.agents!.services.pool.query("SELECT kind, status, tx_hash FROM engine.tx_intents WHERE worker = 'api' ORDER BY id")).rows;
      expect(intents).toEqual(
        expect.arrayContaining([
          { kind: "launch", status: "mined", tx_hash: a.json.txHash },
          { kind: "enroll", status: "mined", tx_hash: a.json.enrollTxHash },
        ]),
      );
    });

    it("with the same Idempotency-Key, answers the first launch again without sending", async () => {
      // A name longer than one EIP-712 word launches too, as in production.
      const body = { name: "Once, and only once, whatever the retries", symbol: "ONCE", assetPct: 28.5, perpPct: 57, creatorPct: 9.5 };
      const headers = { "idempotency-key": `once-${Date.now()}` };
      const first = await h.call("POST", "/api/v1/tokens/launch", { json: body, key: OPERATOR_API_KEY, headers });
      expect(first.status, first.text).toBe(201);
      const nonce = await operator.publicClient.getTransactionCount({ address: operator.account.address });
      const again = await h.call("POST", "/api/v1/tokens/launch", { json: body, key: OPERATOR_API_KEY, headers });
      expect(again.status).toBe(201);
      expect(again.json).toEqual(first.json);
      expect(await operator.publicClient.getTransactionCount({ address: operator.account.address })).toBe(nonce);
      expectError(
        await h.call("POST", "/api/v1/tokens/launch", { json: body, key: OPERATOR_API_KEY, headers: { "idempotency-key": "no spaces allowed" } }),
        400,
        /^Idempotency-Key/,
      );
    });

    it("answers 502 with the revert reason when the deploy reverts", async () => {
      const clanker = parseAbi(["function setDeprecated(bool deprecated_)"]);
      await operator.write(h.contracts.launcher!, clanker, "setDeprecated", [true]);
      try {
        const a = await post("/tokens/launch", { name: "Nope", symbol: "NOPE" });
        expectError(a, 502, "deploy reverted: Deprecated()", "CHAIN_REFUSED");
      } finally {
        await operator.write(h.contracts.launcher!, clanker, "setDeprecated", [false]);
      }
    });

    it("answers 503 naming the variable when a contract is not configured", async () => {
      const { launcher: _launcher, ...contracts } = h.deps.config.contracts;
      const config = { ...h.deps.config, contracts };
      const { createChainLauncher } = await import("../../../core/launch/deploy-and-enroll.js");
      const app = h.appWith({
        config,
        launcher: createChainLauncher({
          config,
          publicClient: operator.publicClient,
          sender: {
            operator: async () => operator.account.address,
            previous: async () => undefined,
            send: async () => {
              throw new Error("not sent");
            },
          },
        }),
      });
      const a = await app.request("http://api.test/api/v1/tokens/launch", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${OPERATOR_API_KEY}` },
        body: JSON.stringify({ name: "Cat", symbol: "CAT" }),
      });
      expect(a.status).toBe(503);
      expect(await a.json()).toEqual({ error: "missing configuration: LAUNCHER_ADDRESS is not set", code: "NOT_CONFIGURED" });
    });
  });

  describe("POST /tokens/register", () => {
    // The locker pays the creator 9.5% directly (launchSplitRewards): the split must say so.
    const split = { assetPct: 40, perpPct: 45.5, creatorPct: 9.5 };

    it("enrols a launcher token that pays the operator, then refuses it as already enrolled", async () => {
      const launched = await act.launchToken(trader, h.contracts, {
        name: "Later",
        symbol: "LATE",
        operator: operator.account.address,
        creator: trader.account.address,
      });
      const a = await post("/tokens/register", { token: launched.token, creator: trader.account.address, ...split });
      expect(a.status, a.text).toBe(201);
      schemas.registerResponse.parse(a.json);
      expect(shapeOf(a.json)).toMatchSnapshot();
      expect(a.json).toMatchObject({
        token: launched.token,
        creator: trader.account.address,
        split: { protocolBps: 500, assetBps: 4000, perpBps: 4550, creatorBps: 950 },
      });
      expect(await operator.read(h.contracts.registry!, registryAbi, "isEnrolled", [launched.token])).toBe(true);
      expectError(await post("/tokens/register", { token: launched.token, ...split }), 409, `token ${launched.token} is already enrolled`);
    });

    it("answers 404 for an unknown token, 409 for the protocol token, 422 when the operator is not paid", async () => {
      expectError(await post("/tokens/register", { token: getAddress("0x00000000000000000000000000000000000c0ffe"), ...split }), 404, /^unknown token/);
      expectError(await post("/tokens/register", { token: zeroAddress, ...split }), 404, /^unknown token/);
      expectError(await post("/tokens/register", { token: h.protocolToken, ...split }), 409, /protocol token/);
      const unpaid = await act.launchToken(trader, h.contracts, {
        name: "Unpaid",
        symbol: "UNPD",
        operator: trader.account.address,
        creator: trader.account.address,
      });
      expectError(await post("/tokens/register", { token: unpaid.token, ...split }), 422, /does not pay LP rewards to the operator/);
    });
  });
}
