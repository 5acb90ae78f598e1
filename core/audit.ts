/**
 * The three-way audit (docs/design.md §5.6): the ledger, the indexed facts and the chain's balances
 * must tell the same story, to the base unit.
 *
 * 1. The ledger on its own: its invariants (claimed = sum of legs, no leg overspent, bought =
 *    burned, every running balance = the sum of its rows).
 * 2. The ledger against the index: fees claimed per currency (ledger attributions and
 *    unattributed revenue vs indexed `ClaimTokens` to the operator), tokens burned by
 *    buybacks per token (engine buybacks vs indexed operator burns), what buybacks paid per
 *    token and currency (engine amounts in vs the indexed swaps' spends, the hook's protocol
 *    fee included), USDC returned by the desks (engine trades vs indexed trades).
 * 3. The chain: the dead address's balance of every token (read at the block the index has
 *    reached) vs the indexed burns of it; the operator's USDC and WETH vs the ledger legs that
 *    hold them (the pending legs plus the unspent operator share), and no bought token left in
 *    the operator wallet.
 *
 * Work in flight explains amounts: a claim collected on chain and not attributed yet, a
 * transaction broadcast and not mined, a buyback between its swap and its burn, a desk order
 * the keeper executed and the engine has not applied, blocks the engine acted in that the
 * index has not reached. A check whose difference such work explains reports it in `pending`
 * (with the amount and the work), never in `differences`: `ok` is false only for a difference
 * no unsettled work can explain — one that stays once nothing is in flight and the index has
 * reached the engine's block (`settled`).
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
import { sleep } from "../common/async.js";
import { chainOf } from "./agents/services.js";
import { RPC_TIMEOUT_MS } from "./chain/client.js";
import { type Db, type Queryable, tables } from "./db/client.js";
import { checkLedgerInvariants } from "./ledger/invariants.js";
import { recordEntries } from "./ledger/journal.js";
import { reorgDeficits } from "./ledger/reorg.js";

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

/** A check's difference explained by work in flight or blocks not indexed yet: not a difference. */
export type AuditPending = {
  check: string;
  token: Address | null;
  leg: string | null;
  currency: string | null;
  expected: string;
  actual: string;
  /** actual − expected, base units: what the unsettled work accounts for. */
  amount: string;
  /** The unsettled work that explains it (the `inFlight` items and the index's lag that touch this check). */
  what: string[];
};

/** One piece of work the engine has not settled, with the amount it moves when known. */
export type InFlightWork = {
  what: string;
  /** Which checks it can move: claims, buybacks, desks, or any (a transaction of another kind). */
  area: "claims" | "buybacks" | "desks" | "other";
  amount: string | null;
  currency: string | null;
};

