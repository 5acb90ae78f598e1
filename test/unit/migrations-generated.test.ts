/**
 * The committed migrations are what drizzle-kit generates from `schema/`: generating again
 * over a copy of `core/db/migrations/` finds no change to write. A table, column, index or
 * check changed in `schema/` without `npm run db:generate` fails here.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, expect, it } from "vitest";
import { ROOT } from "../../devnet/compile.js";

const work = mkdtempSync(join(tmpdir(), "migrations-generated-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every file under `dir`, relative to it. */
function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

it("schema/ and core/db/migrations agree: drizzle-kit generates no new migration", () => {
  const out = join(work, "migrations");
  cpSync(join(ROOT, "core", "db", "migrations"), out, { recursive: true });
  // drizzle.config.ts with the output moved: a plain object (the temp dir cannot resolve
  // drizzle-kit), paths relative to the root (drizzle-kit prefixes `out` with "./").
  const config = join(work, "drizzle.config.ts");
  const settings = { dialect: "postgresql", schema: ["./schema/engine.ts", "./schema/agents.ts"], schemaFilter: ["engine"], out: relative(ROOT, out) };
  writeFileSync(config, `export default ${JSON.stringify(settings)};\n`);
  const before = files(out);

  const run = spawnSync(process.execPath, [join(ROOT, "node_modules", "drizzle-kit", "bin.cjs"), "generate", "--config", config], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  const output = `${run.stdout}\n${run.stderr}`;
  expect(run.status, output).toBe(0);
  expect(output).toContain("No schema changes");
  expect(files(out)).toEqual(before);
});
