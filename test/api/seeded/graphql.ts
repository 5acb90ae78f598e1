/**
 * GraphQL on real PostgreSQL and the devnet, in memory (`app.request`) and over HTTP (ponder's
 * server): pagination round trips, filters and orderings, burn totals against the burns
 * themselves, desks, activity, limits on abusive queries, batching, and a subscription that
 * receives a burn made on the devnet.
 */
import { readFileSync } from "node:fs";
// The CommonJS build of graphql-js: the copy Pothos builds the schema with under vitest.
import type { GraphQLUnionType } from "graphql/index.js";
import { erc20Abi, getAddress } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { DEAD_ADDRESS } from "../../../common/constants.js";
import { TOKEN_DECIMALS, formatDecimal } from "../../../common/money.js";
import type { ReadDb } from "../../../api/deps.js";
import { bucketEnd } from "../../../api/read/burn-totals.js";
import { LARGEST_OPEN_DESKS } from "../../../api/read/desks.js";
import { schema } from "../../../api/graphql/index.js";
import { ACTIVITY_DATA_TYPES } from "../../../api/views/activity.js";
import type { ActivityKind } from "../../../common/activity.js";
import * as act from "../../helpers/actions.js";
import { sseEvents } from "../../helpers/http.js";
import { selectionOf } from "../../helpers/graphql-selection.js";
import { type Harness, actors } from "../harness.js";
import { type Scenario, USDC } from "../scenario.js";
import { seededWorld } from "./world.js";

let h: Harness;
let s: Scenario;
const { trader } = actors();

type BurnNode = { id: string; tokenAddress: string; kind: string; amount: string; amountRaw: string; blockNumber: string; logIndex: number; timestamp: string };

