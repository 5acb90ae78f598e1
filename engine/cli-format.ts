/**
 * The operator CLI's output in words: every amount in whole units with its currency
 * ("1,234.5 USDC"), grouped by thousands, exact (no rounding: base units are bigint and the
 * decimals are printed in full, trailing zeros dropped). `--raw` adds the base units beside
 * each amount; `--json` prints the exact JSON (base units) for scripts.
 *
 * Which currency an amount is in comes from the data: the ledger's legs and the audit's rows
 * name it; in worker outcomes a field named for its currency (`pendingUsdc`, `attributedWeth`)
 * says it, and a field with no currency in its name is printed as it is.
 */
import { ETH_DECIMALS, TOKEN_DECIMALS, USDC_DECIMALS } from "../common/money.js";
import { formatUnits } from "../common/units.js";
import type { AuditReport } from "../core/audit.js";
import type { InvariantReport } from "../core/ledger/invariants.js";
import type { LedgerTotals } from "../core/ledger/totals.js";

export type Format = { raw: boolean };

const DECIMALS: Record<string, number> = { USDC: USDC_DECIMALS, WETH: ETH_DECIMALS, ETH: ETH_DECIMALS };

/** An amount of `currency` (USDC, WETH, or a launched token's symbol: 18 decimals) in whole units. */
export function amount(baseUnits: bigint | string, currency: string, f: Format = { raw: false }): string {
  const value = typeof baseUnits === "bigint" ? baseUnits : BigInt(baseUnits);
  const decimals = DECIMALS[currency.toUpperCase()] ?? TOKEN_DECIMALS;
  const words = `${formatUnits(value, decimals, { exact: true })} ${currency}`;
  return f.raw ? `${words} (${value} base units)` : words;
}

const row = (label: string, value: string, indent = 2) => `${" ".repeat(indent)}${`${label} `.padEnd(34 - indent, " ")}${value}`;

export function formatLedger(totals: LedgerTotals, invariants: InvariantReport, f: Format): string {
  const usdc = (v: bigint) => amount(v, "USDC", f);
  const weth = (v: bigint) => amount(v, "WETH", f);
  const lines = [
    "Ledger",
    row("fees claimed (all legs)", usdc(totals.feesClaimedUsdc)),
    "  allocated to each leg since the start",
    row("protocol token", usdc(totals.allocatedUsdc.protocol), 4),
    row("secondary asset", usdc(totals.allocatedUsdc.asset), 4),
    row("perp desks", usdc(totals.allocatedUsdc.perp), 4),
    row("operator", usdc(totals.allocatedUsdc.operator), 4),
    "  pending (allocated, not spent yet)",
    row("protocol buyback", usdc(totals.pending.protocolUsdc), 4),
    row("secondary asset", usdc(totals.pending.assetUsdc), 4),
    row("perp desks", usdc(totals.pending.perpUsdc), 4),
    row("creator buybacks", usdc(totals.pending.creatorBuybackUsdc), 4),
    row("legacy WETH", weth(totals.pending.legacyWeth), 4),
    row("claimed WETH to convert", weth(totals.pending.unconvertedWeth), 4),
    "",
    formatInvariants(invariants),
  ];
  return lines.join("\n");
}

export function formatInvariants(report: InvariantReport): string {
  if (report.ok) return "Invariants: all hold.";
  return ["Invariants: VIOLATED", ...report.violations.map((v) => `  - ${v}`)].join("\n");
}

export function formatAudit(report: AuditReport, f: Format): string {
  const indexed = (report.indexedTo ?? report.indexedBlock) === null ? " (nothing indexed yet)" : `, index at block ${report.indexedTo ?? report.indexedBlock}`;
  const state = report.ok ? (report.settled === false ? "clean so far (work in flight)" : "clean") : "DIFFERENCES";
  const lines = [`Audit at block ${report.block}${indexed}: ${state}`];
  const where = (d: { token: string | null; leg: string | null }) => {
    const w = [d.token ? `token ${d.token}` : null, d.leg ? `leg ${d.leg}` : null].filter(Boolean).join(", ");
    return w ? ` (${w})` : "";
  };
  for (const d of report.differences) {
    const money = (v: string) => (d.currency ? amount(v, d.currency, f) : v);
    lines.push(
      `  - ${d.check}${where(d)}: expected ${money(d.expected)}, found ${money(d.actual)}, difference ${money(d.difference)}${d.detail ? `; ${d.detail}` : ""}`,
    );
  }
  if (report.pending?.length) {
    lines.push("  pending (explained by work in flight, not differences):");
    for (const p of report.pending) {
      const money = (v: string) => (p.currency ? amount(v, p.currency, f) : v);
      lines.push(`    - ${p.check}${where(p)}: ${money(p.amount)} until ${p.what.join("; ")}`);
    }
  }
  if (report.inFlight.length) lines.push("  in flight:", ...report.inFlight.map((w) => `    - ${w}`));
  if (report.deficits.length) lines.push("  reorg deficits (repaid by later inflows):", ...report.deficits.map((w) => `    - ${w}`));
  lines.push(`  checks: ${report.checks.join(", ")}`);
  return lines.join("\n");
}

const CURRENCY_IN_NAME: [RegExp, string][] = [
  [/usdc/i, "USDC"],
  [/weth/i, "WETH"],
];

function currencyOf(key: string): string | undefined {
  return CURRENCY_IN_NAME.find(([pattern]) => pattern.test(key))?.[1];
}

const isInteger = (v: unknown): v is bigint | string => typeof v === "bigint" || (typeof v === "string" && /^-?\d+$/.test(v));

/**
 * Any JSON-like value as indented `key: value` lines; amounts under a key named for a currency
 * (`pendingUsdc`, `attributedWeth`, and the entries of such a field) in whole units. Money is
 * a bigint or a decimal string of base units in this codebase, never a JS number, so numbers
 * (counts, ids) are printed as they are.
 */
export function formatValue(value: unknown, f: Format, currency?: string, indent = 0): string[] {
  const pad = " ".repeat(indent);
  if (value === null || value === undefined) return [`${pad}-`];
  if (Array.isArray(value)) {
    if (!value.length) return [`${pad}(none)`];
    return value.flatMap((v) => {
      const inner = formatValue(v, f, currency, indent + 2);
      return [`${pad}- ${inner[0]!.trimStart()}`, ...inner.slice(1)];
    });
  }
  if (value instanceof Date) return [`${pad}${value.toISOString()}`];
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (!entries.length) return [`${pad}(none)`];
    return entries.flatMap(([key, v]) => {
      const c = currencyOf(key) ?? currency;
      if (v !== null && typeof v === "object" && !(v instanceof Date)) return [`${pad}${key}:`, ...formatValue(v, f, c, indent + 2)];
      return [`${pad}${key}: ${formatValue(v, f, c, 0)[0]}`];
    });
  }
  if (currency && isInteger(value)) return [`${pad}${amount(value, currency, f)}`];
  return [`${pad}${String(value)}`];
}
