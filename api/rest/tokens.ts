/**
 * GET /tokens (enrolled tokens), POST /tokens/launch (deploy through the launcher and enrol)
 * and POST /tokens/register (enrol an existing launcher token). The POSTs spend operator gas:
 * they need the operator API key and have the strictest rate limit.
 */
import { getAddress } from "viem";
import { USDC_DECIMALS, formatDecimal } from "../../common/money.js";
import type { ApiDeps } from "../deps.js";
import { badRequest } from "../http/errors.js";
import { coalescerFor } from "../read/coalesce.js";
import type { PendingAmounts } from "../engine-port.js";
import type { DeskView } from "../read/desks.js";
import type { FeeCurrencyView, SpendView } from "../read/fees.js";
import { checksum, isoTime, tokenAmount, usdcAmount } from "../read/format.js";
import { listBody } from "../read/keyset.js";
import { type HonouredView, type TokenView, honouredView, readEnrolledTokens } from "../read/tokens.js";
import { deskJson } from "./desk-json.js";
import { feeCurrencyJson, spendJson } from "./fee-json.js";
import { type RouteResponse, defineRoute } from "./route.js";
import { launchBody, launchResponse, pageQuery, registerBody, registerResponse, tokensResponse } from "./schemas.js";
import { type Finality, readFinality, tokenFinalityJson } from "../read/finality.js";

/** The split the locker and the engine really honour, and every reward slot of the locker. */
export function honouredJson(h: HonouredView) {
  return {
    honouredSplit: h
      ? { ...h.split, operatorFeesRouted: h.operatorFeesRouted, reason: h.reason }
      : null,
    lockerShares: (h?.shares ?? []).map((s) => ({
      rewardIndex: s.rewardIndex,
      recipient: checksum(s.recipient),
      admin: checksum(s.admin),
      bps: s.bps,
      feeIn: s.feeInName,
      role: s.role,
      updatedBlock: s.updatedBlock === null ? null : Number(s.updatedBlock),
    })),
  };
}

export function tokenJson(
  v: TokenView,
  pending: PendingAmounts,
  desk: DeskView | undefined,
  fees: FeeCurrencyView[] | undefined,
  spend: SpendView[] | undefined,
  honoured: HonouredView = null,
  finality: Finality | null = null,
) {
  const e = v.enrollment!;
  const key = v.token.address.toLowerCase();
  return {
    address: checksum(v.token.address),
    name: v.token.name,
    symbol: v.token.symbol,
    image: v.token.image,
    creator: checksum(e.creator),
    admin: checksum(v.token.admin),
    split: { protocolBps: e.protocolBps, assetBps: e.assetBps, perpBps: e.perpBps, creatorBps: e.creatorBps },
    ...honouredJson(honoured),
    pool: v.pool
      ? { poolId: v.pool.poolId, pairedToken: checksum(v.pool.pairedToken), fee: v.pool.fee, tickSpacing: v.pool.tickSpacing, priceUsdc: formatDecimal(v.pool.priceUsdcE18, USDC_DECIMALS + 18) }
      : null,
    enrolledAt: isoTime(e.enrolledAt),
    active: e.active,
    halted: e.halted,
    totals: {
      feesToOperatorUsdc: usdcAmount(v.totals?.feesToOperatorUsdc ?? 0n),
      creatorLegUsdc: usdcAmount(v.totals?.creatorLegUsdc ?? 0n),
      buybacks: v.totals?.buybacks ?? 0,
      buybackUsdc: usdcAmount(v.totals?.buybackUsdc ?? 0n),
      burned: tokenAmount(v.totals?.burned ?? 0n),
      legs: {
        protocolUsdc: usdcAmount(v.totals?.protocolLegUsdc ?? 0n),
        assetUsdc: usdcAmount(v.totals?.assetLegUsdc ?? 0n),
        perpUsdc: usdcAmount(v.totals?.perpLegUsdc ?? 0n),
        operatorUsdc: usdcAmount(v.totals?.operatorLegUsdc ?? 0n),
      },
      feesByCurrency: (fees ?? []).map(feeCurrencyJson),
      buybackSpent: (spend ?? []).map(spendJson),
      finality: finality ? tokenFinalityJson(finality, key, v.totals) : null,
    },
    pending: {
      perpUsdc: usdcAmount(pending.perpUsdcByToken.get(key) ?? 0n),
      creatorBuybackUsdc: usdcAmount(pending.creatorBuybackUsdcByToken.get(key) ?? 0n),
    },
    desk: desk ? deskJson(desk) : null,
  };
}

