/**
 * A token's fee flow (GET /tokens/:token/flow, GraphQL `Token.feeFlow`), stage by stage, every
 * amount exact with its currency and its transactions:
 *
 * 1. collected — the LP locker's `ClaimedRewards` for the token, per currency and reward slot
 *    (the index: `fee_collection`, `token_fee`): to the operator, to the creator (paid to them
 *    directly: the creator payments), to anyone else;
 * 2. claimed — the operator's part settled by its `ClaimTokens` (the rest is pending,
 *    `unclaimed`), WETH converted to USDC at the swap's realised rate (the rest pending,
 *    `awaitingConversion`); the ledger's fee facts with their collection and claim transactions;
 * 3. legs — the USDC split into the protocol, asset, perp and operator legs, each leg's spends
 *    (buybacks, asset purchases, desk collateral) with their transactions and what it still holds;
 * 4. outcomes — tokens burned, desk PnL, the operator's revenue.
 *
 * Each stage states and checks its identity `in = out + pending`; the totals check it in USDC
 * from the claim on: fees claimed + desk returns and profits = spent + operator revenue + held.
 */
import { desc, eq, sql } from "drizzle-orm";
import { type Hex, getAddress } from "viem";
import { TOKEN_DECIMALS, USDC_DECIMALS } from "../../common/money.js";
import type { LegFlow } from "../../core/ledger/flow.js";
import { enrollment, feeCollection } from "../../schema/ponder.js";
import type { ApiDeps } from "../deps.js";
import { type CurrencyInfo, currencyInfos, tokenFeeCurrencies } from "./fees.js";
import { checksum, isoTime } from "./format.js";
import { money } from "./proofs.js";

/** Longest list of transactions in one answer; `count` gives the full number. */
export const FLOW_LIST_CAP = 100;

export const FLOW_IDENTITY =
  "in = out + pending, at every stage: collected = to the operator + to the creator + to others; to the operator = claimed + unclaimed (pending); WETH claimed = converted + awaiting conversion (pending); per leg, allocated + returned = spent + pending; in total (USDC), fees claimed + desk returns and profits = spent + operator revenue + pending";

const LEG_DOC: Record<string, string> = {
  protocol: "Protocol leg: buys and burns the protocol token (pooled over every token; this token's part first in, first out)",
  asset: "Asset leg: buys the secondary asset and stakes it (pooled; this token's part first in, first out)",
  perp: "Perp leg: the token's desk collateral; principal comes back to it when a trade closes",
  "creator-buyback": "Creator buyback queue: the desk's profits, spent on buying and burning the token",
  operator: "Operator leg: fees the service does not split (before enrolment, the protocol token's own): the operator's revenue, never spent",
  "weth-claimed": "WETH fees claimed and awaiting their conversion to USDC",
};

