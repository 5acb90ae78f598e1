/**
 * One token's fees through the ledger, from the claim on (docs/api.md, "Proofs, fee flow and
 * public audit"): the fees attributed to it, their split into legs, every spend of each leg
 * with its transactions, and what each leg still holds. Pooled legs are divided among tokens
 * first in, first out (core/ledger/lineage.ts), so each token's part is exact and the parts
 * add up to the leg.
 *
 * The identity, per leg and in total (USDC base units):
 *   in (fees allocated to the leg + desk returns and profits) = out (spent) + pending (held).
 */
import { sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import type { Queryable } from "../db/client.js";
import { type DeskTradeView, type JournalRow, deskTradesById, fifo, intentTxHashes, legJournal, txOf } from "./lineage.js";

export type FeeFactView = {
  key: string;
  kind: string;
  currency: string;
  amount: bigint;
  txHash: string | null;
  claimTx: string | null;
  blockNumber: number | null;
  conversionId: number | null;
};

export type SpendView = {
  /** buyback | asset-purchase | desk-trade | desk-topup | weth-conversion */
  what: string;
  id: number;
  /** The part of the spend this token's money paid (base units of the leg's currency). */
  amount: bigint;
  /** The whole spend. */
  total: bigint;
  txHashes: string[];
  status: string | null;
  /** Tokens the spend burned (buybacks), this token's part rounded down (`burned × amount / total`). */
  tokensBurned: bigint | null;
  /** The token bought and burned (buybacks). */
  burnedToken: Address | null;
};

export type LegFlow = {
  leg: string;
  currency: string;
  /** Fees allocated to the leg (net of reorg reversals). */
  allocated: bigint;
  /** Other inflows of the leg: desk principal returned (perp), desk profits (creator-buyback). */
  returned: bigint;
  spent: bigint;
  pending: bigint;
  /** Spends, newest first (capped: `spendCount` is the full count). */
  spends: SpendView[];
  spendCount: number;
  /** The inflows other than fees, newest first (capped). */
  inflows: { kind: string; amount: bigint; txHash: string | null; deskTradeId: number | null }[];
  inflowCount: number;
};

export type TokenLedgerFlow = {
  /** Fees attributed to the token per currency (USDC, WETH), net of reorg reversals. */
  claimed: Record<string, bigint>;
  /** USDC the token's fees became (USDC as claimed, WETH at its conversion): the legs' allocations sum to it. */
  claimedUsdc: bigint;
  facts: FeeFactView[];
  factCount: number;
  legs: LegFlow[];
  desks: DeskTradeView[];
};

const LIST_CAP = 100;

/** Net amount of each row after its reversal. */
function netOf(rows: JournalRow[]): Map<string, bigint> {
  const net = new Map<string, bigint>();
  for (const r of rows) if (!r.key.startsWith("reversal:")) net.set(r.key, r.amount);
  for (const r of rows) {
    if (!r.key.startsWith("reversal:")) continue;
    const of = r.key.slice("reversal:".length);
    if (net.has(of)) net.set(of, net.get(of)! + r.amount);
  }
  return net;
}

type SpendRef = { what: string; id: number; intentKeys: string[] };

/** Which work a spend key paid for, and the intents that carry its transactions. */
function spendRef(key: string): SpendRef | null {
  let m = /^spend:buyback:(\d+)$/.exec(key);
  if (m) return { what: "buyback", id: Number(m[1]), intentKeys: [`buyback:${m[1]}:swap`, `buyback:${m[1]}:burn`] };
  m = /^spend:asset-purchase:(\d+)$/.exec(key);
  if (m) return { what: "asset-purchase", id: Number(m[1]), intentKeys: [`asset-purchase:${m[1]}:swap`, `asset-purchase:${m[1]}:stake`] };
  m = /^spend:desk-trade:(\d+)$/.exec(key);
  if (m) return { what: "desk-trade", id: Number(m[1]), intentKeys: [`desk-trade:${m[1]}:open`] };
  m = /^spend:desk-topup:(\d+):(\d+)$/.exec(key);
  if (m) return { what: "desk-topup", id: Number(m[1]), intentKeys: [] };
  m = /^spend:weth-conversion:(\d+):/.exec(key);
  if (m) return { what: "weth-conversion", id: Number(m[1]), intentKeys: [`weth-conversion:${m[1]}:swap`] };
  return null;
}

async function buybackFacts(q: Queryable, ids: number[]) {
  if (!ids.length) return new Map<number, { token: Address; status: string; amountIn: bigint; tokensBurned: bigint | null }>();
  const { rows } = await q.execute<{ id: string | number; token: string; status: string; amount_in: string; tokens_burned: string | null }>(
    sql`SELECT id, token, status, amount_in::text AS amount_in, tokens_burned::text AS tokens_burned FROM engine.buybacks WHERE id IN (${sql.join(
      ids.map((i) => sql`${i}`),
      sql`, `,
    )})`,
  );
  return new Map(
    rows.map((r) => [
      Number(r.id),
      { token: getAddress(r.token), status: r.status, amountIn: BigInt(r.amount_in), tokensBurned: r.tokens_burned === null ? null : BigInt(r.tokens_burned) },
    ]),
  );
}

async function purchaseStatus(q: Queryable, ids: number[]) {
  if (!ids.length) return new Map<number, string>();
  const { rows } = await q.execute<{ id: string | number; status: string }>(
    sql`SELECT id, status FROM engine.asset_purchases WHERE id IN (${sql.join(
      ids.map((i) => sql`${i}`),
      sql`, `,
    )})`,
  );
  return new Map(rows.map((r) => [Number(r.id), r.status]));
}

/** A leg's flow for one token: its inflows of the token, the spends they paid (FIFO), and what they still hold. */
async function legFlow(q: Queryable, token: Address, leg: string, currency: string, pooled: boolean): Promise<LegFlow> {
  const journal = await legJournal(q, leg, currency, pooled ? undefined : token);
  const run = fifo(journal);
  const mine = (r: JournalRow) => r.token !== null && r.token.toLowerCase() === token.toLowerCase();
  const myInflows = run.inflows.filter((i) => mine(i.row));
  const allocated = myInflows.filter((i) => i.row.kind === "allocation").reduce((s, i) => s + i.net, 0n);
  const others = myInflows.filter((i) => i.row.kind !== "allocation");
  const returned = others.reduce((s, i) => s + i.net, 0n);
  // What the token's inflows still hold; a per-token leg's spends no inflow covered (a reorg
  // deficit being repaid) count against it, so `pending` is the leg's balance for the token.
  const unfunded = pooled ? 0n : [...run.unfunded.values()].reduce((s, v) => s + v, 0n);
  const pending = myInflows.reduce((s, i) => s + run.remaining.get(i.row.id)!, 0n) - unfunded;
  // This token's part of each spend.
  const parts = new Map<number, { row: JournalRow; amount: bigint }>();
  for (const m of run.matches) {
    if (!mine(m.inflow)) continue;
    const p = parts.get(m.spend.id) ?? { row: m.spend, amount: 0n };
    p.amount += m.amount;
    parts.set(m.spend.id, p);
  }
  // A per-token leg's spends beyond its inflows (a reorg deficit) are still its spends.
  if (!pooled)
    for (const [id, amount] of run.unfunded) {
      const s = run.spends.find((x) => x.row.id === id)!;
      const p = parts.get(id) ?? { row: s.row, amount: 0n };
      p.amount += amount;
      parts.set(id, p);
    }
  const totals = new Map(run.spends.map((s) => [s.row.id, s.net]));
  const list = [...parts.values()].sort((a, b) => b.row.id - a.row.id);
  const spent = list.reduce((s, p) => s + p.amount, 0n);
  const shown = list.slice(0, LIST_CAP);
  const refs = shown.map((p) => ({ p, ref: spendRef(p.row.key) }));
  const txs = await intentTxHashes(
    q,
    refs.flatMap((r) => r.ref?.intentKeys ?? []),
  );
  const buybacks = await buybackFacts(
    q,
    refs.filter((r) => r.ref?.what === "buyback").map((r) => r.ref!.id),
  );
  const purchases = await purchaseStatus(
    q,
    refs.filter((r) => r.ref?.what === "asset-purchase").map((r) => r.ref!.id),
  );
  const spends: SpendView[] = refs.map(({ p, ref }) => {
    const total = totals.get(p.row.id) ?? p.amount;
    const b = ref?.what === "buyback" ? buybacks.get(ref.id) : undefined;
    const txHashes = (ref?.intentKeys ?? []).map((k) => txs.get(k)).filter((h): h is string => !!h);
    if (ref?.what === "buyback") {
      // Burns beyond the first (a re-burn after a reorg) are keyed `…:burn:<n>`; the last one is on the row.
      for (const [k, h] of txs) if (h && k.startsWith(`buyback:${ref.id}:burn`) && !txHashes.includes(h)) txHashes.push(h);
    }
    return {
      what: ref?.what ?? p.row.kind,
      id: ref?.id ?? p.row.id,
      amount: p.amount,
      total,
      txHashes,
      status: b?.status ?? (ref?.what === "asset-purchase" ? (purchases.get(ref.id) ?? null) : null),
      tokensBurned: b?.tokensBurned != null && total > 0n ? (b.tokensBurned * p.amount) / total : null,
      burnedToken: b?.token ?? null,
    };
  });
  return {
    leg,
    currency,
    allocated,
    returned,
    spent,
    pending,
    spends,
    spendCount: list.length,
    inflows: others
      .slice()
      .reverse()
      .slice(0, LIST_CAP)
      .map((i) => ({
        kind: i.row.kind,
        amount: i.net,
        txHash: txOf(i.row),
        deskTradeId: typeof i.row.data?.tradeId === "number" ? (i.row.data.tradeId as number) : null,
      })),
    inflowCount: others.length,
  };
}

/** The ledger's side of a token's fee flow (see the header). */
export async function tokenLedgerFlow(q: Queryable, token: Address): Promise<TokenLedgerFlow> {
  const { rows } = await q.execute<{
    key: string;
    kind: string;
    currency: string;
    amount: string;
    tx_hash: string | null;
    block_number: string | number | null;
    data: Record<string, unknown> | null;
    id: string | number;
  }>(sql`
    SELECT id, key, kind, currency, amount::text AS amount, tx_hash, block_number, data FROM engine.ledger
    WHERE lower(token) = ${token.toLowerCase()} AND kind IN ('fee-claimed', 'weth-converted') AND leg IN ('claimed', 'weth-claimed')
    ORDER BY id DESC`);
  const facts = rows.map((r) => ({ ...r, amount: BigInt(r.amount) }));
  const net = netOf(
    facts.map((f) => ({
      id: Number(f.id),
      key: f.key,
      kind: f.kind,
      leg: "",
      token,
      currency: f.currency,
      amount: f.amount,
      txHash: f.tx_hash,
      blockNumber: null,
      data: f.data,
    })),
  );
  const standing = facts.filter((f) => !f.key.startsWith("reversal:") && (net.get(f.key) ?? 0n) !== 0n);
  const claimed: Record<string, bigint> = {};
  let claimedUsdc = 0n;
  for (const f of standing) {
    // A WETH fee is claimed in WETH (fee-claimed, WETH) and becomes USDC at its conversion (weth-converted).
    if (f.kind === "fee-claimed") claimed[f.currency] = (claimed[f.currency] ?? 0n) + net.get(f.key)!;
    if (f.currency === "USDC") claimedUsdc += net.get(f.key)!;
  }
  const num = (v: unknown) => (typeof v === "number" ? v : null);
  const factViews: FeeFactView[] = standing.slice(0, LIST_CAP).map((f) => ({
    key: f.key,
    kind: f.kind,
    currency: f.currency,
    amount: net.get(f.key)!,
    txHash: f.tx_hash,
    claimTx: typeof f.data?.claimTx === "string" ? f.data.claimTx : null,
    blockNumber: f.block_number === null ? null : Number(f.block_number),
    conversionId: num(f.data?.conversionId),
  }));
  const legs = [
    await legFlow(q, token, "protocol", "USDC", true),
    await legFlow(q, token, "asset", "USDC", true),
    await legFlow(q, token, "perp", "USDC", false),
    await legFlow(q, token, "creator-buyback", "USDC", false),
    await legFlow(q, token, "operator", "USDC", true),
    await legFlow(q, token, "weth-claimed", "WETH", false),
  ];
  const deskIds = new Set<number>();
  for (const l of legs) {
    for (const s of l.spends) if (s.what === "desk-trade" || s.what === "desk-topup") deskIds.add(s.id);
    for (const i of l.inflows) if (i.deskTradeId !== null) deskIds.add(i.deskTradeId);
  }
  const { rows: trades } = await q.execute<{ id: string | number }>(
    sql`SELECT id FROM engine.desk_trades WHERE lower(token) = ${token.toLowerCase()} ORDER BY id DESC LIMIT ${LIST_CAP}`,
  );
  for (const t of trades) deskIds.add(Number(t.id));
  const desks = [...(await deskTradesById(q, [...deskIds])).values()].sort((a, b) => b.id - a.id);
  return { claimed, claimedUsdc, facts: factViews, factCount: standing.length, legs, desks };
}
