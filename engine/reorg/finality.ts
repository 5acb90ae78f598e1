/**
 * The finality watcher: compares every block the engine has built on with the canonical
 * chain, at startup and on every monitor tick, and undoes what a reorg took away.
 *
 * What the engine builds on carries the number and hash of its block: mined and reverted
 * intents, ledger rows derived from a receipt or a log, applied perps events. The watcher
 * walks those blocks from the newest down and stops at the first one the chain still has
 * (the hash chain vouches for everything below it), so a quiet chain costs one block lookup.
 * Every block above that point was forgotten — a reorg, an RPC failover to a node at another
 * head, a devnet rolled back to its last state snapshot — and in one database transaction:
 * - its intents go back to broadcast (same nonce, same signed bytes: never a second spend),
 *   and their stored bytes are sent again;
 * - its ledger rows are reversed by keyed compensating rows (`reversal:<key>`);
 * - the engine's rewind hook puts the work that used them back where it can be redone
 *   (scan cursors, buybacks, conversions, desk trades), so it is derived again from the
 *   new receipts, whose amounts may differ.
 * Intents covered by `CONFIRMATIONS` blocks are then marked final.
 */
import { sql } from "drizzle-orm";
import type { Hex, PublicClient } from "viem";
import type { Logger } from "../../common/logger.js";
import type { Db, Tx } from "../../core/db/client.js";
import { classifyError } from "../../core/errors.js";
import { reverseBlocks, type ReversedRow } from "../../core/ledger/reorg.js";
import { type IntentRow, intentFromRow } from "../../core/chain/pipeline/index.js";
import { type Fence, fenceGuard } from "../../core/leadership.js";

/** Recorded blocks read per page while walking down. */
const PAGE = 50;

export type LostBlock = { number: number; hash: Hex };

/** What a reorg took away, handed to the rewind hook inside the watcher's transaction. */
export type ReorgEffects = {
  /** Lowest block number that was lost: everything the engine scanned from here is redone. */
  forkBlock: number;
  lost: LostBlock[];
  /** Intents sent back to broadcast (or dropped when their nonce is held by another live intent). */
  intents: IntentRow[];
  reversed: ReversedRow[];
};

export type RewindHook = (tx: Tx, effects: ReorgEffects) => Promise<void>;

export type FinalityDeps = {
  db: Db;
  /** The leader's fence: the rewind is written only while its lease epoch is current. */
  fence?: Fence;
  publicClient: PublicClient;
  log: Logger;
  confirmations: number;
  rewind?: RewindHook;
};

export type FinalityReport = { head: number; checked: number; lost: LostBlock[]; reopened: string[]; reversed: number; finalized: number };

type Recorded = { number: number; hash: Hex };

/**
 * The recorded blocks below `before`, newest first: one indexed query per source, each
 * limited to a page. `floor` is the lowest block every source has been read down to (the
 * highest last block among sources that filled their page): blocks from `floor` up are
 * complete; below it, a full source may hold blocks not read yet. -1 when no source was full.
 */
async function recordedBlocks(db: Db, before: number): Promise<{ blocks: Recorded[]; floor: number }> {
  const sources = [
    sql`SELECT block_number, block_hash FROM engine.tx_intents
        WHERE block_hash IS NOT NULL AND status IN ('mined', 'reverted') AND block_number < ${before}
        ORDER BY block_number DESC LIMIT ${PAGE}`,
    sql`SELECT l.block_number, l.block_hash FROM engine.ledger l
        WHERE l.block_hash IS NOT NULL AND l.block_number < ${before}
          AND NOT EXISTS (SELECT 1 FROM engine.ledger r WHERE r.key = 'reversal:' || l.key)
        ORDER BY l.block_number DESC LIMIT ${PAGE}`,
    sql`SELECT block_number, block_hash FROM engine.perps_events
        WHERE block_hash IS NOT NULL AND block_number < ${before}
        ORDER BY block_number DESC LIMIT ${PAGE}`,
  ];
  const seen = new Map<string, Recorded>();
  let floor = -1;
  for (const query of sources) {
    const { rows } = await db.execute<{ block_number: string; block_hash: Hex }>(query);
    for (const r of rows) seen.set(`${r.block_number}:${r.block_hash}`, { number: Number(r.block_number), hash: r.block_hash });
    if (rows.length === PAGE) floor = Math.max(floor, Number(rows[rows.length - 1]!.block_number));
  }
  return { blocks: [...seen.values()].filter((b) => b.number >= floor).sort((a, b) => b.number - a.number), floor };
}

