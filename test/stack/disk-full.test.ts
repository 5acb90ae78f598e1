/**
 * A full disk ridden out like a database outage. `npm start`'s data (DATA_DIR: the embedded
 * PostgreSQL, the devnet's state, the deployments) lives on a small tmpfs of its own. Once the
 * stack is healthy and has sent transactions, a file fills the disk until writes fail (ENOSPC)
 * and keeps it full for `STACK_DISK_FULL_SECONDS` (45 by default): PostgreSQL fails its writes,
 * then (the test moves it to new WAL segments, as a busy database does) PANICs when it cannot
 * add one, and its crash recovery cannot finish, so the server exits.
 * Meanwhile `/health` is degraded, or 503, and names the full disk; `npm start` never stops
 * (it keeps starting PostgreSQL, ponder and the engine again). The file deleted, health is `ok`
 * again by itself within a bounded time, the three-way audit is clean once nothing is in flight,
 * and the operator's nonce is the deployment plus the mined intents: nothing sent twice or lost.
 *
 * Mounting needs root: otherwise (or if the mount is refused) the test is skipped, and says why.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { privateKeyToAccount } from "viem/accounts";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConnectionFile } from "../../common/connection-file.js";
import { DEVNET_OPERATOR_KEY } from "../../common/config.js";
import { type AuditRun, type Stack, cliAudit, embeddedStackEnv, operatorNonceAccounting, startStack } from "../helpers/stack.js";

const FULL_SECONDS = Number(process.env.STACK_DISK_FULL_SECONDS ?? 45);
/** The volume: room for a fresh stack's PostgreSQL (WAL included) and devnet state, little more. */
const VOLUME_MB = 640;
/**
 * Health must be `ok` again within this long after the file is deleted: PostgreSQL back, and
 * the index caught up with the blocks the chain mined while it could not write (one a second).
 */
const RECOVERY_LIMIT_MS = 300_000;

const root = mkdtempSync(join(tmpdir(), "launchpad-disk-full-"));
chmodSync(root, 0o755); // embedded PostgreSQL runs as the `postgres` user when we are root
const dir = join(root, "data");
const filler = join(dir, "filler");
let mounted = false;
let skipReason: string | undefined;
let stack: Stack | undefined;

