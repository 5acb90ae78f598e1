/**
 * The three-way audit (DESIGN.md §5): the ledger, the indexed facts and the chain's balances
 * must tell the same story, to the base unit.
 *
 * 1. The ledger on its own: its invariants (claimed = sum of legs, no leg overspent, bought =
 *    burned, every running balance = the sum of its rows).
 * 2. The ledger against the index: fees claimed per currency (ledger attributions and
 *    unattributed revenue vs indexed `ClaimTokens` to the operator), tokens burned by
 *    buybacks per token (engine buybacks vs indexed operator burns), USDC returned by the
 *    desks (engine trades vs indexed trades).
 * 3. The chain: the dead address's balance of every token vs the indexed burns of it; the
 *    operator's USDC and WETH vs the ledger legs that hold them (the pending legs plus the
 *    unspent operator share), and no bought token left in the operator wallet. These last
 *    hold when the engine is settled: with work in flight they are reported as such.
 *
 * Every difference names its check, token, leg and amount. `npm run engine -- audit` prints
 * the report and exits non-zero on any difference; the API serves it to the operator.
 */
import { type AnyColumn, and, eq, inArray, isNotNull, or, sql } from "drizzle-orm";
import { unionAll } from "drizzle-orm/pg-core";
import type pg from "pg";
import { type Address, type PublicClient, createPublicClient, erc20Abi, getAddress, http } from "viem";
import { type Config, MissingConfigError, requireContract } from "../common/config.js";
import { DEAD_ADDRESS, VIEWS_SCHEMA } from "../common/constants.js";
import { chainOf } from "./agents/services.js";
import { RPC_TIMEOUT_MS } from "./chain/client.js";
import { type Db, type Queryable, tables } from "./db/client.js";
import { checkLedgerInvariants, recordEntries, reorgDeficits } from "./ledger/ledger.js";

export type AuditDifference = {
  check: string;
  token: Address | null;
  leg: string | null;
  currency: string | null;
  expected: string;
  actual: string;
  /** actual − expected, base units. */
  difference: string;
  detail?: string;
};

export type AuditReport = {
  ok: boolean;
  block: number;
  /** The newest block with an indexed event. */
  indexedBlock: number | null;
  /** Work the engine has not settled: chain holdings are not compared while any exists. */
  inFlight: string[];
  /** Legs below zero after a reorg deeper than `CONFIRMATIONS` took back spent inflows; repaid by their next inflows (not a difference). */
  deficits: string[];
  differences: AuditDifference[];
  checks: string[];
};

export type AuditDeps = {
  db: Db;
  pool: pg.Pool;
  publicClient: PublicClient;
  operator: Address;
  usdc: Address;
  weth: Address;
  protocolToken: Address | undefined;
  /** Schema of the indexed tables (ponder's views schema); index checks are skipped when absent. */
  indexSchema?: string;
};

/** USDC legs the operator wallet holds (the memo leg `claimed` mirrors allocations and is not money). */
const USDC_LEGS = ["protocol", "asset", "perp", "creator-buyback", "operator"];
const WETH_LEGS = ["weth-claimed", "legacy-weth", "operator"];

const big = (v: unknown) => BigInt((v as string | null) ?? "0");

/** `COALESCE(SUM(column), 0)` as a decimal string (money stays exact). */
const sumText = (column: AnyColumn) => sql<string>`COALESCE(SUM(${column}), 0)::text`;

function diff(check: string, expected: bigint, actual: bigint, p: { token?: Address | null; leg?: string | null; currency?: string | null; detail?: string } = {}): AuditDifference | undefined {
  if (expected === actual) return undefined;
  return {
    check,
    token: p.token ?? null,
    leg: p.leg ?? null,
    currency: p.currency ?? null,
    expected: expected.toString(),
    actual: actual.toString(),
    difference: (actual - expected).toString(),
    ...(p.detail ? { detail: p.detail } : {}),
  };
}

