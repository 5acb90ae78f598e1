/**
 * The exports (GET /api/v1/export/{burns|buybacks|fees|activity}.{csv,ndjson}) on the devnet's
 * indexed history: every dataset equals the GraphQL answer row for row (fields, order and
 * cursors), CSV and NDJSON carry the same cells, filters match GraphQL's, an export resumes
 * after any row's cursor, bad parameters are 400 `{ error, code }`. On a large synthetic burn
 * table: memory stays flat while streaming, and a client that stops reading stops the reads.
 */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReadDb } from "../../../api/deps.js";
import { ChunkWriter, EXPORT_PAGE, lineEncoder } from "../../../api/rest/export.js";
import { type Cell, DATASETS } from "../../../api/read/export.js";
import { BURN_ORDERINGS } from "../../../api/read/burns.js";
import { after as afterCursor, orderBy } from "../../../api/read/keyset.js";
import { encodeCursor } from "../../../api/http/cursor.js";
import { burn } from "../../../schema/ponder.js";
import { exportStreams } from "../../../api/read/export-stream.js";
import { burnView } from "../../../api/views/burn.js";
import { viewJson, viewKeys } from "../../../api/views/view.js";
import type { Harness } from "../harness.js";
import type { Scenario } from "../scenario.js";
import { seededWorld } from "./world.js";

let h: Harness;
let s: Scenario;

