/**
 * Lineage: where the money of a spend came from, and where a token's fees went
 * (docs/api.md, "Proofs, fee flow and public audit"). Read-only queries over the ledger's
 * journal (`engine.ledger`), the buybacks, desk trades, asset purchases and intents; they never
 * write, and never go through the running balances' internals.
 *
 * Pooled legs (`protocol`, `asset`, `legacy-weth`) hold the money of many tokens in one
 * balance, and a worker spends the balance, not a token's part of it. Which inflow paid for
 * which spend is therefore a convention, and the one used here is first in, first out in the
 * journal's order: each spend (net of its refunds) takes the oldest inflows (net of their
 * reversals) not yet taken. Per-token legs (`perp`, `creator-buyback`) are the same rule within
 * one token. The convention is exact in sum: what a leg's spends took plus what its inflows
 * still hold equals its inflows, to the base unit, so every token's part adds up.
 */
import { sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import type { Queryable } from "../db/client.js";

export type JournalRow = {
  id: number;
  key: string;
  kind: string;
  leg: string;
  token: Address | null;
  currency: string;
  amount: bigint;
  txHash: string | null;
  blockNumber: number | null;
  data: Record<string, unknown> | null;
};

type RawRow = {
  id: string | number;
  key: string;
  kind: string;
  leg: string;
  token: string | null;
  currency: string;
  amount: string;
  tx_hash: string | null;
  block_number: string | number | null;
  data: Record<string, unknown> | null;
};

const toRow = (r: RawRow): JournalRow => ({
  id: Number(r.id),
  key: r.key,
  kind: r.kind,
  leg: r.leg,
  token: r.token ? getAddress(r.token) : null,
  currency: r.currency,
  amount: BigInt(r.amount),
  txHash: r.tx_hash,
  blockNumber: r.block_number === null ? null : Number(r.block_number),
  data: r.data,
});

/**
 * A row's transaction: its own column, or for a desk's return or profit the execution's
 * transaction, which its key names (`desk-profit:<block hash>:<tx hash>:<log index>`).
 */
export function txOf(row: Pick<JournalRow, "key" | "txHash">): string | null {
  if (row.txHash) return row.txHash;
  return /^desk-(?:profit|return):0x[0-9a-fA-F]{64}:(0x[0-9a-fA-F]{64}):\d+$/.exec(row.key)?.[1] ?? null;
}

const COLUMNS = sql`id, key, kind, leg, token, currency, amount::text AS amount, tx_hash, block_number, data`;

/** Every journal row of a leg (of one token for a per-token leg), in the journal's order. */
export async function legJournal(q: Queryable, leg: string, currency: string, token?: Address): Promise<JournalRow[]> {
  const { rows } = await q.execute<RawRow>(sql`
    SELECT ${COLUMNS} FROM engine.ledger
    WHERE leg = ${leg} AND currency = ${currency} ${token === undefined ? sql`` : sql`AND lower(token) = ${token.toLowerCase()}`}
    ORDER BY id`);
  return rows.map(toRow);
}

/** Journal rows by key. */
export async function journalRows(q: Queryable, keys: string[]): Promise<Map<string, JournalRow>> {
  if (!keys.length) return new Map();
  const { rows } = await q.execute<RawRow>(
    sql`SELECT ${COLUMNS} FROM engine.ledger WHERE key IN (${sql.join(
      keys.map((k) => sql`${k}`),
      sql`, `,
    )})`,
  );
  return new Map(rows.map((r) => [r.key, toRow(r)]));
}

/** One inflow's part in one spend. */
export type FifoMatch = { inflow: JournalRow; spend: JournalRow; amount: bigint };

export type FifoResult = {
  /** Net inflows (after their reversals), in journal order. */
  inflows: { row: JournalRow; net: bigint }[];
  /** Net spends (after their refunds and those refunds' reversals), in journal order. */
  spends: { row: JournalRow; net: bigint }[];
  matches: FifoMatch[];
  /** What each inflow still holds, by journal id. */
  remaining: Map<number, bigint>;
  /** Spends no inflow covered (a reorg deficit being repaid), by journal id. */
  unfunded: Map<number, bigint>;
};

const isReversal = (r: JournalRow) => r.key.startsWith("reversal:");

/**
 * First in, first out over one leg's journal (see the header). Reversal rows cancel the row
 * they reverse; refunds give their spend back; a spend takes the oldest inflows still holding.
 */
export function fifo(rows: JournalRow[]): FifoResult {
  const adjust = new Map<string, bigint>();
  const add = (key: string, v: bigint) => adjust.set(key, (adjust.get(key) ?? 0n) + v);
  // A reversal cancels its row; a refund (net of its own reversal) gives its spend back.
  for (const r of rows) if (isReversal(r)) add(r.key.slice("reversal:".length), r.amount);
  for (const r of rows) {
    if (isReversal(r) || r.kind !== "refund") continue;
    const spendKey = typeof r.data?.spendKey === "string" ? r.data.spendKey : r.key.replace(/^refund:/, "").replace(/:0x[0-9a-fA-F]{64}$/, "");
    add(spendKey, r.amount + (adjust.get(r.key) ?? 0n));
  }
  const inflows: FifoResult["inflows"] = [];
  const spends: FifoResult["spends"] = [];
  for (const r of rows) {
    if (isReversal(r) || r.kind === "refund") continue;
    const net = r.amount + (adjust.get(r.key) ?? 0n);
    if (r.amount > 0n && net > 0n) inflows.push({ row: r, net });
    else if (r.amount < 0n && net < 0n) spends.push({ row: r, net: -net });
  }
  const remaining = new Map(inflows.map((i) => [i.row.id, i.net]));
  const unfunded = new Map<number, bigint>();
  const matches: FifoMatch[] = [];
  let head = 0;
  for (const s of spends) {
    let need = s.net;
    while (need > 0n && head < inflows.length) {
      const i = inflows[head]!;
      const left = remaining.get(i.row.id)!;
      const take = left < need ? left : need;
      if (take > 0n) matches.push({ inflow: i.row, spend: s.row, amount: take });
      remaining.set(i.row.id, left - take);
      need -= take;
      if (left - take === 0n) head++;
    }
    if (need > 0n) unfunded.set(s.row.id, need);
  }
  return { inflows, spends, matches, remaining, unfunded };
}

/** Where an inflow came from, with its transactions. */
export type SourceView = {
  kind: string;
  leg: string;
  token: Address | null;
  currency: string;
  /** The part of the spend this inflow paid (base units of `currency`). */
  amount: bigint;
  /** The inflow's own transaction (a fee collection's ClaimedRewards, a conversion swap, a desk close, …). */
  txHash: string | null;
  blockNumber: number | null;
  /** The operator's claim from the fee locker that settled a fee (fees only). */
  claimTx: string | null;
  /** A desk trade's id (desk profits and returns). */
  deskTradeId: number | null;
  /** The WETH conversion that turned the fee into USDC (WETH fees only). */
  conversionId: number | null;
  key: string;
};

/** The fact rows behind allocation rows (`<fact key>:<leg>`), for their claim transactions. */
async function factsOf(q: Queryable, rows: JournalRow[]): Promise<Map<string, JournalRow>> {
  const keys = rows.filter((r) => r.kind === "allocation").map((r) => r.key.slice(0, r.key.lastIndexOf(":")));
  return journalRows(q, [...new Set(keys)]);
}

export async function describeSources(q: Queryable, parts: { inflow: JournalRow; amount: bigint }[]): Promise<SourceView[]> {
  const facts = await factsOf(
    q,
    parts.map((p) => p.inflow),
  );
  return parts.map(({ inflow, amount }) => {
    const fact = inflow.kind === "allocation" ? facts.get(inflow.key.slice(0, inflow.key.lastIndexOf(":"))) : inflow;
    const data = fact?.data ?? inflow.data ?? {};
    const num = (v: unknown) => (typeof v === "number" ? v : typeof v === "string" && /^\d+$/.test(v) ? Number(v) : null);
    const kind = inflow.kind === "allocation" ? (fact?.kind === "weth-converted" ? "fees (WETH converted)" : "fees") : inflow.kind;
    return {
      kind,
      leg: inflow.leg,
      token: inflow.token,
      currency: inflow.currency,
      amount,
      txHash: txOf(inflow),
      blockNumber: inflow.blockNumber,
      claimTx: typeof data.claimTx === "string" ? data.claimTx : null,
      deskTradeId: num(data.tradeId),
      conversionId: num(data.conversionId),
      key: inflow.key,
    };
  });
}

/** The spend row of a buyback, and the FIFO sources that paid it. */
export async function buybackSources(q: Queryable, buybackId: number): Promise<{ spend: JournalRow | null; sources: SourceView[]; unfunded: bigint }> {
  const spend = (await journalRows(q, [`spend:buyback:${buybackId}`])).get(`spend:buyback:${buybackId}`) ?? null;
  if (!spend) return { spend: null, sources: [], unfunded: 0n };
  const perToken = spend.leg === "creator-buyback" || spend.leg === "perp";
  const journal = await legJournal(q, spend.leg, spend.currency, perToken && spend.token ? spend.token : undefined);
  const run = fifo(journal);
  const parts = run.matches.filter((m) => m.spend.id === spend.id).map((m) => ({ inflow: m.inflow, amount: m.amount }));
  return { spend, sources: await describeSources(q, parts), unfunded: run.unfunded.get(spend.id) ?? 0n };
}

export type EngineBuyback = {
  id: number;
  kind: string;
  token: Address;
  currencyIn: string;
  amountIn: bigint;
  tokensBought: bigint | null;
  tokensBurned: bigint | null;
  status: string;
  swapTxHash: string | null;
  burnTxHash: string | null;
  createdAt: Date;
};

/** The engine's buybacks a burn transaction burned for (a burn intent `buyback:<id>:burn…` mined as that hash). */
export async function buybacksBurnedBy(q: Queryable, txHash: string): Promise<EngineBuyback[]> {
  const { rows } = await q.execute<{
    id: string | number;
    kind: string;
    token: string;
    currency_in: string;
    amount_in: string;
    tokens_bought: string | null;
    tokens_burned: string | null;
    status: string;
    swap_tx_hash: string | null;
    burn_tx_hash: string | null;
    created_at: Date;
  }>(sql`
    SELECT b.id, b.kind, b.token, b.currency_in, b.amount_in::text AS amount_in, b.tokens_bought::text AS tokens_bought, b.tokens_burned::text AS tokens_burned,
           b.status, b.swap_tx_hash, b.burn_tx_hash, b.created_at
    FROM engine.buybacks b
    WHERE b.id IN (
      SELECT substring(i.key FROM '^buyback:(\\d+):burn')::bigint FROM engine.tx_intents i
      WHERE lower(i.tx_hash) = ${txHash.toLowerCase()} AND i.key ~ '^buyback:\\d+:burn' AND i.status = 'mined')
       OR lower(b.burn_tx_hash) = ${txHash.toLowerCase()}
    ORDER BY b.id`);
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    token: getAddress(r.token),
    currencyIn: r.currency_in,
    amountIn: BigInt(r.amount_in),
    tokensBought: r.tokens_bought === null ? null : BigInt(r.tokens_bought),
    tokensBurned: r.tokens_burned === null ? null : BigInt(r.tokens_burned),
    status: r.status,
    swapTxHash: r.swap_tx_hash,
    burnTxHash: r.burn_tx_hash,
    createdAt: r.created_at,
  }));
}

