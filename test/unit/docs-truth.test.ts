/**
 * The documentation against the code (pure: files only, no devnet). README.md and docs/*.md:
 * - every repository path they cite exists (a `.js` import path may name its `.ts` source);
 * - every link stays in the repository (http(s) URLs aside) and lands on a file and heading that exist;
 * - no file outside the repository is named (a `*.md` that is not one of ours), in the docs and in the
 *   code of common/config.ts, common/deploy-config.ts, indexer/, api/, core/ and engine/ (engine/perps/ aside);
 * - every environment variable they name is read by the code, and every variable of the config
 *   schema (`common/config.ts`) and of `npm start` is in docs/configuration.md;
 * - every other UPPER_SNAKE name they use (an error code, a constant) exists in the code;
 * - every `npm run X` is a script of package.json, every `npm run engine -- X` a command of the engine CLI;
 * - every section of docs/design.md they cite (§N.N), or a code comment cites, exists;
 * - every GraphQL document they show is valid against the served schema (its snapshot, test/api/__snapshots__/schema.graphql);
 * - the exports' columns in docs/api.md are the datasets' own (api/read/export.ts).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { buildSchema, parse, validate } from "graphql";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { DATASETS } from "../../api/read/export.js";

const ROOT = join(dirname(new URL(import.meta.url).pathname), "..", "..");

const DOCS = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];
const text = (file: string) => readFileSync(join(ROOT, file), "utf8");

/** The repository's top-level folders: a cited path starts with one of them. */
const TOP_FOLDERS = readdirSync(ROOT).filter((name) => !name.startsWith(".") && statSync(join(ROOT, name)).isDirectory());

/** Source files of the code (tests included: a test's variables are read by the code too). */
function codeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...codeFiles(path));
    else if (/\.(ts|mts|mjs|js|cjs|sol)$/.test(name)) out.push(path);
  }
  return out;
}
const CODE = [
  ...TOP_FOLDERS.filter((d) => d !== "docs" && d !== "node_modules").flatMap(codeFiles),
  ...readdirSync(ROOT).filter((name) => /\.(ts|mjs)$/.test(name)),
]
  .filter((file) => file !== "test/unit/docs-truth.test.ts")
  .map((file) => ({ file, text: text(file) }));

