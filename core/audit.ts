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
import { sql } from "drizzle-orm";
import type pg from "pg";
import { type Address, type PublicClient, createPublicClient, erc20Abi, getAddress, http } from "viem";
import { type Config, MissingConfigError, requireContract } from "../common/config.js";
import { DEAD_ADDRESS, VIEWS_SCHEMA } from "../common/constants.js";
import { chainOf } from "./agents/services.js";
import { RPC_TIMEOUT_MS } from "./chain/client.js";
import type { Db } from "./db/client.js";
import { checkLedgerInvariants, recordEntries } from "./ledger/ledger.js";

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
async function inFlightWork(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ what: string }>(`
    SELECT 'transaction ' || key || ' ' || status AS what FROM engine.tx_intents WHERE status IN ('pending', 'signed', 'broadcast')
    UNION ALL SELECT 'buyback ' || id || ' ' || status FROM engine.buybacks WHERE status IN ('swapping', 'burning')
    UNION ALL SELECT 'weth conversion ' || id FROM engine.weth_conversions WHERE status = 'swapping'
    UNION ALL SELECT 'asset purchase ' || id || ' ' || status FROM engine.asset_purchases WHERE status IN ('swapping', 'staking')
    UNION ALL SELECT 'desk trade ' || id || ' ' || status FROM engine.desk_trades WHERE status IN ('opening', 'closing') OR pending_topup IS NOT NULL`);
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
  const inFlight = await inFlightWork(pool);

  // 2. Ledger vs index, and 3a. the dead address vs the index.
  let indexedBlock: number | null = null;
  const schema = deps.indexSchema;
  if (schema && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`index schema "${schema}" is not a plain identifier`);
  if (schema && (await pool.query("SELECT to_regclass($1) IS NOT NULL AS ok", [`"${schema}".fee_claim`])).rows[0]?.ok) {
    const q = (text: string, params: unknown[] = []) => pool.query(text.replaceAll("$schema", `"${schema}"`), params);
    const head = await q(`SELECT block_number::text AS b FROM $schema.activity ORDER BY block_number DESC LIMIT 1`);
    indexedBlock = head.rows[0]?.b ? Number(head.rows[0].b) : null;
    const operator = deps.operator.toLowerCase();

    checks.push("fees claimed: ledger vs indexed ClaimTokens");
    for (const [currency, address] of [["USDC", deps.usdc], ["WETH", deps.weth]] as const) {
      const ledger = await db.execute<{ s: string }>(sql`SELECT COALESCE(SUM(amount), 0)::text AS s FROM engine.ledger WHERE currency = ${currency} AND kind IN ('fee-claimed', 'unattributed')`);
      const indexed = await q(`SELECT COALESCE(SUM(amount), 0)::text AS s FROM $schema.fee_claim WHERE owner = $1 AND currency = $2`, [operator, address.toLowerCase()]);
      push(diff("fees claimed (index vs ledger)", big(indexed.rows[0]?.s), big(ledger.rows[0]?.s), { currency, leg: "claimed", detail: "ledger attributions + unattributed revenue vs the operator's ClaimTokens" }));
    }

    checks.push("buyback burns: engine vs indexed operator burns");
    const burned = await db.execute<{ token: string; kind: string; s: string }>(sql`SELECT token, kind, COALESCE(SUM(tokens_burned), 0)::text AS s FROM engine.buybacks WHERE status = 'done' GROUP BY token, kind`);
    const indexedBurns = await q(`SELECT token, kind, COALESCE(SUM(amount), 0)::text AS s FROM $schema.burn WHERE kind IN ('protocol-buyback', 'creator-buyback') GROUP BY token, kind`);
    const tokens = new Set([...burned.rows.map((r) => getAddress(r.token)), ...indexedBurns.rows.map((r) => getAddress(r.token as string))]);
    for (const token of tokens) {
      const ours = burned.rows.filter((r) => getAddress(r.token) === token).reduce((s, r) => s + big(r.s), 0n);
      const theirs = indexedBurns.rows.filter((r) => getAddress(r.token as string) === token).reduce((s, r) => s + big(r.s), 0n);
      push(diff("buyback burns (index vs engine)", theirs, ours, { token, leg: token === deps.protocolToken ? "protocol" : "creator-buyback" }));
    }

    checks.push("desk USDC returned: engine vs indexed trades");
    const desks = await db.execute<{ s: string }>(sql`SELECT COALESCE(SUM(usdc_returned), 0)::text AS s FROM engine.desk_trades`);
    const indexedDesks = await q(`SELECT COALESCE(SUM(usdc_returned), 0)::text AS s FROM $schema.desk_trade`);
    push(diff("desk USDC returned (index vs engine)", big(indexedDesks.rows[0]?.s), big(desks.rows[0]?.s), { leg: "perp", currency: "USDC" }));

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
    const legs = await db.execute<{ leg: string; currency: string; s: string }>(sql`SELECT leg, currency, SUM(balance)::text AS s FROM engine.ledger_balances GROUP BY leg, currency`);
    const held = (names: string[], currency: string) => legs.rows.filter((r) => names.includes(r.leg) && r.currency === currency).reduce((s, r) => s + big(r.s), 0n);
    push(diff("operator USDC (ledger vs chain)", held(USDC_LEGS, "USDC"), await balanceOf(deps.usdc, deps.operator), { currency: "USDC", leg: USDC_LEGS.join("+") }));
    push(diff("operator WETH (ledger vs chain)", held(WETH_LEGS, "WETH"), await balanceOf(deps.weth, deps.operator), { currency: "WETH", leg: WETH_LEGS.join("+") }));
    const bought = await db.execute<{ token: string }>(sql`SELECT DISTINCT token FROM engine.buybacks WHERE status = 'done'`);
    for (const r of bought.rows) {
      const token = getAddress(r.token);
      push(diff("bought tokens left in the operator wallet", 0n, await balanceOf(token, deps.operator), { token, detail: "every completed buyback burns what it bought" }));
    }
  }
  return { ok: differences.length === 0, block: Number(block), indexedBlock, inFlight, differences, checks };
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
  if ((await inFlightWork(deps.pool)).length) return booked;
  const block = await deps.publicClient.getBlockNumber({ cacheTime: 0 });
  for (const [currency, address, legs] of [["USDC", deps.usdc, USDC_LEGS], ["WETH", deps.weth, WETH_LEGS]] as const) {
    const key = `opening-balance:${currency}`;
    if ((await deps.db.execute(sql`SELECT 1 FROM engine.ledger WHERE key = ${key}`)).rows.length) continue;
    const onchain = await deps.publicClient.readContract({ address, abi: erc20Abi, functionName: "balanceOf", args: [deps.operator], blockNumber: block });
    const held = await deps.db.execute<{ s: string | null }>(
      sql`SELECT SUM(balance)::text AS s FROM engine.ledger_balances WHERE currency = ${currency} AND leg IN (${sql.join(legs.map((l) => sql`${l}`), sql`, `)})`,
    );
    const opening = onchain - big(held.rows[0]?.s);
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
