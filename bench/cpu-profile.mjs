/**
 * Preload for profiling a ponder child (`NODE_OPTIONS=--import …/cpu-profile.mjs`, since
 * `--cpu-prof` is refused in NODE_OPTIONS): samples the CPU from start-up and, on SIGUSR2,
 * writes the profile to `$CPU_PROFILE_FILE` (bench/profile-indexing.ts reads it).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const file = process.env.CPU_PROFILE_FILE;
if (file) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable", () => {
    session.post("Profiler.setSamplingInterval", { interval: 1000 }, () => session.post("Profiler.start"));
  });
  process.on("SIGUSR2", () => {
    session.post("Profiler.stop", (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
