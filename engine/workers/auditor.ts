/**
 * auditor: runs the three-way audit (core/audit.ts) on its schedule and stores the result per
 * token for the public reconciliation (core/public-audit.ts, `GET /tokens/:token/audit`).
 * It only reads the ledger, the index and the chain, and writes `engine.audit_results`.
 */
import { type Address, getAddress } from "viem";
import { VIEWS_SCHEMA } from "../../common/constants.js";
import { auditThreeWay } from "../../core/audit.js";
import type { EngineContext } from "../../core/context.js";
import { tables } from "../../core/db/client.js";
import { recordAuditRun } from "../../core/public-audit.js";
import type { Worker } from "./types.js";

const WORKER = "auditor";

/** Every token the audit speaks for: the launched ones the index knows, the enrolled ones, the protocol token. */
async function auditedTokens(ctx: EngineContext, indexSchema: string): Promise<Address[]> {
  const tokens = new Set<Address>();
  if (ctx.config.protocolToken) tokens.add(getAddress(ctx.config.protocolToken));
  for (const r of await ctx.db.select({ token: tables.tokens.token }).from(tables.tokens)) tokens.add(getAddress(r.token));
  // Raw SQL: ponder's tables live in a schema known only at runtime (a plain identifier, checked by the audit).
  if ((await ctx.pool.query("SELECT to_regclass($1) IS NOT NULL AS ok", [`"${indexSchema}".token`])).rows[0]?.ok) {
    for (const r of (await ctx.pool.query<{ address: string }>(`SELECT address FROM "${indexSchema}".token`)).rows) tokens.add(getAddress(r.address));
  }
  return [...tokens];
}

export async function runAuditCycle(ctx: EngineContext, indexSchema = VIEWS_SCHEMA) {
  const report = await auditThreeWay({
    db: ctx.db,
    pool: ctx.pool,
    publicClient: ctx.publicClient,
    operator: ctx.operator,
    usdc: ctx.contract("usdc"),
    weth: ctx.contract("weth"),
    protocolToken: ctx.config.protocolToken,
    indexSchema,
  });
  const block = await ctx.publicClient.getBlock({ blockNumber: BigInt(report.block) });
  const tokens = await auditedTokens(ctx, indexSchema);
  const run = await recordAuditRun(ctx.db, report, new Date(Number(block.timestamp) * 1000), tokens);
  return {
    run,
    block: report.block,
    ok: report.ok,
    settled: report.settled,
    differences: report.differences.length,
    pending: report.pending.length,
    tokens: tokens.length,
  };
}

export const auditor: Worker = { name: WORKER, minSeconds: 600, maxSeconds: 900, run: (ctx) => runAuditCycle(ctx) };
