/**
 * Crash injection for the fault tests: named points inside a cycle where the engine kills
 * itself with SIGKILL (no cleanup, no flush), as a power cut would. Off unless configured
 * (`ENGINE_CRASH_AT=after-sign` or `after-sign:2` for the second time the point is reached).
 */
import type { Logger } from "../common/logger.js";

export const CRASH_POINTS = ["after-sign", "after-broadcast", "between-swap-and-burn", "mid-claim-batch", "after-open-order"] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export type Faults = { hit: (point: CrashPoint) => void };

export const NO_FAULTS: Faults = { hit: () => {} };

/** Parses `point[:n][,point[:n]…]`; an unknown point name is a configuration error. */
export function parseFaults(spec: string | undefined, log?: Logger, kill: () => void = () => process.kill(process.pid, "SIGKILL")): Faults {
  if (!spec) return NO_FAULTS;
  const targets = new Map<string, number>();
  for (const part of spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, n] = part.split(":");
    if (!CRASH_POINTS.includes(name as CrashPoint)) throw new Error(`unknown crash point "${name}" (known: ${CRASH_POINTS.join(", ")})`);
    targets.set(name!, n ? Number(n) : 1);
  }
  const seen = new Map<string, number>();
  return {
    hit(point) {
      const target = targets.get(point);
      if (target === undefined) return;
      const count = (seen.get(point) ?? 0) + 1;
      seen.set(point, count);
      if (count === target) {
        log?.warn({ point }, "crash injection: killing the engine");
        process.stderr.write(`crash injection at ${point}\n`);
        kill();
      }
    },
  };
}