/** What the engine has not finished: intents not mined, buybacks, conversions, purchases and desk orders under way. */
async function inFlightWork(q: Queryable): Promise<string[]> {
  const { txIntents, buybacks, wethConversions, assetPurchases, deskTrades, claimCycles, engineState } = tables;
  // The attribution cursor of a claim's currency (`fee-cursor:USDC` / `fee-cursor:WETH`).
  const cursorBlock = sql`(SELECT (${engineState.value}->>'block')::bigint FROM ${engineState}
    WHERE ${engineState.key} = 'fee-cursor:' || CASE WHEN ${txIntents.key} LIKE '%:weth' THEN 'WETH' ELSE 'USDC' END)`;
  const rows = await unionAll(
    q.select({ what: sql<string>`'claim cycle ' || ${claimCycles.id} || ' ' || ${claimCycles.status}` }).from(claimCycles).where(inArray(claimCycles.status, ["collecting", "claiming"])),
    // A claim mined but not yet attributed to tokens (the fee-claimer books it right after).
    q
      .select({ what: sql<string>`'claim ' || ${txIntents.key} || ' not attributed yet'` })
      .from(txIntents)
      .where(and(eq(txIntents.kind, "claim-fees"), eq(txIntents.status, "mined"), sql`${txIntents.blockNumber} > COALESCE(${cursorBlock}, -1)`)),
    q.select({ what: sql<string>`'transaction ' || ${txIntents.key} || ' ' || ${txIntents.status}` }).from(txIntents).where(inArray(txIntents.status, ["pending", "signed", "broadcast"])),
    q.select({ what: sql<string>`'buyback ' || ${buybacks.id} || ' ' || ${buybacks.status}` }).from(buybacks).where(inArray(buybacks.status, ["swapping", "burning"])),
    q.select({ what: sql<string>`'weth conversion ' || ${wethConversions.id}` }).from(wethConversions).where(eq(wethConversions.status, "swapping")),
    q.select({ what: sql<string>`'asset purchase ' || ${assetPurchases.id} || ' ' || ${assetPurchases.status}` }).from(assetPurchases).where(inArray(assetPurchases.status, ["swapping", "staking"])),
    q
      .select({ what: sql<string>`'desk trade ' || ${deskTrades.id} || ' ' || ${deskTrades.status}` })
      .from(deskTrades)
      .where(or(inArray(deskTrades.status, ["opening", "closing"]), isNotNull(deskTrades.pendingTopup))),
  );
  return rows.map((r) => r.what);
}

