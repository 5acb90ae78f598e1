/**
 * The public views (api/views/): each surface's shape of a resource is the view's. The item
 * schema, the JSON of a row, the export's columns and GraphQL's object fields all carry the
 * view's fields under the view's names. The values themselves are compared surface against
 * surface on the seeded devnet (test/api/seeded/export.ts, test/api/mcp.test.ts).
 */
// The CommonJS build of graphql-js: the copy Pothos builds the schema with under vitest.
import type { GraphQLObjectType } from "graphql/index.js";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { getAddress } from "viem";
import { describe, expect, it } from "vitest";
import { schema } from "../../api/graphql/index.js";
import { DATASETS } from "../../api/read/export.js";
import { burnSchema, burnView } from "../../api/views/burn.js";
import { type ViewFields, viewJson, viewKeys } from "../../api/views/view.js";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..", "..");

const row = {
  id: "0xabc-3",
  token: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984",
  kind: "organic",
  from: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
  txFrom: "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
  amount: 1_500_000_000_000_000_001n,
  txHash: `0x${"ab".repeat(32)}`,
  blockNumber: 12_345n,
  logIndex: 3,
  timestamp: 1_700_000_000n,
};

describe("the burn view", () => {
  it("writes a row as its schema says: checksummed addresses, an exact decimal beside the raw units, numbers, ISO time", () => {
    const json = viewJson(burnView, row);
    expect(burnSchema.parse(json)).toEqual(json);
    expect(Object.keys(json)).toEqual(viewKeys(burnView));
    expect(json).toMatchObject({
      token: getAddress(row.token),
      amount: "1.500000000000000001",
      amountRaw: "1500000000000000001",
      blockNumber: 12345,
      logIndex: 3,
      timestamp: "2023-11-14T22:13:20.000Z",
    });
  });

  it("is the export's columns, in order, then the cursor", () => {
    expect(DATASETS.burns.columns).toEqual([...viewKeys(burnView), "cursor"]);
  });

  it("is GraphQL's Burn: every field under its GraphQL name, with its description", () => {
    const burn = schema.getType("Burn") as GraphQLObjectType;
    const fields = burn.getFields();
    for (const [name, field] of Object.entries(burnView.fields as ViewFields)) {
      const key = field.graphqlName ?? name;
      expect(fields[key]?.description, key).toContain(field.description);
      if (field.kind === "amount") expect(fields[`${key}Raw`]?.type.toString(), `${key}Raw`).toBe("BigInt!");
    }
    expect(fields.blockNumber?.type.toString()).toBe("BigInt!");
    expect(fields.timestamp?.type.toString()).toBe("DateTime!");
    expect(fields.kind?.type.toString()).toBe("BurnKind!");
  });
});

describe("REST answers", () => {
  it("every 2xx JSON answer goes through respond(), which the compiler checks against the route's schema; c.json() is left to error answers", () => {
    const dir = join(ROOT, "api", "rest");
    const untyped: string[] = [];
    for (const name of readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "route.ts")) {
      const text = readFileSync(join(dir, name), "utf8");
      for (const m of text.matchAll(/c\.json\(([^;]*)/g)) {
        // An error answer names its status: 4xx or 5xx.
        if (!/,\s*[45]\d\d\b/.test(m[1]!)) untyped.push(`${name}: c.json(${m[1]!.slice(0, 60)}`);
      }
    }
    expect(untyped).toEqual([]);
    expect(readFileSync(join(dir, "market.ts"), "utf8")).toMatch(/respond\(c, burnsResponse,/);
  });
});