export type AuditReport = {
  /** No difference: every check agrees, or differs only by what `pending` explains. */
  ok: boolean;
  block: number;
  /** The newest block with an indexed event. */
  indexedBlock: number | null;
  /** The block the indexer has indexed to (its checkpoint); null without an index. */
  indexedTo: number | null;
  /** The newest block of any transaction the engine mined (the index must reach it for its checks to be final). */
  engineBlock: number | null;
  /** Nothing in flight and the index at or past `engineBlock`: every difference is final. */
  settled: boolean;
  /** Work the engine has not settled. */
  inFlight: string[];
  /** The same work with the amounts it moves (where the engine's tables know them). */
  inFlightWork: InFlightWork[];
  /** Differences explained by the work in flight or by blocks not indexed yet, with their amounts. */
  pending: AuditPending[];
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

function diff(
  check: string,
  expected: bigint,
  actual: bigint,
  p: { token?: Address | null; leg?: string | null; currency?: string | null; detail?: string } = {},
): AuditDifference | undefined {
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
async function inFlightWork(q: Queryable): Promise<InFlightWork[]> {
  const { txIntents, buybacks, wethConversions, assetPurchases, deskTrades, claimCycles, engineState } = tables;
  // The attribution cursor of a claim's currency (`fee-cursor:USDC` / `fee-cursor:WETH`).
  const cursorBlock = sql`(SELECT (${engineState.value}->>'block')::bigint FROM ${engineState}
    WHERE ${engineState.key} = 'fee-cursor:' || CASE WHEN ${txIntents.key} LIKE '%:weth' THEN 'WETH' ELSE 'USDC' END)`;
  // Which checks an intent can move, from the work its key names.
  // A collection moves fees into the fee locker, not to the operator: it explains no claimed amount.
  const areaOf = sql<string>`CASE WHEN ${txIntents.key} LIKE 'claim-cycle:%:claim:%' OR ${txIntents.key} LIKE 'weth-conversion:%' THEN 'claims'
    WHEN ${txIntents.key} LIKE 'buyback:%' OR ${txIntents.key} LIKE 'legacy-weth%' THEN 'buybacks'
    WHEN ${txIntents.key} LIKE 'desk%' THEN 'desks' ELSE 'other' END`;
  const none = sql<string | null>`NULL::text`;
  const rows = await unionAll(
    q
      .select({
        what: sql<string>`'claim cycle ' || ${claimCycles.id} || ' ' || ${claimCycles.status}`,
        area: sql<string>`CASE WHEN ${claimCycles.status} = 'claiming' THEN 'claims' ELSE 'other' END`,
        amount: none,
        currency: none,
      })
      .from(claimCycles)
      .where(inArray(claimCycles.status, ["collecting", "claiming"])),
    // A claim mined but not yet attributed to tokens (the fee-claimer books it right after).
    q
      .select({
        what: sql<string>`'claim ' || ${txIntents.key} || ' not attributed yet'`,
        area: sql<string>`'claims'`,
        amount: none,
        currency: sql<string>`CASE WHEN ${txIntents.key} LIKE '%:weth' THEN 'WETH' ELSE 'USDC' END`,
      })
      .from(txIntents)
      .where(and(eq(txIntents.kind, "claim-fees"), eq(txIntents.status, "mined"), sql`${txIntents.blockNumber} > COALESCE(${cursorBlock}, -1)`)),
    q
      .select({ what: sql<string>`'transaction ' || ${txIntents.key} || ' ' || ${txIntents.status}`, area: areaOf, amount: none, currency: none })
      .from(txIntents)
      .where(inArray(txIntents.status, ["pending", "signed", "broadcast"])),
    q
      .select({
        what: sql<string>`'buyback ' || ${buybacks.id} || ' ' || ${buybacks.status}`,
        area: sql<string>`'buybacks'`,
        amount: sql<string>`(CASE WHEN ${buybacks.status} = 'burning' THEN ${buybacks.tokensBought} ELSE ${buybacks.amountIn} END)::text`,
        currency: sql<string>`CASE WHEN ${buybacks.status} = 'burning' THEN ${buybacks.token} ELSE ${buybacks.currencyIn} END`,
      })
      .from(buybacks)
      .where(inArray(buybacks.status, ["swapping", "burning"])),
    q
      .select({
        what: sql<string>`'weth conversion ' || ${wethConversions.id}`,
        area: sql<string>`'claims'`,
        amount: sql<string>`${wethConversions.wethIn}::text`,
        currency: sql<string>`'WETH'`,
      })
      .from(wethConversions)
      .where(eq(wethConversions.status, "swapping")),
    q
      .select({
        what: sql<string>`'asset purchase ' || ${assetPurchases.id} || ' ' || ${assetPurchases.status}`,
        area: sql<string>`'other'`,
        amount: sql<string>`${assetPurchases.usdcIn}::text`,
        currency: sql<string>`'USDC'`,
      })
      .from(assetPurchases)
      .where(inArray(assetPurchases.status, ["swapping", "staking"])),
    q
      .select({
        what: sql<string>`'desk trade ' || ${deskTrades.id} || ' ' || ${deskTrades.status} || CASE WHEN ${deskTrades.pendingTopup} IS NOT NULL THEN ' (top-up)' ELSE '' END`,
        area: sql<string>`'desks'`,
        amount: sql<string>`(CASE WHEN ${deskTrades.pendingTopup} IS NOT NULL THEN ${deskTrades.pendingTopup} + (SELECT COALESCE(SUM(q::numeric), 0) FROM jsonb_array_elements_text(${deskTrades.queuedTopups}) q) WHEN ${deskTrades.status} = 'closing' THEN ${deskTrades.closeAmount} ELSE ${deskTrades.basisUsdc} END)::text`,
        currency: sql<string>`'USDC'`,
      })
      .from(deskTrades)
      .where(or(inArray(deskTrades.status, ["opening", "closing"]), isNotNull(deskTrades.pendingTopup))),
  );
  return rows.map((r) => ({ what: r.what, area: r.area as InFlightWork["area"], amount: r.amount, currency: r.currency }));
}

/** Ponder checkpoints are fixed-width decimal strings; the block number is digits 26..42. */
const blockOfCheckpoint = (checkpoint: string) => Number(checkpoint.slice(26, 42));

/** Which unsettled work can move each check (the index's lag moves every check against the index). */
const CHECK_AREAS: Record<string, InFlightWork["area"][] | "any"> = {
  "fees claimed (index vs ledger)": ["claims"],
  "buyback burns (index vs engine)": ["buybacks"],
  "buyback spends (index vs engine)": ["buybacks"],
  "desk USDC returned (index vs engine)": ["desks"],
  "dead address balance (index vs chain)": [],
  "operator USDC (ledger vs chain)": "any",
  "operator WETH (ledger vs chain)": "any",
  "bought tokens left in the operator wallet": ["buybacks"],
};
const INDEX_CHECKS = new Set([
  "fees claimed (index vs ledger)",
  "buyback burns (index vs engine)",
  "buyback spends (index vs engine)",
  "desk USDC returned (index vs engine)",
]);

export async function auditThreeWay(deps: AuditDeps): Promise<AuditReport> {
  const { db, pool, publicClient } = deps;
  const block = await publicClient.getBlockNumber({ cacheTime: 0 });
  const found: AuditDifference[] = [];
  const differences: AuditDifference[] = [];
  const checks: string[] = [];
  const push = (d: AuditDifference | undefined) => d && found.push(d);

  // 1. The ledger on its own: an invariant holds whatever is in flight.
  checks.push("ledger invariants");
  for (const v of (await checkLedgerInvariants(db)).violations)
    differences.push({ check: "ledger", token: null, leg: null, currency: null, expected: "", actual: "", difference: "", detail: v });

  const balanceOf = (token: Address, owner: Address, at = block) =>
    publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner], blockNumber: at });
  const work = await inFlightWork(db);
  const inFlight = work.map((w) => w.what);
  // The engine's block: the newest block of a transaction it mined (its ledger rows derive from those receipts and their logs).
  const [engineRow] = await db
    .select({ b: sql<string | null>`MAX(${tables.txIntents.blockNumber})::text` })
    .from(tables.txIntents)
    .where(and(inArray(tables.txIntents.status, ["mined", "reverted"]), isNotNull(tables.txIntents.blockHash)));
  const engineBlock = engineRow?.b ? Number(engineRow.b) : null;

  // 2. Ledger vs index, and 3a. the dead address vs the index.
  let indexedBlock: number | null = null;
  let indexedTo: number | null = null;
  let indexBehind: string | null = null;
  const schema = deps.indexSchema;
  if (schema && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`index schema "${schema}" is not a plain identifier`);
  // Raw SQL: a catalog probe, then reads of ponder's indexed tables, whose schema is only known at runtime.
  if (schema && (await pool.query("SELECT to_regclass($1) IS NOT NULL AS ok", [`"${schema}".fee_claim`])).rows[0]?.ok) {
    // One snapshot of the index: its checkpoint and its rows agree (ponder commits both in one transaction).
    const client = await pool.connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const q = (text: string, params: unknown[] = []) => client.query(text.replaceAll("$schema", `"${schema}"`), params);
      const head = await q(`SELECT block_number::text AS b FROM $schema.activity ORDER BY block_number DESC LIMIT 1`);
      indexedBlock = head.rows[0]?.b ? Number(head.rows[0].b) : null;
      if ((await q("SELECT to_regclass($1) IS NOT NULL AS ok", [`"${schema}"._ponder_checkpoint`])).rows[0]?.ok) {
        const cp = await q(`SELECT latest_checkpoint AS c FROM $schema._ponder_checkpoint LIMIT 1`);
        indexedTo = cp.rows[0]?.c ? blockOfCheckpoint(cp.rows[0].c as string) : null;
      } else {
        indexedTo = indexedBlock;
      }
      if (engineBlock !== null && (indexedTo === null || indexedTo < engineBlock)) {
        indexBehind = `index at block ${indexedTo ?? "none"}, behind the engine's block ${engineBlock} (${engineBlock - (indexedTo ?? 0)} blocks not indexed yet)`;
      }
      const operator = deps.operator.toLowerCase();

      checks.push("fees claimed: ledger vs indexed ClaimTokens");
      for (const [currency, address] of [
        ["USDC", deps.usdc],
        ["WETH", deps.weth],
      ] as const) {
        const [ledger] = await db
          .select({ s: sumText(tables.ledger.amount) })
          .from(tables.ledger)
          .where(and(eq(tables.ledger.currency, currency), inArray(tables.ledger.kind, ["fee-claimed", "unattributed"])));
        const indexed = await q(`SELECT COALESCE(SUM(amount), 0)::text AS s FROM $schema.fee_claim WHERE owner = $1 AND currency = $2`, [
          operator,
          address.toLowerCase(),
        ]);
        push(
          diff("fees claimed (index vs ledger)", big(indexed.rows[0]?.s), big(ledger?.s), {
            currency,
            leg: "claimed",
            detail: "ledger attributions + unattributed revenue vs the operator's ClaimTokens",
          }),
        );
      }

      checks.push("buyback burns: engine vs indexed operator burns");
      const { buybacks } = tables;
      const burned = await db
        .select({ token: buybacks.token, kind: buybacks.kind, s: sumText(buybacks.tokensBurned) })
        .from(buybacks)
        .where(eq(buybacks.status, "done"))
        .groupBy(buybacks.token, buybacks.kind);
      const indexedBurns = await q(
        `SELECT token, kind, COALESCE(SUM(amount), 0)::text AS s FROM $schema.burn WHERE kind IN ('protocol-buyback', 'creator-buyback') GROUP BY token, kind`,
      );
      const tokens = new Set([...burned.map((r) => getAddress(r.token)), ...indexedBurns.rows.map((r) => getAddress(r.token as string))]);
      for (const token of tokens) {
        const ours = burned.filter((r) => getAddress(r.token) === token).reduce((s, r) => s + big(r.s), 0n);
        const theirs = indexedBurns.rows.filter((r) => getAddress(r.token as string) === token).reduce((s, r) => s + big(r.s), 0n);
        push(diff("buyback burns (index vs engine)", theirs, ours, { token, leg: token === deps.protocolToken ? "protocol" : "creator-buyback" }));
      }

      // What each buyback's swap paid, the hook's protocol fee included: the engine's amount in
      // (its swap mined: burning or done) vs the index's, per token and currency.
      checks.push("buyback spends: engine vs indexed buyback swaps");
      const spent = await db
        .select({ token: buybacks.token, currency: buybacks.currencyIn, s: sumText(buybacks.amountIn) })
        .from(buybacks)
        .where(inArray(buybacks.status, ["burning", "done"]))
        .groupBy(buybacks.token, buybacks.currencyIn);
      const indexedSpends = await q(`SELECT token, currency_in, COALESCE(SUM(amount_in), 0)::text AS s FROM $schema.buyback GROUP BY token, currency_in`);
      const currencyOf = (address: string) =>
        getAddress(address) === getAddress(deps.usdc) ? "USDC" : getAddress(address) === getAddress(deps.weth) ? "WETH" : getAddress(address);
      const spendKeys = new Set([
        ...spent.map((r) => `${getAddress(r.token)} ${r.currency}`),
        ...indexedSpends.rows.map((r) => `${getAddress(r.token as string)} ${currencyOf(r.currency_in as string)}`),
      ]);
      for (const key of spendKeys) {
        const [token, currency] = key.split(" ") as [Address, string];
        const ours = spent.filter((r) => `${getAddress(r.token)} ${r.currency}` === key).reduce((s, r) => s + big(r.s), 0n);
        const theirs = indexedSpends.rows
          .filter((r) => `${getAddress(r.token as string)} ${currencyOf(r.currency_in as string)}` === key)
          .reduce((s, r) => s + big(r.s), 0n);
        push(
          diff("buyback spends (index vs engine)", theirs, ours, {
            token,
            currency,
            leg: token === deps.protocolToken ? "protocol" : "creator-buyback",
            detail: "what the engine's buyback swaps paid vs what the index saw them pay, the hook's protocol fee included",
          }),
        );
      }

      checks.push("desk USDC returned: engine vs indexed trades");
      const [desks] = await db.select({ s: sumText(tables.deskTrades.usdcReturned) }).from(tables.deskTrades);
      const indexedDesks = await q(`SELECT COALESCE(SUM(usdc_returned), 0)::text AS s FROM $schema.desk_trade`);
      push(diff("desk USDC returned (index vs engine)", big(indexedDesks.rows[0]?.s), big(desks?.s), { leg: "perp", currency: "USDC" }));

      // The dead address at the block the index reached: every burn up to it is indexed, none after it counts.
      const deadAt = indexedTo !== null && indexedTo < Number(block) ? BigInt(indexedTo) : block;
      checks.push("dead address: chain vs indexed burns");
      const perToken = await q(`SELECT token, COALESCE(SUM(amount), 0)::text AS s FROM $schema.burn GROUP BY token`);
      for (const r of perToken.rows) {
        const token = getAddress(r.token as string);
        push(
          diff("dead address balance (index vs chain)", big(r.s), await balanceOf(token, DEAD_ADDRESS, deadAt), {
            token,
            detail: `0x…dEaD's balance at block ${deadAt} vs every indexed burn of the token`,
          }),
        );
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  } else {
    checks.push("index checks skipped: no indexed tables in this database");
  }

  // 3b. The operator's holdings vs the ledger legs that hold them.
  checks.push("operator holdings: chain vs ledger legs");
  const { ledgerBalances } = tables;
  const legs = await db
    .select({ leg: ledgerBalances.leg, currency: ledgerBalances.currency, s: sql<string | null>`SUM(${ledgerBalances.balance})::text` })
    .from(ledgerBalances)
    .groupBy(ledgerBalances.leg, ledgerBalances.currency);
  const held = (names: string[], currency: string) => legs.filter((r) => names.includes(r.leg) && r.currency === currency).reduce((s, r) => s + big(r.s), 0n);
  push(
    diff("operator USDC (ledger vs chain)", held(USDC_LEGS, "USDC"), await balanceOf(deps.usdc, deps.operator), { currency: "USDC", leg: USDC_LEGS.join("+") }),
  );
  push(
    diff("operator WETH (ledger vs chain)", held(WETH_LEGS, "WETH"), await balanceOf(deps.weth, deps.operator), { currency: "WETH", leg: WETH_LEGS.join("+") }),
  );
  const bought = await db.selectDistinct({ token: tables.buybacks.token }).from(tables.buybacks).where(eq(tables.buybacks.status, "done"));
  for (const r of bought) {
    const token = getAddress(r.token);
    push(
      diff("bought tokens left in the operator wallet", 0n, await balanceOf(token, deps.operator), {
        token,
        detail: "every completed buyback burns what it bought",
      }),
    );
  }

  // Each difference the unsettled work touching its check explains is pending; the rest are differences.
  const pending: AuditPending[] = [];
  for (const d of found) {
    const areas = CHECK_AREAS[d.check] ?? "any";
    const what = work.filter((w) => areas === "any" || areas.includes(w.area)).map((w) => w.what);
    if (indexBehind && INDEX_CHECKS.has(d.check)) what.push(indexBehind);
    if (what.length)
      pending.push({ check: d.check, token: d.token, leg: d.leg, currency: d.currency, expected: d.expected, actual: d.actual, amount: d.difference, what });
    else differences.push(d);
  }
  const deficits = (await reorgDeficits(db)).map(
    (d) => `leg ${d.leg}${d.token ? ` of ${d.token}` : ""} is ${-d.balance} ${d.currency} (base units) short after a reorg`,
  );
  const settled = work.length === 0 && indexBehind === null;
  return {
    ok: differences.length === 0,
    block: Number(block),
    indexedBlock,
    indexedTo,
    engineBlock,
    settled,
    inFlight,
    inFlightWork: work,
    pending,
    deficits,
    differences,
    checks,
  };
}

