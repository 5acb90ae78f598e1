/**
 * A token of ours, declared once: what its launch wrote (`tokenView`: the fields of a token in
 * GET /tokens and of GraphQL `Token`, read from the same row), its running totals (`totals` of a token in
 * GET /tokens; GraphQL `TokenTotals`) and the USDC the engine holds for it (`pending`;
 * GraphQL `TokenPending`), under the same names on both (docs/glossary.md, "Public figures").
 * The legs, the fees and spending per currency and the finality beside them have views of
 * their own (legs.ts, fees.ts, finality.ts).
 */
import type { z } from "zod";
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import type { TokenPending } from "../engine-port.js";
import type { EnrollmentRow, HonouredView, LockerShareView, PoolRow, TokenRow, TokenTotalsRow } from "../read/tokens.js";
import { amountField, defineView, usdcField, viewJson, viewSchema } from "./view.js";

export const tokenView = defineView({
  name: "token",
  description: "A token of ours, as its launch wrote it",
  fields: {
    address: { kind: "address", description: "The token" },
    name: { kind: "text", description: "Its name" },
    symbol: { kind: "text", description: "Its symbol" },
    image: { kind: "text", description: "Its image URL, as launched" },
    metadata: { kind: "text", description: "Its metadata (JSON text), as launched" },
    admin: { kind: "address", description: "Its admin in Clanker (may update the image and metadata)" },
    deployer: { kind: "address", description: "Who sent the launch" },
    isProtocolToken: { kind: "bool", description: "The configured protocol token" },
    launchTx: { kind: "hash", description: "The launch's transaction" },
    createdAt: { kind: "time", description: "When it was launched" },
    createdBlock: { kind: "int", graphql: "BigInt", description: "The launch's block" },
  },
});

/** A token's enrolment in the registry (its split has a view of its own: `splitView`). */
export const enrollmentView = defineView({
  name: "enrollment",
  description: "The token's registry enrolment",
  fields: {
    creator: { kind: "address", description: "Receives the creator leg" },
    charterHash: { kind: "hash", description: "The hash of the charter it was enrolled under" },
    active: { kind: "bool", description: "Enrolled and active" },
    halted: { kind: "bool", description: "Halted in the registry" },
    enrolledAt: { kind: "time", description: "When it was enrolled" },
    enrolledBlock: { kind: "int", graphql: "BigInt", description: "The block it was enrolled in" },
  },
});

const bps = (description: string) => ({ kind: "int", description: `${description}, in basis points of all LP fees` }) as const;

/** A split of a token's LP fees as enrolled (the registry's; sums to 10000). */
export const splitView = defineView({
  name: "split",
  description: "Fee split in basis points of total LP fees (sums to 10000)",
  fields: {
    protocolBps: bps("Protocol-token leg"),
    assetBps: bps("Secondary-asset leg"),
    perpBps: bps("Perp leg"),
    creatorBps: bps("Creator leg"),
  },
});

export const honouredSplitView = defineView({
  name: "honouredSplit",
  description:
    "The split the LP locker and the engine really honour, to the bps: the operator's reward slots split by the engine into the protocol, asset and perp legs, and what the locker pays directly to the creator and to anyone else",
  fields: {
    protocolBps: bps("Protocol leg (the operator's slots, split by the engine)"),
    assetBps: bps("Asset leg (the operator's slots, split by the engine)"),
    perpBps: bps("Perp leg (the operator's slots, split by the engine)"),
    creatorBps: bps("Paid by the locker directly to the creator"),
    otherBps: bps("Paid by the locker directly to someone else (see lockerShares)"),
    operatorBps: bps("The operator's slots (= protocol + asset + perp)"),
    operatorFeesRouted: {
      kind: "bool",
      description: "Whether the engine routes the operator's fees: false while an operator slot is not paid in the paired currency",
    },
    reason: { kind: "text", nullable: true, description: "Why the operator's fees are not routed" },
  },
});

/** The honoured split under its public names. */
export const honouredSplitRow = (h: NonNullable<HonouredView>) => ({ ...h.split, operatorFeesRouted: h.operatorFeesRouted, reason: h.reason });

export const lockerShareView = defineView({
  name: "lockerShare",
  description: "One reward slot of the token's LP locker: who it pays, its share, the currency it is paid in and who may change it",
  fields: {
    rewardIndex: { kind: "int", description: "The slot's index in the locker" },
    recipient: { kind: "address", description: "Who the slot pays" },
    admin: { kind: "address", description: "May change the slot's recipient, admin and fee preference" },
    bps: bps("The slot's share"),
    feeIn: {
      kind: "enum",
      values: ["Both", "Paired", "Clanker", "unknown"],
      description: "The currency the locker pays the slot in (its current fee preference: Both, Paired or Clanker)",
    },
    role: {
      kind: "enum",
      values: ["operator", "creator", "other"],
      description: "Who the slot pays: the operator wallet (split by the engine), the creator directly, or someone else directly",
    },
    updatedBlock: {
      kind: "int",
      graphql: "BigInt",
      nullable: true,
      description: "Block of the slot's last preference or admin change (null: as launched)",
    },
  },
});

/** A reward slot under its public names. */
export const lockerShareRow = (s: LockerShareView) => ({ ...s, feeIn: s.feeInName });