/**
 * A page of `GET /tokens` as JSON, formatted once per read: concurrent requests for the same
 * page share the read (see coalesce.ts).
 */
const tokenPages = coalescerFor(async (deps: ApiDeps, key: string) => {
  const [limit, after] = JSON.parse(key) as [number, string | null];
  const { page, pending, desks, fees, spend, slots } = await readEnrolledTokens(deps, { limit, after });
  const finality = await readFinality(deps.db, deps.config, page.rows.map((v) => v.token.address.toLowerCase()));
  return JSON.stringify(
    listBody(page, (v) => {
      const key = v.token.address.toLowerCase();
      const honoured = honouredView(v.enrollment, slots.get(key), deps.config.operator);
      return tokenJson(v, pending, desks.get(getAddress(v.token.address)), fees.get(key), spend.get(key), honoured, finality);
    }),
  );
});

export const tokensRoute = defineRoute({
  method: "get",
  path: "/tokens",
  tag: "tokens",
  summary: "Enrolled tokens with split, creator, pool, flags and desk, most recently enrolled first",
  query: pageQuery,
  responses: { 200: { description: "A page of enrolled tokens", schema: tokensResponse } },
  handler: async (c, { query }, deps) => {
    const key = JSON.stringify([query.limit, query.cursor ?? null]);
    return c.body(await tokenPages(deps).get(key), 200, { "content-type": "application/json" });
  },
});

/**
 * `Idempotency-Key`: a retried request with the same key returns the first one's transactions
 * instead of sending again.
 */
function idempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  if (!/^[A-Za-z0-9._:-]{1,128}$/.test(header)) throw badRequest("Idempotency-Key: expected 1 to 128 characters of A-Z a-z 0-9 . _ : -");
  return header;
}

const operatorResponses = {
  401: { description: "No operator API key" },
  403: { description: "Wrong operator API key" },
  422: { description: "The operator wallet cannot pay for gas" },
  502: { description: "A transaction reverted (the message carries the revert reason) or the chain failed", codes: ["CHAIN_REFUSED"] },
  503: {
    description: "Missing environment configuration (the message names the variable), or the chain or database unreachable for now",
    codes: ["NOT_CONFIGURED", "CHAIN_UNAVAILABLE", "DATABASE_UNAVAILABLE"],
  },
} satisfies Record<number, RouteResponse>;

export const launchRoute = defineRoute({
  method: "post",
  path: "/tokens/launch",
  tag: "tokens",
  summary: "Deploy a token through the launcher (paired with USDC) and enrol it with its fee split",
  description:
    "The operator wallet deploys the token (the creator, default the operator, is its admin and receives the creator leg) and enrols it in the registry. Percent inputs become basis points exactly; the protocol's 5% is added.",
  body: launchBody,
  operatorKey: true,
  responses: { 201: { description: "Launched and enrolled", schema: launchResponse }, ...operatorResponses },
  handler: async (c, { body }, deps) => {
    const result = await deps.launcher.launch({ ...body, idempotencyKey: idempotencyKey(c.req.header("idempotency-key")) });
    return c.json(
      {
        token: result.token,
        txHash: result.txHash,
        poolId: result.poolId,
        split: result.split,
        creator: result.creator,
        enrollTxHash: result.enrollTxHash,
      },
      201,
    );
  },
});

export const registerRoute = defineRoute({
  method: "post",
  path: "/tokens/register",
  tag: "tokens",
  summary: "Enrol an existing launcher token whose LP rewards pay the operator",
  body: registerBody,
  operatorKey: true,
  responses: {
    201: { description: "Enrolled", schema: registerResponse },
    ...operatorResponses,
    404: { description: "Not a token of the launcher" },
    409: { description: "Already enrolled (or the protocol token)" },
    422: { description: "The token's LP rewards do not pay the operator, the locker cannot honour the requested split (the message names what differs), or the operator wallet cannot pay for gas" },
  },
  handler: async (c, { body }, deps) => {
    const result = await deps.launcher.register({
      token: getAddress(body.token),
      creator: body.creator && getAddress(body.creator),
      split: body.split,
      idempotencyKey: idempotencyKey(c.req.header("idempotency-key")),
    });
    return c.json({ token: result.token, txHash: result.txHash, creator: result.creator, split: result.split }, 201);
  },
});