/** A doc's text without its http(s) URLs (their paths are not the repository's). */
const withoutUrls = (s: string) => s.replace(/https?:\/\/[^\s)`'"<>]+/g, " ");

/** The line of an offset, for messages. */
const lineOf = (s: string, offset: number) => s.slice(0, offset).split("\n").length;

// ── Paths ─────────────────────────────────────────────────────────────────────────────

const PATH = new RegExp(
  `(?<![\\w./:@~$-])(?:\\./)?((?:${TOP_FOLDERS.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})/[^\\s\`'"()\\[\\]<>,;|]*)`,
  "g",
);

/** Folders the repository ignores (.gitignore): made at run time, so a doc may name them though a checkout lacks them. */
const IGNORED_FOLDERS = text(".gitignore")
  .split("\n")
  .map((line) => line.trim())
  .filter((line) => /^[\w.-]+(\/[\w.-]+)*\/$/.test(line));

/**
 * Whether a cited repository path exists: a file or folder, a glob's fixed folder, a `.js`
 * import path's `.ts` source, a test named by its stem (`test/api/unit`), or a folder made at run time.
 */
function pathExists(cited: string): boolean {
  const path = cited.replace(/[#:].*$/, "").replace(/[.)]+$/, "");
  const star = path.indexOf("*");
  if (star >= 0) return existsSync(join(ROOT, path.slice(0, path.lastIndexOf("/", star) + 1)));
  if (IGNORED_FOLDERS.some((folder) => `${path}/`.startsWith(folder))) return true;
  const candidates = [path, path.replace(/\.js$/, ".ts"), ...(path.startsWith("test/") ? [`${path}.test.ts`] : [])];
  return candidates.some((candidate) => existsSync(join(ROOT, candidate)));
}

function citedPaths(file: string): { path: string; line: number }[] {
  const s = withoutUrls(text(file));
  return [...s.matchAll(PATH)].map((m) => ({ path: m[1]!, line: lineOf(s, m.index!) })).filter(({ path }) => !/[<…{]/.test(path)); // placeholders: test/<group>, lp_<hash>, …
}

// ── Links and headings ─────────────────────────────────────────────────────────────

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of text(file).split("\n")) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

function links(file: string): { target: string; line: number }[] {
  const s = text(file);
  return [...s.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({ target: m[1]!, line: lineOf(s, m.index!) }));
}

/** What is wrong with a link from `file`, or undefined. */
function linkProblem(file: string, target: string): string | undefined {
  if (/^https?:\/\//.test(target)) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return "a link that is neither a repository file nor an http(s) URL";
  const [pathPart, anchor] = target.split("#", 2) as [string, string | undefined];
  const to = pathPart === "" ? join(ROOT, file) : resolve(join(ROOT, dirname(file)), decodeURI(pathPart));
  const rel = relative(ROOT, to);
  if (rel.startsWith("..") || rel.split(sep)[0] === "node_modules") return "outside the repository";
  if (!existsSync(to)) return `${rel} does not exist`;
  if (anchor !== undefined && to.endsWith(".md") && !anchors(rel).has(anchor)) return `${rel} has no heading #${anchor}`;
  return undefined;
}

// ── Names of the environment and of the code ──────────────────────────────────────

const SNAKE = /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g;

/** Variables the code reads from the environment. */
function variablesRead(): Set<string> {
  const read = new Set<string>();
  // The config schema (and its contract variables): `NAME:` keys of common/config.ts.
  for (const m of text("common/config.ts").matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) read.add(m[1]!);
  for (const { text: s } of CODE) {
    for (const m of s.matchAll(/\b(?:process\.env|\w*[eE]nv)\.([A-Z][A-Z0-9_]+)\b/g)) read.add(m[1]!);
    for (const m of s.matchAll(/\b(?:process\.env|\w*[eE]nv)\[\s*["'`]([A-Z][A-Z0-9_]+)["'`]\s*\]/g)) read.add(m[1]!);
    for (const m of s.matchAll(/\w*FromEnv\(\s*["'`]([A-Z][A-Z0-9_]+)["'`]/g)) read.add(m[1]!);
  }
  return read;
}

/** Every UPPER_SNAKE word of the code (constants, error codes, enum values, variables). */
function codeNames(): Set<string> {
  const names = new Set<string>();
  for (const { text: s } of CODE) for (const m of s.matchAll(SNAKE)) names.add(m[0]);
  return names;
}

/** Names a doc uses as environment variables: `NAME=…`, `export NAME`, `$NAME`, a configuration table's first column. */
function variablesNamed(file: string): { name: string; line: number }[] {
  const s = withoutUrls(text(file));
  const out: { name: string; line: number }[] = [];
  for (const m of s.matchAll(/(?<![\w.-])(?:export\s+)?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g)) out.push({ name: m[1]!, line: lineOf(s, m.index!) });
  for (const m of s.matchAll(/\$\{?([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)) out.push({ name: m[1]!, line: lineOf(s, m.index!) });
  const lines = s.split("\n");
  let variableTable = false;
  lines.forEach((line, i) => {
    if (!line.startsWith("|")) {
      variableTable = false;
      return;
    }
    const first = line.split("|")[1]!.trim();
    if (/^(variable|setting)$/i.test(first)) variableTable = true;
    else if (variableTable) for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) out.push({ name: m[1]!, line: i + 1 });
  });
  return out;
}

/** Every UPPER_SNAKE name a doc uses, with its line. */
function snakeNames(file: string): { name: string; line: number }[] {
  const s = withoutUrls(text(file));
  return [...s.matchAll(SNAKE)].map((m) => ({ name: m[0], line: lineOf(s, m.index!) }));
}

// ── Commands ────────────────────────────────────────────────────────────────────────

const SCRIPTS = Object.keys((JSON.parse(text("package.json")) as { scripts: Record<string, string> }).scripts);
const ENGINE_COMMANDS = new Set([...text("engine/cli.ts").matchAll(/command === "([a-z-]+)"/g)].map((m) => m[1]!));

// ── The tests ───────────────────────────────────────────────────────────────────────

describe("the docs against the code", () => {
  it("reads README.md and every doc under docs/", () => {
    expect(DOCS).toContain("README.md");
    expect(DOCS).toContain("docs/design.md");
  });

  it("cites only repository paths that exist", () => {
    const missing = DOCS.flatMap((file) =>
      citedPaths(file)
        .filter(({ path }) => !pathExists(path))
        .map(({ path, line }) => `${file}:${line} ${path}`),
    );
    expect(missing).toEqual([]);
  });

  it("links only inside the repository (or to http(s) URLs), to files and headings that exist", () => {
    const bad = DOCS.flatMap((file) =>
      links(file).flatMap(({ target, line }) => {
        const problem = linkProblem(file, target);
        return problem ? [`${file}:${line} ${target}: ${problem}`] : [];
      }),
    );
    expect(bad).toEqual([]);
  });

  it("names no document outside the repository", () => {
    const outside = DOCS.flatMap((file) => {
      const s = withoutUrls(text(file));
      return [...s.matchAll(/(?<![\w./-])((?:\.\.?\/)?[\w./-]*[\w-]\.md)\b/g)]
        .map((m) => ({ name: m[1]!, line: lineOf(s, m.index!) }))
        .filter(({ name }) => {
          const candidates = [join(ROOT, name), join(ROOT, dirname(file), name)];
          return !candidates.some((c) => existsSync(c) && !relative(ROOT, c).startsWith(".."));
        })
        .map(({ name, line }) => `${file}:${line} ${name}`);
    });
    expect(outside).toEqual([]);
    const shared = DOCS.flatMap((file) => (/(?<![\w/])shared\/|\/work\//.test(withoutUrls(text(file))) ? [file] : []));
    expect(shared).toEqual([]);
  });

  it("names no document outside the repository in the code of the config, the indexer, the API, the core and the engine (its perps venues aside)", () => {
    const sources = (dir: string): string[] =>
      readdirSync(join(ROOT, dir)).flatMap((name) => {
        const path = join(dir, name);
        if (statSync(join(ROOT, path)).isDirectory()) return sources(path);
        return /\.(ts|tsx|mts|js)$/.test(name) ? [path] : [];
      });
    const files = ["common/config.ts", "common/deploy-config.ts", ...["indexer", "api", "core", "engine"].flatMap(sources)].filter(
      (file) => !file.startsWith(`engine${sep}perps${sep}`),
    );
    expect(files.length).toBeGreaterThan(100);
    const outside = files.flatMap((file) => {
      const s = withoutUrls(text(file));
      const documents = [...s.matchAll(/(?<![\w./-])((?:\.\.?\/)?[\w./-]*[\w-]\.md)\b/g)]
        .filter((m) => ![join(ROOT, m[1]!), join(ROOT, dirname(file), m[1]!)].some((c) => existsSync(c) && !relative(ROOT, c).startsWith("..")))
        .map((m) => `${file}:${lineOf(s, m.index!)} ${m[1]}`);
      const folders = [...s.matchAll(/(?<![\w.-])(?:\.\.\/)*(?:shared|reference)\/|\/work\//g)].map((m) => `${file}:${lineOf(s, m.index!)} ${m[0]}`);
      return [...documents, ...folders];
    });
    expect(outside).toEqual([]);
  });

  it("names only environment variables the code reads", () => {
    const read = variablesRead();
    const unread = DOCS.flatMap((file) =>
      variablesNamed(file)
        .filter(({ name }) => !read.has(name))
        .map(({ name, line }) => `${file}:${line} ${name}`),
    );
    expect(unread).toEqual([]);
  });

  it("uses only UPPER_SNAKE names that exist in the code", () => {
    const names = codeNames();
    const unknown = DOCS.flatMap((file) =>
      snakeNames(file)
        .filter(({ name }) => !names.has(name))
        .map(({ name, line }) => `${file}:${line} ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("lists every variable of the config schema and of npm start in docs/configuration.md", () => {
    const listed = new Set(variablesNamed("docs/configuration.md").map(({ name }) => name));
    const schema = [...text("common/config.ts").matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
    const start = [...text("scripts/start.ts").matchAll(/\w*FromEnv\(\s*["'`]([A-Z][A-Z0-9_]+)["'`]/g)].map((m) => m[1]!);
    expect(schema.length).toBeGreaterThan(40);
    expect([...schema, ...start].filter((name) => !listed.has(name))).toEqual([]);
  });

  it("names only npm scripts of package.json and commands of the engine CLI", () => {
    const bad: string[] = [];
    for (const file of DOCS) {
      const s = text(file);
      for (const m of s.matchAll(/\bnpm (?:run\s+([\w:-]+)|(start|test)\b)(?:\s+--\s+([a-z][\w-]*))?/g)) {
        const script = m[1] ?? m[2];
        const sub = m[3];
        if (!SCRIPTS.includes(script!)) bad.push(`${file}:${lineOf(s, m.index!)} npm run ${script}`);
        else if (script === "engine" && sub && !ENGINE_COMMANDS.has(sub)) bad.push(`${file}:${lineOf(s, m.index!)} npm run engine -- ${sub}`);
      }
    }
    expect(ENGINE_COMMANDS.has("ledger")).toBe(true);
    expect(bad).toEqual([]);
  });

  it("cites only sections of docs/design.md that exist, in the docs (§N.N) and in code comments (design.md §N.N)", () => {
    const sections = new Set([...text("docs/design.md").matchAll(/^#{2,3} (\d+(?:\.\d+)*)\.? /gm)].map((m) => m[1]!));
    expect(sections.has("5.6")).toBe(true);
    const missing: string[] = [];
    for (const file of DOCS) {
      const s = text(file);
      for (const m of s.matchAll(/§ ?(\d+(?:\.\d+)*)/g)) if (!sections.has(m[1]!)) missing.push(`${file}:${lineOf(s, m.index!)} §${m[1]}`);
    }
    for (const { file, text: s } of CODE) {
      for (const m of s.matchAll(/design(?:\.md)? ?§ ?(\d+(?:\.\d+)*)/g)) if (!sections.has(m[1]!)) missing.push(`${file}:${lineOf(s, m.index!)} §${m[1]}`);
    }
    expect(missing).toEqual([]);
  });

  it("shows only GraphQL documents the schema accepts", () => {
    const schema = buildSchema(text("test/api/__snapshots__/schema.graphql"));
    const invalid: string[] = [];
    let checked = 0;
    for (const file of DOCS) {
      const s = text(file);
      // ```graphql blocks (one document per `#` comment), and the queries of curl bodies.
      const blocks = [...s.matchAll(/```graphql\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split(/\n(?=#)/));
      const bodies = [...s.matchAll(/"query":\s*"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string);
      for (const document of [...blocks, ...bodies].map((d) => d.replace(/^#.*$/gm, "").trim()).filter(Boolean)) {
        checked++;
        try {
          const errors = validate(schema, parse(document));
          if (errors.length) invalid.push(`${file}: ${document.slice(0, 60)}… ${errors.map((e) => e.message).join("; ")}`);
        } catch (error) {
          invalid.push(`${file}: ${document.slice(0, 60)}… ${(error as Error).message}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(3);
    expect(invalid).toEqual([]);
  });

  it("lists each export's columns in docs/api.md as the dataset writes them", () => {
    // A row of the table: | `burns` | one row per … | `id, token, amount(Raw), …` |, where `x(Raw)` is `x, xRaw`.
    const listed = new Map(
      [...text("docs/api.md").matchAll(/^\| `(\w+)` \| [^|]+ \| `([^`]+)` \|$/gm)].map((m) => [
        m[1]!,
        m[2]!.split(", ").flatMap((c) => (c.endsWith("(Raw)") ? [c.slice(0, -5), `${c.slice(0, -5)}Raw`] : [c])),
      ]),
    );
    for (const [name, dataset] of Object.entries(DATASETS)) expect(listed.get(name), name).toEqual(dataset.columns);
  });

  it("checks itself: a missing path, an outside link and an unread variable are caught", () => {
    expect(pathExists("docs/design.md")).toBe(true);
    expect(pathExists("schema/ponder.js")).toBe(true);
    expect(pathExists("docs/no-such-file.md")).toBe(false);
    expect(pathExists("test/api/unit")).toBe(true);
    expect(pathExists("bench/history/history-1000-7/")).toBe(true);
    expect(linkProblem("docs/base.md", "../../shared/reference/protocols.md")).toBe("outside the repository");
    expect(linkProblem("docs/base.md", "design.md#no-such-heading")).toMatch(/no heading/);
    expect(linkProblem("README.md", "docs/design.md#2-layout-and-layers")).toBeUndefined();
    expect(variablesRead().has("PROTOCOL_PRIVATE_KEY")).toBe(true);
    expect(variablesRead().has("OPERATOR_PRIVATE_KEY")).toBe(false);
  });
});