export async function auditThreeWay(deps: AuditDeps): Promise<AuditReport> {
  const { db, pool, publicClient } = deps;
  const block = await publicClient.getBlockNumber({ cacheTime: 0 });
  const differences: AuditDifference[] = [];
  const checks: string[] = [];
  const push = (d: AuditDifference | undefined) => d && differences.push(d);

  // 1. The ledger on its own.
  checks.push("ledger invariants");
  for (const v of (await checkLedgerInvariants(db)).violations) differences.push({ check: "ledger", token: null, leg: null, currency: null, expected: "", actual: "", difference: "", detail: v });

  const balanceOf = (token: Address, owner: Address) => publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner], blockNumber: block });
  const inFlight = await inFlightWork(db);

  // 2. Ledger vs index, and 3a. the dead address vs the index.
  let indexedBlock: number | null = null;
  const schema = deps.indexSchema;
  if (schema && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`index schema "${schema}" is not a plain identifier`);
  // Raw SQL: a catalog probe, then reads of ponder's indexed tables, whose schema is only known at runtime.
  if (schema && (await pool.query("SELECT to_regclass($1) IS NOT NULL AS ok", [`"${schema}".fee_claim`])).rows[0]?.ok) {
    const q = (text: string, params: unknown[] = []) => pool.query(text.replaceAll("$schema", `"${schema}"`), params);
    const head = await q(`SELECT block_number::text AS b FROM $schema.activity ORDER BY block_number DESC LIMIT 1`);
    indexedBlock = head.rows[0]?.b ? Number(head.rows[0].b) : null;
    const operator = deps.operator.toLowerCase();

    checks.push("fees claimed: ledger vs indexed ClaimTokens");
    for (const [currency, address] of [["USDC", deps.usdc], ["WETH", deps.weth]] as const) {
      const [ledger] = await db
        .select({ s: sumText(tables.ledger.amount) })
        .from(tables.ledger)
        .where(and(eq(tables.ledger.currency, currency), inArray(tables.ledger.kind, ["fee-claimed", "unattributed"])));
      const indexed = await q(`SELECT COALESCE(SUM(amount), 0)::text AS s FROM $schema.fee_claim WHERE owner = $1 AND currency = $2`, [operator, address.toLowerCase()]);
      push(diff("fees claimed (index vs ledger)", big(indexed.rows[0]?.s), big(ledger?.s), { currency, leg: "claimed", detail: "ledger attributions + unattributed revenue vs the operator's ClaimTokens" }));
    }

    checks.push("buyback burns: engine vs indexed operator burns");
    const { buybacks } = tables;
    const burned = await db
      .select({ token: buybacks.token, kind: buybacks.kind, s: sumText(buybacks.tokensBurned) })
      .from(buybacks)
      .where(eq(buybacks.status, "done"))
      .groupBy(buybacks.token, buybacks.kind);
    const indexedBurns = await q(`SELECT token, kind, COALESCE(SUM(amount), 0)::text AS s FROM $schema.burn WHERE kind IN ('protocol-buyback', 'creator-buyback') GROUP BY token, kind`);
    const tokens = new Set([...burned.map((r) => getAddress(r.token)), ...indexedBurns.rows.map((r) => getAddress(r.token as string))]);
    for (const token of tokens) {
      const ours = burned.filter((r) => getAddress(r.token) === token).reduce((s, r) => s + big(r.s), 0n);
      const theirs = indexedBurns.rows.filter((r) => getAddress(r.token as string) === token).reduce((s, r) => s + big(r.s), 0n);
      push(diff("buyback burns (index vs engine)", theirs, ours, { token, leg: token === deps.protocolToken ? "protocol" : "creator-buyback" }));
    }

    checks.push("desk USDC returned: engine vs indexed trades");
    const [desks] = await db.select({ s: sumText(tables.deskTrades.usdcReturned) }).from(tables.deskTrades);
    const indexedDesks = await q(`SELECT COALESCE(SUM(usdc_returned), 0)::text AS s FROM $schema.desk_trade`);
    push(diff("desk USDC returned (index vs engine)", big(indexedDesks.rows[0]?.s), big(desks?.s), { leg: "perp", currency: "USDC" }));

    checks.push("dead address: chain vs indexed burns");
    const perToken = await q(`SELECT token, COALESCE(SUM(amount), 0)::text AS s FROM $schema.burn GROUP BY token`);
    for (const r of perToken.rows) {
      const token = getAddress(r.token as string);
      push(diff("dead address balance (index vs chain)", big(r.s), await balanceOf(token, DEAD_ADDRESS), { token, detail: "0x…dEaD's balance vs every indexed burn of the token" }));
    }
  } else {
    checks.push("index checks skipped: no indexed tables in this database");
  }

  // 3b. The operator's holdings vs the ledger legs that hold them (settled engine only).
  if (!inFlight.length) {
    checks.push("operator holdings: chain vs ledger legs");
    const { ledgerBalances } = tables;
    const legs = await db
      .select({ leg: ledgerBalances.leg, currency: ledgerBalances.currency, s: sql<string | null>`SUM(${ledgerBalances.balance})::text` })
      .from(ledgerBalances)
      .groupBy(ledgerBalances.leg, ledgerBalances.currency);
    const held = (names: string[], currency: string) => legs.filter((r) => names.includes(r.leg) && r.currency === currency).reduce((s, r) => s + big(r.s), 0n);
    push(diff("operator USDC (ledger vs chain)", held(USDC_LEGS, "USDC"), await balanceOf(deps.usdc, deps.operator), { currency: "USDC", leg: USDC_LEGS.join("+") }));
    push(diff("operator WETH (ledger vs chain)", held(WETH_LEGS, "WETH"), await balanceOf(deps.weth, deps.operator), { currency: "WETH", leg: WETH_LEGS.join("+") }));
    const bought = await db.selectDistinct({ token: tables.buybacks.token }).from(tables.buybacks).where(eq(tables.buybacks.status, "done"));
    for (const r of bought) {
      const token = getAddress(r.token);
      push(diff("bought tokens left in the operator wallet", 0n, await balanceOf(token, deps.operator), { token, detail: "every completed buyback burns what it bought" }));
    }
  }
  const deficits = (await reorgDeficits(db)).map((d) => `leg ${d.leg}${d.token ? ` of ${d.token}` : ""} is ${-d.balance} ${d.currency} (base units) short after a reorg`);
  return { ok: differences.length === 0, block: Number(block), indexedBlock, inFlight, deficits, differences, checks };
}

