/**
 * The engine's migrations on a real PostgreSQL: the generated migrations create exactly the
 * tables the hand-written migrations 1–4 made (columns, defaults, keys, indexes, checks); a
 * database those made upgrades with the baseline recorded and nothing run, and takes later
 * generated migrations; each migration is one transaction under one lock.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { BASELINE, MIGRATIONS_FOLDER, migrate, readMigrations } from "../../core/db/migrations.js";
import { ROOT } from "../../devnet/compile.js";
import { createDatabase } from "../helpers/env.js";

/** What the hand-written migrations 1–4 left, as the runner of that time recorded it. */
const HAND_WRITTEN = readFileSync(join(ROOT, "test", "fixtures", "engine-hand-migrations-1-4.sql"), "utf8");

const pools: pg.Pool[] = [];
const work = mkdtempSync(join(tmpdir(), "engine-migrations-"));
afterAll(async () => {
  await Promise.all(pools.map((p) => p.end()));
  rmSync(work, { recursive: true, force: true });
});

function poolOf(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pools.push(pool);
  return pool;
}

async function freshPool(prefix: string): Promise<pg.Pool> {
  return poolOf(await createDatabase(prefix));
}

/** A database as the hand-written migrations 1–4 left it. */
async function handWrittenPool(prefix: string): Promise<pg.Pool> {
  const pool = await freshPool(prefix);
  await pool.query(HAND_WRITTEN);
  return pool;
}

/** Everything that defines the tables of schema `engine`, as sorted lines. */
async function describeEngineSchema(pool: pg.Pool): Promise<Record<string, string[]>> {
  const lines = async (text: string) => (await pool.query<{ line: string }>(text)).rows.map((r) => r.line).sort();
  return {
    tables: await lines("SELECT table_name || ' ' || table_type AS line FROM information_schema.tables WHERE table_schema = 'engine'"),
    columns: await lines(`
      SELECT concat_ws(' | ', table_name, ordinal_position, column_name, data_type, udt_name, character_maximum_length,
        numeric_precision, numeric_scale, datetime_precision, is_nullable, column_default, is_identity, is_generated) AS line
      FROM information_schema.columns WHERE table_schema = 'engine'`),
    indexes: await lines("SELECT tablename || ' | ' || indexname || ' | ' || indexdef AS line FROM pg_indexes WHERE schemaname = 'engine'"),
    constraints: await lines(`
      SELECT concat_ws(' | ', c.conrelid::regclass::text, c.conname, c.contype, pg_get_constraintdef(c.oid)) AS line
      FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'engine'`),
    sequences: await lines(`
      SELECT concat_ws(' | ', s.sequencename, s.data_type, s.start_value, s.increment_by, s.max_value, s.cycle,
        (SELECT d.refobjid::regclass::text || '.' || a.attname FROM pg_depend d
           JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
          WHERE d.objid = (quote_ident(s.schemaname) || '.' || quote_ident(s.sequencename))::regclass AND d.deptype = 'a')) AS line
      FROM pg_sequences s WHERE s.schemaname = 'engine'`),
  };
}

async function recorded(pool: pg.Pool): Promise<{ version: number; name: string }[]> {
  return (await pool.query<{ version: number; name: string }>("SELECT version, name FROM engine.schema_migrations ORDER BY version")).rows;
}

/** Every committed migration, in order (the baseline first). */
const ALL = readMigrations().map((m) => m.tag);
const asRecorded = (tags: string[], from = 1) => tags.map((name, i) => ({ version: from + i, name }));

let copies = 0;
/** A copy of the committed migrations cut after the baseline: what the hand-written 1–4 are compared with. */
function baselineOnly(): string {
  const folder = join(work, `migrations-${copies++}`);
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalFile = join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  journal.entries = journal.entries.filter((e) => e.tag === BASELINE);
  writeFileSync(journalFile, JSON.stringify(journal));
  return folder;
}

/**
 * A copy of the committed migrations plus one more made by drizzle-kit (`generate --custom`,
 * the way a hand-finished migration is made), holding `sql`. Returns its folder and tag.
 */
