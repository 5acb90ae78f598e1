/**
 * Concurrent load against loopback with autocannon: latency percentiles, throughput and
 * failures of one request shape.
 */
import autocannon from "autocannon";

export type LoadTarget = { name: string; url: string; method?: "GET" | "POST"; body?: string };
export type LoadResult = {
  name: string;
  p50: number;
  p99: number;
  /** Mean latency, ms (not rounded to whole milliseconds like the percentiles). */
  mean: number;
  requestsPerSecond: number;
  requests: number;
  non2xx: number;
  errors: number;
  /** Responses with status ≥ 500 (never acceptable). */
  server5xx: number;
};

export async function load(target: LoadTarget, options: { seconds: number; connections: number }): Promise<LoadResult> {
  const result = await autocannon({
    url: target.url,
    method: target.method ?? "GET",
    body: target.body,
    headers: target.body ? { "content-type": "application/json" } : undefined,
    connections: options.connections,
    duration: options.seconds,
  });
  const statusCodes = result.statusCodeStats as unknown as Record<string, { count: number }> | undefined;
  const server5xx = Object.entries(statusCodes ?? {})
    .filter(([code]) => Number(code) >= 500)
    .reduce((sum, [, s]) => sum + s.count, 0);
  return {
    name: target.name,
    p50: result.latency.p50,
    p99: result.latency.p99,
    mean: result.latency.mean,
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    server5xx,
  };
}
