/**
 * The public reconciliation (docs/api.md, "Proofs, fee flow and public audit"): the three-way
 * audit (core/audit.ts) run on a schedule by the engine's auditor worker, its result kept per
 * token in `engine.audit_results`, and read by the public API: "clean at block N, time T", or
 * each difference by check, leg and amount.
 *
 * A run is divided among tokens: a difference or pending amount that names a token goes to
 * that token's row (a ledger invariant names its token in its text); the rest — fees claimed
 * per currency, the operator's USDC and WETH, the desks' USDC returned — belong to no token
 * and go to the protocol row (`token` = ''), shown beside every token's. Only what the public
 * may see is stored: the checks and the amounts the audit compares, which are the chain's own
 * balances and the ledger's pending figures `/stats` already shows.
 */
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { type Address, getAddress } from "viem";
import type { AuditReport } from "./audit.js";
import { type Db, type Queryable, tables } from "./db/client.js";

/** Runs kept per token (older ones are pruned as new ones are stored). */
export const KEEP_RUNS = 100;
/** The protocol row's token. */
export const PROTOCOL_SCOPE = "";

export type PublicDifference = {
  check: string;
  leg: string | null;
  currency: string | null;
  expected: string;
  actual: string;
  difference: string;
  detail: string | null;
};
export type PublicPending = { check: string; leg: string | null; currency: string | null; expected: string; actual: string; amount: string; what: string[] };

export type StoredAudit = {
  run: number;
  token: string;
  block: number;
  blockTime: Date;
  indexedTo: number | null;
  settled: boolean;
  ok: boolean;
  differences: PublicDifference[];
  pending: PublicPending[];
  checks: string[];
  createdAt: Date;
};

const ADDRESS = /0x[0-9a-fA-F]{40}/;

/** The token a finding concerns: its own, or the one a ledger invariant names in its text. */
function scopeOf(token: string | null, text: string | undefined): string {
  if (token) return getAddress(token);
  const named = text ? ADDRESS.exec(text)?.[0] : undefined;
  return named ? getAddress(named) : PROTOCOL_SCOPE;
}

/** One row per token of `tokens` (and the protocol row), with the findings that concern it. */
export function divideReport(report: AuditReport, tokens: Iterable<Address>): Map<string, { differences: PublicDifference[]; pending: PublicPending[] }> {
  const out = new Map<string, { differences: PublicDifference[]; pending: PublicPending[] }>();
  const at = (scope: string) => {
    if (!out.has(scope)) out.set(scope, { differences: [], pending: [] });
    return out.get(scope)!;
  };
  at(PROTOCOL_SCOPE);
  for (const t of tokens) at(getAddress(t));
  for (const d of report.differences) {
    at(scopeOf(d.token, d.detail)).differences.push({
      check: d.check,
      leg: d.leg,
      currency: d.currency,
      expected: d.expected,
      actual: d.actual,
      difference: d.difference,
      detail: d.detail ?? null,
    });
  }
  for (const p of report.pending) {
    at(scopeOf(p.token, undefined)).pending.push({
      check: p.check,
      leg: p.leg,
      currency: p.currency,
      expected: p.expected,
      actual: p.actual,
      amount: p.amount,
      what: p.what,
    });
  }
  return out;
}

const AUDIT_ROWS_PER_INSERT = 1_000;

