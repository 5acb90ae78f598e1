/**
 * Preloaded (`node --import`) into each process `npm start` supervises: when the supervisor
 * dies — even by SIGKILL, which gives it no chance to stop its children — the child notices
 * that its parent changed and stops itself (SIGTERM: a clean shutdown; killed if that takes
 * longer than 20 s). No orphan keeps running, and never an engine that keeps leading.
 *
 * Active only in the direct child of the supervisor named by LAUNCHPAD_SUPERVISOR_PID; the
 * variables are removed from this process's environment so its own children do not inherit them.
 */
const expected = Number(process.env.LAUNCHPAD_SUPERVISOR_PID);
delete process.env.LAUNCHPAD_SUPERVISOR_PID;
if (process.env.NODE_OPTIONS?.includes("exit-with-parent")) {
  process.env.NODE_OPTIONS = process.env.NODE_OPTIONS.replace(/--import[= ]\S*exit-with-parent\.mjs/g, "").trim();
}
if (Number.isInteger(expected) && expected > 0 && process.ppid === expected) {
  const watch = setInterval(() => {
    if (process.ppid === expected) return;
    clearInterval(watch);
    process.stderr.write(`supervisor ${expected} is gone; stopping process ${process.pid}\n`);
    setTimeout(() => process.exit(1), 20_000).unref();
    process.kill(process.pid, "SIGTERM");
  }, 500);
  watch.unref();
}
