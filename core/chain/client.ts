/**
 * viem clients of the engine: one public client for reads and the operator's local account
 * for signing. Retries are the caller's business (the pipeline and scheduler back off).
 */
import { type Address, type Chain, type Hex, type LocalAccount, type PublicClient, type Transport, createPublicClient, defineChain, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Config } from "../../common/config.js";
import { MissingConfigError } from "../../common/config.js";

/** One RPC request may take this long before it counts as a timeout. */
export const RPC_TIMEOUT_MS = 10_000;

/**
 * JSON-RPC requests this process sent, by method (every client of `createChainClients`): what
 * the benchmark and the scale test read around a worker cycle to see what grows with the
 * number of enrolled tokens (docs/benchmarks.md). A multicall is one `eth_call`.
 */
export const rpcRequests = { total: 0, byMethod: new Map<string, number>() };

/** A snapshot of `rpcRequests`, to subtract from a later one. */
export function rpcRequestCounts(): { total: number; byMethod: Record<string, number> } {
  return { total: rpcRequests.total, byMethod: Object.fromEntries(rpcRequests.byMethod) };
}

/** `inner`, counting each request in `rpcRequests`. */
export function countedTransport(inner: Transport): Transport {
  return (options) => {
    const t = inner(options);
    const request = (async (args: { method: string }, opts?: unknown) => {
      rpcRequests.total++;
      rpcRequests.byMethod.set(args.method, (rpcRequests.byMethod.get(args.method) ?? 0) + 1);
      return (t.request as (a: unknown, o?: unknown) => Promise<unknown>)(args, opts);
    }) as typeof t.request;
    return { ...t, request };
  };
}

export type ChainClients = { chain: Chain; publicClient: PublicClient; account: LocalAccount & { address: Address } };

export function createChainClients(
  config: Pick<Config, "rpcUrl" | "chainId" | "operatorKey" | "isDevnet">,
  options: { pollingMs?: number } = {},
): ChainClients {
  if (!config.operatorKey) throw new MissingConfigError("PROTOCOL_PRIVATE_KEY");
  const chain = defineChain({
    id: config.chainId,
    name: config.isDevnet ? "devnet" : `chain ${config.chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [config.rpcUrl] } },
  });
  const transport = countedTransport(http(config.rpcUrl, { retryCount: 0, timeout: RPC_TIMEOUT_MS }));
  const publicClient = createPublicClient({ chain, transport, pollingInterval: options.pollingMs ?? (config.isDevnet ? 100 : 2_000) }) as PublicClient;
  const account = privateKeyToAccount(config.operatorKey as Hex);
  return { chain, publicClient, account };
}
