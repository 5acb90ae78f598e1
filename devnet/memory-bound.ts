/**
 * The `npm start` devnet's memory bound. anvil keeps every transaction's receipt, logs and
 * call trace in memory (about 45 KB a transaction, most of it the trace), and no option drops
 * the traces while it runs. Its saved state has none (devnet/traces.ts), so a restarted anvil
 * holds only the chain itself. Past `limitBytes` of resident memory, anvil is stopped (it
 * writes its exit dump, which becomes the state file) and started again on the same port and
 * state: the RPC is away for the seconds that takes, which the engine and ponder ride out as
 * any RPC outage, and no block is lost (mining stops for the dump).
 *
 * An anvil that exited by itself is started again the same way.
 *
 * Should the chain alone come near the bound (still above `GIVE_UP_SHARE` of it just after a
 * restart), restarting no longer helps: one line says so, with what to do, and anvil is left
 * running, never restarted in a loop.
 */
import { readFileSync } from "node:fs";
import type { AnvilHandle } from "./anvil.js";

/** Just after a restart, anvil above this share of the bound means the chain itself is that large. */
export const GIVE_UP_SHARE = 0.75;

/** Resident memory of a process in bytes (0 where /proc is not there, or the process is gone). */
export function residentBytes(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kb ? Number(kb) * 1024 : 0;
  } catch {
    return 0;
  }
}

export type MemoryBoundOptions = {
  limitBytes: number;
  /** How often anvil's memory is read (default 30 s). */
  checkEveryMs?: number;
  /** Starts anvil again on the same port and state file, mining as before. */
  restart: () => Promise<AnvilHandle>;
  /** Told of each new anvil, so the caller's handle is the running one. */
  onRestarted?: (anvil: AnvilHandle) => void;
  log: (message: string) => void;
};

export type MemoryBound = {
  /** The anvil running now. */
  current: () => AnvilHandle;
  /** Restarts made so far, each with anvil's memory before and after. */
  restarts: { beforeBytes: number; afterBytes: number; seconds: number }[];
  /** Stops watching, waits for a restart under way, then stops the running anvil. */
  stop: () => Promise<void>;
};

const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;

export function boundAnvilMemory(first: AnvilHandle, options: MemoryBoundOptions): MemoryBound {
  let anvil = first;
  let stopped = false;
  let gaveUp = false;
  let restarting: Promise<void> | undefined;
  const restarts: MemoryBound["restarts"] = [];

  const restart = async (beforeBytes: number) => {
    const started = performance.now();
    options.log(
      beforeBytes === 0
        ? "anvil exited: starting it again from its state"
        : `anvil holds ${mb(beforeBytes)}, above its bound of ${mb(options.limitBytes)}: restarting it from its state, without call traces`,
    );
    await anvil.stop();
    // A failed start is tried again on the next check: until then the RPC is away, as in any outage.
    anvil = await options.restart();
    options.onRestarted?.(anvil);
    const afterBytes = residentBytes(anvil.process.pid);
    const seconds = (performance.now() - started) / 1000;
    restarts.push({ beforeBytes, afterBytes, seconds });
    options.log(`anvil restarted in ${seconds.toFixed(1)} s: ${mb(beforeBytes)} before, ${mb(afterBytes)} now`);
    if (beforeBytes > 0 && afterBytes > options.limitBytes * GIVE_UP_SHARE) {
      gaveUp = true;
      options.log(
        `anvil still holds ${mb(afterBytes)} after a restart: the chain itself is near the bound of ${mb(options.limitBytes)}; ` +
          "it is no longer restarted. Raise DEVNET_ANVIL_MEMORY_MB, or stop and remove .data/anvil for a fresh devnet",
      );
    }
  };

  const check = () => {
    if (stopped || restarting) return;
    const down = anvil.process.exitCode !== null || anvil.process.signalCode !== null;
    const bytes = down ? 0 : residentBytes(anvil.process.pid);
    if (!down && (gaveUp || bytes <= options.limitBytes)) return;
    restarting = restart(bytes)
      .catch((error: Error) => options.log(`anvil restart failed (${error.message}); trying again in ${Math.round(interval / 1000)} s`))
      .finally(() => {
        restarting = undefined;
      });
  };
  const interval = options.checkEveryMs ?? 30_000;
  const timer = setInterval(check, interval);
  timer.unref();

  return {
    current: () => anvil,
    restarts,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await restarting;
      await anvil.stop();
    },
  };
}