/**
 * The operator wallet's USDC and WETH when the ledger starts keeping it (the devnet's deploy
 * leftovers, or a production wallet's float), booked once per currency as an opening balance
 * of the operator leg (which no worker spends), so the audit compares every later movement
 * exactly. Called at engine start after the legacy WETH is recognised; idempotent.
 */
export async function recordOpeningBalance(deps: Pick<AuditDeps, "db" | "pool" | "publicClient" | "operator" | "usdc" | "weth">): Promise<Record<string, string>> {
  const booked: Record<string, string> = {};
  // Only a settled wallet has a meaningful opening balance; otherwise the next start books it.
  if ((await inFlightWork(deps.db)).length) return booked;
  const block = await deps.publicClient.getBlockNumber({ cacheTime: 0 });
  for (const [currency, address, legs] of [["USDC", deps.usdc, USDC_LEGS], ["WETH", deps.weth, WETH_LEGS]] as const) {
    const key = `opening-balance:${currency}`;
    if ((await deps.db.select({ id: tables.ledger.id }).from(tables.ledger).where(eq(tables.ledger.key, key))).length) continue;
    const onchain = await deps.publicClient.readContract({ address, abi: erc20Abi, functionName: "balanceOf", args: [deps.operator], blockNumber: block });
    const { ledgerBalances } = tables;
    const [held] = await deps.db
      .select({ s: sql<string | null>`SUM(${ledgerBalances.balance})::text` })
      .from(ledgerBalances)
      .where(and(eq(ledgerBalances.currency, currency), inArray(ledgerBalances.leg, [...legs])));
    const opening = onchain - big(held?.s);
    // A wallet holding less than the ledger says is a difference for the audit to report, not an opening.
    if (opening < 0n) continue;
    await recordEntries(deps.db, [{ key, kind: "opening-balance", leg: "operator", currency, amount: opening, data: { block: Number(block), onchain: onchain.toString() } }]);
    booked[currency] = opening.toString();
  }
  return booked;
}

/** The audit as the CLI and the API run it: chain clients and addresses from the config, the index in ponder's views schema. */
export async function auditFromConfig(config: Config, db: Pick<AuditDeps, "db" | "pool">, indexSchema = VIEWS_SCHEMA): Promise<AuditReport> {
  if (!config.operator) throw new MissingConfigError("OPERATOR_ADDRESS");
  const publicClient = createPublicClient({ chain: chainOf(config), transport: http(config.rpcUrl, { retryCount: 1, timeout: RPC_TIMEOUT_MS }) }) as PublicClient;
  return auditThreeWay({
    ...db,
    publicClient,
    operator: config.operator,
    usdc: requireContract(config, "usdc"),
    weth: requireContract(config, "weth"),
    protocolToken: config.protocolToken,
    indexSchema,
  });
}