/**
 * The operator wallet's USDC and WETH when the ledger starts keeping it (the devnet's deploy
 * leftovers, or a production wallet's float), booked once per currency as an opening balance
 * of the operator leg (which no worker spends), so the audit compares every later movement
 * exactly. Called at engine start after the legacy WETH is recognised; idempotent.
 */
export async function recordOpeningBalance(
  deps: Pick<AuditDeps, "db" | "pool" | "publicClient" | "operator" | "usdc" | "weth">,
): Promise<Record<string, string>> {
  const booked: Record<string, string> = {};
  // Only a settled wallet has a meaningful opening balance; otherwise the next start books it.
  if ((await inFlightWork(deps.db)).length) return booked;
  const block = await deps.publicClient.getBlockNumber({ cacheTime: 0 });
  for (const [currency, address, legs] of [
    ["USDC", deps.usdc, USDC_LEGS],
    ["WETH", deps.weth, WETH_LEGS],
  ] as const) {
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
    await recordEntries(deps.db, [
      { key, kind: "opening-balance", leg: "operator", currency, amount: opening, data: { block: Number(block), onchain: onchain.toString() } },
    ]);
    booked[currency] = opening.toString();
  }
  return booked;
}

/**
 * The audit, repeated until it is settled (nothing in flight, the index at the engine's
 * block) or `seconds` have passed; a difference ends the wait at once. Without `seconds`,
 * one audit.
 */
export async function auditUntilSettled(audit: () => Promise<AuditReport>, seconds: number | undefined): Promise<AuditReport> {
  const until = Date.now() + (seconds ?? 0) * 1_000;
  for (;;) {
    const report = await audit();
    if (seconds === undefined || report.settled || !report.ok || Date.now() >= until) return report;
    await sleep(250);
  }
}

/** The audit as the CLI and the API run it: chain clients and addresses from the config, the index in ponder's views schema. */
export async function auditFromConfig(config: Config, db: Pick<AuditDeps, "db" | "pool">, indexSchema = VIEWS_SCHEMA): Promise<AuditReport> {
  if (!config.operator) throw new MissingConfigError("OPERATOR_ADDRESS");
  const publicClient = createPublicClient({
    chain: chainOf(config),
    transport: http(config.rpcUrl, { retryCount: 1, timeout: RPC_TIMEOUT_MS }),
  }) as PublicClient;
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
