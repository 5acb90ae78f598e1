/**
 * docs/glossary.md "Public figures": one name per figure. Both tables are read from the
 * glossary and held to what is served: every REST name is in the OpenAPI document's answer
 * and every GraphQL name in the schema, none of them deprecated; every figure of GET /stats and
 * of a token's `totals` and `pending` is in a table, so a new figure cannot arrive unnamed; and
 * each of their amounts has its base units beside it (`<name>Raw`).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
// The CommonJS build of graphql-js: the copy Pothos builds the schema with under vitest.
import { type GraphQLField, type GraphQLNamedType, getNamedType, isObjectType } from "graphql/index.js";
import { describe, expect, it } from "vitest";
import { REST_ROUTES } from "../../api/create-app.js";
import { schema } from "../../api/graphql/index.js";
import { openApiDocument } from "../../api/openapi/document.js";

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  deprecated?: boolean;
  pattern?: string;
};

const ROOT = join(import.meta.dirname, "..", "..");
const glossary = readFileSync(join(ROOT, "docs", "glossary.md"), "utf8");
const document = openApiDocument(REST_ROUTES) as unknown as {
  paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: JsonSchema }> }> } }>;
  components?: { schemas?: Record<string, JsonSchema> };
};

/** A table of the section: its rows' REST names and GraphQL names, and the groups a "…" cell covers whole. */
function table(header: string) {
  const section = glossary.slice(glossary.indexOf("## Public figures"));
  const lines = section.slice(section.indexOf(header)).split("\n");
  const rows = lines.slice(
    2,
    lines.findIndex((l, i) => i > 1 && !l.startsWith("|")),
  );
  const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  const parent = (path: string) => path.split(".").slice(0, -1).join(".");
  const rest: string[] = [];
  const graphql: string[] = [];
  const wholeGroups: string[] = [];
  for (const row of rows) {
    const [, , restCell, graphqlCell] = row.split("|").map((c) => c.trim());
    rest.push(...names(restCell!));
    graphql.push(...names(graphqlCell!));
    if (restCell!.includes("…")) wholeGroups.push(parent(names(restCell!)[0]!));
  }
  expect(rows.length, header).toBeGreaterThan(5);
  return { rest, graphql, wholeGroups };
}

const resolve = (s: JsonSchema): JsonSchema => {
  if (s.$ref) return resolve(document.components!.schemas![s.$ref.replace("#/components/schemas/", "")]!);
  const object = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].map(resolve).find((o) => o.properties || o.items);
  return object ?? s;
};

const answer = (path: string) => resolve(document.paths[path]!.get.responses["200"]!.content["application/json"]!.schema);

/** The schema of a dotted path under `root`, or undefined. */
function restField(root: JsonSchema, path: string): JsonSchema | undefined {
  let at: JsonSchema | undefined = root;
  for (const key of path.split(".")) at = at && resolve(at).properties?.[key];
  return at;
}

/** How the JSON convention writes an amount: an exact decimal string in whole units. */
const DECIMAL = String.raw`^-?\d+(\.\d+)?$`;

/**
 * Every figure under `root`: a path to a field that is not an object (a list, and `finality`, are
 * one figure each), its Raw twin and the deprecated left out. An amount (an exact decimal string)
 * says whether its `<name>Raw` sits beside it.
 */
function figuresUnder(root: JsonSchema, prefix = ""): { path: string; amount: boolean; raw: boolean }[] {
  const properties = resolve(root).properties ?? {};
  return Object.entries(properties).flatMap(([key, field]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (key.endsWith("Raw") || field.deprecated) return [];
    const inner = resolve(field);
    if (inner.properties && key !== "finality") return figuresUnder(inner, path);
    return [{ path, amount: inner.pattern === DECIMAL, raw: `${key}Raw` in properties }];
  });
}

function graphqlField(type: GraphQLNamedType, path: string): GraphQLField<unknown, unknown> | undefined {
  let at: GraphQLNamedType | undefined = type;
  let field: GraphQLField<unknown, unknown> | undefined;
  for (const key of path.split(".")) {
    field = at && isObjectType(at) ? at.getFields()[key] : undefined;
    at = field && getNamedType(field.type);
  }
  return field;
}

const covered = (figure: string, t: ReturnType<typeof table>) => t.rest.includes(figure) || t.wholeGroups.some((g) => figure.startsWith(`${g}.`));

describe("public figures (docs/glossary.md)", () => {
  const cases = [
    { header: "| figure | `GET /stats` |", rest: answer("/stats"), graphqlType: "Stats", within: [""] },
    { header: "| figure | a token of `GET /tokens` |", rest: answer("/tokens").properties!.items!.items!, graphqlType: "Token", within: ["totals", "pending"] },
  ];

  for (const c of cases) {
    it(`${c.graphqlType}: every name is served and none is deprecated; every figure is named`, () => {
      const t = table(c.header);
      const missing = t.rest.filter((p) => !restField(c.rest, p)).map((p) => `REST ${p}: not in the OpenAPI answer`);
      const restDeprecated = t.rest.filter((p) => restField(c.rest, p)?.deprecated).map((p) => `REST ${p}: deprecated`);
      const type = schema.getType(c.graphqlType)!;
      const graphqlWrong = t.graphql.flatMap((p) => {
        const field = graphqlField(type, p);
        if (!field) return [`GraphQL ${c.graphqlType}.${p}: no such field`];
        return field.deprecationReason ? [`GraphQL ${c.graphqlType}.${p}: deprecated`] : [];
      });
      const figures = c.within.flatMap((w) => figuresUnder(w ? restField(c.rest, w)! : c.rest, w));
      const unnamed = figures.filter((f) => !covered(f.path, t)).map((f) => `REST ${f.path}: not in the glossary's table`);
      const found = figures.filter((f) => f.amount);
      const withoutRaw = found.filter((a) => !a.raw).map((a) => `REST ${a.path}: no ${a.path}Raw beside it`);
      expect([...missing, ...restDeprecated, ...graphqlWrong, ...unnamed, ...withoutRaw]).toEqual([]);
      expect(figures.length).toBeGreaterThan(10);
      expect(found.length).toBeGreaterThan(4);
    });
  }

  it("the checks catch a name that is not served, a deprecated one, and a figure left out", () => {
    const stats = answer("/stats");
    expect(restField(stats, "fees.toOperatorUsdc")).toBeDefined();
    expect(restField(stats, "fees.notAFigure")).toBeUndefined();
    const token = answer("/tokens").properties!.items!.items!;
    expect(restField(token, "totals.creatorLegUsdc")?.deprecated).toBe(true);
    expect(graphqlField(schema.getType("Stats")!, "assetPurchaseUsdc")?.deprecationReason).toMatch(/assetPurchasesUsdc/);
    expect(covered("fees.legs.perpUsdc", { rest: [], graphql: [], wholeGroups: ["fees.legs"] })).toBe(true);
    expect(covered("fees.claimedUsdc", { rest: [], graphql: [], wholeGroups: ["fees.legs"] })).toBe(false);
    const decimal = { type: "string", pattern: DECIMAL };
    expect(figuresUnder({ properties: { a: decimal, aRaw: { type: "string" }, b: decimal, c: { type: "integer" } } })).toEqual([
      { path: "a", amount: true, raw: true },
      { path: "b", amount: true, raw: false },
      { path: "c", amount: false, raw: false },
    ]);
  });
});