/** A price of one whole token in USDC base units per 1e18 (`priceUsdcE18`): 6 + 18 decimals. */
const PRICE_USDC_DECIMALS = USDC_DECIMALS + 18;

export const poolView = defineView({
  name: "pool",
  description: "The token's Uniswap v4 pool",
  fields: {
    poolId: { kind: "hash", description: "The v4 pool id" },
    pairedToken: { kind: "address", description: "The currency the token is paired with" },
    currency0: { kind: "address", description: "The pool key's currency0" },
    currency1: { kind: "address", description: "The pool key's currency1" },
    fee: { kind: "int", description: "LP fee in hundredths of a bip" },
    tickSpacing: { kind: "int", description: "The pool key's tick spacing" },
    hooks: { kind: "address", description: "The pool's hook" },
    tick: { kind: "int", description: "The current tick" },
    sqrtPriceX96: { kind: "digits", description: "The current sqrt price, Q64.96" },
    liquidity: { kind: "digits", description: "The in-range liquidity" },
    priceUsdc: { kind: "amount", decimals: PRICE_USDC_DECIMALS, description: "USDC per whole token" },
    volumeToken: { kind: "amount", decimals: TOKEN_DECIMALS, description: "Tokens traded" },
    volumePairedRaw: { kind: "digits", description: "Paired currency traded (base units)" },
    swaps: { kind: "int", description: "Swaps indexed" },
    updatedAt: { kind: "time", description: "When the pool last changed" },
  },
});

/** A pool row under its public names. */
export const poolViewRow = (p: PoolRow) => ({ ...p, priceUsdc: p.priceUsdcE18, volumePairedRaw: p.volumePaired });

const tokens = (description: string) => amountField(TOKEN_DECIMALS, description);

export const tokenTotalsView = defineView({
  name: "tokenTotals",
  description: "The token's running totals (incremental aggregates)",
  fields: {
    feesToOperatorUsdc: usdcField("LP fees collected for the operator, WETH at its conversion's realised rate (= the sum of the legs)"),
    buybacks: { kind: "int", description: "Buybacks of the token" },
    buybackUsdc: usdcField("Spent on buybacks"),
    tokensBought: tokens("Tokens bought back"),
    burned: tokens("Tokens burned (all burns)"),
    burns: { kind: "int", description: "Burns indexed" },
    buybackBurned: tokens("Bought-back tokens burned"),
  },
});

export const tokenPendingView = defineView({
  name: "tokenPending",
  description: "The token's USDC waiting in the engine's ledger",
  fields: {
    perpUsdc: usdcField("Allocated to the desk, not yet traded"),
    creatorBuybackUsdc: usdcField("Queued for a creator buyback"),
  },
});

/** A token's totals before its first fee, buyback or burn. */
const NO_TOTALS = { feesToOperatorUsdc: 0n, buybacks: 0, buybackUsdc: 0n, tokensBought: 0n, burned: 0n, burns: 0, buybackBurned: 0n };

export const tokenSchema = viewSchema(tokenView);
export const tokenViewJson = (token: TokenRow) => viewJson(tokenView, token);
export const splitJson = (split: { [K in keyof typeof splitView.fields]: number }) => viewJson(splitView, split);
const enrollmentShape = viewSchema(enrollmentView).shape;
const orNull = <T extends z.ZodTypeAny>(field: T) => field.nullable().describe(`${field.description} (null when not enrolled)`);
/**
 * A token item's enrolment fields (REST flattens them into the item): the enrolment's, each
 * null when the token is not enrolled, but for its flags, then false.
 */
export const tokenEnrollmentSchema = {
  creator: orNull(enrollmentShape.creator),
  charterHash: orNull(enrollmentShape.charterHash),
  active: enrollmentShape.active.describe("Enrolled and active (false when not enrolled)"),
  halted: enrollmentShape.halted.describe("Enrolled and halted in the registry (false when not enrolled)"),
  enrolledAt: orNull(enrollmentShape.enrolledAt),
  enrolledBlock: orNull(enrollmentShape.enrolledBlock),
};
const NOT_ENROLLED = { creator: null, charterHash: null, active: false, halted: false, enrolledAt: null, enrolledBlock: null };
export const tokenEnrollmentJson = (e: EnrollmentRow | null) => (e ? viewJson(enrollmentView, e) : NOT_ENROLLED);
export const honouredSplitSchema = viewSchema(honouredSplitView);
export const lockerShareSchema = viewSchema(lockerShareView);
/** The split really honoured and every reward slot (`honouredSplit` null when not enrolled or before the slots are indexed). */
export const honouredJson = (h: HonouredView, shares: readonly LockerShareView[]) => ({
  honouredSplit: h ? viewJson(honouredSplitView, honouredSplitRow(h)) : null,
  lockerShares: shares.map((s) => viewJson(lockerShareView, lockerShareRow(s))),
});
export const poolSchema = viewSchema(poolView);
export const poolJson = (pool: PoolRow) => viewJson(poolView, poolViewRow(pool));
export const tokenTotalsSchema = viewSchema(tokenTotalsView);
export const tokenPendingSchema = viewSchema(tokenPendingView);
export const tokenTotalsJson = (totals: TokenTotalsRow | null) => viewJson(tokenTotalsView, totals ?? NO_TOTALS);
export const tokenPendingJson = (pending: TokenPending) => viewJson(tokenPendingView, pending);