/** Marks legacy rows (written before blocks carried hashes) found beyond the head, so they reverse like any lost block's. */
const LEGACY_LOST = "0x0000000000000000000000000000000000000000000000000000000000000000" as Hex;

/**
 * Intents mined before receipts carried their block hash: the receipt gives it (then the walk
 * checks them like any other); an intent whose receipt the chain no longer has was lost, and
 * is reported under a placeholder block so it is reopened with the rest.
 */
async function backfillReceipts(db: Db, client: PublicClient): Promise<LostBlock[]> {
  const { rows } = await db.execute<{ id: string; tx_hash: Hex; block_number: string | null }>(sql`
    SELECT id, tx_hash, block_number FROM engine.tx_intents
    WHERE block_hash IS NULL AND status IN ('mined', 'reverted') ORDER BY id DESC LIMIT 200`);
  const lost: LostBlock[] = [];
  for (const r of rows) {
    let receipt;
    try {
      receipt = await client.getTransactionReceipt({ hash: r.tx_hash });
    } catch (error) {
      if (!/not found|could not be found/i.test(classifyError(error).message)) throw error;
    }
    if (receipt) {
      await db.execute(sql`UPDATE engine.tx_intents SET block_hash = ${receipt.blockHash}, block_number = ${Number(receipt.blockNumber)} WHERE id = ${r.id}`);
    } else {
      const number = Number(r.block_number ?? 0);
      const hash = `0x${BigInt(r.id).toString(16).padStart(64, "f")}` as Hex; // a hash no block has
      await db.execute(sql`UPDATE engine.tx_intents SET block_hash = ${hash} WHERE id = ${r.id}`);
      lost.push({ number, hash });
    }
  }
  return lost;
}

/** The canonical hash at a height, or null when the chain is shorter. */
async function canonicalHash(client: PublicClient, number: number, head: number): Promise<Hex | null> {
  if (number > head) return null;
  try {
    const block = await client.getBlock({ blockNumber: BigInt(number), includeTransactions: false });
    return block.hash;
  } catch (error) {
    if (/not found|could not be found/i.test(classifyError(error).message)) return null;
    throw error;
  }
}

/**
 * One pass of the watcher. Safe to run concurrently with itself and with other processes
 * (the reversal and the intent updates are keyed and guarded by status).
 */
export async function checkFinality(deps: FinalityDeps): Promise<FinalityReport> {
  const { db, publicClient, log } = deps;
  const head = Number(await publicClient.getBlockNumber({ cacheTime: 0 }));
  const vanished = await backfillReceipts(db, publicClient);
  const lost: LostBlock[] = [...vanished];
  let checked = 0;
  let before = Number.MAX_SAFE_INTEGER;
  walk: for (;;) {
    const { blocks: page, floor } = await recordedBlocks(db, before);
    if (!page.length) break;
    const byNumber = new Map<number, Recorded[]>();
    for (const r of page) byNumber.set(r.number, [...(byNumber.get(r.number) ?? []), r]);
    for (const [number, recorded] of [...byNumber].sort((a, b) => b[0] - a[0])) {
      const hash = await canonicalHash(publicClient, number, head);
      checked++;
      const gone = recorded.filter((r) => r.hash !== hash);
      lost.push(...gone);
      // A recorded block the chain still has: every block below it is canonical too.
      if (gone.length < recorded.length) break walk;
    }
    // Every source read to its end: nothing recorded below this page.
    if (floor < 0) break;
    // A page that is all one block (a source with more rows in it than a page) still moves on.
    before = floor;
  }

  const report: FinalityReport = { head, checked, lost, reopened: [], reversed: 0, finalized: 0 };
  // Ledger rows written before blocks carried hashes: beyond the head they are certainly gone.
  const legacy = await db.execute<{ block_number: string }>(sql`
    SELECT MIN(block_number)::text AS block_number FROM engine.ledger
    WHERE block_hash IS NULL AND block_number > ${head} AND key NOT LIKE 'reversal:%'`);
  const legacyFrom = legacy.rows[0]?.block_number ? Number(legacy.rows[0].block_number) : undefined;
  if (legacyFrom !== undefined) {
    await db.execute(
      sql`UPDATE engine.ledger SET block_hash = ${LEGACY_LOST} WHERE block_hash IS NULL AND block_number > ${head} AND key NOT LIKE 'reversal:%'`,
    );
    lost.push({ number: legacyFrom, hash: LEGACY_LOST });
  }
  if (lost.length) {
    const forkBlock = Math.min(...lost.map((b) => b.number));
    const hashes = lost.map((b) => b.hash);
    const reason = `block${lost.length > 1 ? "s" : ""} ${[...new Set(lost.map((b) => b.number))].sort((a, b) => a - b).join(", ")} left the canonical chain`;
    const intents = await db.transaction(async (tx) => {
      await assertLeading(tx, deps.fence);
      const reopened = await reopenIntents(tx, hashes, reason);
      const reversed = await reverseBlocks(tx, hashes, reason);
      await deps.rewind?.(tx, { forkBlock, lost, intents: reopened, reversed });
      report.reversed = reversed.length;
      return reopened;
    });
    report.reopened = intents.map((i) => i.key);
    log.warn(
      { forkBlock, lost: lost.length, intents: report.reopened, reversedRows: report.reversed },
      `reorg: ${reason}; ${intents.length} transaction(s) back to broadcast, ${report.reversed} ledger row(s) reversed`,
    );
    deps.fence?.assertHeld();
    await resend(publicClient, log, intents);
  }
  const finalBelow = head - deps.confirmations;
  const finalized = await db.execute(sql`
    UPDATE engine.tx_intents SET final_at = now()
    WHERE final_at IS NULL AND status IN ('mined', 'reverted') AND block_number <= ${finalBelow}`);
  report.finalized = finalized.rowCount ?? 0;
  return report;
}