/** Desk trades by id: their open and close transactions and results (USDC base units). */
export async function deskTradesById(q: Queryable, ids: number[]) {
  if (!ids.length) return new Map<number, DeskTradeView>();
  const { rows } = await q.execute<{
    id: string | number;
    token: string;
    status: string;
    basis_usdc: string;
    usdc_returned: string;
    realised_pnl: string;
    open_tx: string | null;
    close_tx: string | null;
  }>(sql`
    SELECT t.id, t.token, t.status, t.basis_usdc::text AS basis_usdc, t.usdc_returned::text AS usdc_returned, t.realised_pnl::text AS realised_pnl,
           o.tx_hash AS open_tx, c.tx_hash AS close_tx
    FROM engine.desk_trades t
    LEFT JOIN engine.tx_intents o ON o.id = t.open_intent_id
    LEFT JOIN engine.tx_intents c ON c.id = t.close_intent_id
    WHERE t.id IN (${sql.join(
      ids.map((i) => sql`${i}`),
      sql`, `,
    )})`);
  return new Map(
    rows.map((r) => [
      Number(r.id),
      {
        id: Number(r.id),
        token: getAddress(r.token),
        status: r.status,
        basisUsdc: BigInt(r.basis_usdc),
        usdcReturned: BigInt(r.usdc_returned),
        realisedPnl: BigInt(r.realised_pnl),
        openTx: r.open_tx,
        closeTx: r.close_tx,
      },
    ]),
  );
}
export type DeskTradeView = {
  id: number;
  token: Address;
  status: string;
  basisUsdc: bigint;
  usdcReturned: bigint;
  realisedPnl: bigint;
  openTx: string | null;
  closeTx: string | null;
};

/** The transaction hash of each intent key given (mined or not: null until it has one). */
export async function intentTxHashes(q: Queryable, keys: string[]): Promise<Map<string, string | null>> {
  if (!keys.length) return new Map();
  const { rows } = await q.execute<{ key: string; tx_hash: string | null }>(
    sql`SELECT key, tx_hash FROM engine.tx_intents WHERE key IN (${sql.join(
      keys.map((k) => sql`${k}`),
      sql`, `,
    )})`,
  );
  return new Map(rows.map((r) => [r.key, r.tx_hash]));
}