export async function tokenFlow(deps: ApiDeps, token: Hex) {
  const address = checksum(token);
  const usdcAddress = deps.config.contracts.usdc;
  const wethAddress = deps.config.contracts.weth;
  const [fees, ledger, enrolled] = await Promise.all([
    tokenFeeCurrencies(deps.db, deps.config, [token]).then((m) => m.get(token.toLowerCase()) ?? []),
    deps.engine.tokenFlow(address),
    deps.db.select({ creator: enrollment.creator }).from(enrollment).where(eq(enrollment.token, token)),
  ]);
  const operator = deps.config.operator?.toLowerCase();
  const creator = enrolled[0]?.creator.toLowerCase();
  const roleOf = (recipient: string): "operator" | "creator" | "other" =>
    recipient.toLowerCase() === operator ? "operator" : recipient.toLowerCase() === creator ? "creator" : "other";

  // 1. Collected, per currency and recipient.
  const groups = await deps.db
    .select({
      currency: feeCollection.currency,
      recipient: feeCollection.recipient,
      s: sql<string>`SUM(${feeCollection.amount})::text`,
      n: sql<number>`COUNT(*)::int`,
    })
    .from(feeCollection)
    .where(eq(feeCollection.token, token))
    .groupBy(feeCollection.currency, feeCollection.recipient);
  const recent = await deps.db
    .select()
    .from(feeCollection)
    .where(eq(feeCollection.token, token))
    .orderBy(desc(feeCollection.blockNumber), desc(feeCollection.id))
    .limit(FLOW_LIST_CAP);
  const currencies = new Set([...groups.map((g) => g.currency.toLowerCase()), ...fees.map((f) => f.currency.address.toLowerCase())]);
  if (usdcAddress) currencies.add(usdcAddress.toLowerCase());
  if (wethAddress) currencies.add(wethAddress.toLowerCase());
  const infos = await currencyInfos(deps.db, deps.config, currencies);
  const info = (a: string) => infos.get(a.toLowerCase())!;
  const usdc: CurrencyInfo = usdcAddress
    ? info(usdcAddress)
    : { address: getAddress("0x0000000000000000000000000000000000000000"), symbol: "USDC", decimals: USDC_DECIMALS };
  const weth: CurrencyInfo = wethAddress
    ? info(wethAddress)
    : { address: getAddress("0x0000000000000000000000000000000000000000"), symbol: "WETH", decimals: TOKEN_DECIMALS };

  const collected = [...currencies]
    .map((currency) => {
      const c = info(currency);
      const mine = groups.filter((g) => g.currency.toLowerCase() === currency);
      const sum = (role: string) => mine.filter((g) => roleOf(g.recipient) === role).reduce((s, g) => s + BigInt(g.s), 0n);
      const total = mine.reduce((s, g) => s + BigInt(g.s), 0n);
      const fee = fees.find((f) => f.currency.address.toLowerCase() === currency);
      const toOperator = sum("operator");
      const claimed = fee?.claimed ?? 0n;
      const unclaimed = fee?.unclaimed ?? 0n;
      const isWeth = currency === wethAddress?.toLowerCase();
      return {
        c,
        total,
        body: {
          ...money(total, c),
          toOperator: money(toOperator, c),
          toCreator: money(sum("creator"), c),
          toOthers: money(sum("other"), c),
          claimed: money(claimed, c),
          unclaimed: money(unclaimed, c),
          converted: isWeth ? money(fee?.converted ?? 0n, c) : null,
          awaitingConversion: isWeth ? money(fee?.awaitingConversion ?? 0n, c) : null,
          usdc: money(fee?.usdc ?? 0n, usdc),
          holds: {
            collected: total === toOperator + sum("creator") + sum("other"),
            claimed: toOperator === claimed + unclaimed,
            converted: isWeth ? claimed === (fee?.converted ?? 0n) + (fee?.awaitingConversion ?? 0n) : true,
          },
          collections: {
            count: mine.reduce((s, g) => s + g.n, 0),
            items: recent
              .filter((r) => r.currency.toLowerCase() === currency)
              .map((r) => ({
                txHash: r.txHash,
                blockNumber: Number(r.blockNumber),
                timestamp: isoTime(r.timestamp),
                recipient: checksum(r.recipient),
                role: roleOf(r.recipient),
                collected: money(r.amount, c),
              })),
          },
        },
      };
    })
    .filter((x) => x.total > 0n || x.body.claimed.amountRaw !== "0")
    .map((x) => x.body);

  // 2–4. The ledger's side.
  const legJson = (l: LegFlow) => {
    const c = l.currency === "WETH" ? weth : usdc;
    // The operator leg is never spent: what it holds is the operator's revenue, an outcome.
    const kept = l.leg === "operator";
    const spent = kept ? l.pending + l.spent : l.spent;
    const pending = kept ? 0n : l.pending;
    return {
      leg: l.leg,
      description: LEG_DOC[l.leg] ?? l.leg,
      allocated: money(l.allocated, c),
      returned: money(l.returned, c),
      spent: money(spent, c),
      pending: money(pending, c),
      holds: l.allocated + l.returned === spent + pending,
      spends: {
        count: l.spendCount,
        items: l.spends.map((s) => ({
          what: s.what,
          id: s.id,
          paid: money(s.amount, c),
          ofTotal: money(s.total, c),
          status: s.status,
          txHashes: s.txHashes,
          tokensBurned:
            s.tokensBurned === null
              ? null
              : money(s.tokensBurned, { address: s.burnedToken ?? address, symbol: s.burnedToken ?? address, decimals: TOKEN_DECIMALS }),
        })),
      },
      inflows: {
        count: l.inflowCount,
        items: l.inflows.map((i) => ({ kind: i.kind, amount: money(i.amount, c), txHash: i.txHash, deskTradeId: i.deskTradeId })),
      },
      raw: { allocated: l.allocated, returned: l.returned, spent, pending },
    };
  };
  const legs = (ledger?.legs ?? []).map(legJson);
  const usdcLegs = legs.filter((l) => l.leg !== "weth-claimed");
  const claimedUsdc = ledger?.claimedUsdc ?? 0n;
  const allocated = usdcLegs.reduce((s, l) => s + l.raw.allocated, 0n);
  const returned = usdcLegs.reduce((s, l) => s + l.raw.returned, 0n);
  const out = usdcLegs.reduce((s, l) => s + l.raw.spent, 0n);
  const pending = usdcLegs.reduce((s, l) => s + l.raw.pending, 0n);
  const operatorRevenue = usdcLegs.find((l) => l.leg === "operator")?.raw.spent ?? 0n;
  const indexedUsdc = fees.reduce((s, f) => s + f.usdc, 0n);

  // Burned: the token's own buybacks, and this token's part of the protocol token's.
  const burned = new Map<string, bigint>();
  for (const l of ledger?.legs ?? [])
    for (const s of l.spends) if (s.tokensBurned !== null && s.burnedToken) burned.set(s.burnedToken, (burned.get(s.burnedToken) ?? 0n) + s.tokensBurned);
  const burnedInfos = await currencyInfos(deps.db, deps.config, burned.keys());
  const desks = ledger?.desks ?? [];

  return {
    token: address,
    identity: FLOW_IDENTITY,
    attribution:
      "Pooled legs (protocol, asset) spend one balance for every token: a spend is divided among tokens first in, first out (it took the oldest inflows of the leg not yet spent), which is exact in sum",
    engine: ledger !== null,
    collected,
    claimed: {
      usdc: money(claimedUsdc, usdc),
      byCurrency: Object.entries(ledger?.claimed ?? {}).map(([name, raw]) => money(raw, name === "WETH" ? weth : usdc)),
      indexedUsdc: money(indexedUsdc, usdc),
      indexAgrees: indexedUsdc === claimedUsdc,
      legsSumToClaimed: allocated === claimedUsdc,
      facts: {
        count: ledger?.factCount ?? 0,
        items: (ledger?.facts ?? []).map((f) => ({
          kind: f.kind,
          amount: money(f.amount, f.currency === "WETH" ? weth : usdc),
          txHash: f.txHash,
          claimTx: f.claimTx,
          blockNumber: f.blockNumber,
          conversionId: f.conversionId,
        })),
      },
    },
    legs: legs.map(({ raw: _raw, ...l }) => l),
    outcomes: {
      tokensBurned: [...burned].map(([t, raw]) => ({
        token: checksum(t),
        burned: money(raw, burnedInfos.get(t.toLowerCase()) ?? { address: checksum(t), symbol: t, decimals: TOKEN_DECIMALS }),
      })),
      deskPnl: money(
        desks.reduce((s, d) => s + d.realisedPnl, 0n),
        usdc,
      ),
      desks: desks.slice(0, FLOW_LIST_CAP).map((d) => ({
        id: d.id,
        status: d.status,
        collateral: money(d.basisUsdc, usdc),
        returned: money(d.usdcReturned, usdc),
        realisedPnl: money(d.realisedPnl, usdc),
        openTx: d.openTx,
        closeTx: d.closeTx,
      })),
      deskCount: desks.length,
      operatorRevenue: money(operatorRevenue, usdc),
      creatorPaid: collected.map((c) => c.toCreator).filter((m) => m.amountRaw !== "0"),
    },
    totals: {
      in: money(claimedUsdc + returned, usdc),
      out: money(out, usdc),
      pending: money(pending, usdc),
      holds: claimedUsdc + returned === out + pending,
    },
  };
}
