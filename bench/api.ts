/**
 * API latency and throughput under concurrent load: our REST routes (the hot reads `/stats`,
 * `/tokens`, `/health` beside the keyset lists) and GraphQL burn history, and, on the same
 * tables, ponder's built-in GraphQL serving the equivalent burn query.
 */
import type { Address } from "viem";
import { type LoadResult, type LoadTarget, load } from "./load.js";

export type ApiResult = { ours: LoadResult[]; ponder: LoadResult; ratios: { name: string; p50: number; p99: number; throughput: number }[] };

/** The burn-history page an analyst asks for: newest 50 burns of one token. */
export function oursBurnQuery(token: Address): string {
  return JSON.stringify({
    query: `query($token: String!) { burns(first: 50, filter: { token: $token }) { edges { node { id kind amount amountRaw txHash blockNumber timestamp } } pageInfo { hasNextPage endCursor } } }`,
    variables: { token },
  });
}

/** The same page through ponder's generated schema. */
export function ponderBurnQuery(token: Address): string {
  return JSON.stringify({
    query: `query($token: String!) { burns(where: { token: $token }, orderBy: "blockNumber", orderDirection: "desc", limit: 50) { items { id kind amount txHash blockNumber timestamp } pageInfo { hasNextPage endCursor } } }`,
    variables: { token: token.toLowerCase() },
  });
}

export const STATS = "GET /api/v1/stats";
export const TOKENS = "GET /api/v1/tokens";
export const HEALTH = "GET /api/v1/health";
export const OURS_BURNS = "GraphQL burns (ours)";

export function apiTargets(base: string, token: Address): LoadTarget[] {
  return [
    { name: STATS, url: `${base}/api/v1/stats` },
    { name: TOKENS, url: `${base}/api/v1/tokens` },
    { name: HEALTH, url: `${base}/api/v1/health` },
    { name: "GET /api/v1/activity", url: `${base}/api/v1/activity?limit=50` },
    { name: "GET /api/v1/buybacks", url: `${base}/api/v1/buybacks?limit=50` },
    { name: OURS_BURNS, url: `${base}/graphql`, method: "POST", body: oursBurnQuery(token) },
  ];
}

/** One target by name. */
export function apiTarget(base: string, token: Address, name: string): LoadTarget {
  const target = apiTargets(base, token).find((t) => t.name === name);
  if (!target) throw new Error(`no API target ${name}`);
  return target;
}

export async function benchApi(oursBase: string, ponderBase: string, token: Address, options: { seconds: number; connections: number }): Promise<ApiResult> {
  const ours: LoadResult[] = [];
  for (const target of apiTargets(oursBase, token)) ours.push(await load(target, options));
  const ponder = await load({ name: "GraphQL burns (ponder graphql())", url: `${ponderBase}/graphql`, method: "POST", body: ponderBurnQuery(token) }, options);
  const gql = ours.find((r) => r.name === OURS_BURNS)!;
  return {
    ours,
    ponder,
    ratios: [
      {
        name: "GraphQL burns: ours / ponder",
        p50: gql.p50 / ponder.p50,
        p99: gql.p99 / ponder.p99,
        throughput: gql.requestsPerSecond / ponder.requestsPerSecond,
      },
    ],
  };
}

/** Checks a GraphQL or REST answer before timing it, so a benchmark never times errors. */
export async function assertAnswers(target: LoadTarget): Promise<void> {
  const res = await fetch(target.url, {
    method: target.method ?? "GET",
    body: target.body,
    headers: target.body ? { "content-type": "application/json" } : undefined,
  });
  const text = await res.text();
  if (!res.ok || text.includes('"errors"')) throw new Error(`${target.name} answered ${res.status}: ${text.slice(0, 300)}`);
}
