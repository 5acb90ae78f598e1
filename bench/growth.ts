/**
 * Hot reads against a growing engine ledger: `/stats` and `/tokens` under load, then a long
 * history added to `engine.ledger` in bulk (balances rebuilt from it), then the same load again.
 * The running balances keep both answers one row per leg and token, so latency must not move.
 */
import type { Address } from "viem";
import { STATS, TOKENS, apiTarget } from "./api.js";
import { type EngineState, growLedger, ledgerRows } from "./engine-state.js";
import { type LoadResult, load } from "./load.js";

export type LedgerGrowthResult = {
  rowsBefore: number;
  rowsAdded: number;
  insertSeconds: number;
  /** Per route: the load before and after the rows were added. */
  routes: { name: string; before: LoadResult; after: LoadResult; meanRatio: number; p99Ratio: number }[];
};

/** The better of two runs (lower mean latency): one noisy second on a shared machine is not a regression. */
async function steadyLoad(target: Parameters<typeof load>[0], options: Parameters<typeof load>[1]): Promise<LoadResult> {
  const a = await load(target, options);
  const b = await load(target, options);
  return a.mean <= b.mean ? a : b;
}

export async function benchLedgerGrowth(
  base: string,
  token: Address,
  state: EngineState,
  rows: number,
  options: { seconds: number; connections: number },
  log: (msg: string) => void,
): Promise<LedgerGrowthResult> {
  const targets = [apiTarget(base, token, STATS), apiTarget(base, token, TOKENS)];
  const rowsBefore = await ledgerRows(state);
  const before = [];
  for (const target of targets) before.push(await steadyLoad(target, options));
  log(`  adding ${rows} rows to engine.ledger (${rowsBefore} there) and rebuilding the running balances`);
  const started = performance.now();
  const rowsAdded = await growLedger(state, rows, "growth");
  const insertSeconds = (performance.now() - started) / 1000;
  const routes = [];
  for (const [i, target] of targets.entries()) {
    const after = await steadyLoad(target, options);
    const b = before[i]!;
    routes.push({ name: target.name, before: b, after, meanRatio: after.mean / b.mean, p99Ratio: after.p99 / Math.max(b.p99, 1) });
  }
  return { rowsBefore, rowsAdded, insertSeconds, routes };
}
