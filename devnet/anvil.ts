/**
 * Starts the real anvil binary that `@foundry-rs/anvil` ships as a platform package.
 * Automine by default (tests); `blockTime` for the live devnet of `npm start`.
 *
 * How a devnet's chain state (`stateFile`) is kept, so no stop, kill or crash can leave it
 * truncated:
 *   - The state file is only ever replaced by renaming a complete, fsynced temporary file over
 *     it. anvil never writes it in place (its own `--state`/`--state-interval` dumps truncate
 *     the file and rewrite it; killed mid-write, the chain was lost).
 *   - On stop, anvil is started with `--dump-state <file>.exit.tmp`: SIGTERM makes it dump
 *     there (its fastest path, plain JSON, ~4 s for 280 MB) and exit. We wait for that with a
 *     timeout scaled to the state's size, reporting progress, then check the dump is complete
 *     (`checkStateFile`: every bracket closed), fsync and rename it into place. Should anvil be
 *     killed or time out, the temporary file is discarded and the previous state stays.
 *   - While running, the state is saved through the `anvil_dumpState` RPC (gzip, inflated
 *     into `<file>.save.tmp`, then renamed the same way), so a crash loses at most one
 *     interval. A dump blocks anvil's transaction intake while it serializes (measured: ~7 s
 *     for a 280 MB state), so the interval stretches to 30 times the last dump's duration.
 *   - A state file is checked before anvil is spawned; one that cannot be loaded stops the
 *     start with one line naming the file and what to do, never a silent fresh chain.
 *
 * How its memory stays bounded (docs/operations.md, "The devnet's memory"): anvil keeps a full
 * copy of the chain's state for every recent block (about 0.3 MB each on the deployed devnet),
 * for calls at a past block. `stateHistoryBlocks` bounds them (`--prune-history N`). anvil's own
 * interval mining (`--block-time`, `evm_setIntervalMining`) lifts that bound (anvil 1.7.1 then
 * keeps every block's state: measured 0.33 MB a block, without end), so a `blockTime` is mined
 * here, by `evm_mine` on a timer (`setBlockTime`), never by anvil's interval miner. Blocks,
 * transactions, receipts and logs are all kept: they are the history ponder rebuilds its index
 * from. The call trace anvil records for every transaction is most of what grows; a state file
 * is saved and loaded without traces (`stripTraces`), so a restarted anvil holds a fraction of
 * the running one's memory, and `npm start` restarts it past a bound (devnet/memory-bound.ts).
 */
import { forEachLine, settlesWithin } from "../common/async.js";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Hex } from "viem";
import { DEVNET_CHAIN_ID } from "../common/config.js";
import {
  UnloadableStateError,
  checkStateFile,
  inconsistentState,
  megabytes,
  promoteSync,
  removeQuietly,
  stateProblemFromAnvil,
  writeFileAtomic,
} from "./state.js";
import { stripTraces, stripTracesFromFile } from "./traces.js";

const require = createRequire(import.meta.url);

const ARCH: Record<string, string> = { x64: "amd64", arm64: "arm64" };

export function anvilBinary(): string {
  const pkg = `@foundry-rs/anvil-${process.platform}-${ARCH[process.arch] ?? process.arch}`;
  return join(dirname(require.resolve(`${pkg}/package.json`)), "bin", "anvil");
}

export type AnvilHandle = {
  rpcUrl: string;
  process: ChildProcess;
  /** Stops anvil; with a `stateFile`, first has the chain saved completely (see above). */
  stop: () => Promise<void>;
  /** The whole chain as anvil's `anvil_dumpState` returns it: gzip of its JSON state. */
  dumpState: () => Promise<Buffer>;
  /** Saves the chain to `stateFile` now, atomically (no-op without a `stateFile`). */
  saveState: () => Promise<void>;
  /**
   * From now on a block every `seconds` (transactions wait in the pool for it), mined by
   * `evm_mine` from this process; 0 goes back to automine. Use this, never
   * `evm_setIntervalMining`, which lifts `stateHistoryBlocks`.
   */
  setBlockTime: (seconds: number) => Promise<void>;
};

