/**
 * The devnet's chain and the index, after a crash of the whole stack.
 *
 * anvil's state is saved every few seconds (longer as it grows), so a crash rolls the devnet
 * back: a reorg. ponder rides out a reorg it sees while running, within its finality window (30
 * blocks on the devnet's chain id). One deeper than that leaves it with finalized blocks the chain no longer
 * has: it refuses to start while the chain is shorter ("Finalized block … cannot move
 * backwards"), and once the chain is long again it would keep the vanished blocks' rows and its
 * sync cache's word that those block ranges were fetched. A shallower one is no better after a
 * crash: ponder's crash recovery resumes from its own checkpoint without asking the chain
 * whether the blocks behind it are still there, so rows of vanished blocks stay. Neither can
 * be repaired in place, so before ponder starts on the devnet this compares the index's latest
 * and finalized blocks with the chain and, if the chain no longer has either, drops the index
 * and ponder's sync cache: ponder rebuilds both from the devnet (a few hundred blocks). Only
 * `npm start`'s own devnet does this; a chain reached through `RPC_URL` is never reset.
 */
import pg from "pg";
import { createPublicClient, http } from "viem";

/** ponder's checkpoint layout: 10 digits of timestamp, 16 of chain id, then 16 of block number. */
const CHECKPOINT_TIMESTAMP = { from: 0, to: 10 } as const;
const CHECKPOINT_BLOCK = { from: 26, to: 42 } as const;

export type IndexRollback = { finalizedBlock: bigint; head: bigint; reason: string };

/**
 * Whether the chain at `rpcUrl` lost blocks the index in `schema` holds; `undefined` when it
 * has them (or nothing is indexed yet).
 */
export async function findIndexRollback(p: { databaseUrl: string; schema: string; rpcUrl: string; chainId: number }): Promise<IndexRollback | undefined> {
  const client = new pg.Client({ connectionString: p.databaseUrl });
  await client.connect();
  try {
    const exists = await client.query("SELECT to_regclass($1) AS t", [`"${p.schema}"._ponder_checkpoint`]);
    if (!exists.rows[0].t) return undefined;
    const cp = await client.query<{ latest: string; finalized: string }>(
      `SELECT latest_checkpoint AS latest, finalized_checkpoint AS finalized FROM "${p.schema}"._ponder_checkpoint WHERE chain_id = $1`,
      [p.chainId],
    );
    if (!cp.rows[0]) return undefined;
    const chain = createPublicClient({ transport: http(p.rpcUrl) });
    const head = await chain.getBlockNumber({ cacheTime: 0 });
    const finalizedBlock = blockOf(cp.rows[0].finalized);
    // ponder's crash recovery resumes from its own checkpoints and never asks the chain whether
    // the blocks behind them are still there; a block mined again after the rollback carries a
    // later time than the one the index holds.
    for (const [name, checkpoint] of [
      ["latest", cp.rows[0].latest],
      ["finalized", cp.rows[0].finalized],
    ] as const) {
      const number = blockOf(checkpoint);
      const time = BigInt(checkpoint.slice(CHECKPOINT_TIMESTAMP.from, CHECKPOINT_TIMESTAMP.to));
      if (number === 0n) continue;
      if (head < number) return { finalizedBlock, head, reason: `the devnet's head ${head} is below the index's ${name} block ${number}` };
      const block = await chain.getBlock({ blockNumber: number });
      if (block.timestamp !== time)
        return { finalizedBlock, head, reason: `block ${number}, the index's ${name}, has time ${block.timestamp} on the devnet, not ${time}` };
    }
    return undefined;
  } finally {
    await client.end();
  }
}

const blockOf = (checkpoint: string) => BigInt(checkpoint.slice(CHECKPOINT_BLOCK.from, CHECKPOINT_BLOCK.to));

/** Drops the index in `schema` (and the views over it) and ponder's sync cache, so ponder rebuilds them from the chain. */
export async function dropIndex(p: { databaseUrl: string; schema: string }): Promise<void> {
  const client = new pg.Client({ connectionString: p.databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${p.schema}" CASCADE`);
    await client.query("DROP SCHEMA IF EXISTS ponder_sync CASCADE");
  } finally {
    await client.end();
  }
}
