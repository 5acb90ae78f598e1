/**
 * scripts/exit-with-parent.mjs: a supervised process stops when its supervisor dies, including
 * one whose supervisor died between its spawn and the preload (it would otherwise run forever
 * under another parent, as a second indexer or a second engine).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const PRELOAD = pathToFileURL(join(import.meta.dirname, "..", "..", "scripts", "exit-with-parent.mjs")).href;
/** A child that would run for a minute on its own. */
const LONG_CHILD = "setTimeout(() => {}, 60_000)";

/** Gone: no such process, or a zombie nobody reaps (its parent died, and the init here may not reap). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.startsWith("Z") ?? false;
  } catch {
    return true;
  }
}

async function waitGone(pid: number, ms: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (gone(pid)) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`process ${pid} still running ${ms} ms after its supervisor died`);
}

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
});

/** A supervisor (as npm start spawns its children) of one child running `script` with the preload; the child's pid once it runs. */
async function supervise(script: string): Promise<{ supervisor: ChildProcess; childPid: number }> {
  const supervisor: ChildProcess = spawn(
    process.execPath,
    [
      "-e",
      `const { spawn } = require("node:child_process");
       const child = spawn(process.execPath, ["--import", ${JSON.stringify(PRELOAD)}, "-e", ${JSON.stringify(script)}], {
         env: { ...process.env, LAUNCHPAD_SUPERVISOR_PID: String(process.pid) }, stdio: ["ignore", "ignore", "pipe"],
       });
       child.stderr.resume();
       setTimeout(() => console.log(child.pid), 1000);
       setTimeout(() => {}, 60_000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  started.push(supervisor.pid!);
  const childPid = await new Promise<number>((resolve) => supervisor.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))));
  started.push(childPid);
  return { supervisor, childPid };
}

describe("exit-with-parent", () => {
  it("stops a supervised process when its supervisor is killed", async () => {
    const { supervisor, childPid } = await supervise(LONG_CHILD);
    expect(gone(childPid)).toBe(false);
    supervisor.kill("SIGKILL");
    // Noticed within the 500 ms poll; a plain node process stops at SIGTERM.
    expect(await waitGone(childPid, 10_000)).toBeLessThan(10_000);
  });

  it("stops a supervised process whose main thread is stuck (SIGKILL from the watch's own thread)", async () => {
    // The child ignores SIGTERM and then blocks its main thread for good.
    const stuck = "process.on('SIGTERM', () => {}); setTimeout(() => { for (;;) {} }, 200)";
    const { supervisor, childPid } = await supervise(stuck);
    supervisor.kill("SIGKILL");
    // SIGTERM is ignored and the main thread never runs again: SIGKILL 20 s after the supervisor is noticed gone.
    expect(await waitGone(childPid, 30_000)).toBeGreaterThan(15_000);
  }, 40_000);

  it("does not start a process whose supervisor died before the preload ran", () => {
    // A pid that existed and is gone: the supervisor killed between the spawn and the preload.
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid!;
    const child = spawnSync(process.execPath, ["--import", PRELOAD, "-e", LONG_CHILD], {
      env: { ...process.env, LAUNCHPAD_SUPERVISOR_PID: String(dead) },
      timeout: 20_000,
      encoding: "utf8",
    });
    expect(child.error).toBeUndefined();
    expect(child.status).toBe(1);
    expect(child.stderr).toContain(`supervisor ${dead} was gone`);
  });

  it("leaves a process alone when no supervisor is named", () => {
    const child = spawnSync(process.execPath, ["--import", PRELOAD, "-e", "console.log('ran')"], { encoding: "utf8", timeout: 20_000 });
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe("ran");
  });
});
