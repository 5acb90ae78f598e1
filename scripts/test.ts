/**
 * `npm test`: the whole suite, as CI runs it (docs/testing.md).
 *
 * 1. Biome's format and lint, then the types: the two checks that fail fast.
 * 2. The prepared devnet (devnet/prepared.ts), deployed once here when the cache lacks it, so
 *    that the lanes below find it ready rather than each deploying its own.
 * 3. Two lanes side by side, each a vitest run with its own PostgreSQL, anvils and port blocks:
 *    - `parallel`: every file but those below, two at a time;
 *    - `serial`: the whole-stack fault suites and the bench harness, one at a time.
 *    The stack suites spend most of their time waiting for a process, a block or an outage to
 *    end; the other lane uses the CPU they leave. Their bounds are sized for a machine that
 *    busy (docs/testing.md).
 * 4. `timing`: the two files whose property is a timing (the hostile clients' latency bound,
 *    the leadership lease), alone.
 *
 * Every lane runs to its end even when another failed; the exit code is 1 if any did. The end
 * prints the ten slowest files of the whole run and the total.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { preparedDevnet } from "../devnet/prepared.js";
import { ROOT } from "../devnet/compile.js";

const bin = (name: string) => join(ROOT, "node_modules", ".bin", name);
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 60_000).toFixed(1)} min`;

function check(name: string, command: string, args: string[]): void {
  process.stdout.write(`\n[npm test] ${name}\n`);
  const run = spawnSync(command, args, { cwd: ROOT, stdio: "inherit" });
  if (run.status !== 0) {
    process.stdout.write(`[npm test] ${name} failed (exit ${run.status ?? run.signal}): fix it first\n`);
    process.exit(1);
  }
}

type Lane = { name: string; args: string[]; env: Record<string, string> };
type Timings = { files: { file: string; ms: number; state: string }[]; wallMs: number };

const timingsDir = mkdtempSync(join(tmpdir(), "launchpad-test-timings-"));

/** One vitest run, its lines prefixed with the lane's name; resolves to its exit code. */
function runLane(lane: Lane, prefix: boolean): Promise<number> {
  const child: ChildProcess = spawn(bin("vitest"), ["run", ...lane.args], {
    cwd: ROOT,
    env: { ...process.env, ...lane.env, TEST_TIMINGS_FILE: join(timingsDir, `${lane.name}.json`) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  for (const [stream, out] of [
    [child.stdout!, process.stdout],
    [child.stderr!, process.stderr],
  ] as const) {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop()!;
      for (const line of lines) out.write(prefix ? `[${lane.name}] ${line}\n` : `${line}\n`);
    });
    stream.on("end", () => rest && out.write(prefix ? `[${lane.name}] ${rest}\n` : `${rest}\n`));
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0))));
}

function summary(lanes: Lane[]): void {
  const files = lanes.flatMap((lane) => {
    try {
      const timings = JSON.parse(readFileSync(join(timingsDir, `${lane.name}.json`), "utf8")) as Timings;
      return timings.files.map((f) => ({ ...f, lane: lane.name }));
    } catch {
      return [];
    }
  });
  files.sort((a, b) => b.ms - a.ms);
  const shown = files.slice(0, 10);
  const width = Math.max(0, ...shown.map((f) => f.file.length));
  process.stdout.write(`\nThe ${shown.length} slowest of ${files.length} files:\n`);
  for (const f of shown)
    process.stdout.write(`  ${f.file.padEnd(width)}  ${`${(f.ms / 1000).toFixed(1)} s`.padStart(8)}  ${f.lane}${f.state === "failed" ? "  (failed)" : ""}\n`);
  process.stdout.write(`Total: ${elapsed()} wall for npm test, ${(files.reduce((s, f) => s + f.ms, 0) / 1000).toFixed(1)} s in files.\n`);
}

async function main(): Promise<number> {
  check("biome ci (format and lint)", bin("biome"), ["ci", "."]);
  check("tsc --noEmit (types)", bin("tsc"), ["--noEmit"]);

  process.stdout.write("\n[npm test] the prepared devnet\n");
  await preparedDevnet({ progress: (line) => process.stdout.write(`[npm test] ${line}\n`) });

  const parallel: Lane = { name: "parallel", args: ["--project", "parallel"], env: { TEST_WORKERS: "2", TEST_PORT_BLOCK: "0" } };
  const serial: Lane = { name: "serial", args: ["--project", "serial", "--no-file-parallelism"], env: { TEST_WORKERS: "1", TEST_PORT_BLOCK: "4" } };
  const timing: Lane = { name: "timing", args: ["--project", "timing", "--no-file-parallelism"], env: { TEST_WORKERS: "1", TEST_PORT_BLOCK: "8" } };

  process.stdout.write(`\n[npm test] two lanes side by side (${elapsed()}): parallel and serial\n`);
  const codes = await Promise.all([runLane(parallel, true), runLane(serial, true)]);
  process.stdout.write(`\n[npm test] the timing files, alone (${elapsed()})\n`);
  codes.push(await runLane(timing, false));

  summary([parallel, serial, timing]);
  rmSync(timingsDir, { recursive: true, force: true });
  const failed = [parallel, serial, timing].filter((_, i) => codes[i] !== 0).map((l) => l.name);
  if (failed.length) process.stdout.write(`[npm test] failed in: ${failed.join(", ")}\n`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`npm test: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
