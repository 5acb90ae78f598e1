/**
 * The operator's fees split into legs, as the ledger allocates them (USDC). One definition for
 * REST (`legs` of /stats' fees, of a token's totals and of both parts of their finality) and
 * GraphQL (`FeeLegs`; the flat `*LegUsdc` fields of `Stats` and `TokenTotals` are the same
 * figures under their first names, kept deprecated).
 */
import { USDC_DECIMALS } from "../../common/money.js";
import { type ViewJson, amountField, defineView, viewJson, viewSchema } from "./view.js";

/** Each leg's public name, and the name of its total in the aggregates and the ledger's reads. */
export const LEGS = {
  protocolUsdc: "protocolLegUsdc",
  assetUsdc: "assetLegUsdc",
  perpUsdc: "perpLegUsdc",
  creatorUsdc: "creatorLegUsdc",
  operatorUsdc: "operatorLegUsdc",
} as const;
export type LegTotal = (typeof LEGS)[keyof typeof LEGS];

const leg = (description: string) => amountField(USDC_DECIMALS, description);

export const legsView = defineView({
  name: "feeLegs",
  description: "The operator's fees split into legs, as the ledger allocates them",
  fields: {
    protocolUsdc: leg("Protocol-token leg (USDC)"),
    assetUsdc: leg("Secondary-asset leg (USDC)"),
    perpUsdc: leg("Perp leg (USDC)"),
    creatorUsdc: leg("Creator leg, paid in USDC (a creator paid in WETH: the fees by currency)"),
    operatorUsdc: leg("Operator leg: fees the service does not split (the protocol token's, a token's before its enrolment or while not enrolled; USDC)"),
  },
});

export type LegsRow = { [K in keyof typeof LEGS]: bigint };
/** The five legs of one set of totals, each read by its total's name. */
export const legsRow = (get: (leg: LegTotal) => bigint): LegsRow =>
  Object.fromEntries(Object.entries(LEGS).map(([name, total]) => [name, get(total)])) as LegsRow;

export const legsSchema = viewSchema(legsView).describe(legsView.description);
export type LegsJson = ViewJson<typeof legsView.fields>;
export const legsJson = (get: (leg: LegTotal) => bigint): LegsJson => viewJson(legsView, legsRow(get));
