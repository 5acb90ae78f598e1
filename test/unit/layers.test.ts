/**
 * The layers of docs/design.md §2, read from the import graph: arrows between top-level folders
 * point one way, down to `core/`, `schema/` and `common/`. Nothing imports `api/` (but ponder's
 * bridge and the benchmarks), nothing imports `bench/`, and neither `api/` nor `devnet/` imports `engine/`. Inside `api/`, the surfaces
 * import the shared layers and never each other.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..", "..");

/** What each product folder may import, besides itself. */
const ALLOWED: Record<string, string[]> = {
  common: [],
  schema: ["common"],
  core: ["common", "schema"],
  indexer: ["common", "schema"],
  api: ["core", "common", "schema"],
  engine: ["core", "common", "schema"],
  devnet: ["common", "schema"],
  src: ["api", "indexer", "schema"],
  // The benchmarks drive the product from outside (a devnet, the engine, the API), as an operator would; nothing imports them.
  bench: ["api", "engine", "devnet", "core", "common", "schema"],
};

/**
 * api/'s surfaces: each serves the indexed facts in its own form, from the shared layers —
 * `read/` (queries), `views/` (one definition per public shape), `http/`, `openapi/` (schema
 * helpers), `push/` (the live feed) and `auth/` (sessions and sign-in) — never through another
 * surface. api/'s root files assemble the app.
 */
const API_SURFACES = ["rest", "graphql", "mcp", "pages", "sql", "agents"];
const API_SHARED = ["read", "views", "http", "openapi", "push", "auth"];
/** The OpenAPI document describes every surface's routes: it alone reads their definitions. */
const API_COMPOSERS = ["api/openapi/document.ts"];

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(name)) out.push(path);
  }
  return out;
}

/** The files a file imports by a relative path (type-only imports included), as paths from the root. */
function importedFiles(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const targets = [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((m) =>
    normalize(join(dirname(file), m[1]!)).replace(/\.js$/, ".ts"),
  );
  return [...new Set(targets)];
}

/** The import graph of `files`: each file to the files among them it imports. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((f) => [f, importedFiles(f).filter((t) => known.has(t))]));
}

/** Every import circle of a graph (strongly connected components of more than one file, or a file importing itself). */
function importCircles(edges: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || edges.get(v)!.includes(v)) circles.push(component.sort());
  };
  for (const f of edges.keys()) if (!index.has(f)) visit(f);
  return circles;
}

/** Top-level folder of every relative import of a file. */
function importedFolders(file: string): { spec: string; folder: string }[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const out: { spec: string; folder: string }[] = [];
  for (const m of text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)) {
    const target = normalize(join(dirname(file), m[1]!));
    const top = relative(".", target).split("/")[0]!;
    out.push({ spec: m[1]!, folder: top });
  }
  return out;
}

describe("layers", () => {
  for (const [folder, allowed] of Object.entries(ALLOWED)) {
    it(`${folder}/ imports only ${allowed.length ? allowed.map((f) => `${f}/`).join(", ") : "itself"}`, () => {
      const files = sources(folder);
      expect(files.length).toBeGreaterThan(0);
      const wrong: string[] = [];
      for (const file of files) {
        for (const { spec, folder: target } of importedFolders(file)) {
          // Root files (ponder.config.ts, ponder.schema.ts) are the framework's bridges.
          if (target === folder || allowed.includes(target) || /\.ts$/.test(target) || target.startsWith("ponder")) continue;
          wrong.push(`${file} → ${spec}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  }

  it("no import circle between files of any product folder: each file sits above what it imports", () => {
    const files = Object.keys(ALLOWED).flatMap(sources);
    expect(files.length).toBeGreaterThan(0);
    expect(importCircles(importGraph(files))).toEqual([]);
  });

  it("every exported name is declared once across the product folders: an import never has to ask which one", () => {
    const declared = new Map<string, string[]>();
    for (const file of Object.keys(ALLOWED).flatMap(sources)) {
      for (const m of readFileSync(join(ROOT, file), "utf8").matchAll(
        /^export (?:async )?(?:function|const|let|class|type|interface|enum) ([A-Za-z0-9_]+)/gm,
      )) {
        // A function's overload signatures are one declaration, in one file.
        if (!declared.get(m[1]!)?.includes(file)) declared.set(m[1]!, [...(declared.get(m[1]!) ?? []), file]);
      }
    }
    expect(declared.size).toBeGreaterThan(100);
    expect([...declared].filter(([, files]) => files.length > 1)).toEqual([]);
  });

  it("api/'s surfaces (REST, GraphQL, MCP, pages, SQL, the agent routes) never import each other, only the shared layers; the shared layers import no surface", () => {
    const wrong: string[] = [];
    for (const file of sources("api")) {
      const [, folder] = file.split("/");
      if (/\.tsx?$/.test(folder!)) continue; // api/'s root files assemble the app from every surface
      const surface = API_SURFACES.includes(folder!);
      for (const { spec } of importedFolders(file)) {
        const target = relative(".", normalize(join(dirname(file), spec)));
        const [top, sub] = target.split("/");
        if (top !== "api" || sub === folder || !sub || /\.tsx?$|\.js$/.test(sub)) continue; // outside api/, its own folder, or api/'s root files
        if (API_SURFACES.includes(sub) && !API_COMPOSERS.includes(file))
          wrong.push(`${file} → ${spec}${surface ? "" : " (a shared layer importing a surface)"}`);
        else if (!API_SURFACES.includes(sub) && !API_SHARED.includes(sub)) wrong.push(`${file} → ${spec} (api/${sub}/ is in neither list)`);
      }
    }
    expect(wrong).toEqual([]);
    // Every folder of api/ is in one list.
    const folders = readdirSync(join(ROOT, "api")).filter((name) => statSync(join(ROOT, "api", name)).isDirectory());
    expect(folders.filter((f) => !API_SURFACES.includes(f) && !API_SHARED.includes(f))).toEqual([]);
  });

  it("the circle check finds every circle, and only circles", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts", "d.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", []],
      ["e.ts", ["e.ts"]],
      ["f.ts", ["a.ts"]],
    ]);
    expect(importCircles(graph)).toEqual([["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
    // Type-only imports count: the venue adapter imports only types of the venue interface.
    expect(importGraph(["engine/perps/avantis-v1.ts", "engine/perps/types.ts"]).get("engine/perps/avantis-v1.ts")).toEqual(["engine/perps/types.ts"]);
  });

  it("no table is created by hand in TypeScript: migrations are SQL generated from schema/", () => {
    const offenders = ["common", "schema", "core", "indexer", "api", "engine", "devnet"]
      .flatMap(sources)
      .filter((file) => /CREATE TABLE/i.test(readFileSync(join(ROOT, file), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("one transaction pipeline class serves every signer", () => {
    const classes = ["core", "engine", "api"].flatMap(sources).filter((file) => /class \w*(Pipeline|Sender)\b/.test(readFileSync(join(ROOT, file), "utf8")));
    expect(classes).toEqual(["core/chain/pipeline/index.ts"]);
  });
});