export type AnvilOptions = {
  port: number;
  chainId?: number;
  /** Seconds between blocks, mined from here (see `setBlockTime`); omit for automine. */
  blockTime?: number;
  /** The devnet's chain: loaded from this file at start, saved to it periodically and at stop, atomically. */
  stateFile?: string;
  /** Least seconds between periodic saves of `stateFile` (default 60; 0: only at stop). */
  saveIntervalSeconds?: number;
  /** Load the chain from this file at start, without ever writing it back. */
  loadStateFile?: string;
  onLog?: (line: string) => void;
  /** State loads and saves: sizes, durations, and progress while a stop waits for the dump. */
  onProgress?: (message: string) => void;
  /** Block gas limit (default 60M). */
  gasLimit?: number;
  /** Run in its own process group, so a terminal's Ctrl-C reaches only the parent. */
  detached?: boolean;
  /**
   * Past blocks whose state anvil keeps, in memory only, for calls at a block number
   * (`--prune-history N`). Blocks, transactions, receipts and logs are all kept whatever this
   * says; a call at an older block fails. Unset: anvil's own default (see `stateHistoryArgs`).
   */
  stateHistoryBlocks?: number;
  /** Further anvil arguments, after ours. */
  extraArgs?: string[];
};

/** Polls `eth_chainId` until the node answers. */
export async function waitForRpc(rpcUrl: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`RPC at ${rpcUrl} did not answer within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One JSON-RPC call to a node; its error answer thrown with the method named. */
export async function rpc<T>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

/**
 * A loaded chain's next block must not be older than its head. anvil's state keeps the blocks
 * but not the clock's offset: after `evm_increaseTime` (the devnet skips each launch's sniper
 * auction so), the reloaded chain would mine blocks with earlier timestamps than the ones
 * before the reload. Time going backwards breaks anything ordered by block time; ponder's
 * checkpoints start with it, and a rebuilt index skipped every event of the blocks whose
 * timestamps later blocks undercut. The clock moves to one second past the head's time.
 */
async function keepClockForward(rpcUrl: string, progress: (line: string) => void): Promise<void> {
  const head = await rpc<{ number: Hex; timestamp: Hex }>(rpcUrl, "eth_getBlockByNumber", ["latest", false]);
  const now = BigInt(Math.floor(Date.now() / 1000));
  const behind = BigInt(head.timestamp) - now + 1n;
  if (behind <= 0n) return;
  await rpc(rpcUrl, "evm_increaseTime", [Number(behind)]);
  progress(`devnet state: the clock moved ${behind} s forward, past block ${BigInt(head.number)}'s time`);
}

/** Seconds to wait for anvil's exit dump: a minute, plus a second per 4 MB of state (anvil writes ~70 MB/s here). */
export function exitDumpTimeoutMs(stateBytes: number): number {
  return 60_000 + Math.ceil(stateBytes / 4e6) * 1_000;
}

/**
 * anvil's arguments for `stateHistoryBlocks`. Without them anvil keeps the state of up to 1,500
 * recent blocks in memory (interval mining resets its limit to 1,500 each time it is set) and
 * 3,600 more on disk. `--prune-history N` keeps N in memory and none on disk.
 */
export function stateHistoryArgs(blocks: number | undefined): string[] {
  if (blocks === undefined) return [];
  if (!Number.isSafeInteger(blocks) || blocks < 1) throw new Error(`stateHistoryBlocks: expected a positive integer (got ${blocks})`);
  return ["--prune-history", String(blocks)];
}

const sizeOf = (file: string) => (existsSync(file) ? statSync(file).size : 0);

