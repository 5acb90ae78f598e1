/**
 * A token's public reconciliation (GET /tokens/:token/audit, GraphQL `Token.audit`): the
 * newest run of the engine's auditor for the token, with the run's protocol-wide checks, as
 * "clean at block N, time T" or each difference by check, leg and amount (base units). Only
 * the stored public findings are read: no key, and no balance beyond the chain's own and the
 * ledger's pending figures `/stats` shows.
 */
import { type Address, getAddress } from "viem";
import type { PublicDifference, PublicPending, StoredAudit, TokenAuditView } from "../../core/public-audit.js";
import type { ApiDeps } from "../deps.js";

const scoped = <T>(scope: "token" | "protocol", rows: T[]) => rows.map((r) => ({ scope, ...r }));

const differenceJson = (d: PublicDifference) => ({
  check: d.check,
  leg: d.leg,
  currency: d.currency,
  expected: d.expected,
  actual: d.actual,
  difference: d.difference,
  detail: d.detail,
});
const pendingJson = (p: PublicPending) => ({
  check: p.check,
  leg: p.leg,
  currency: p.currency,
  expected: p.expected,
  actual: p.actual,
  amount: p.amount,
  what: p.what,
});

/** A token's public audit (GET /tokens/{token}/audit, MCP `audit_status`, the token page). */
export async function tokenAudit(deps: Pick<ApiDeps, "engine">, token: Address) {
  return auditJson(token, await deps.engine.tokenAudit(token));
}

/** The public audits of many tokens (the dashboard's list) in one read, in the order given. */
export async function tokenAudits(deps: Pick<ApiDeps, "engine">, tokens: readonly Address[]) {
  const views = await deps.engine.tokenAudits(tokens);
  return tokens.map((t) => auditJson(t, views.get(getAddress(t))!));
}

export type TokenAuditJson = ReturnType<typeof auditJson>;

function auditJson(token: Address, view: TokenAuditView) {
  const at = (s: StoredAudit | null) => (s ? { block: s.block, blockTime: s.blockTime.toISOString(), auditedAt: s.createdAt.toISOString() } : null);
  const lastClean = at(view.lastClean);
  if (!view.latest) {
    return {
      token,
      status: "not-audited" as const,
      summary: "no audit has covered this token yet (the engine's auditor runs every 10 to 15 minutes)",
      ok: null,
      settled: null,
      block: null,
      blockTime: null,
      auditedAt: null,
      indexedTo: null,
      differences: [],
      pending: [],
      checks: [],
      lastClean,
    };
  }
  const latest = view.latest;
  const protocol = view.protocol;
  const differences = [...scoped("token", latest.differences.map(differenceJson)), ...scoped("protocol", (protocol?.differences ?? []).map(differenceJson))];
  const pending = [...scoped("token", latest.pending.map(pendingJson)), ...scoped("protocol", (protocol?.pending ?? []).map(pendingJson))];
  const ok = differences.length === 0;
  const when = `block ${latest.block}, ${latest.blockTime.toISOString()}`;
  const status = !ok ? ("differences" as const) : latest.settled ? ("clean" as const) : ("clean-so-far" as const);
  const summary =
    status === "clean"
      ? `clean at ${when}`
      : status === "clean-so-far"
        ? `clean so far at ${when}: work in flight explains ${pending.length} amount${pending.length === 1 ? "" : "s"}`
        : `${differences.length} difference${differences.length === 1 ? "" : "s"} at ${when}: ${differences.map((d) => `${d.check}${d.leg ? ` (${d.leg})` : ""} ${d.difference || d.detail}`).join("; ")}`;
  return {
    token,
    status,
    summary,
    ok,
    settled: latest.settled,
    block: latest.block,
    blockTime: latest.blockTime.toISOString(),
    auditedAt: latest.createdAt.toISOString(),
    indexedTo: latest.indexedTo,
    differences,
    pending,
    checks: latest.checks,
    lastClean,
  };
}