/** Registers the suite; its hooks and tests run inside the describe that calls it (test/api/seeded.test.ts). */
export function graphqlSuite(): void {
  beforeAll(async () => {
    ({ h, s } = seededWorld());
    // More burns, of two tokens and many sizes, for paging and totals.
    await act.swapInPool(trader, h.contracts, s.token, h.contracts.usdc!, USDC(2_000n));
    await act.swapInPool(trader, h.contracts, h.protocolToken, h.contracts.usdc!, USDC(500n));
    for (let i = 1n; i <= 6n; i++) {
      await trader.write(s.token, erc20Abi, "transfer", [DEAD_ADDRESS, i * 10n ** 18n + i]);
      await trader.write(h.protocolToken, erc20Abi, "transfer", [DEAD_ADDRESS, (7n - i) * 10n ** 17n]);
    }
    await h.synced();
  }, 300_000);

  async function data(query: string, variables?: Record<string, unknown>, over: "memory" | "http" = "memory") {
    const a = await h.gql(query, variables, over);
    expect(a.json.errors, a.text).toBeUndefined();
    expect(a.status).toBe(200);
    return a.json.data;
  }

  async function errors(query: string, variables?: Record<string, unknown>, over: "memory" | "http" = "memory") {
    const a = await h.gql(query, variables, over);
    expect(a.status).toBeLessThan(500);
    expect(a.json.errors?.length, a.text).toBeGreaterThan(0);
    return a.json.errors as { message: string; extensions?: { code?: string } }[];
  }

  const BURN_FIELDS = "id tokenAddress kind amount amountRaw blockNumber logIndex timestamp";

  async function allBurns(args: string): Promise<BurnNode[]> {
    const d = await data(`{ burns(first: 200${args}) { edges { node { ${BURN_FIELDS} } } pageInfo { hasNextPage } } }`);
    expect(d.burns.pageInfo.hasNextPage).toBe(false);
    return d.burns.edges.map((e: { node: BurnNode }) => e.node);
  }

  /** Every burn, walked from the end to the start with `last`/`before`, returned in the list's own order. */
  async function pagedBurnsBackward(args: string, size: number): Promise<BurnNode[]> {
    const pages: BurnNode[][] = [];
    let before: string | null = null;
    for (let guard = 0; guard < 1000; guard++) {
      const d: any = await data(
        `query($before: String) { burns(last: ${size}, before: $before${args}) { edges { cursor node { ${BURN_FIELDS} } } pageInfo { hasPreviousPage hasNextPage startCursor } } }`,
        { before },
      );
      expect(d.burns.edges.length).toBeLessThanOrEqual(size);
      expect(d.burns.pageInfo.hasNextPage).toBe(before !== null);
      pages.unshift(d.burns.edges.map((e: { node: BurnNode }) => e.node));
      if (!d.burns.pageInfo.hasPreviousPage) return pages.flat();
      before = d.burns.pageInfo.startCursor;
    }
    throw new Error("pagination did not end");
  }

  async function pagedBurns(args: string, size: number): Promise<BurnNode[]> {
    const out: BurnNode[] = [];
    let after: string | null = null;
    for (let guard = 0; guard < 1000; guard++) {
      const d: any = await data(
        `query($after: String) { burns(first: ${size}, after: $after${args}) { edges { cursor node { ${BURN_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
        { after },
      );
      out.push(...d.burns.edges.map((e: { node: BurnNode }) => e.node));
      if (!d.burns.pageInfo.hasNextPage) return out;
      after = d.burns.pageInfo.endCursor;
    }
    throw new Error("pagination did not end");
  }

  describe("GraphQL queries", () => {
    it("answers in memory and over HTTP alike", async () => {
      const q = `{ health { status indexer { ready } protocolToken } token(address: "${s.token}") { symbol isProtocolToken } }`;
      const memory = await data(q);
      expect(memory).toEqual({
        health: { status: "OK", indexer: { ready: true }, protocolToken: getAddress(h.protocolToken) },
        token: { symbol: "ACAT", isProtocolToken: false },
      });
      expect(await data(q, undefined, "http")).toEqual(memory);
    });

    it("health is REST's /health, field for field (its status a GraphQL enum)", async () => {
      const engine = h.deps.agents!.services.pool;
      await h.deps.agents!.services.ready();
      await engine.query(
        `INSERT INTO engine.worker_state (name, min_interval_seconds, max_interval_seconds, last_run_at, last_success_at, runs, failures, next_run_at)
       VALUES ('fee-claimer', 180, 300, now(), now(), 3, 0, now() + interval '200 seconds')`,
      );
      try {
        const d = await data(`{ health ${selectionOf("Health")} }`);
        const rest = (await (await h.app.request("http://api.test/api/v1/health")).json()) as Record<string, unknown>;
        /** Ages in seconds (the uptime, a transaction's, the oldest delivery's) may tick between the two reads. */
        const AGES = new Set(["uptimeSeconds", "ageSeconds", "oldestQueuedSeconds"]);
        /** REST leaves out an optional field it does not have, GraphQL answers null. */
        const present = (v: unknown): unknown =>
          Array.isArray(v)
            ? v.map(present)
            : v && typeof v === "object"
              ? Object.fromEntries(
                  Object.entries(v)
                    .filter(([key, x]) => x !== null && !AGES.has(key))
                    .map(([key, x]) => [key, present(x)]),
                )
              : v;
        expect(present({ ...d.health, status: d.health.status.toLowerCase() })).toEqual(present(rest));
        // The ages agree but for the time between the reads (GraphQL's first).
        const restAges = (rest.transactions as { notFinal: { ageSeconds: number }[] }).notFinal.map((t) => t.ageSeconds);
        d.health.transactions.notFinal.forEach((t: { ageSeconds: number }, i: number) => {
          expect(restAges[i]! - t.ageSeconds, `transaction ${i}'s age`).toBeGreaterThanOrEqual(0);
          expect(restAges[i]! - t.ageSeconds, `transaction ${i}'s age`).toBeLessThan(60);
        });
        expect(d.health.indexer.block).toBeGreaterThan(0);
        expect(d.health.workers).toEqual([expect.objectContaining({ name: "fee-claimer", runs: 3, lastRunAt: expect.any(String) })]);
      } finally {
        await engine.query("DELETE FROM engine.worker_state");
      }
    });

    it("pages burns in every ordering without gaps or duplicates", async () => {
      for (const order of ["NEWEST", "OLDEST", "LARGEST"]) {
        const all = await allBurns(`, orderBy: ${order}`);
        expect(all.length).toBeGreaterThanOrEqual(15);
        const paged = await pagedBurns(`, orderBy: ${order}`, 4);
        expect(paged.map((b) => b.id)).toEqual(all.map((b) => b.id));
        expect(new Set(paged.map((b) => b.id)).size).toBe(paged.length);
      }
      const newest = await allBurns(", orderBy: NEWEST");
      for (const order of ["NEWEST", "LARGEST"]) {
        const all = await allBurns(`, orderBy: ${order}`);
        expect((await pagedBurnsBackward(`, orderBy: ${order}`, 4)).map((b) => b.id)).toEqual(all.map((b) => b.id));
      }
      // A range: after the 3rd and before the 9th burn are the 4th to the 8th, from either end.
      const cursors = (await data(`{ burns(first: 10) { edges { cursor node { id } } } }`)).burns.edges as { cursor: string; node: { id: string } }[];
      const inside = cursors.slice(3, 8).map((e) => e.node.id);
      const range = `after: "${cursors[2]!.cursor}", before: "${cursors[8]!.cursor}"`;
      const fromStart = await data(`{ burns(first: 50, ${range}) { edges { node { id } } pageInfo { hasNextPage hasPreviousPage } } }`);
      expect(fromStart.burns.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(inside);
      expect(fromStart.burns.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
      const fromEnd = await data(`{ burns(last: 2, ${range}) { edges { node { id } } pageInfo { hasNextPage hasPreviousPage } } }`);
      expect(fromEnd.burns.edges.map((e: { node: { id: string } }) => e.node.id)).toEqual(inside.slice(3));
      expect(fromEnd.burns.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true });
      const key = (b: BurnNode) => BigInt(b.blockNumber) * 1_000_000n + BigInt(b.logIndex);
      expect(newest.every((b, i) => i === 0 || key(newest[i - 1]!) > key(b))).toBe(true);
      const largest = await allBurns(", orderBy: LARGEST");
      expect(largest.every((b, i) => i === 0 || BigInt(largest[i - 1]!.amountRaw) >= BigInt(b.amountRaw))).toBe(true);
    });

    it("filters burns by token, kind, block and time", async () => {
      const mine = await allBurns(`, filter: { token: "${s.token}" }`);
      expect(mine.length).toBe(8); // organic, creator buyback, six more
      expect(mine.every((b) => b.tokenAddress === s.token)).toBe(true);
      const organic = await allBurns(`, filter: { token: "${s.token}", kinds: [ORGANIC] }`);
      expect(organic.map((b) => b.kind)).toEqual(Array(7).fill("ORGANIC"));
      const buyback = await allBurns(`, filter: { token: "${s.token.toLowerCase()}", kinds: [CREATOR_BUYBACK, PROTOCOL_BUYBACK] }`);
      expect(buyback).toHaveLength(1);
      const blocks = mine.map((b) => BigInt(b.blockNumber)).sort((a, b) => (a < b ? -1 : 1));
      const [from, to] = [blocks[2]!, blocks[5]!];
      const ranged = await allBurns(`, filter: { token: "${s.token}", fromBlock: "${from}", toBlock: "${to}" }`);
      expect(ranged.map((b) => b.id).sort()).toEqual(
        mine
          .filter((b) => BigInt(b.blockNumber) >= from && BigInt(b.blockNumber) <= to)
          .map((b) => b.id)
          .sort(),
      );
      const t0 = mine.map((b) => b.timestamp).sort()[3]!;
      const timed = await allBurns(`, filter: { token: "${s.token}", from: "${t0}" }`);
      expect(timed.map((b) => b.id).sort()).toEqual(
        mine
          .filter((b) => b.timestamp >= t0)
          .map((b) => b.id)
          .sort(),
      );
      expect(await allBurns(`, filter: { token: "${s.token}", to: "${mine.map((b) => b.timestamp).sort()[0]}" }`)).toEqual([]);
    });

    it("gives each burn its txHash and logIndex, the key of its proof (burnProof, as GET /burns/{txHash}/{logIndex})", async () => {
      const d = await data(`{ burns(first: 3, filter: { token: "${s.token}" }) { edges { node { id txHash logIndex proof } } } }`);
      const nodes = d.burns.edges.map((e: { node: { id: string; txHash: string; logIndex: number; proof: any } }) => e.node);
      expect(nodes.length).toBe(3);
      for (const node of nodes) {
        expect(node.id).toBe(`${node.txHash.toLowerCase()}-${node.logIndex}`);
        const byKey = await data("query($tx: String!, $i: Int!) { burnProof(txHash: $tx, logIndex: $i) }", { tx: node.txHash, i: node.logIndex });
        expect(byKey.burnProof.burn).toMatchObject({ txHash: node.proof.burn.txHash, logIndex: node.logIndex });
        expect(byKey.burnProof.burn).toEqual(node.proof.burn);
        const rest = await h.call("GET", `/api/v1/burns/${node.txHash}/${node.logIndex}`);
        expect(rest.status).toBe(200);
        expect(rest.json.burn).toEqual(node.proof.burn);
        // The typed form is REST's answer field for field (but for what the moment of asking decides: the head, and whether the balances came from memory).
        const typed = await data(`query($tx: String!, $i: Int!) { burnProofReport(txHash: $tx, logIndex: $i) ${selectionOf("BurnProof")} }`, {
          tx: node.txHash,
          i: node.logIndex,
        });
        const { head, confirmations } = typed.burnProofReport.finality;
        expect(typed.burnProofReport).toEqual({
          ...rest.json,
          finality: { ...rest.json.finality, head, confirmations },
          deadAddress: { ...rest.json.deadAddress, cached: typed.burnProofReport.deadAddress.cached },
        });
      }
    });

    it("filters buybacks and reaches their tokens", async () => {
      const d = await data(
        `{ buybacks(first: 200, filter: { kinds: [PROTOCOL_BUYBACK] }) { edges { node { kind txHash usdcIn usdcInRaw tokensBought tokensBurned pairedIn token { address isProtocolToken } } } } }`,
      );
      const nodes = d.buybacks.edges.map((e: { node: unknown }) => e.node);
      expect(nodes.every((n: { kind: string; token: { isProtocolToken: boolean } }) => n.kind === "PROTOCOL_BUYBACK" && n.token.isProtocolToken)).toBe(true);
      expect(nodes.find((n: { txHash: string }) => n.txHash === s.protocolBuyback.tx)).toMatchObject({
        usdcIn: "50",
        usdcInRaw: "50000000",
        pairedIn: "50",
        tokensBought: formatDecimal(s.protocolBuyback.bought, TOKEN_DECIMALS),
        tokensBurned: formatDecimal(s.protocolBuyback.bought, TOKEN_DECIMALS),
      });
      const own = await data(`{ token(address: "${s.token}") { buybacks { edges { node { txHash kind } } } totals { buybacks buybackUsdc burns } } }`);
      expect(own.token.buybacks.edges).toEqual([{ node: { txHash: s.creatorBuyback.tx, kind: "CREATOR_BUYBACK" } }]);
      expect(own.token.totals).toEqual({ buybacks: 1, buybackUsdc: "100", burns: 8 });
    });

    it("sums burns per day, week and month exactly as the burns add up", async () => {
      const burns = await allBurns(`, filter: { token: "${s.token}" }`);
      for (const groupBy of ["DAY", "WEEK", "MONTH"] as const) {
        const d = await data(`{ burnTotals(token: "${s.token}", groupBy: ${groupBy}) { start end burned burnedRaw burns } }`);
        const buckets = d.burnTotals as { start: string; end: string; burned: string; burnedRaw: string; burns: number }[];
        expect(buckets.length).toBeGreaterThan(0);
        for (const b of buckets) {
          const inside = burns.filter((x) => x.timestamp >= b.start && x.timestamp < b.end);
          expect(b.burns).toBe(inside.length);
          expect(BigInt(b.burnedRaw)).toBe(inside.reduce((sum, x) => sum + BigInt(x.amountRaw), 0n));
          expect(b.burned).toBe(formatDecimal(BigInt(b.burnedRaw), TOKEN_DECIMALS));
          expect(new Date(b.end).getTime() / 1000).toBe(Number(bucketEnd(groupBy, BigInt(new Date(b.start).getTime() / 1000))));
        }
        expect(buckets.reduce((n, b) => n + b.burns, 0)).toBe(burns.length);
      }
      // The same through the token, and across every token.
      const viaToken = await data(`{ token(address: "${s.token}") { burnTotals(groupBy: MONTH) { burns } } }`);
      expect(viaToken.token.burnTotals.reduce((n: number, b: { burns: number }) => n + b.burns, 0)).toBe(burns.length);
      const everything = await data(`{ burnTotals(groupBy: MONTH) { burns } }`);
      const total = (await h.query<{ n: string }>("SELECT count(*)::text AS n FROM burn"))[0]!.n;
      expect(everything.burnTotals.reduce((n: number, b: { burns: number }) => n + b.burns, 0)).toBe(Number(total));
    });

    it("lists open desks with their tokens, and tokens with their desks", async () => {
      const d = await data(
        `{ desks(status: [OPEN]) { edges { node { tokenAddress token { symbol } side status collateral notional leverage entryPrice halted } } } }`,
      );
      const mine = d.desks.edges.map((e: { node: { tokenAddress: string } }) => e.node).find((n: { tokenAddress: string }) => n.tokenAddress === s.token);
      expect(mine).toMatchObject({ token: { symbol: "ACAT" }, side: "LONG", status: "OPEN", leverage: "5", entryPrice: "3000", halted: false });
      const byToken = await data(
        `{ desks(token: "${s.token}") { edges { node { tokenAddress } } } token(address: "${s.token}") { desk { status } pending { perpUsdc } } }`,
      );
      expect(byToken.desks.edges).toEqual([{ node: { tokenAddress: s.token } }]);
      expect(byToken.token.desk).toEqual({ status: "OPEN" });
    });

    it("types every activity entry's facts by kind (details), field for field REST's data", async () => {
      const members = (schema.getType("ActivityDetails") as GraphQLUnionType).getTypes().map((t) => `... on ${t.name} ${selectionOf(t.name)}`);
      // Pages of 100: every member's fields count towards the complexity limit.
      const nodes: { id: string; kind: string; details: { __typename: string } }[] = [];
      for (let after: string | null = null; ; ) {
        const d = await data(
          `query($after: String) { activity(first: 100, after: $after) { edges { node { id kind details { __typename ${members.join(" ")} } } } pageInfo { hasNextPage endCursor } } }`,
          { after },
        );
        nodes.push(...d.activity.edges.map((e: { node: (typeof nodes)[number] }) => e.node));
        if (!d.activity.pageInfo.hasNextPage) break;
        after = d.activity.pageInfo.endCursor;
      }
      const rest = (await (await h.app.request("http://api.test/api/v1/activity?limit=200")).json()) as { items: { id: string; data: unknown }[] };
      const byId = new Map(rest.items.map((i) => [i.id, i.data]));
      /** The typed answer as JSON writes it: an optional fact the event does not have is absent, not null. */
      const asJson = (v: unknown): unknown =>
        Array.isArray(v)
          ? v.map(asJson)
          : v && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (x === null || k === "__typename" ? [] : [[k, asJson(x)]])))
            : v;
      expect(nodes.length).toBe(rest.items.length);
      expect(nodes.length).toBeLessThan(200);
      for (const n of nodes) {
        expect(n.details.__typename, n.kind).toBe(ACTIVITY_DATA_TYPES[n.kind.toLowerCase().replace(/_/g, "-") as ActivityKind]);
        expect(asJson(n.details), `${n.kind} ${n.id}`).toEqual(byId.get(n.id));
      }
      // The seeded feed holds launches, enrolments, fees, buybacks, burns and desks: most kinds are checked here.
      expect(new Set(nodes.map((n) => n.kind)).size).toBeGreaterThanOrEqual(8);
    });

    it("serves the activity feed by kinds and token, and the stats", async () => {
      const d = await data(
        `{ activity(first: 50, kinds: [TOKEN_LAUNCHED, TOKEN_ENROLLED], token: "${s.token}") { edges { node { kind tokenAddress data rawData } } } }`,
      );
      expect(d.activity.edges.map((e: { node: { kind: string } }) => e.node.kind).sort()).toEqual(["TOKEN_ENROLLED", "TOKEN_LAUNCHED"]);
      const stats = await data(
        `{ stats { tokensLaunched tokensEnrolled protocolBuybacks protocolBuybackUsdc protocolBuybackUsdcRaw pendingProtocolBuybackUsdc pendingBuybackUsdc desksOpen openDesks { tokenAddress }
         deskSummary { halted openCollateralUsdc openCollateralUsdcRaw openNotionalUsdcRaw openUnrealisedPnlUsdc unpriced largest { id tokenAddress collateralRaw notionalRaw } } } }`,
      );
      expect(stats.stats.protocolBuybacks).toBeGreaterThanOrEqual(1);
      // The pending protocol leg under REST's name (pending.protocolBuybackUsdc), and still under its deprecated one.
      const rest = (await (await h.app.request("http://api.test/api/v1/stats")).json()) as { pending: { protocolBuybackUsdc: string } };
      expect(stats.stats.pendingProtocolBuybackUsdc).toBe(rest.pending.protocolBuybackUsdc);
      expect(stats.stats.pendingBuybackUsdc).toBe(stats.stats.pendingProtocolBuybackUsdc);
      expect(stats.stats.protocolBuybackUsdc).toBe(formatDecimal(BigInt(stats.stats.protocolBuybackUsdcRaw), 6));
      // A fixed-size summary of the open desks (the inline list is gone: `desks` pages them), as the desks add up.
      const summary = stats.stats.deskSummary;
      expect(summary.largest.map((x: { tokenAddress: string }) => x.tokenAddress)).toContain(s.token);
      expect(summary.largest.length).toBeLessThanOrEqual(LARGEST_OPEN_DESKS);
      const open = (await data(`{ desks(first: 200, status: [OPEN]) { edges { node { id collateralRaw notionalRaw halted } } } }`)).desks.edges.map(
        (e: { node: any }) => e.node,
      );
      expect(open.length).toBe(stats.stats.desksOpen);
      expect(BigInt(summary.openCollateralUsdcRaw)).toBe(open.reduce((a: bigint, d: { collateralRaw: string }) => a + BigInt(d.collateralRaw), 0n));
      expect(BigInt(summary.openNotionalUsdcRaw)).toBe(open.reduce((a: bigint, d: { notionalRaw: string }) => a + BigInt(d.notionalRaw), 0n));
      expect(summary.openCollateralUsdc).toBe(formatDecimal(BigInt(summary.openCollateralUsdcRaw), 6));
      expect(summary.halted).toBe(open.filter((d: { halted: boolean }) => d.halted).length);
      // The deprecated openDesks is bounded: the same largest desks.
      expect(stats.stats.openDesks.map((x: { tokenAddress: string }) => x.tokenAddress)).toEqual(
        summary.largest.map((x: { tokenAddress: string }) => x.tokenAddress),
      );
    });

    it("lists tokens, enrolled or not, in pages", async () => {
      const all = await data(`{ tokens(first: 200) { edges { node { address enrollment { creator } } } } }`);
      const addresses = all.tokens.edges.map((e: { node: { address: string } }) => e.node.address);
      expect(addresses).toContain(s.token);
      expect(addresses).toContain(getAddress(h.protocolToken));
      const enrolled = await data(`{ tokens(first: 200, enrolled: true) { edges { node { address enrollment { creator } } } } }`);
      expect(enrolled.tokens.edges.every((e: { node: { enrollment: unknown } }) => e.node.enrollment !== null)).toBe(true);
      const paged: string[] = [];
      let after: string | null = null;
      for (;;) {
        const page: any = await data(
          `query($after: String) { tokens(first: 2, after: $after) { edges { node { address } } pageInfo { hasNextPage endCursor } } }`,
          { after },
        );
        paged.push(...page.tokens.edges.map((e: { node: { address: string } }) => e.node.address));
        if (!page.tokens.pageInfo.hasNextPage) break;
        after = page.tokens.pageInfo.endCursor;
      }
      expect(paged).toEqual(addresses);
      const backward: string[][] = [];
      let before: string | null = null;
      for (;;) {
        const page: any = await data(
          `query($before: String) { tokens(last: 2, before: $before) { edges { node { address } } pageInfo { hasPreviousPage startCursor } } }`,
          { before },
        );
        backward.unshift(page.tokens.edges.map((e: { node: { address: string } }) => e.node.address));
        if (!page.tokens.pageInfo.hasPreviousPage) break;
        before = page.tokens.pageInfo.startCursor;
      }
      expect(backward.flat()).toEqual(addresses);
      const counted = await data(`{ all: tokens(first: 1) { totalCount } enrolled: tokens(first: 1, enrolled: true) { totalCount } }`);
      expect(counted).toEqual({ all: { totalCount: addresses.length }, enrolled: { totalCount: enrolled.tokens.edges.length } });
    });

    it("runs the analyst queries of docs/api.md as written", async () => {
      const doc = readFileSync(new URL("../../../docs/api.md", import.meta.url), "utf8");
      const blocks = [...doc.matchAll(/```graphql\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split(/\n(?=#)/)).filter((q) => q.includes("{"));
      expect(blocks).toHaveLength(3);
      for (const q of blocks) {
        const d = await data(q.replaceAll("0xTokenAddress", s.token), undefined, "http");
        expect(Object.values(d)[0]).toBeTruthy();
      }
    });

    it("serves an agent's public record by id, and none for a token no agent launched", async () => {
      const { createAgent } = await import("../../../core/agents/store.js");
      await h.deps.agents!.services.ready();
      const agent = await createAgent(h.deps.agents!.services.pool, { owner: trader.account.address, secret: "test-agent-key-secret-0123456789abcdef" });
      const d = await data(
        `query($id: String!) { agent(idOrToken: $id) { id owner wallet status charter token { symbol } prospectus } none: agent(idOrToken: "nope") { id } token(address: "${s.token}") { agent { id } } }`,
        { id: agent.id },
        "http",
      );
      expect(d).toEqual({
        agent: { id: agent.id, owner: trader.account.address, wallet: agent.wallet, status: "draft", charter: null, token: null, prospectus: `/p/${agent.id}` },
        none: null,
        token: { agent: null },
      });

      // Once set, the charter is typed (charterReport) and holds what REST serves, field for field.
      const { charterSchema } = await import("../../../core/agents/charter.js");
      const { setCharter } = await import("../../../core/agents/store.js");
      const charter = charterSchema.parse({
        engine: { strategy: "hold" },
        persona: { name: "Ledger" },
        mandate: {
          split: { assetPct: 28.5, perpPct: 57, creatorPct: 9.5 },
          desk: { market: "BTC/USD", maxLeverage: 2.5, maxDrawdownPct: 15 },
          buybackMinUsdc: "7.50",
        },
      });
      await setCharter(h.deps.agents!.services.pool, agent.id, charter, "submit");
      const typed = await data(
        `query($id: String!) { agent(idOrToken: $id) { charter charterReport { version engine { strategy } persona { name voice }
           mandate { buybackMinUsdc split { assetPct perpPct creatorPct } desk { market maxLeverage maxDrawdownPct takeProfitPct } } } } }`,
        { id: agent.id },
        "http",
      );
      const { agent: served } = typed as { agent: { charter: unknown; charterReport: unknown } };
      expect(served.charterReport).toEqual(served.charter);
      expect(served.charterReport).toEqual({
        version: 1,
        engine: { strategy: "hold" },
        persona: { name: "Ledger", voice: "" },
        mandate: {
          buybackMinUsdc: "7.5",
          split: { assetPct: 28.5, perpPct: 57, creatorPct: 9.5 },
          desk: { market: "BTC/USD", maxLeverage: 2.5, maxDrawdownPct: 15, takeProfitPct: 10 },
        },
      });
    });

    it("batches the tokens of a page of burns (no N+1)", async () => {
      let selects = 0;
      const counting = new Proxy(h.deps.db, {
        get(target, prop, receiver) {
          if (prop === "select") selects++;
          return Reflect.get(target, prop, receiver);
        },
      }) as ReadDb;
      const app = h.appWith({ db: counting });
      const res = await app.request("http://api.test/graphql", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: `{ burns(first: 100) { edges { node { token { symbol enrollment { creator } totals { burns } } } } } }` }),
      });
      const body = await res.json();
      expect(body.errors).toBeUndefined();
      expect(body.data.burns.edges.length).toBeGreaterThan(10);
      expect(selects).toBe(2); // the burns, then every token at once
    });
  });

  describe("GraphQL limits and errors", () => {
    it("refuses pages over 200, backward paging and bad cursors as user errors", async () => {
      expect((await errors(`{ burns(first: 201) { edges { node { id } } } }`))[0]!.message).toBe("first must be an integer from 1 to 200");
      expect((await errors(`{ burns(first: 2, last: 5) { edges { node { id } } } }`))[0]!.message).toBe("give first or last, not both");
      expect((await errors(`{ burns(last: 0) { edges { node { id } } } }`))[0]!.message).toBe("last must be an integer from 1 to 200");
      const bad = await errors(`{ burns(after: "nope") { edges { node { id } } } }`, undefined, "http");
      expect(bad[0]).toMatchObject({ message: "invalid cursor", extensions: { code: "BAD_USER_INPUT" } });
      const other = (await data(`{ buybacks(first: 1) { pageInfo { endCursor } } }`)).buybacks.pageInfo.endCursor;
      expect((await errors(`query($c: String) { burns(after: $c) { edges { node { id } } } }`, { c: other }))[0]!.message).toBe("invalid cursor");
      expect((await errors(`{ token(address: "0x12") { name } }`, undefined, "http"))[0]).toMatchObject({
        message: /^address: expected a 0x-prefixed/,
        extensions: { code: "BAD_USER_INPUT" },
      });
      expect((await errors(`{ burns(filter: { fromBlock: "1.5" }) { edges { node { id } } } }`))[0]!.message).toMatch(/BigInt/);
      expect((await errors(`{ burns(filter: { from: "yesterday" }) { edges { node { id } } } }`))[0]!.message).toMatch(/DateTime/);
      expect((await errors(`{ burnTotals(groupBy: YEAR) { burns } }`))[0]!.message).toMatch(/YEAR/);
    });

    it("rejects deep, aliased and costly queries with clear errors", async () => {
      const deep = `{ burns { edges { node { token { burns { edges { node { token { burns { edges { node { id } } } } } } } } } } } }`;
      expect((await errors(deep, undefined, "http"))[0]!.message).toMatch(/depth limit of 10 exceeded/i);
      const aliases = `{ ${Array.from({ length: 16 }, (_, i) => `a${i}: health { status }`).join(" ")} }`;
      expect((await errors(aliases))[0]!.message).toMatch(/aliases limit of 15 exceeded/i);
      const costly = `{ tokens(first: 200) { edges { node { burns(first: 200) { edges { node { id amount } } } } } } }`;
      const [e] = await errors(costly, undefined, "http");
      expect(e).toMatchObject({ message: /^query complexity \d+ exceeds the limit of 10000/, extensions: { code: "QUERY_TOO_COMPLEX" } });
      // A full page of burns with their tokens is within budget.
      await data(`{ burns(first: 200) { edges { node { id amount token { symbol pool { priceUsdc } } } } } }`);
    });

    it("refuses oversized bodies with a JSON 413", async () => {
      const big = JSON.stringify({ query: `{ health { status } }${" ".repeat(70_000)}` });
      for (const over of ["memory", "http"] as const) {
        const a = await (over === "memory" ? h.call : h.fetch)("POST", "/graphql", { body: big, headers: { "content-type": "application/json" } });
        expect(a.status).toBe(413);
        expect(a.json).toEqual({ error: "body larger than 65536 bytes", code: "PAYLOAD_TOO_LARGE" });
      }
    });

    it("serves GraphiQL to a browser", async () => {
      const page = await h.fetch("GET", "/graphql", { headers: { accept: "text/html" } });
      expect(page.status).toBe(200);
      expect(page.text).toMatch(/graphiql/i);
    });
  });

  describe("GraphQL subscriptions over SSE", () => {
    async function subscribe(url: string, query: string, signal: AbortSignal) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ query }),
        signal,
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
      return sseEvents(res);
    }

    it("receives a burn made on the devnet, through ponder's server", async () => {
      const abort = new AbortController();
      try {
        const stream = await subscribe(
          `${h.url}/graphql`,
          `subscription { burnCreated(filter: { token: "${s.token}" }) { txHash amount kind tokenAddress token { symbol } } }`,
          abort.signal,
        );
        const first = stream.next();
        await new Promise((r) => setTimeout(r, 300)); // the subscription has taken its starting point
        const hash = await trader.write(s.token, erc20Abi, "transfer", [DEAD_ADDRESS, 123_000_000_000_000_000n]);
        const { value } = await first;
        expect(value.errors).toBeUndefined();
        expect(value.data.burnCreated).toEqual({ txHash: hash, amount: "0.123", kind: "ORGANIC", tokenAddress: s.token, token: { symbol: "ACAT" } });
      } finally {
        abort.abort();
      }
    });

    it("receives new activity of chosen kinds (in memory)", async () => {
      const abort = new AbortController();
      try {
        const res = await h.app.request("http://api.test/graphql", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ query: `subscription { activityCreated(kinds: [BURN], token: "${h.protocolToken}") { kind tokenAddress data } }` }),
          signal: abort.signal,
        });
        const stream = sseEvents(res);
        const first = stream.next();
        await new Promise((r) => setTimeout(r, 300));
        await trader.write(h.protocolToken, erc20Abi, "transfer", [DEAD_ADDRESS, 5n * 10n ** 17n]);
        const { value } = await first;
        expect(value.data.activityCreated).toMatchObject({ kind: "BURN", tokenAddress: getAddress(h.protocolToken), data: { amount: "0.5", kind: "organic" } });
      } finally {
        abort.abort();
      }
    });
  });
}