function withLaterMigration(name: string, sql: string): { folder: string; tag: string } {
  const folder = join(work, `migrations-${copies++}`);
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const config = join(folder, "..", `drizzle-${copies}.config.ts`);
  const settings = { dialect: "postgresql", schema: ["./schema/engine.ts", "./schema/agents.ts"], schemaFilter: ["engine"], out: relative(ROOT, folder) };
  writeFileSync(config, `export default ${JSON.stringify(settings)};\n`);
  const run = spawnSync(process.execPath, [join(ROOT, "node_modules", "drizzle-kit", "bin.cjs"), "generate", "--custom", "--name", name, "--config", config], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  const file = readdirSync(folder).find((f) => f.endsWith(`_${name}.sql`));
  if (!file) throw new Error(`drizzle-kit made no migration: ${run.stdout}\n${run.stderr}`);
  writeFileSync(join(folder, file), sql);
  return { folder, tag: file.replace(/\.sql$/, "") };
}

describe("engine migrations", () => {
  it("create exactly the tables the hand-written migrations 1–4 made", async () => {
    const generated = await freshPool("mig_generated");
    const handWritten = await handWrittenPool("mig_hand");
    expect(await migrate(generated, { folder: baselineOnly() })).toEqual([BASELINE]);

    const expected = await describeEngineSchema(handWritten);
    const actual = await describeEngineSchema(generated);
    expect(actual.tables.length).toBe(23); // 22 tables and schema_migrations
    expect(actual.tables).not.toContain("agent_tx_intents BASE TABLE"); // dropped by migration 3
    expect(actual.indexes).toContain(
      "ledger | ledger_refund_of | CREATE INDEX ledger_refund_of ON engine.ledger USING btree (((data ->> 'spendKey'::text))) WHERE (kind = 'refund'::text)",
    );
    expect(actual.constraints.filter((l) => l.includes(" | c | ")).map((l) => l.split(" | ")[1])).toEqual([
      "agents_status_check",
      "buybacks_kind_check",
      "tx_intents_status_check",
    ]);
    for (const part of ["tables", "columns", "indexes", "constraints", "sequences"] as const) expect(actual[part], part).toEqual(expected[part]);
    expect(await recorded(generated)).toEqual([{ version: 1, name: BASELINE }]);
  });

  it("are applied once, whoever starts first, each run recording what it applied", async () => {
    // Three migrators on one new database, as the engine, an API replica and the CLI starting together.
    const url = await createDatabase("mig_concurrent");
    const [pool, ...racers] = [poolOf(url), poolOf(url), poolOf(url)];
    const results = await Promise.all([pool!, ...racers].map((p) => migrate(p)));
    expect(results.flat()).toEqual(ALL);
    expect(await migrate(pool!)).toEqual([]);
    expect(await recorded(pool!)).toEqual(asRecorded(ALL));
  });

  it("upgrade a database made by the hand-written migrations: baseline recorded, not run, data kept", async () => {
    const pool = await handWrittenPool("mig_upgrade");
    await pool.query(`INSERT INTO engine.ledger (key, kind, leg, token, currency, amount) VALUES ('fee:1', 'allocation', 'perp', '0xA1', 'USDC', 570000)`);
    await pool.query(`INSERT INTO engine.ledger_balances (leg, token, currency, balance, allocated, rows) VALUES ('perp', '0xA1', 'USDC', 570000, 570000, 1)`);
    await pool.query(
      `INSERT INTO engine.tx_intents (key, kind, status, "to", data, signer) VALUES ('buyback:1:swap', 'swap', 'pending', '0x01', '0x', '0xB2')`,
    );
    const before = await describeEngineSchema(pool);
    const messages: string[] = [];

    const baseline = baselineOnly();
    expect(await migrate(pool, { folder: baseline, log: { info: (_fields, message) => messages.push(message) } })).toEqual([]);
    expect(messages).toEqual([expect.stringContaining(`${BASELINE} recorded as applied, not run`)]);
    expect((await recorded(pool)).map((r) => `${r.version} ${r.name}`)).toEqual([
      "1 engine tables",
      "2 agent tables",
      "3 one intents table for every signer, finality, running balances",
      "4 health reads bounded by the work in flight, not by history",
      `5 ${BASELINE}`,
    ]);
    expect(await describeEngineSchema(pool)).toEqual(before);
    expect((await pool.query("SELECT amount::text FROM engine.ledger WHERE key = 'fee:1'")).rows).toEqual([{ amount: "570000" }]);
    expect((await pool.query("SELECT balance::text FROM engine.ledger_balances WHERE leg = 'perp'")).rows).toEqual([{ balance: "570000" }]);
    expect(await migrate(pool, { folder: baseline })).toEqual([]);

    // The generated migrations after the baseline, and the next one, apply on it as on a
    // database made by the generated ones.
    const later = withLaterMigration("desk_notes", `ALTER TABLE "engine"."desks" ADD COLUMN "note" text;`);
    expect(await migrate(pool, { folder: later.folder })).toEqual([...ALL.slice(1), later.tag]);
    expect(await migrate(pool, { folder: later.folder })).toEqual([]);
    expect((await recorded(pool)).slice(4)).toEqual(asRecorded([...ALL, later.tag], 5));
    const fresh = await freshPool("mig_later");
    expect(await migrate(fresh, { folder: later.folder })).toEqual([...ALL, later.tag]);
    expect(await describeEngineSchema(pool)).toEqual(await describeEngineSchema(fresh));
  });

  it("refuse a database the hand-written migrations left half way", async () => {
    const pool = await handWrittenPool("mig_half");
    await pool.query("DELETE FROM engine.schema_migrations WHERE version = 4");
    await expect(migrate(pool)).rejects.toThrow(/records versions 1, 2, 3,.*hand-written versions 1–4/);
    expect((await recorded(pool)).map((r) => r.version)).toEqual([1, 2, 3]);
  });

  it("run each migration in one transaction: a failing one leaves nothing behind", async () => {
    const pool = await freshPool("mig_failing");
    const failing = withLaterMigration("broken", `ALTER TABLE "engine"."desks" ADD COLUMN "note" text;\n--> statement-breakpoint\nSELECT no_such_function();`);
    await expect(migrate(pool, { folder: failing.folder })).rejects.toThrow(new RegExp(`engine migration ${failing.tag} failed: .*no_such_function`));
    // The committed migrations before it stay applied; the failing one is neither recorded nor half done.
    expect(await recorded(pool)).toEqual(asRecorded(ALL));
    const { rows } = await pool.query(
      "SELECT 1 FROM information_schema.columns WHERE table_schema = 'engine' AND table_name = 'desks' AND column_name = 'note'",
    );
    expect(rows).toEqual([]);
    await expect(migrate(pool, { folder: failing.folder })).rejects.toThrow(/no_such_function/);
    expect(await migrate(pool)).toEqual([]);
  });
});