/** Registers the suite; its hooks and tests run inside the describe that calls it (test/api/seeded.test.ts). */
export function exportSuite(): void {
  beforeAll(async () => {
    ({ h, s } = seededWorld());
    await h.synced();
  }, 300_000);

  type Row = Record<string, unknown>;

  async function exportText(path: string, app = h.app): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await app.request(`http://api.test/api/v1${path}`);
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  async function ndjson(path: string): Promise<Row[]> {
    const a = await exportText(path);
    expect(a.status, a.text).toBe(200);
    expect(a.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    return a.text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Row);
  }

  /** RFC 4180: quoted cells with doubled quotes, CRLF line ends. */
  function parseCsv(text: string): string[][] {
    const rows: string[][] = [];
    let row: string[] = [];
    let cell = "";
    let quoted = false;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (quoted) {
        if (ch === '"' && text[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (ch === '"') quoted = false;
        else cell += ch;
      } else if (ch === '"') quoted = true;
      else if (ch === ",") {
        row.push(cell);
        cell = "";
      } else if (ch === "\r" && text[i + 1] === "\n") {
        row.push(cell);
        rows.push(row);
        row = [];
        cell = "";
        i++;
      } else cell += ch;
    }
    expect(cell, "the CSV ends with a line end").toBe("");
    return rows;
  }

  async function csv(path: string): Promise<{ header: string[]; rows: string[][] }> {
    const a = await exportText(path);
    expect(a.status, a.text).toBe(200);
    expect(a.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const [header, ...rows] = parseCsv(a.text);
    return { header: header!, rows };
  }

  /** Every edge of a GraphQL connection, paged through with `after`. */
  async function gqlAll(field: string, args: string, selection: string): Promise<{ cursor: string; node: Row }[]> {
    const edges: { cursor: string; node: Row }[] = [];
    let after: string | null = null;
    for (;;) {
      const a = await h.gql(
        `query($after: String) { ${field}(first: 200, after: $after${args ? `, ${args}` : ""}) { edges { cursor node { ${selection} } } pageInfo { hasNextPage endCursor } } }`,
        { after },
      );
      expect(a.json.errors, a.text).toBeUndefined();
      const conn = a.json.data[field];
      edges.push(...conn.edges);
      if (!conn.pageInfo.hasNextPage) return edges;
      after = conn.pageInfo.endCursor;
    }
  }

  const kindOf = (e: string) => e.toLowerCase().replace(/_/g, "-");
  const BURN_FIELDS = "id tokenAddress kind from txFrom amount amountRaw txHash blockNumber logIndex timestamp";
  const BUYBACK_FIELDS =
    "id tokenAddress kind usdcIn usdcInRaw pairedIn pairedInRaw spentCurrency spentSymbol spent spentRaw tokensBought tokensBoughtRaw tokensBurned tokensBurnedRaw txHash blockNumber logIndex timestamp";

  /** A GraphQL node as the export writes it: `token` for `tokenAddress`, kinds as stored, block numbers as numbers. */
  function asExported(edge: { cursor: string; node: Row }): Row {
    const { tokenAddress, kind, blockNumber, ...rest } = edge.node;
    return { ...rest, token: tokenAddress, kind: kindOf(kind as string), blockNumber: Number(blockNumber), cursor: edge.cursor };
  }

  /** CSV rows as NDJSON records (cells as text; JSON cells parsed). */
  function csvRecords(table: { header: string[]; rows: string[][] }): Row[] {
    return table.rows.map((cells) => Object.fromEntries(table.header.map((k, i) => [k, cells[i]])));
  }
  const asText = (row: Row): Row =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v)]));

  describe("the exports equal GraphQL, row for row", () => {
    it("burns: every field, the order and the cursors, in NDJSON and CSV", async () => {
      const expected = (await gqlAll("burns", "orderBy: OLDEST", BURN_FIELDS)).map(asExported);
      expect(expected.length).toBeGreaterThanOrEqual(3);
      const rows = await ndjson("/export/burns.ndjson");
      expect(rows).toEqual(expected);
      // Key order too: the documented columns.
      expect(Object.keys(rows[0]!)).toEqual([
        "id",
        "token",
        "kind",
        "from",
        "txFrom",
        "amount",
        "amountRaw",
        "txHash",
        "blockNumber",
        "logIndex",
        "timestamp",
        "cursor",
      ]);
      const table = await csv("/export/burns.csv");
      expect(table.header).toEqual(Object.keys(rows[0]!));
      expect(csvRecords(table)).toEqual(rows.map(asText));
      // Newest first: GraphQL's default order, and its cursors.
      const newest = (await gqlAll("burns", "", BURN_FIELDS)).map(asExported);
      expect(await ndjson("/export/burns.ndjson?order=newest")).toEqual(newest);
    });

    it("burns: REST's items (GET /burns/{token}) are the export's rows, each field the same, with their valuations beside (one view: api/views/burn.ts)", async () => {
      const exported = (await ndjson(`/export/burns.ndjson?token=${s.token}&order=newest`)).map(({ cursor, ...row }) => row);
      expect(exported.length).toBeGreaterThanOrEqual(2);
      const res = await h.app.request(`http://api.test/api/v1/burns/${s.token}?limit=200`);
      expect(res.status).toBe(200);
      const items = ((await res.json()) as { items: Row[] }).items;
      const keys = viewKeys(burnView);
      expect(items.map((item) => Object.fromEntries(keys.map((k) => [k, item[k]])))).toEqual(exported);
      expect(Object.keys(items[0]!)).toEqual(expect.arrayContaining(["valueUsdc", "valueUsdcRaw", "priceUsdcAtBurn"]));
    });

    it("buybacks: every field, both currencies' decimals", async () => {
      const expected = (await gqlAll("buybacks", "orderBy: OLDEST", BUYBACK_FIELDS)).map((e) => {
        const r = asExported(e);
        // The export names the bought token `token`; GraphQL's spentCurrency is already checksummed.
        return r;
      });
      expect(expected.length).toBeGreaterThanOrEqual(2);
      const rows = await ndjson("/export/buybacks.ndjson");
      expect(rows).toEqual(expected);
      expect(csvRecords(await csv("/export/buybacks.csv"))).toEqual(rows.map(asText));
    });

    it("buybacks and fees: newest first is oldest first reversed, in NDJSON and CSV", async () => {
      const strip = ({ cursor: _c, ...r }: Row) => r;
      for (const name of ["buybacks", "fees"]) {
        const oldest = await ndjson(`/export/${name}.ndjson`);
        const newest = await ndjson(`/export/${name}.ndjson?order=newest`);
        expect(oldest.length, name).toBeGreaterThanOrEqual(2);
        expect(newest.map(strip), name).toEqual(oldest.map(strip).reverse());
        expect(csvRecords(await csv(`/export/${name}.csv?order=newest`)), name).toEqual(newest.map(asText));
      }
    });

    it("activity: every kind with its data and raw data, newest first as GraphQL and oldest first reversed", async () => {
      const expected = (await gqlAll("activity", "", "id kind tokenAddress txHash blockNumber logIndex timestamp data rawData")).map(asExported);
      expect(expected.length).toBeGreaterThan(5);
      expect(await ndjson("/export/activity.ndjson?order=newest")).toEqual(expected);
      const oldest = await ndjson("/export/activity.ndjson");
      const strip = ({ cursor: _c, ...r }: Row) => r;
      expect(oldest.map(strip)).toEqual(expected.map(strip).reverse());
      const table = await csv("/export/activity.csv");
      expect(csvRecords(table)).toEqual(oldest.map(asText));
      // The JSON cells are quoted (they hold commas and quotes) and parse back.
      expect(JSON.parse(table.rows[0]![table.header.indexOf("data")]!)).toEqual(oldest[0]!.data);
    });

    it("fees: one row per collected reward slot and currency, as GraphQL's fees-collected activity lists them", async () => {
      const collected = await gqlAll("activity", "kinds: [FEES_COLLECTED]", "txHash logIndex blockNumber timestamp tokenAddress data rawData");
      const expected = collected
        .flatMap((e) => {
          const data = (e.node.data as { collected: Row[] }).collected;
          const raw = (e.node.rawData as { collected: Row[] }).collected;
          return data.map((d, i) => ({
            token: e.node.tokenAddress,
            txHash: e.node.txHash,
            blockNumber: Number(e.node.blockNumber),
            timestamp: e.node.timestamp,
            rewardIndex: d.rewardIndex,
            recipient: d.recipient,
            currency: d.currency,
            amount: d.amount,
            amountRaw: raw[i]!.amount,
          }));
        })
        .sort((a, b) => a.blockNumber - b.blockNumber || `${a.txHash}${a.rewardIndex}${a.currency}`.localeCompare(`${b.txHash}${b.rewardIndex}${b.currency}`));
      expect(expected.length).toBeGreaterThan(0);
      const rows = await ndjson("/export/fees.ndjson");
      const picked = rows
        .map((r) => ({
          token: r.token,
          txHash: r.txHash,
          blockNumber: r.blockNumber,
          timestamp: r.timestamp,
          rewardIndex: r.rewardIndex,
          recipient: r.recipient,
          currency: r.currency,
          amount: r.amount,
          amountRaw: r.amountRaw,
        }))
        .sort(
          (a, b) =>
            (a.blockNumber as number) - (b.blockNumber as number) ||
            `${a.txHash}${a.rewardIndex}${a.currency}`.localeCompare(`${b.txHash}${b.rewardIndex}${b.currency}`),
        );
      expect(picked).toEqual(expected);
      // The operator's slot is named as such; the decimals are the currency's.
      const operator = h.deps.config.operator!.toLowerCase();
      for (const r of rows) {
        expect(r.role).toBe((r.recipient as string).toLowerCase() === operator ? "operator" : r.role);
        expect(r.decimals).toBe((r.symbol as string) === "USDC" ? 6 : 18);
      }
      expect(rows.some((r) => r.role === "operator")).toBe(true);
      expect(csvRecords(await csv("/export/fees.csv"))).toEqual(rows.map(asText));
    });
  });

  describe("filters, as GraphQL's", () => {
    it("token, kinds, block range and time range give what GraphQL gives for the same filter", async () => {
      const all = (await gqlAll("burns", "orderBy: OLDEST", BURN_FIELDS)).map(asExported);
      const mid = all[Math.floor(all.length / 2)]!;
      const cases: [string, string][] = [
        [`token=${s.token}`, `filter: { token: "${s.token}" }`],
        ["kind=organic,creator-buyback", "filter: { kinds: [ORGANIC, CREATOR_BUYBACK] }"],
        [`fromBlock=${mid.blockNumber}`, `filter: { fromBlock: "${mid.blockNumber}" }`],
        [`toBlock=${mid.blockNumber}`, `filter: { toBlock: "${mid.blockNumber}" }`],
        [`from=${mid.timestamp}`, `filter: { from: "${mid.timestamp}" }`],
        [`to=${mid.timestamp}`, `filter: { to: "${mid.timestamp}" }`],
        [
          `token=${s.token}&kind=organic&fromBlock=1&to=2100-01-01T00:00:00Z`,
          `filter: { token: "${s.token}", kinds: [ORGANIC], fromBlock: "1", to: "2100-01-01T00:00:00Z" }`,
        ],
      ];
      for (const [query, filter] of cases) {
        const expected = (await gqlAll("burns", `orderBy: OLDEST, ${filter}`, BURN_FIELDS)).map(asExported);
        expect(await ndjson(`/export/burns.ndjson?${query}`), query).toEqual(expected);
      }
      const protocol = (await gqlAll("buybacks", "orderBy: OLDEST, filter: { kinds: [PROTOCOL_BUYBACK] }", BUYBACK_FIELDS)).map(asExported);
      expect(protocol.length).toBeGreaterThan(0);
      expect(await ndjson("/export/buybacks.ndjson?kind=protocol-buyback")).toEqual(protocol);
      const burnActivity = (
        await gqlAll("activity", `kinds: [BURN], token: "${s.token}"`, "id kind tokenAddress txHash blockNumber logIndex timestamp data rawData")
      ).map(asExported);
      expect(await ndjson(`/export/activity.ndjson?order=newest&kind=burn&token=${s.token}`)).toEqual(burnActivity);
      // Nothing matches: a CSV with its header alone.
      const none = await csv(`/export/burns.csv?fromBlock=${10n ** 12n}`);
      expect(none.header[0]).toBe("id");
      expect(none.rows).toEqual([]);
    });
  });

  describe("resuming", () => {
    it("limit, then after=<the last row's cursor>, pieces together the whole export, in both orders", async () => {
      for (const order of ["oldest", "newest"]) {
        const whole = await ndjson(`/export/activity.ndjson?order=${order}`);
        const pieces: Row[] = [];
        let after = "";
        for (;;) {
          const part = await ndjson(`/export/activity.ndjson?order=${order}&limit=3${after ? `&after=${after}` : ""}`);
          pieces.push(...part);
          if (part.length < 3) break;
          after = part.at(-1)!.cursor as string;
        }
        expect(pieces).toEqual(whole);
      }
    });

    it("a cursor of another order or dataset is a 400", async () => {
      const [first] = await ndjson("/export/burns.ndjson?limit=1");
      const a = await exportText(`/export/burns.ndjson?order=newest&after=${first!.cursor}`);
      expect(a.status).toBe(400);
      expect(JSON.parse(a.text)).toEqual({ error: "invalid cursor", code: "BAD_REQUEST" });
      expect((await exportText(`/export/fees.csv?after=${first!.cursor}`)).status).toBe(400);
    });
  });

  describe("the answer", () => {
    it("names a file, is not cached, and has one header row", async () => {
      const a = await exportText("/export/buybacks.csv");
      expect(a.headers.get("content-disposition")).toBe('attachment; filename="buybacks.csv"');
      expect(a.headers.get("cache-control")).toBe("no-store");
      expect(a.text.split("\r\n").filter((l) => l.startsWith("id,")).length).toBe(1);
      const n = await exportText("/export/fees.ndjson");
      expect(n.headers.get("content-disposition")).toBe('attachment; filename="fees.ndjson"');
    });

    it("bad parameters are 400 { error, code }, never a 500", async () => {
      const bad = [
        "/export/burns.csv?kind=rugpull",
        "/export/burns.csv?token=0xzz",
        "/export/burns.csv?after=!!!",
        "/export/burns.csv?from=yesterday",
        "/export/burns.csv?from=2025-02-01T00:00:00Z&to=2025-01-01T00:00:00Z",
        "/export/burns.csv?fromBlock=10&toBlock=9",
        "/export/burns.csv?fromBlock=-1",
        "/export/burns.csv?limit=0",
        "/export/burns.csv?order=largest",
        "/export/burns.csv?limit=1&limit=2",
        "/export/burns.csv?colour=blue",
        "/export/fees.ndjson?kind=organic",
        "/export/buybacks.ndjson?kind=organic",
      ];
      for (const path of bad) {
        const a = await exportText(path);
        expect(a.status, `${path}: ${a.text}`).toBe(400);
        const body = JSON.parse(a.text);
        expect(body.code).toBe("BAD_REQUEST");
        expect(typeof body.error).toBe("string");
      }
      expect((await exportText("/export/burns.xlsx")).status).toBe(404);
    });

    it("over HTTP from the ponder process, as a client downloads it", async () => {
      const res = await fetch(`${h.url}/api/v1/export/burns.csv?order=newest`);
      expect(res.status).toBe(200);
      const local = await exportText("/export/burns.csv?order=newest");
      expect(await res.text()).toBe(local.text);
    });
  });

  describe("lines built by PostgreSQL (COPY) equal the API's own formatting, byte for byte", () => {
    let pool: pg.Pool;
    let db: ReadDb;
    const DEAD = "0x000000000000000000000000000000000000dead";

    beforeAll(async () => {
      // Edge values in a copy of the burn table: text that CSV must quote and JSON must escape,
      // amounts from 0 and 1 base unit to 78 digits (and a negative one), times from 1970 to 9999.
      await h.query("DROP SCHEMA IF EXISTS edge CASCADE");
      await h.query("CREATE SCHEMA edge");
      await h.query("CREATE TABLE edge.burn (LIKE app.burn INCLUDING ALL)");
      const ids = ["plain-1", 'quote"d', "com,ma", "back\\slash", "new\nline", "carriage\rreturn", "tab\there", "ctl\u0001x", "ünïcödé-✓-😀", "", "'single'"];
      const amounts = [
        "0",
        "1",
        "999999999999999999",
        "1000000000000000000",
        "1000000000000000001",
        "123456789012345678901234567890",
        `${"9".repeat(78)}`,
        "-1",
        "-1500000000000000000",
      ];
      const times = ["0", "1", "1700000000", "253402300799"];
      const rows = ids.map((id, i) => [
        id,
        i % 2 ? DEAD : "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
        i % 3 ? "organic" : 'we"ird,kind',
        `0x${(i + 1).toString(16).padStart(40, "a")}`,
        `0x${(i * 7919).toString(16).padStart(40, "f")}`,
        amounts[i % amounts.length],
        `0x${i.toString(16).padStart(64, "0")}`,
        String(10 ** 12 + i),
        String(i % 3),
        times[i % times.length],
      ]);
      for (const r of rows)
        await h.query(
          `INSERT INTO edge.burn (id, token, kind, "from", tx_from, amount, tx_hash, block_number, log_index, timestamp) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          r,
        );
      // The remaining amounts on rows of their own.
      for (const [i, amount] of amounts.entries())
        await h.query(
          `INSERT INTO edge.burn (id, token, kind, "from", tx_from, amount, tx_hash, block_number, log_index, timestamp) VALUES ($1, $2, 'organic', $2, $2, $3, $4, $5, 0, $6)`,
          [`amount-${i}`, DEAD, amount, `0x${"ab".repeat(32)}`, String(2 * 10 ** 12 + i), times[i % times.length]],
        );
      pool = new pg.Pool({ connectionString: h.databaseUrl, max: 2, options: "-c search_path=edge,app" });
      db = drizzle(pool, { casing: "snake_case" }) as unknown as ReadDb;
    }, 60_000);
    afterAll(async () => {
      await pool?.end();
      await h?.query("DROP SCHEMA IF EXISTS edge CASCADE");
    });

    /**
     * The burns as the API's JavaScript writes them, the reference the SQL is held to: the rows
     * read by drizzle (amounts as bigint), each the burn view's JSON (`viewJson`: formatDecimal,
     * checksums, isoTime) with its cursor (`encodeCursor`), encoded by lineEncoder.
     */
    async function reference(format: "csv" | "ndjson", order: "oldest" | "newest", after?: string, on: ReadDb = db): Promise<string> {
      const ordering = BURN_ORDERINGS[order === "oldest" ? "OLDEST" : "NEWEST"];
      const rows = await on
        .select()
        .from(burn)
        .where(after ? afterCursor(ordering, after) : undefined)
        .orderBy(...orderBy(ordering));
      const records = rows.map((r) => [...Object.values(viewJson(burnView, r)), encodeCursor(ordering.name, ordering.key(r))] as Cell[]);
      return encoded(format, DATASETS.burns.columns, records);
    }

    function encoded(format: "csv" | "ndjson", columns: readonly string[], records: Cell[][]): string {
      const writer = new ChunkWriter();
      if (format === "csv") writer.text(`${columns.join(",")}\r\n`);
      const encode = lineEncoder(format, columns);
      for (const record of records) encode(record, writer);
      return Buffer.concat(writer.take()).toString("utf8");
    }

    it("CSV and NDJSON, both orders, and resumed after a cursor", async () => {
      const app = h.appWith({ db });
      for (const format of ["csv", "ndjson"] as const) {
        for (const order of ["oldest", "newest"] as const) {
          const res = await app.request(`http://api.test/api/v1/export/burns.${format}?order=${order}`);
          expect(res.status).toBe(200);
          const got = await res.text();
          const expected = await reference(format, order);
          expect(expected.split("\n").length).toBeGreaterThan(15);
          expect(got).toBe(expected);
          // Resumed after the fifth row's cursor: the rest, as the reference writes it.
          const fifth = (JSON.parse((await reference("ndjson", order)).split("\n")[4]!) as Row).cursor as string;
          const rest = await app.request(`http://api.test/api/v1/export/burns.${format}?order=${order}&after=${fifth}`);
          expect(await rest.text()).toBe(await reference(format, order, fifth));
          const limited = await app.request(`http://api.test/api/v1/export/burns.${format}?order=${order}&limit=3`);
          expect((await limited.text()).split("\n").filter(Boolean).length).toBe(format === "csv" ? 4 : 3);
        }
      }
      expect(exportStreams()).toBe(0);
      expect(pool.totalCount - pool.idleCount).toBe(0);
    }, 60_000);

    it("a database in another encoding (LATIN1) exports through COPY, its text as UTF-8", async () => {
      // Binary COPY sends text through the client's encoding (node-postgres asks for UTF-8), so one path serves every server encoding.
      const name = "export_latin1";
      await h.query(`DROP DATABASE IF EXISTS ${name}`);
      await h.query(`CREATE DATABASE ${name} ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0`);
      const url = new URL(h.databaseUrl);
      url.pathname = `/${name}`;
      const latinPool = new pg.Pool({ connectionString: url.toString(), max: 3 });
      try {
        const columns = await h.query<{ name: string; type: string }>(
          "SELECT attname AS name, format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'app.burn'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
        );
        await latinPool.query(`CREATE TABLE burn (${columns.map((c) => `"${c.name}" ${c.type}`).join(", ")})`);
        expect((await latinPool.query("SELECT current_setting('server_encoding') AS e")).rows[0].e).toBe("LATIN1");
        // The edge rows LATIN1 can hold, and one of its own with accented text in every text column.
        const latin1 = /^[\u0000-\u00ff]*$/;
        const edge = await h.query<Record<string, string>>("SELECT * FROM edge.burn");
        const names = columns.map((c) => c.name);
        const kept = edge.filter((r) => names.every((n) => r[n] === null || latin1.test(String(r[n]))));
        const rows = [...kept, { ...kept[0]!, id: "latïn-ü", kind: "brûlé", block_number: "3000000000000" }];
        for (const r of rows)
          await latinPool.query(
            `INSERT INTO burn (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
            names.map((n) => r[n]),
          );
        const latinDb = drizzle(latinPool, { casing: "snake_case" }) as unknown as ReadDb;
        const app = h.appWith({ db: latinDb });
        for (const format of ["csv", "ndjson"] as const) {
          const res = await app.request(`http://api.test/api/v1/export/burns.${format}`);
          expect(res.status).toBe(200);
          const text = await res.text();
          expect(text).toContain("brûlé");
          expect(text).toBe(await reference(format, "oldest", undefined, latinDb));
        }
      } finally {
        await latinPool.end();
        await h.query(`DROP DATABASE IF EXISTS ${name}`);
      }
    }, 60_000);

    it("a filter's text reaches the COPY as a literal, never as SQL", async () => {
      const app = h.appWith({ db });
      // A cursor is the one free text of a query: one that decodes to a quote-laden key is refused (its keys are integers), not run.
      const evil = Buffer.from(JSON.stringify(["burn-oldest", "1'); DROP TABLE edge.burn; --", "0"])).toString("base64url");
      expect((await app.request(`http://api.test/api/v1/export/burns.csv?after=${evil}`)).status).toBe(400);
      const res = await app.request(`http://api.test/api/v1/export/burns.ndjson?token=${DEAD}&kind=organic`);
      const rows = (await res.text())
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.token === "0x000000000000000000000000000000000000dEaD" && r.kind === "organic")).toBe(true);
      expect((await h.query("SELECT count(*)::int AS n FROM edge.burn"))[0]!.n).toBeGreaterThan(15);
    }, 60_000);
  });

  describe("a large table", () => {
    const ROWS = 150_000;
    const SAMPLE_BYTES = 10 * 256 * 1024;
    let pool: pg.Pool;
    let db: ReadDb;
    let selects = 0;
    let socket: { bytesRead: number } | undefined;
    let bytesAtStart = 0;

    beforeAll(async () => {
      // A copy of the burn table's shape in its own schema, filled with synthetic rows.
      await h.query("DROP SCHEMA IF EXISTS synth CASCADE");
      await h.query("CREATE SCHEMA synth");
      await h.query("CREATE TABLE synth.burn (LIKE app.burn INCLUDING ALL)");
      await h.query(
        `INSERT INTO synth.burn (id, token, "from", amount, kind, tx_hash, tx_from, block_number, log_index, timestamp)
       SELECT 'b-' || g, '0x' || lpad(to_hex(g % 50 + 1), 40, '0'), '0x' || lpad(to_hex(g % 5000 + 4096), 40, '0'),
              (g::numeric * 1000000000000000000 + 123456789), 'organic', '0x' || lpad(to_hex(g), 64, '0'),
              '0x' || lpad(to_hex(g % 5000 + 4096), 40, '0'), g / 10, g % 10, 1700000000 + g
       FROM generate_series(1, $1) AS g`,
        [ROWS],
      );
      // The activity feed (read through the cursor) the same size: one burn fact per row, ids in chain order.
      await h.query("CREATE TABLE synth.activity (LIKE app.activity INCLUDING ALL)");
      await h.query(
        `INSERT INTO synth.activity (id, kind, token, tx_hash, block_number, log_index, timestamp, data)
       SELECT lpad((g / 10)::text, 12, '0') || '-' || lpad((g % 10)::text, 6, '0'), 'burn', '0x' || lpad(to_hex(g % 50 + 1), 40, '0'),
              '0x' || lpad(to_hex(g), 64, '0'), g / 10, g % 10, 1700000000 + g,
              json_build_object('from', '0x' || lpad(to_hex(g % 5000 + 4096), 40, '0'), 'amount', (g::numeric * 1000000000000000000 + 123456789)::text)
       FROM generate_series(1, $1) AS g`,
        [ROWS],
      );
      await h.query("ANALYZE synth.burn");
      await h.query("ANALYZE synth.activity");
      pool = new pg.Pool({ connectionString: h.databaseUrl, max: 2, options: "-c search_path=synth,app" });
      const inner = drizzle(pool, { casing: "snake_case" }) as unknown as ReadDb;
      // Counts the reads: a burn export is one COPY on a connection of the db's pool (whose socket's bytes are counted too).
      const counted = new WeakSet<pg.PoolClient>();
      const connector = {
        connect: async () => {
          const client = await pool.connect();
          if (!counted.has(client)) {
            counted.add(client);
            const query = client.query.bind(client) as (...args: unknown[]) => unknown;
            (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
              const text = typeof args[0] === "string" ? args[0] : (args[0] as { text?: string }).text;
              if (text?.startsWith("FETCH") || text?.startsWith("COPY")) {
                selects++;
                socket = (client as unknown as { connection: { stream: { bytesRead: number } } }).connection.stream;
                bytesAtStart = socket.bytesRead;
              }
              return query(...args);
            };
          }
          return client;
        },
      };
      db = new Proxy(inner, {
        get: (target, key, receiver) => (key === "$client" ? connector : Reflect.get(target, key, receiver)),
      });
    }, 240_000);
    afterAll(async () => {
      await pool?.end();
      await h?.query("DROP SCHEMA IF EXISTS synth CASCADE");
    });

    // The two ways an export reads: burns' lines built by PostgreSQL (COPY), the activity feed through a cursor.
    for (const [path, dataset] of [
      ["copy", "burns"],
      ["cursor", "activity"],
    ] as const) {
      describe(path, () => {
        const lastId = dataset === "burns" ? `b-${ROWS}` : `${String(ROWS / 10).padStart(12, "0")}-000000`;

        it(`${path}: streams every row with memory flat`, async () => {
          // A collected heap between samples: what the export keeps, not what it has not freed yet.
          setFlagsFromString("--expose-gc");
          const gc = runInNewContext("gc") as () => void;
          const app = h.appWith({ db });
          const res = await app.request(`http://api.test/api/v1/export/${dataset}.ndjson`);
          expect(res.status).toBe(200);
          const reader = res.body!.getReader();
          const decoder = new TextDecoder();
          let lines = 0;
          let tail = "";
          let last = "";
          /** Bytes received, and where the next heap sample is due. */
          let bytes = 0;
          let sampleAt = SAMPLE_BYTES;
          const heap: number[] = [];
          const rssBase = process.memoryUsage().rss;
          let rssPeak = rssBase;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            const text = tail + decoder.decode(value, { stream: true });
            const parts = text.split("\n");
            tail = parts.pop()!;
            lines += parts.length;
            if (parts.length) last = parts.at(-1)!;
            // A sample every 2.5 MB (ten of the cursor path's chunks; COPY's are what the socket holds, often smaller).
            bytes += value.length;
            if (bytes >= sampleAt) {
              sampleAt += SAMPLE_BYTES;
              gc();
              heap.push(process.memoryUsage().heapUsed);
            }
            rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
          }
          expect(lines).toBe(ROWS);
          expect(JSON.parse(last).id).toBe(lastId);
          // From the first sample (a few pages in) to the last, the live heap does not grow with the
          // rows streamed: the whole export held at once would be ~150k row objects and ~60 MB of text.
          const growthMb = (Math.max(...heap) - heap[0]!) / 2 ** 20;
          console.log(
            `${path} export of ${ROWS} rows: live heap growth ${growthMb.toFixed(1)} MB over ${heap.length} samples; RSS growth ${((rssPeak - rssBase) / 2 ** 20).toFixed(1)} MB (uncollected garbage included)`,
          );
          expect(heap.length).toBeGreaterThan(5);
          expect(growthMb).toBeLessThan(16);
        }, 240_000);

        it(`${path}: a client that stops reading stops the reads (backpressure)`, async () => {
          const app = h.appWith({ db });
          selects = 0;
          const res = await app.request(`http://api.test/api/v1/export/${dataset}.csv`);
          const reader = res.body!.getReader();
          await reader.read();
          await new Promise((r) => setTimeout(r, 1_000));
          if (path === "cursor") {
            // The first batch, and at most one or two read ahead: not the table's 150 batches.
            expect(selects).toBeGreaterThanOrEqual(1);
            expect(selects).toBeLessThanOrEqual(3);
          } else {
            // One COPY; the client not reading, the API stops reading its socket and the server waits to send.
            expect(selects).toBe(1);
            const read = socket!.bytesRead - bytesAtStart;
            await new Promise((r) => setTimeout(r, 1_000));
            expect(socket!.bytesRead - bytesAtStart).toBe(read);
            // What was read: a few socket buffers, not the table's ~40 MB.
            expect(read).toBeLessThan(4 * 2 ** 20);
            const waiting = await h.query<{ wait: string | null }>(
              "SELECT wait_event AS wait FROM pg_stat_activity WHERE query LIKE 'COPY (%' AND state <> 'idle' AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
            );
            expect(waiting.map((w) => w.wait)).toEqual(["ClientWrite"]);
          }
          expect(ROWS / EXPORT_PAGE).toBeGreaterThan(20);
          expect(exportStreams()).toBe(1);
          await reader.cancel();
          // Cancelled: the cursor or COPY is ended and its connection back in the pool (or discarded).
          expect(exportStreams()).toBe(0);
          expect(pool.totalCount - pool.idleCount).toBe(0);
          expect(pool.waitingCount).toBe(0);
        }, 60_000);

        it(`${path}: a cancelled download leaves no transaction open, and the next export reads every row`, async () => {
          const app = h.appWith({ db });
          for (let i = 0; i < 3; i++) {
            const res = await app.request(`http://api.test/api/v1/export/${dataset}.ndjson`);
            const reader = res.body!.getReader();
            await reader.read();
            await reader.read();
            await reader.cancel();
          }
          expect(exportStreams()).toBe(0);
          // A discarded connection's backend ends as its socket closes: within moments.
          let open = 1;
          for (let i = 0; i < 50 && open > 0; i++) {
            open = (
              await h.query(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE (query LIKE 'FETCH FORWARD % FROM export_rows' OR query LIKE 'COPY (%') AND state <> 'idle' AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
              )
            )[0]!.n as number;
            if (open) await new Promise((r) => setTimeout(r, 100));
          }
          expect(open).toBe(0);
          const res = await app.request(`http://api.test/api/v1/export/${dataset}.csv?fromBlock=14000`);
          const lines = (await res.text()).split("\r\n").filter(Boolean);
          // The header, then block 14000 (rows 140000..140009) to the end.
          expect(lines.length).toBe(1 + ROWS - 140_000 + 1);
          expect(pool.totalCount - pool.idleCount).toBe(0);
        }, 120_000);

        it(`${path}: more exports at once than the server streams is a 503 DATABASE_BUSY, and a slot frees when one ends`, async () => {
          const app = h.appWith({ db });
          const a = await app.request(`http://api.test/api/v1/export/${dataset}.csv`);
          const b = await app.request(`http://api.test/api/v1/export/${dataset}.csv`);
          expect([a.status, b.status]).toEqual([200, 200]);
          const busy = await app.request(`http://api.test/api/v1/export/${dataset}.csv`);
          expect(busy.status).toBe(503);
          expect(await busy.json()).toEqual({ error: expect.stringContaining("exports are streaming"), code: "DATABASE_BUSY" });
          expect(busy.headers.get("retry-after")).toBe("10");
          await a.body!.cancel();
          const c = await app.request(`http://api.test/api/v1/export/${dataset}.csv?limit=5`);
          expect((await c.text()).split("\r\n").filter(Boolean).length).toBe(6);
          await b.body!.cancel();
          expect(exportStreams()).toBe(0);
        }, 60_000);
      });
    }
  });

  describe("a client that disconnects over HTTP", () => {
    const ROWS = 60_000;
    const PREFIX = "synthetic-disconnect-";

    afterAll(async () => {
      const client = new pg.Client({ connectionString: h.databaseUrl, options: "-c search_path=app" });
      await client.connect();
      await client.query("SET session_replication_role = replica");
      await client.query(`DELETE FROM burn WHERE id LIKE '${PREFIX}%'`);
      await client.end();
    });

    it("ends the export's COPY in the ponder process, and a second export there reads every row", async () => {
      // Rows in the indexed table itself, after the history (triggers off: ponder's live notices are not wanted).
      const client = new pg.Client({ connectionString: h.databaseUrl, options: "-c search_path=app" });
      await client.connect();
      await client.query("SET session_replication_role = replica");
      await client.query(
        `INSERT INTO burn (id, token, "from", amount, kind, tx_hash, tx_from, block_number, log_index, timestamp)
       SELECT $1 || g, $2, '0x' || lpad(to_hex(g % 500 + 4096), 40, '0'), (g::numeric * 1000000000000000000 + 7), 'organic',
              '0x' || lpad(to_hex(g), 64, '0'), '0x' || lpad(to_hex(g % 500 + 4096), 40, '0'), 10000000000 + g, 0, 1900000000 + g
       FROM generate_series(1, $3) AS g`,
        [PREFIX, s.token.toLowerCase(), ROWS],
      );
      await client.end();
      const streaming = async () =>
        (
          await h.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'COPY (%' AND state <> 'idle' AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
          )
        )[0]!.n as number;

      const abort = new AbortController();
      const res = await fetch(`${h.url}/api/v1/export/burns.csv?fromBlock=10000000000`, { signal: abort.signal });
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      await reader.read();
      // Mid-way: the server's COPY waits for the client.
      expect(await streaming()).toBe(1);
      abort.abort();
      await reader.cancel().catch(() => {});
      let open = 1;
      for (let i = 0; i < 50 && open > 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        open = await streaming();
      }
      expect(open, "the COPY ended after the disconnect").toBe(0);

      const whole = await fetch(`${h.url}/api/v1/export/burns.csv?fromBlock=10000000000`);
      expect(whole.status).toBe(200);
      const lines = (await whole.text()).split("\r\n").filter(Boolean);
      expect(lines.length).toBe(ROWS + 1);
      expect(await streaming()).toBe(0);
    }, 120_000);
  });
}
