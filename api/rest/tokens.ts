/**
 * GET /tokens (every token of ours, as GraphQL `tokens`; `?enrolled=` filters), POST /tokens/launch (deploy through the launcher and enrol)
 * and POST /tokens/register (enrol an existing launcher token). The POSTs spend operator gas:
 * they need the operator API key and have the strictest rate limit.
 */
import { getAddress } from "viem";
import type { ApiDeps } from "../deps.js";
import { badRequest } from "../http/errors.js";
import { coalescerFor } from "../read/coalesce.js";
import { NO_TOKEN_PENDING, type TokenPending } from "../engine-port.js";
import type { DeskView } from "../read/desks.js";
import type { FeeCurrencyView, BuybackSpendView } from "../read/fees.js";
import { usdcAmount } from "../read/format.js";
import { legsJson } from "../views/legs.js";
import { listBody } from "../read/keyset.js";
import { type HonouredView, type LockerShareView, type TokenView, honouredView, lockerSharesOf, readTokenPage } from "../read/tokens.js";
import { deskJson } from "../views/desk.js";
import { feeCurrencyJson, spendJson } from "../views/fees.js";
import { honouredJson, poolJson, splitJson, tokenEnrollmentJson, tokenPendingJson, tokenTotalsJson, tokenViewJson } from "../views/token.js";
import { type RouteResponse, defineRoute, respond } from "./route.js";
import { launchBody, launchResponse, registerBody, registerResponse, tokensQuery, tokensResponse } from "./schemas.js";
import { type Finality, readFinality, tokenFinalityJson } from "../read/finality.js";

/**
 * One token as REST JSON, enrolled or not (docs/api.md, "Tokens"): the enrolment's fields
 * (`creator`, `split`, `enrolledAt`) are null and `active`/`halted` false for a token that is
 * ours by launch and not enrolled (the protocol token, a launch paying the operator).
 */
export function tokenJson(
  v: TokenView,
  pending: TokenPending,
  desk: DeskView | undefined,
  fees: FeeCurrencyView[] | undefined,
  spend: BuybackSpendView[] | undefined,
  honoured: HonouredView = null,
  finality: Finality | null = null,
  shares: readonly LockerShareView[] = honoured?.shares ?? [],
) {
  const e = v.enrollment;
  const key = v.token.address.toLowerCase();
  return {
    ...tokenViewJson(v.token),
    enrolled: e !== null,
    split: e ? splitJson(e) : null,
    ...honouredJson(honoured, shares),
    pool: v.pool ? poolJson(v.pool) : null,
    ...tokenEnrollmentJson(e),
    totals: {
      ...tokenTotalsJson(v.totals),
      creatorLegUsdc: usdcAmount(v.totals?.creatorLegUsdc ?? 0n),
      legs: legsJson((leg) => v.totals?.[leg] ?? 0n),
      feesByCurrency: (fees ?? []).map(feeCurrencyJson),
      buybackSpent: (spend ?? []).map(spendJson),
      finality: finality ? tokenFinalityJson(finality, key, v.totals) : null,
    },
    pending: tokenPendingJson(pending),
    desk: desk ? deskJson(desk) : null,
  };
}

/**
 * A page of `GET /tokens` as JSON, formatted once per read: concurrent requests for the same
 * page share the read (see coalesce.ts).
 */
const tokenPages = coalescerFor(async (deps: ApiDeps, key: string) => {
  const [limit, after, enrolled] = JSON.parse(key) as [number, string | null, boolean | null];
  const { page, pending, desks, fees, spend, slots } = await readTokenPage(deps, { limit, after, enrolled });
  const finality = await readFinality(
    deps.db,
    deps.config,
    page.rows.map((v) => v.token.address.toLowerCase()),
  );
  return JSON.stringify(
    listBody(page, (v) => {
      const key = v.token.address.toLowerCase();
      const rows = slots.get(key);
      const honoured = honouredView(v.enrollment, rows, deps.config.operator);
      const shares = lockerSharesOf(rows ?? [], deps.config.operator, v.enrollment?.creator ?? null);
      return tokenJson(
        v,
        pending.get(key) ?? NO_TOKEN_PENDING,
        desks.get(getAddress(v.token.address)),
        fees.get(key),
        spend.get(key),
        honoured,
        finality,
        shares,
      );
    }),
  );
});

export const tokensRoute = defineRoute({
  method: "get",
  path: "/tokens",
  tag: "tokens",
  summary: "Every token of ours (as GraphQL `tokens`), newest launch first, with split, creator, pool, flags, totals and desk",
  description:
    "Ours: the protocol token, every launch that pays the operator and every token enrolled in the registry (docs/design.md §4.6), the same set GraphQL `tokens` lists. `enrolled=true` keeps only enrolled tokens, `enrolled=false` only the others (their enrolment fields are null).",
  query: tokensQuery,
  responses: { 200: { description: "A page of tokens", schema: tokensResponse } },
  handler: async (c, { query }, deps) => {
    const key = JSON.stringify([query.limit, query.cursor ?? null, query.enrolled ?? null]);
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
    return respond(
      c,
      launchResponse,
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
    422: {
      description:
        "The token's LP rewards do not pay the operator, the locker cannot honour the requested split (the message names what differs), or the operator wallet cannot pay for gas",
    },
  },
  handler: async (c, { body }, deps) => {
    const result = await deps.launcher.register({
      token: getAddress(body.token),
      creator: body.creator && getAddress(body.creator),
      split: body.split,
      idempotencyKey: idempotencyKey(c.req.header("idempotency-key")),
    });
    return respond(c, registerResponse, { token: result.token, txHash: result.txHash, creator: result.creator, split: result.split }, 201);
  },
});