/** Holds the lease row (FOR SHARE) for the rest of the transaction, or FencedError when another engine leads. */
async function assertLeading(tx: Tx, fence: Fence | undefined): Promise<void> {
  if (!fence) return;
  fence.assertHeld();
  const { rows } = await tx.execute<{ held: boolean }>(sql`SELECT ${fenceGuard(fence)} AS held`);
  if (!rows[0]?.held) throw fence.lost(`the lease of epoch ${fence.epoch} is no longer this engine's`);
}

/**
 * Sends the intents of lost blocks back to broadcast. One whose (signer, nonce) another live
 * intent holds can never be mined as it is: it is dropped with its reason instead.
 */
async function reopenIntents(tx: Tx, hashes: Hex[], reason: string): Promise<IntentRow[]> {
  const { rows } = await tx.execute<Record<string, unknown>>(sql`
    SELECT * FROM engine.tx_intents
    WHERE block_hash IN (${sql.join(
      hashes.map((h) => sql`${h}`),
      sql`, `,
    )}) AND status IN ('mined', 'reverted')
    ORDER BY block_number, id FOR UPDATE`);
  const out: IntentRow[] = [];
  for (const r of rows) {
    const intent = intentFromRow(r);
    const { rows: holders } = await tx.execute<{ key: string }>(sql`
      SELECT key FROM engine.tx_intents WHERE signer = ${intent.signer} AND nonce = ${intent.nonce} AND status IN ('signed', 'broadcast') AND id <> ${intent.id}`);
    const why = `reorged out: ${reason} (was in block ${intent.blockNumber}, ${intent.blockHash})`;
    const updated = holders.length
      ? await tx.execute<Record<string, unknown>>(sql`
          UPDATE engine.tx_intents SET status = 'dropped', error = ${`${why}; its nonce is now held by ${holders[0]!.key}`},
            block_number = NULL, block_hash = NULL, final_at = NULL, reorgs = reorgs + 1, updated_at = now()
          WHERE id = ${intent.id} RETURNING *`)
      : await tx.execute<Record<string, unknown>>(sql`
          UPDATE engine.tx_intents SET status = 'broadcast', error = ${why}, revert_reason = NULL, block_number = NULL, block_hash = NULL,
            gas_used = NULL, mined_at = NULL, final_at = NULL, reorgs = reorgs + 1, broadcast_at = now(), updated_at = now()
          WHERE id = ${intent.id} RETURNING *`);
    out.push(intentFromRow(updated.rows[0]!));
  }
  return out;
}

/** The stored signed bytes of reopened intents, sent again in nonce order (the pipeline settles them). */
async function resend(client: PublicClient, log: Logger, intents: IntentRow[]): Promise<void> {
  for (const intent of intents) {
    if (intent.status !== "broadcast" || !intent.rawTx) continue;
    try {
      await client.request({ method: "eth_sendRawTransaction", params: [intent.rawTx] });
      log.info({ intent: intent.key, hash: intent.txHash }, `re-sent ${intent.key} after the reorg (same signed bytes)`);
    } catch (error) {
      const e = classifyError(error);
      if (!["already-known", "nonce-too-low", "replacement-underpriced"].includes(e.code)) {
        log.warn({ intent: intent.key, err: e.message }, "re-sending after the reorg failed; the pipeline retries");
      }
    }
  }
}
