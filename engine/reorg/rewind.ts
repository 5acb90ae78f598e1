/**
 * What the engine redoes when a reorg takes blocks away (the finality watcher's rewind hook,
 * run inside its transaction after the intents were reopened and the ledger rows reversed):
 * - fee attribution: each currency's cursor goes back to the last claim the chain still has,
 *   so the claims after it are attributed again from the canonical logs;
 * - perps: every applied event of a lost block is undone (the desk trade restored to the
 *   row it was before) and the scan starts again at the fork;
 * - work that used a reopened intent's receipt goes back to the step that waits for it:
 *   a buyback to `swapping` or `burning`, a WETH conversion or an asset purchase to its
 *   swap or stake, a desk order to `opening` — the worker re-derives its amounts from the new
 *   receipt on its next cycle.
 * Every reorg, re-send and drop is written to the agent log with its reason, and so is every
 * leg a reversal left short (an inflow spent before a reorg deeper than `CONFIRMATIONS`).
 */
import { sql } from "drizzle-orm";
import type { Tx } from "../../core/db/client.js";
import { tables } from "../../core/db/client.js";
import { type Leg, PER_TOKEN_LEGS } from "../../core/ledger/legs.js";
import type { ReorgEffects, RewindHook } from "./finality.js";
import { rewindAttributionCursors } from "../fees/attribution.js";
import { rewindPerpsEvents } from "../desks/sync.js";
import { showAmountOf } from "../../common/units.js";

/** The work an intent's key belongs to, put back to the step that waits for that intent. */
async function rewindWork(tx: Tx, key: string): Promise<string | undefined> {
  let m = /^buyback:(\d+):swap$/.exec(key);
  if (m) {
    await tx.execute(sql`UPDATE engine.buybacks SET status = 'swapping', tokens_bought = NULL, tokens_burned = NULL, swap_tx_hash = NULL,
      burn_tx_hash = NULL, block_number = NULL, completed_at = NULL WHERE id = ${Number(m[1])} AND status IN ('burning', 'done')`);
    return `buyback ${m[1]} swaps again`;
  }
  m = /^buyback:(\d+):burn(:\d+|:rest\d*)?$/.exec(key);
  if (m) {
    await tx.execute(sql`UPDATE engine.buybacks SET status = 'burning', tokens_burned = NULL, burn_tx_hash = NULL, block_number = NULL,
      completed_at = NULL WHERE id = ${Number(m[1])} AND status = 'done'`);
    return `buyback ${m[1]} burns again`;
  }
  m = /^weth-conversion:(\d+):swap$/.exec(key);
  if (m) {
    await tx.execute(
      sql`UPDATE engine.weth_conversions SET status = 'swapping', usdc_out = NULL, completed_at = NULL WHERE id = ${Number(m[1])} AND status = 'done'`,
    );
    return `WETH conversion ${m[1]} settles again`;
  }
  m = /^asset-purchase:(\d+):swap$/.exec(key);
  if (m) {
    await tx.execute(sql`UPDATE engine.asset_purchases SET status = 'swapping', asset_bought = NULL, asset_staked = NULL, shares = NULL,
      completed_at = NULL WHERE id = ${Number(m[1])} AND status IN ('staking', 'done')`);
    return `asset purchase ${m[1]} swaps again`;
  }
  m = /^asset-purchase:(\d+):stake$/.exec(key);
  if (m) {
    await tx.execute(sql`UPDATE engine.asset_purchases SET status = 'staking', asset_staked = NULL, shares = NULL, completed_at = NULL
      WHERE id = ${Number(m[1])} AND status = 'done'`);
    return `asset purchase ${m[1]} stakes again`;
  }
  m = /^claim-cycle:\d+:collect:(0x[0-9a-fA-F]{40})$/.exec(key);
  if (m) {
    // The collect may be gone with its block: the token's pool counts as holding fees again (fees/waiting.ts).
    await tx.execute(sql`DELETE FROM engine.state WHERE key = ${`fee-growth:${m[1]}`}`);
    return `the fees of token ${m[1]} count as waiting again`;
  }
  m = /^desk-trade:(\d+):open$/.exec(key);
  if (m) {
    await tx.execute(sql`UPDATE engine.desk_trades SET order_id = NULL, updated_at = now() WHERE id = ${Number(m[1])} AND status = 'opening'`);
    return `desk trade ${m[1]} reads its order again`;
  }
  return undefined;
}

/** The engine's rewind hook for the finality watcher. */
export const rewindEngine: RewindHook = async (tx: Tx, effects: ReorgEffects) => {
  await rewindPerpsEvents(
    tx,
    effects.forkBlock,
    effects.lost.map((b) => b.hash),
  );
  await rewindAttributionCursors(tx, effects.forkBlock);
  for (const intent of effects.intents) {
    const redo = await rewindWork(tx, intent.key);
    const dropped = intent.status === "dropped";
    await tx.insert(tables.agentLog).values({
      token: null,
      worker: intent.worker ?? "finality",
      decision: dropped ? "tx-dropped" : "tx-reorged",
      reason: dropped
        ? `${intent.key}: ${intent.error}; the work is planned again`
        : `${intent.key}: ${intent.error}; the same signed bytes were sent again${redo ? `; ${redo}` : ""}`,
      data: { key: intent.key, nonce: intent.nonce, hash: intent.txHash, forkBlock: effects.forkBlock },
    });
  }
  if (effects.reversed.length) {
    await tx.insert(tables.agentLog).values({
      token: null,
      worker: "finality",
      decision: "ledger-reversed",
      reason: `${effects.reversed.length} ledger row(s) derived from blocks ≥ ${effects.forkBlock} reversed; they are derived again from the canonical chain`,
      data: { keys: effects.reversed.slice(0, 50).map((r) => r.key) },
    });
  }
  // Inflows already spent that the chain took back: the leg owes it until later inflows repay.
  for (const r of effects.reversed) {
    if (!r.deficit) continue;
    await tx.insert(tables.agentLog).values({
      // A pooled leg's shortfall is the leg's, whichever token's fees the reversed row carried.
      token: PER_TOKEN_LEGS.includes(r.leg as Leg) ? r.token || null : null,
      worker: "finality",
      decision: "reorg-deficit",
      reason: `leg ${r.leg} is ${showAmountOf(BigInt(r.deficit), r.currency)} short: blocks ≥ ${effects.forkBlock} that paid it were spent from before the reorg took them; its next inflows repay it before anything more is spent`,
      data: { leg: r.leg, currency: r.currency, deficit: r.deficit.toString(), forkBlock: effects.forkBlock },
    });
  }
};