export async function startAnvil(options: AnvilOptions): Promise<AnvilHandle> {
  const progress = options.onProgress ?? (() => {});
  const stateFile = options.stateFile;
  const args = [
    "--port",
    String(options.port),
    "--host",
    "127.0.0.1",
    "--chain-id",
    String(options.chainId ?? DEVNET_CHAIN_ID),
    "--disable-code-size-limit",
    "--gas-limit",
    String(options.gasLimit ?? 60_000_000),
    "--accounts",
    "10",
    "--balance",
    "1000000",
  ];

  args.push(...stateHistoryArgs(options.stateHistoryBlocks), ...(options.extraArgs ?? []));

  const exitTmp = stateFile && `${stateFile}.exit.tmp`;
  const loadFile = stateFile ?? options.loadStateFile;
  let stateBytes = 0;
  if (stateFile && exitTmp) {
    // An exit dump left behind (this process died before renaming it): use it if complete and newer.
    if (existsSync(exitTmp)) {
      const newer = !existsSync(stateFile) || statSync(exitTmp).mtimeMs >= statSync(stateFile).mtimeMs;
      const torn = newer && !checkStateFile(exitTmp) ? inconsistentState(exitTmp) : undefined;
      if (newer && !checkStateFile(exitTmp) && !torn) {
        promoteSync(exitTmp, stateFile);
        progress(`devnet state: recovered the complete dump ${exitTmp} left by the last stop`);
      } else {
        if (torn) progress(`devnet state: the dump ${exitTmp} left by the last stop is not one moment of the chain (${torn}); kept the last saved state`);
        removeQuietly(exitTmp);
      }
    }
    removeQuietly(`${stateFile}.save.tmp`);
  }
  const loading = Boolean(loadFile && (options.loadStateFile || existsSync(loadFile)));
  if (loadFile && loading) {
    const started = performance.now();
    const problem = checkStateFile(loadFile);
    if (problem) throw new UnloadableStateError(loadFile, problem);
    // Our own chain loads without call traces (an exit dump has them): anvil then holds a
    // fraction of the memory it held before it stopped. Nothing of ours reads an old trace.
    if (stateFile) {
      const removed = await stripTracesFromFile(loadFile);
      if (removed > 0) progress(`devnet state: dropped ${megabytes(removed)} of call traces from ${loadFile} before loading it`);
    }
    stateBytes = sizeOf(loadFile);
    args.push("--load-state", loadFile);
    progress(`devnet state: loading ${megabytes(stateBytes)} from ${loadFile} (checked in ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  if (exitTmp) args.push("--dump-state", exitTmp);
  // With a block time anvil never mines by itself (`setBlockTime` does); a loaded chain's clock
  // is set first (`keepClockForward`).
  if (options.blockTime) args.push("--no-mining");

  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"], detached: options.detached ?? false });
  const recent: string[] = [];
  // Whole lines only: anvil writes one message in several pieces (its CLI errors in seven
  // writes), and a read can end between them.
  const forward = (line: string) => {
    recent.push(line);
    if (recent.length > 40) recent.shift();
    options.onLog?.(line);
  };
  forEachLine(child.stdout, forward);
  forEachLine(child.stderr, forward);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const outputClosed = new Promise<void>((resolve) => child.once("close", () => resolve()));

  const rpcUrl = `http://127.0.0.1:${options.port}`;
  try {
    await Promise.race([
      // Loading runs before anvil listens: ~6 s for 280 MB here, so allow a second per 10 MB more.
      waitForRpc(rpcUrl, 30_000 + Math.ceil(stateBytes / 10e6) * 1_000),
      exited.then(async ({ code }) => {
        await settlesWithin(outputClosed, 5_000); // its last output lines
        const output = recent.join("\n");
        const problem = stateProblemFromAnvil(output);
        if (problem && loadFile) throw new UnloadableStateError(loadFile, problem);
        if (/address already in use|os error 98/i.test(output)) throw new Error(`anvil could not listen on port ${options.port}: the port is in use`);
        throw new Error(`anvil exited during start (code ${code}): ${recent.slice(-3).join(" | ") || "no output"}`);
      }),
    ]);
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }

  // The block timer: `evm_mine` every `blockTime` seconds, one at a time; paused while a dump
  // runs (see `saveNow`) and once stopping.
  let blockTimer: NodeJS.Timeout | undefined;
  let mining: Promise<void> = Promise.resolve();
  let miningBusy = false;
  let minerPauses = 0;
  const mineOnce = () => {
    if (miningBusy || minerPauses > 0 || stopped) return;
    miningBusy = true;
    mining = rpc(rpcUrl, "evm_mine")
      .then(
        () => {},
        () => {},
      )
      .finally(() => {
        miningBusy = false;
      });
  };
  const pauseMiner = async () => {
    minerPauses++;
    await mining;
  };
  const resumeMiner = () => {
    minerPauses--;
  };
  const setBlockTime = async (seconds: number) => {
    if (!Number.isFinite(seconds) || seconds < 0) throw new Error(`setBlockTime: expected seconds ≥ 0 (got ${seconds})`);
    clearInterval(blockTimer);
    blockTimer = undefined;
    await mining;
    await rpc(rpcUrl, "evm_setAutomine", [seconds === 0]);
    if (seconds > 0) {
      blockTimer = setInterval(mineOnce, seconds * 1000);
      blockTimer.unref();
    }
  };

  if (loading) {
    try {
      await keepClockForward(rpcUrl, progress);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
  }
  if (options.blockTime) {
    try {
      await setBlockTime(options.blockTime);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
  }

  // After anvil exits (whoever stopped it), its complete exit dump becomes the state file.
  const settled: Promise<void> = exited.then(() => {
    if (!stateFile || !exitTmp || !existsSync(exitTmp)) return;
    const problem = checkStateFile(exitTmp);
    if (problem) {
      removeQuietly(exitTmp);
      progress(`devnet state: anvil's exit dump was incomplete (${problem}); kept the last saved state`);
      return;
    }
    stateBytes = sizeOf(exitTmp);
    try {
      promoteSync(exitTmp, stateFile);
    } catch (error) {
      progress(`devnet state: could not move anvil's exit dump into place (${(error as Error).message}); it stays in ${exitTmp}`);
    }
  });

  const dumpState = async () => {
    const hex = await rpc<string>(rpcUrl, "anvil_dumpState");
    return Buffer.from(hex.slice(2), "hex");
  };

  let saving: Promise<void> = Promise.resolve();
  let lastSavedHead: string | undefined;
  const saveNow = async (reason: string) => {
    if (!stateFile) return;
    const head = await rpc<{ hash: string } | null>(rpcUrl, "eth_getBlockByNumber", ["latest", false]);
    if (reason === "periodic" && head && head.hash === lastSavedHead) return;
    const started = performance.now();
    // anvil serialises its accounts and its blocks one after the other while the miner runs: a
    // block mined in between tears the dump (a sender's nonce one off the transactions kept),
    // and a chain loaded from it has a nonce gap or state without its block. Mining pauses for
    // the dump (transactions sent meanwhile wait in the pool for the next block).
    await pauseMiner();
    let gz: Buffer;
    try {
      gz = await dumpState();
    } finally {
      resumeMiner();
    }
    const { bytes } = await writeFileAtomic(stateFile, gz, { gunzip: true, tag: "save", transform: stripTraces });
    stateBytes = bytes;
    lastSavedHead = head?.hash;
    lastSaveSeconds = (performance.now() - started) / 1000;
    if (lastSaveSeconds > 1) progress(`devnet state: saved ${megabytes(bytes)} in ${lastSaveSeconds.toFixed(1)} s`);
  };
  const saveState = () => {
    saving = saving.catch(() => {}).then(() => saveNow("requested"));
    return saving;
  };

  let lastSaveSeconds = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const interval = options.saveIntervalSeconds ?? 60;
  const schedule = () => {
    if (!stateFile || interval <= 0 || stopped) return;
    const seconds = Math.max(interval, 30 * lastSaveSeconds);
    timer = setTimeout(() => {
      saving = saving
        .catch(() => {})
        .then(() => (stopped ? undefined : saveNow("periodic")))
        .catch((error: Error) => progress(`devnet state: periodic save failed (${error.message}); the last saved state stays`))
        .finally(schedule);
    }, seconds * 1000);
    timer.unref();
  };
  schedule();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      stopped = true;
      clearTimeout(timer);
      await saving.catch(() => {});
      if (child.exitCode === null && child.signalCode === null) {
        const started = performance.now();
        // No block is mined while anvil writes its exit dump (see `saveNow`).
        clearInterval(blockTimer);
        await mining;
        child.kill("SIGTERM");
        if (!stateFile || !exitTmp) {
          if (!(await settlesWithin(exited, 5_000))) child.kill("SIGKILL");
        } else {
          // anvil dumps the whole chain before it exits: give it the time a dump of this size needs.
          const limit = exitDumpTimeoutMs(stateBytes);
          const last = stateBytes > 0 ? ` (last saved ${megabytes(stateBytes)})` : "";
          progress(`devnet state: anvil is writing the chain state${last}, waiting up to ${Math.round(limit / 1000)} s`);
          while (!(await settlesWithin(exited, 5_000))) {
            const waited = performance.now() - started;
            if (waited > limit) {
              child.kill("SIGKILL");
              progress(`devnet state: anvil did not finish its dump within ${Math.round(limit / 1000)} s; kept the last saved state`);
              break;
            }
            progress(`devnet state: ${megabytes(sizeOf(exitTmp))} written after ${Math.round(waited / 1000)} s…`);
          }
        }
        await exited;
        await settled;
        if (stateFile && existsSync(stateFile)) {
          progress(`devnet state: ${megabytes(sizeOf(stateFile))} in ${stateFile} (stop took ${((performance.now() - started) / 1000).toFixed(1)} s)`);
        }
      } else {
        await settled;
      }
    })();
    return stopping;
  };

  return { rpcUrl, process: child, stop, dumpState, saveState, setBlockTime };
}

/** Past blocks whose state the `npm start` devnet keeps for calls at a block number, unless `DEVNET_STATE_HISTORY_BLOCKS` says otherwise. */
export const DEFAULT_STATE_HISTORY_BLOCKS = 64;

/**
 * `DEVNET_STATE_HISTORY_BLOCKS`: a positive integer (at most 100,000), or `0` for anvil's own
 * default (no bound of ours). Throws a configuration error naming the variable otherwise.
 */
export function stateHistoryBlocksFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.DEVNET_STATE_HISTORY_BLOCKS;
  if (raw === undefined || raw === "") return DEFAULT_STATE_HISTORY_BLOCKS;
  if (!/^\d{1,6}$/.test(raw) || Number(raw) > 100_000) throw new Error(`DEVNET_STATE_HISTORY_BLOCKS: expected an integer from 0 to 100000 (got "${raw}")`);
  return Number(raw) === 0 ? undefined : Number(raw);
}
