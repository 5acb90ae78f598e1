/**
 * The layers of docs/design.md §2, read from the import graph: arrows between top-level folders
 * point one way, down to `core/`, `schema/` and `common/`. Nothing imports `api/` (but ponder's
 * bridge), and neither `api/` nor `devnet/` imports `engine/`.
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
};

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (/\.tsx?$/.test(name)) out.push(path);
  }
  return out;
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

  it("no table is created by hand in TypeScript: migrations are SQL generated from schema/", () => {
    const offenders = ["common", "schema", "core", "indexer", "api", "engine", "devnet"]
      .flatMap(sources)
      .filter((file) => /CREATE TABLE/i.test(readFileSync(join(ROOT, file), "utf8")));
    expect(offenders).toEqual([]);
  });

  it("one transaction pipeline class serves every signer", () => {
    const classes = ["core", "engine", "api"]
      .flatMap(sources)
      .filter((file) => /class \w*(Pipeline|Sender)\b/.test(readFileSync(join(ROOT, file), "utf8")));
    expect(classes).toEqual(["core/chain/pipeline.ts"]);
  });
});
