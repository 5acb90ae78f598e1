/**
 * Preloaded (`node --import`) into each process `npm start` supervises: when the supervisor
 * dies — even by SIGKILL, which gives it no chance to stop its children — the child notices
 * that its parent changed and stops itself (SIGTERM: a clean shutdown; SIGKILL if that takes
 * longer than 20 s, sent from a thread of its own so that a stuck main thread cannot hold it
 * up). No orphan keeps running, and never an engine that keeps leading.
 *
 * A child whose supervisor died between its spawn and this preload (a restart at the moment of
 * the kill) has already been handed to another parent: it stops at once, before it starts.
 *
 * Active only in the direct child of the supervisor named by LAUNCHPAD_SUPERVISOR_PID; the
 * variables are removed from this process's environment so its own children do not inherit them.
 */
import { Worker } from "node:worker_threads";

const expected = Number(process.env.LAUNCHPAD_SUPERVISOR_PID);
delete process.env.LAUNCHPAD_SUPERVISOR_PID;
if (process.env.NODE_OPTIONS?.includes("exit-with-parent")) {
  process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.replace(/--import[= ]\S*exit-with-parent\.mjs/g, "").trim();
}

/** Whether a process of that id exists (EPERM: it exists, owned by someone else). */
function exists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error?.code === "EPERM";
  }
}

/** A last line for the operator; the supervisor's end of the pipe may be gone (EPIPE), which must not become an uncaught error. */
function tell(message) {
  process.stderr.on("error", () => {});
  try {
    process.stderr.write(`${message}\n`);
  } catch {}
}

if (Number.isInteger(expected) && expected > 0) {
  if (process.ppid !== expected && !exists(expected)) {
    tell(`supervisor ${expected} was gone before process ${process.pid} started; not starting`);
    process.exit(1);
  }
  if (process.ppid === expected) {
    // The watch runs on a thread of its own: it stops the process even when the main thread is
    // busy or stuck (a shutdown that never ends, a synchronous loop), where a timer of the main
    // thread would never fire. SIGTERM first (a clean shutdown), SIGKILL 20 s later.
    // Its line goes straight to file descriptor 2, so it is written even while the main thread is stuck.
    const line = `supervisor ${expected} is gone; stopping process ${process.pid}\n`;
    const watch = new Worker(
      `const { workerData } = require("node:worker_threads");
       const { writeSync } = require("node:fs");
       const timer = setInterval(() => {
         if (process.ppid === workerData.expected) return;
         clearInterval(timer);
         try { writeSync(2, workerData.line); } catch {}
         try { process.kill(workerData.pid, "SIGTERM"); } catch {}
         setTimeout(() => { try { process.kill(workerData.pid, "SIGKILL"); } catch {} }, 20000);
       }, 500);`,
      { eval: true, workerData: { expected, pid: process.pid, line }, stdout: true, stderr: true },
    );
    watch.unref();
  }
}
