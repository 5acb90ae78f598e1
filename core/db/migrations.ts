/**
 * Applies the engine's SQL migrations at engine and API start (and in the CLI, benches and
 * tests). The tables are declared once, in `schema/engine.ts` and `schema/agents.ts`;
 * `npm run db:generate` (drizzle-kit, `drizzle.config.ts`) writes each change to them as the
 * next migration under `core/db/migrations/`: `meta/_journal.json` lists them in order by tag,
 * and `<tag>.sql` holds the statements, separated by `--> statement-breakpoint`.
 *
 * Each migration runs in its own transaction, under an advisory lock, and is recorded by tag
 * in `engine.schema_migrations` (itself declared in `schema/engine.ts`, so the first migration
 * creates it). Safe to call concurrently and on every start.
 *
 * Not drizzle-orm's `migrate()` (`drizzle-orm/node-postgres/migrator`), which reads the same
 * files: it applies every pending migration in one transaction, takes no lock (the engine, API
 * replicas and the CLI start concurrently), picks what is pending by the timestamp of the last
 * migration applied (so one merged from an older branch would be skipped), returns nothing,
 * and knows nothing of databases made by the hand-written migrations below.
 *
 * Databases made before the migrations were generated ran hand-written migrations 1–4,
 * recorded as versions 1–4 in `engine.schema_migrations`. `0000_engine_tables` creates exactly
 * the tables those four left (the upgrade tests compare both), so on such a database it is
 * recorded as applied without running. It leaves out migration 3's only data statement, the
 * backfill of `engine.ledger_balances` from the ledger rows of that time: a new database has
 * an empty ledger, and an old one was backfilled when it ran migration 3.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";

/** The generated migrations, as drizzle-kit writes them (`out` of `drizzle.config.ts`). */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("./migrations", import.meta.url));

/** Advisory lock key serialising concurrent migrators (engine, API, CLI, tests). */
const MIGRATION_LOCK_KEY = 0x656e67696e65n; // "engine"

/** The generated migration whose tables are those the hand-written migrations 1–4 left. */
export const BASELINE = "0000_engine_tables";
/** The versions the hand-written migrations were recorded under. */
const HAND_WRITTEN_VERSIONS = [1, 2, 3, 4];

/** One generated migration: its tag (`0000_engine_tables`) and its statements, in order. */
export type Migration = { tag: string; statements: string[] };

export type MigrateOptions = {
  /** Where the generated migrations are; `core/db/migrations/` unless a test says otherwise. */
  folder?: string;
  /** Told when a database made by the hand-written migrations has the baseline recorded (a pino logger fits). */
  log?: { info: (fields: Record<string, unknown>, message: string) => void };
};

/** The migrations of `folder`, in the order of its journal. */
export function readMigrations(folder: string = MIGRATIONS_FOLDER): Migration[] {
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };
  return [...journal.entries]
    .sort((a, b) => a.idx - b.idx)
    .map(({ tag }) => ({
      tag,
      statements: readFileSync(join(folder, `${tag}.sql`), "utf8")
        .split("--> statement-breakpoint")
        .filter((statement) => statement.trim() !== ""),
    }));
}

/**
 * Applies every generated migration not yet recorded, in journal order, each in its own
 * transaction, under the migration lock. Returns the tags of the migrations it ran (none when
 * the database was up to date; none either when it only recorded the baseline of a database
 * made by the hand-written migrations).
 */
export async function migrate(pool: pg.Pool, options: MigrateOptions = {}): Promise<string[]> {
  const migrations = readMigrations(options.folder);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK_KEY.toString()]);
    const done = await recordedTags(client, migrations, options.log);
    for (const migration of migrations) {
      if (done.has(migration.tag)) continue;
      await inTransaction(client, `engine migration ${migration.tag}`, async () => {
        for (const statement of migration.statements) await client.query(statement);
        await record(client, migration.tag);
      });
      applied.push(migration.tag);
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK_KEY.toString()]).catch(() => {});
    client.release();
  }
  return applied;
}

/**
 * The tags recorded as applied. A database the hand-written migrations 1–4 made gets the
 * baseline recorded here (and nothing run); one they left half way is refused.
 */
async function recordedTags(client: pg.PoolClient, migrations: Migration[], log: MigrateOptions["log"]): Promise<Set<string>> {
  const { rows: exists } = await client.query<{ table: string | null }>("SELECT to_regclass('engine.schema_migrations')::text AS table");
  if (!exists[0]?.table) return new Set();
  const { rows } = await client.query<{ version: number; name: string }>("SELECT version, name FROM engine.schema_migrations ORDER BY version");
  const tags = new Set(migrations.map((m) => m.tag));
  const done = new Set(rows.map((r) => r.name).filter((name) => tags.has(name)));
  if (done.size > 0 || !tags.has(BASELINE)) return done;

  const versions = rows.map((r) => r.version);
  if (versions.join() !== HAND_WRITTEN_VERSIONS.join()) {
    const found = versions.length ? `versions ${versions.join(", ")}` : "no migration";
    throw new Error(
      `engine.schema_migrations records ${found}, where a database made before the generated migrations records the hand-written versions 1–4: ` +
        "run the previous release once to finish them, then this one",
    );
  }
  await inTransaction(client, `engine migration ${BASELINE} (baseline)`, () => record(client, BASELINE));
  log?.info(
    { migration: BASELINE },
    `engine schema made by the hand-written migrations 1–4: ${BASELINE} recorded as applied, not run (it creates the same tables)`,
  );
  return new Set([BASELINE]);
}

/** Records a migration as applied, numbered after the last one. */
async function record(client: pg.PoolClient, tag: string): Promise<void> {
  await client.query("INSERT INTO engine.schema_migrations (version, name) SELECT COALESCE(max(version), 0) + 1, $1 FROM engine.schema_migrations", [tag]);
}

async function inTransaction(client: pg.PoolClient, what: string, body: () => Promise<void>): Promise<void> {
  await client.query("BEGIN");
  try {
    await body();
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    throw new Error(`${what} failed: ${(error as Error).message}`, { cause: error });
  }
}