/** Appends to the filler until the disk refuses (ENOSPC): 1 MB writes, then 4 KB ones for the last pages. */
function fill(): number {
  const fd = openSync(filler, "a");
  let bytes = 0;
  try {
    for (const size of [1 << 20, 1 << 12]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) bytes += writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
      }
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

beforeAll(() => {
  mkdirSync(dir, { mode: 0o755 });
  if (process.getuid?.() !== 0) {
    skipReason = "not running as root: mounting the small tmpfs for the data needs root";
  } else {
    try {
      // mode 0755: embedded PostgreSQL runs as the `postgres` user when we are root.
      execFileSync("mount", ["-t", "tmpfs", "-o", `size=${VOLUME_MB}m,mode=0755`, "tmpfs", dir], { stdio: "pipe" });
      mounted = true;
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
      skipReason = `mount -t tmpfs was refused (${stderr || (error as Error).message})`;
    }
  }
  if (skipReason) console.warn(`disk-full stack test skipped: ${skipReason}`);
});

afterAll(async () => {
  try {
    await stack?.killAll();
  } finally {
    if (mounted) {
      try {
        execFileSync("umount", [dir], { stdio: "pipe" });
      } catch {
        // Something still holds a file open there: detach it now, freed once it is closed.
        execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      }
    }
    rmSync(root, { recursive: true, force: true });
  }
}, 60_000);

describe("npm start on a disk that fills up", () => {
  it("says the disk is full, never stops, and is back by itself once space is freed, with nothing sent twice or lost", async (ctx) => {
    if (skipReason) {
      console.warn(`skipped: ${skipReason}`);
      ctx.skip();
    }
    const env = await embeddedStackEnv(dir);
    stack = startStack(env, { keep: 400_000 });
    const s = stack;
    await s.waitFor("health ok", 300_000, async () => ((await s.health())?.body.status === "ok" ? true : undefined));
    // npm start's own start done (it launches a demo agent once healthy): a launch cut off by the
    // full disk waits for its caller's retry (POST .../launch resumes it), which nobody sends here.
    await s.waitFor("npm start's banner", 180_000, async () => (s.output().includes("launchpad is running") ? true : undefined));
    const conn = readConnectionFile(dir)!;
    const operator = privateKeyToAccount(DEVNET_OPERATOR_KEY).address;
    // The engine has sent transactions before the disk fills.
    await s.waitFor(
      "an operator transaction mined",
      180_000,
      async () => ((await operatorNonceAccounting(conn.DATABASE_URL!, conn.RPC_URL!, operator).catch(() => undefined))?.mined ?? 0) > 0 || undefined,
    );

    // The disk fills up, and stays full: whatever another writer frees (a temporary file
    // removed after its write failed) the filler takes at once.
    const filledAt = Date.now();
    const filled = fill();
    console.log(`filled the ${VOLUME_MB} MB volume with ${(filled / 1024 / 1024).toFixed(1)} MB`);
    const answers: { at: number; code: number; status: string; reasons: string[] }[] = [];
    /** Why /health did not answer (no process listening, or an answer slower than 5 s), and when. */
    const unanswered: string[] = [];
    const api = `http://127.0.0.1:${env.PORT}`;
    // A busy database moves to new WAL segments: forced here, every round, so PostgreSQL runs out
    // of recycled ones and meets the full disk there too (it PANICs, its crash recovery cannot
    // write, and the server exits: npm start must start it again).
    const switchWal = async () => {
      const c = new pg.Client({ connectionString: conn.DATABASE_URL, connectionTimeoutMillis: 3_000, query_timeout: 3_000 });
      c.on("error", () => {});
      await c
        .connect()
        .then(() => c.query("SELECT pg_switch_wal()"))
        .catch(() => {});
      await c.end().catch(() => {});
    };
    const namesDisk = (a: { reasons: string[] }) => a.reasons.some((r) => /disk full: .* free of .* on the filesystem of /.test(r));
    while (Date.now() - filledAt < FULL_SECONDS * 1000) {
      fill();
      // Once health has been seen naming the disk (it cannot answer while PostgreSQL is down
      // and ponder, which serves it, is being restarted), or after half the time.
      if (answers.some(namesDisk) || Date.now() - filledAt > (FULL_SECONDS * 1000) / 2) await switchWal();
      const at = Date.now() - filledAt;
      const h = await fetch(`${api}/api/v1/health`, { signal: AbortSignal.timeout(5_000) })
        .then(async (r) => ({ code: r.status, body: JSON.parse(await r.text()) as { status: string; reasons?: string[] } }))
        .catch((error: Error) => {
          unanswered.push(
            `${Math.round(at / 1000)}s:${error.name === "TimeoutError" ? "timeout" : ((error.cause as { code?: string })?.code ?? error.message)}`,
          );
          return undefined;
        });
      if (h) answers.push({ at, code: h.code, status: h.body.status, reasons: h.body.reasons ?? [] });
      expect(s.child.exitCode, `npm start stopped on a full disk\n${s.output().slice(-6_000)}`).toBeNull();
      await new Promise((r) => setTimeout(r, 2_000));
    }
    const summary = answers.map((a) => `${Math.round(a.at / 1000)}s:${a.code}:${a.status}`).join(" ");
    console.log(`disk full ${FULL_SECONDS} s: ${answers.length} health answers: ${summary}; ${unanswered.length} unanswered: ${unanswered.join(" ")}`);
    const told = answers.filter((a) => a.code === 503 || a.status === "degraded");
    console.log(`reasons seen: ${[...new Set(told.flatMap((a) => a.reasons.map((r) => r.replace(/[\d.:TZ-]{2,}/g, "N"))))].join(" | ")}`);
    // Health told the truth: never a 500, never ok, and it named the full disk.
    expect(answers.filter((a) => a.code >= 500 && a.code !== 503)).toEqual([]);
    expect(
      answers.filter((a) => a.status === "ok"),
      summary,
    ).toEqual([]);
    expect(told.length, `${summary}\n${s.output().slice(-6_000)}`).toBeGreaterThan(0);
    expect(told.some(namesDisk), JSON.stringify(told.slice(-3))).toBe(true);

    // Space freed: back by itself.
    rmSync(filler);
    const freedAt = Date.now();
    /** What npm start itself said (restarts, PostgreSQL's exits), to read with a failure or the timings. */
    const supervisorLines = () =>
      s
        .output()
        .split("\n")
        .filter((l) => /"service":"start"|postgres: /.test(l))
        .map((l) => l.replace(/^.*"time":"([^"]+)".*"msg":"([^"]*)".*$/, "$1 $2"))
        .slice(-40)
        .join("\n");
    let last = "";
    await s
      .waitFor("health ok after space was freed", RECOVERY_LIMIT_MS, async () => {
        const h = await s.health();
        last = h ? `${h.code} ${h.body.status}: ${JSON.stringify(h.body.reasons)}` : "unanswered";
        return h?.body.status === "ok" ? true : undefined;
      })
      .catch((error) => {
        throw new Error(`${(error as Error).message.split("\n")[0]}\n--- last health ---\n${last}\n--- npm start's own lines ---\n${supervisorLines()}`);
      });
    const recoveredSeconds = (Date.now() - freedAt) / 1000;
    expect(s.child.exitCode).toBeNull();
    console.log(`npm start's own lines:\n${supervisorLines()}`);
    const output = s.output();
    const postgresRestarted = /embedded PostgreSQL is back after \d+ s/.test(output);
    console.log(
      `space freed: health ok after ${recoveredSeconds.toFixed(1)} s (PostgreSQL ${postgresRestarted ? "had exited and was started again by npm start" : "stayed up"}; restarts logged: ${output.split("\n").filter((l) => /restarting it|starting it again|is back after/.test(l)).length})`,
    );
    expect(output).not.toMatch(/stopping\b.*\n.*stopped/);

    // The audit is clean once nothing is in flight, and every operator transaction is one mined intent.
    let audit: AuditRun | undefined;
    await s
      .waitFor("a settled clean audit", 180_000, async () => {
        audit = await cliAudit(dir);
        return audit.code === 0 && audit.report?.settled ? true : undefined;
      })
      .catch((error) => {
        throw new Error(`${(error as Error).message}\n--- last audit ---\n${audit?.out.slice(0, 4_000)}`);
      });
    expect(audit!.report).toMatchObject({ ok: true, settled: true, pending: [] });
    let nonces: Awaited<ReturnType<typeof operatorNonceAccounting>> | undefined;
    await s
      .waitFor("every operator transaction one mined intent", 60_000, async () => {
        nonces = await operatorNonceAccounting(conn.DATABASE_URL!, conn.RPC_URL!, operator).catch((e) => ({ ok: false, detail: String(e) }));
        return nonces.ok ? true : undefined;
      })
      .catch((error) => {
        throw new Error(`${(error as Error).message}\n${nonces?.detail}`);
      });
    console.log(nonces!.detail);
  }, 1_200_000);
});