/** Stores one run, one row per token (and the protocol row), and prunes each token's oldest runs. Returns the run id. */
export async function recordAuditRun(db: Db, report: AuditReport, blockTime: Date, tokens: Iterable<Address>): Promise<number> {
  const rows = divideReport(report, tokens);
  return db.transaction(async (tx) => {
    const [{ run } = { run: 0 }] = (
      await tx.execute<{ run: string }>(sql`SELECT nextval(pg_get_serial_sequence('engine.audit_results', 'id'))::text AS run`)
    ).rows.map((r) => ({ run: Number(r.run) }));
    const values = [...rows].map(([token, found]) => ({
      run,
      token,
      block: report.block,
      blockTime,
      indexedTo: report.indexedTo,
      settled: report.settled,
      ok: found.differences.length === 0,
      differences: found.differences,
      pending: found.pending,
      checks: report.checks,
    }));
    // In slices: one row per token, 10 parameters a row, and a statement takes at most 65,535.
    for (let i = 0; i < values.length; i += AUDIT_ROWS_PER_INSERT) await tx.insert(tables.auditResults).values(values.slice(i, i + AUDIT_ROWS_PER_INSERT));
    await tx.execute(sql`
      DELETE FROM engine.audit_results a USING (
        SELECT token, run FROM (SELECT token, run, dense_rank() OVER (PARTITION BY token ORDER BY run DESC) AS n FROM engine.audit_results
          WHERE token IN (${sql.join(
            [...rows.keys()].map((t) => sql`${t}`),
            sql`, `,
          )})) r WHERE r.n > ${KEEP_RUNS}
      ) old WHERE a.token = old.token AND a.run = old.run`);
    return run;
  });
}

const toStored = (r: typeof tables.auditResults.$inferSelect): StoredAudit => ({
  run: r.run,
  token: r.token,
  block: r.block,
  blockTime: r.blockTime,
  indexedTo: r.indexedTo,
  settled: r.settled,
  ok: r.ok,
  differences: r.differences as PublicDifference[],
  pending: r.pending as PublicPending[],
  checks: r.checks,
  createdAt: r.createdAt,
});

export type TokenAuditView = {
  /** The newest run's row for the token (null: no run has covered it yet). */
  latest: StoredAudit | null;
  /** The same run's protocol row: the checks that belong to no token. */
  protocol: StoredAudit | null;
  /** The newest run that found the token clean and settled, with the protocol rows clean too. */
  lastClean: StoredAudit | null;
};

/** The public audit of one token: its newest run, that run's protocol-wide findings, its last clean run. */
export async function tokenAuditView(q: Queryable, token: Address): Promise<TokenAuditView> {
  return (await tokenAuditViews(q, [token])).get(getAddress(token))!;
}

/**
 * The public audits of many tokens in three queries whatever their number (the dashboard's
 * list): the newest run's rows of the tokens and of the protocol, and each token's last clean
 * run (its row and that run's protocol row both without a difference). Keyed by checksummed
 * address.
 */
export async function tokenAuditViews(q: Queryable, tokens: readonly Address[]): Promise<Map<Address, TokenAuditView>> {
  const { auditResults: a } = tables;
  const scopes = [...new Set(tokens.map((t) => getAddress(t)))];
  const out = new Map<Address, TokenAuditView>(scopes.map((s) => [s, { latest: null, protocol: null, lastClean: null }]));
  if (!scopes.length) return out;
  const [latestRun] = await q.select({ run: sql<string>`MAX(${a.run})::text` }).from(a);
  if (!latestRun?.run) return out;
  const run = Number(latestRun.run);
  const [rows, clean] = await Promise.all([
    q
      .select()
      .from(a)
      .where(and(eq(a.run, run), inArray(a.token, [...scopes, PROTOCOL_SCOPE]))),
    q
      .selectDistinctOn([a.token])
      .from(a)
      .where(
        and(
          inArray(a.token, scopes),
          eq(a.ok, true),
          eq(a.settled, true),
          sql`EXISTS (SELECT 1 FROM engine.audit_results p WHERE p.run = ${a.run} AND p.token = ${PROTOCOL_SCOPE} AND p.ok)`,
        ),
      )
      .orderBy(a.token, desc(a.run)),
  ]);
  const protocol = rows.find((r) => r.token === PROTOCOL_SCOPE);
  for (const scope of scopes) {
    const latest = rows.find((r) => r.token === scope);
    const lastClean = clean.find((r) => r.token === scope);
    out.set(scope, {
      latest: latest ? toStored(latest) : null,
      protocol: protocol ? toStored(protocol) : null,
      lastClean: lastClean ? toStored(lastClean) : null,
    });
  }
  return out;
}
