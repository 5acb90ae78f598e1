/**
 * The indexer's watchdog, shared by `npm start` (scripts/start.ts) and the soak
 * (bench/soak.ts): it stops a ponder that has fallen behind and stays behind while the RPC
 * answers, and the caller's supervisor starts it again.
 */
import type { PonderHandle } from "./ponder.js";

/** The indexer's watchdog: how often it compares the index with the head, and over what window it judges. */
const WATCHDOG_POLL_MS = 3_000;
const WATCHDOG_WINDOW_MS = 15_000;
/** After a restart of the indexer, it is given this long before it is judged again. */
const WATCHDOG_COOLDOWN_MS = 90_000;

/**
 * Restarts the indexer when it lags the head and does not catch up while the RPC answers.
 * After an RPC outage (a freeze, refused connections, 429s), ponder 0.16's client has cut its
 * request rate to its floor (3 requests/s: 5% less per timeout or 429) and raises it again only
 * 5% at a time, after 5×limit consecutive successes with every second of the last ten at 90%
 * of the limit; a reactivated endpoint serves at most 3 requests at once until one succeeds.
 * None of it is configurable, and meanwhile its queue of retried requests starves the realtime
 * sync for minutes. A fresh process starts at 20 requests/s and catches up in seconds. So: once
 * the RPC has answered for WATCHDOG_WINDOW_MS, an index more than `maxLagBlocks` behind through
 * the whole window and no closer at its end than at its start gets ponder restarted, with the
 * reason logged (the supervisor starts it again).
 */
export function watchIndexer(options: {
  apiUrl: string;
  /** The RPC endpoint ponder indexes from: no judgement while it does not answer. */
  rpcUrl: string;
  maxLagBlocks: number;
  /** The ponder process of the moment (the supervisor replaces it after each exit). */
  ponder: () => PonderHandle | undefined;
  /** True once the stack is stopping: the watchdog stops too. */
  stopping: () => boolean;
  log: { warn: (fields: object, message: string) => void };
  /** Told each time the watchdog stops ponder, with the reason it logged. */
  onStop?: (reason: string) => void;
}): void {
  let samples: { at: number; lag: number; indexed: number; head: number }[] = [];
  let rpcUpSince: number | undefined;
  let judgedFrom = Date.now() + WATCHDOG_COOLDOWN_MS;
  let watched: PonderHandle | undefined;
  const tick = async () => {
    const handle = options.ponder();
    if (handle !== watched) {
      // A new ponder process: give it time to start and catch up before judging it.
      watched = handle;
      samples = [];
      judgedFrom = Math.max(judgedFrom, Date.now() + WATCHDOG_COOLDOWN_MS / 3);
    }
    const head = await fetch(options.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }),
      signal: AbortSignal.timeout(3_000),
    })
      .then((r) => r.json() as Promise<{ result?: string }>)
      .then((b) => (b.result ? Number(BigInt(b.result)) : undefined))
      .catch(() => undefined);
    if (head === undefined) {
      // No judgement while the RPC itself is down: the indexer cannot do better.
      rpcUpSince = undefined;
      samples = [];
      return;
    }
    rpcUpSince ??= Date.now();
    const ready = await fetch(`${options.apiUrl}/ready`, { signal: AbortSignal.timeout(3_000) }).then(
      (r) => r.ok,
      () => false,
    );
    const indexed = ready
      ? await fetch(`${options.apiUrl}/status`, { signal: AbortSignal.timeout(3_000) })
          .then((r) => r.json() as Promise<Record<string, { block?: { number: number } }>>)
          .then((s) => Object.values(s)[0]?.block?.number)
          .catch(() => undefined)
      : undefined;
    if (indexed === undefined) {
      samples = [];
      return;
    }
    const now = Date.now();
    samples.push({ at: now, lag: head - indexed, indexed, head });
    samples = samples.filter((x) => x.at >= now - WATCHDOG_WINDOW_MS - WATCHDOG_POLL_MS);
    const first = samples[0]!;
    const last = samples[samples.length - 1]!;
    const judged = now >= judgedFrom && now - rpcUpSince >= WATCHDOG_WINDOW_MS && last.at - first.at >= WATCHDOG_WINDOW_MS;
    if (judged && samples.every((x) => x.lag > options.maxLagBlocks) && last.lag >= first.lag && handle && !options.stopping()) {
      const reason = `the indexer is ${last.lag} blocks behind the head and has not caught up for ${Math.round((last.at - first.at) / 1000)} s while the RPC answers (ponder's client stays throttled after an RPC outage); restarting it`;
      options.log.warn(
        {
          indexed: last.indexed,
          head: last.head,
          lagBlocks: last.lag,
          windowSeconds: Math.round((last.at - first.at) / 1000),
          advancedBlocks: last.indexed - first.indexed,
        },
        reason,
      );
      options.onStop?.(reason);
      samples = [];
      judgedFrom = now + WATCHDOG_COOLDOWN_MS;
      await handle.stop().catch(() => {});
    }
  };
  const loop = async () => {
    while (!options.stopping()) {
      await tick().catch((error) => options.log.warn({ err: error instanceof Error ? error.message : String(error) }, "indexer watchdog check failed"));
      await new Promise((r) => setTimeout(r, WATCHDOG_POLL_MS));
    }
  };
  void loop();
}
