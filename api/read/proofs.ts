/**
 * A burn's proof (GET /burns/:txHash/:logIndex, GraphQL `Burn.proof`): the indexed transfer,
 * checked against the chain (its receipt and log, its block, its confirmations and finality as
 * `CONFIRMATIONS` defines it), the dead address's balance of the token before and after its
 * block, and what paid for it — the engine's buyback (swap, amount in, route) and that
 * buyback's sources in the ledger, each with its transaction — or, for an organic burn, that
 * nobody's fees did.
 *
 * Chain reads go through the API's RPC client. Answers about a final block never change, so
 * they are kept in memory, keyed by the block's hash (a reorg that replaces the block is a new
 * key).
 */
import { and, eq, sql } from "drizzle-orm";
import { type Address, type Hex, type PublicClient, createPublicClient, erc20Abi, getAddress, http, parseEventLogs } from "viem";
import { DEAD_ADDRESS } from "../../common/constants.js";
import { TOKEN_DECIMALS, USDC_DECIMALS, formatDecimal } from "../../common/money.js";
import type { SourceView } from "../../core/ledger/lineage.js";
import { burn, buyback as buybackTable, token as tokenTable } from "../../schema/ponder.js";
import type { ApiDeps } from "../deps.js";
import type { FundedBuyback } from "../engine-port.js";
import { chainUnavailable } from "../http/errors.js";
import type { BurnRow } from "./burns.js";
import { type CurrencyInfo, currencyInfos } from "./fees.js";
import { checksum, isoTime } from "./format.js";

/** An amount at the edge: exact decimal in whole units, the integer in base units, and its currency. */
export type Money = { amount: string; amountRaw: string; currency: Address; symbol: string; decimals: number };
export const money = (raw: bigint, c: CurrencyInfo): Money => ({
  amount: formatDecimal(raw, c.decimals),
  amountRaw: raw.toString(),
  currency: c.address,
  symbol: c.symbol,
  decimals: c.decimals,
});

/** The API's RPC client: the one given in its dependencies, else one made from RPC_URL (once per config). */
const clients = new WeakMap<object, PublicClient>();
export function chainClient(deps: ApiDeps): PublicClient {
  if (deps.publicClient) return deps.publicClient;
  let client = clients.get(deps.config);
  if (!client)
    clients.set(deps.config, (client = createPublicClient({ transport: http(deps.config.rpcUrl, { retryCount: 1, timeout: 10_000 }) }) as PublicClient));
  return client;
}

/** A chain read; an RPC that cannot answer is a 503 naming it, never a 500. */
export async function onChain<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const message = error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message) : String(error);
    throw chainUnavailable(`the chain's RPC could not answer (${what}): ${message.split("\n")[0]}`);
  }
}

/** Final answers, by token and block hash (they never change). Bounded: the oldest go first. */
const FINAL_CACHE_SIZE = 10_000;
const finalBalances = new Map<string, { before: bigint; after: bigint }>();
function remember(key: string, value: { before: bigint; after: bigint }) {
  finalBalances.set(key, value);
  if (finalBalances.size > FINAL_CACHE_SIZE) finalBalances.delete(finalBalances.keys().next().value!);
}

export async function findBurn(deps: ApiDeps, txHash: Hex, logIndex: number): Promise<BurnRow | undefined> {
  const [row] = await deps.db
    .select()
    .from(burn)
    .where(eq(burn.id, `${txHash.toLowerCase()}-${logIndex}`));
  return row;
}

function hops(currencyIn: string, paired: string, token: string) {
  const v3 = (a: string, b: string) => ({ from: a, to: b, pool: "Uniswap v3 USDC/WETH" });
  const v4 = (a: string) => ({ from: a, to: token, pool: "Uniswap v4 (the token's pool)" });
  if (currencyIn === paired) return [v4(paired)];
  return [v3(currencyIn, paired), v4(paired)];
}

function sourceJson(s: SourceView, usdc: CurrencyInfo, weth: CurrencyInfo, b: FundedBuyback) {
  const c = s.currency === "WETH" ? weth : usdc;
  const trade = s.deskTradeId === null ? undefined : b.deskTrades.get(s.deskTradeId);
  return {
    kind: s.kind,
    leg: s.leg,
    token: s.token,
    paid: money(s.amount, c),
    txHash: s.txHash,
    blockNumber: s.blockNumber,
    claimTx: s.claimTx,
    conversionId: s.conversionId,
    deskTrade: trade
      ? {
          id: trade.id,
          status: trade.status,
          openTx: trade.openTx,
          closeTx: trade.closeTx,
          collateral: money(trade.basisUsdc, usdc),
          returned: money(trade.usdcReturned, usdc),
          realisedPnl: money(trade.realisedPnl, usdc),
        }
      : null,
    ledgerKey: s.key,
  };
}

/** The proof of one indexed burn (see the header). */
export async function burnProof(deps: ApiDeps, row: BurnRow) {
  const client = chainClient(deps);
  const token = checksum(row.token);
  const confirmationsRequired = deps.config.confirmations;
  const [head, receipt] = await Promise.all([
    onChain("latest block", () => client.getBlockNumber({ cacheTime: 0 })),
    onChain("transaction receipt", () =>
      client.getTransactionReceipt({ hash: row.txHash }).catch((e: unknown) => {
        if ((e as { name?: string }).name === "TransactionReceiptNotFoundError") return null;
        throw e;
      }),
    ),
  ]);
  const blockNumber = row.blockNumber;
  // The transfer as the chain has it now: the receipt, in the indexed block, with the indexed log.
  const log = receipt ? parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).find((l) => l.logIndex === row.logIndex) : undefined;
  const logMatches =
    !!log &&
    getAddress(log.address) === token &&
    getAddress(log.args.to) === DEAD_ADDRESS &&
    getAddress(log.args.from) === getAddress(row.from) &&
    log.args.value === row.amount;
  const canonical = !!receipt && receipt.blockNumber === blockNumber && logMatches;
  const confirmations = head >= blockNumber ? Number(head - blockNumber) : 0;
  const final = canonical && blockNumber <= head - BigInt(confirmationsRequired);
  const blockHash = receipt?.blockHash ?? null;

  // The dead address's balance around the block, and the burns indexed in it.
  let balances: { before: bigint; after: bigint } | null = null;
  let cached = false;
  if (canonical && blockHash) {
    const key = `${token}:${blockHash}`;
    const hit = finalBalances.get(key);
    if (hit) {
      balances = hit;
      cached = true;
    } else {
      const balanceAt = (at: bigint) =>
        onChain("dead address balance", () =>
          client.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [DEAD_ADDRESS], blockNumber: at }),
        );
      const [before, after] = await Promise.all([blockNumber > 0n ? balanceAt(blockNumber - 1n) : Promise.resolve(0n), balanceAt(blockNumber)]);
      balances = { before, after };
      if (final) remember(key, balances);
    }
  }
  const [inBlock] = await deps.db
    .select({ s: sql<string>`COALESCE(SUM(${burn.amount}), 0)::text`, n: sql<number>`COUNT(*)::int` })
    .from(burn)
    .where(and(eq(burn.token, row.token), eq(burn.blockNumber, blockNumber)));
  const indexedInBlock = BigInt(inBlock?.s ?? "0");

  const infos = await currencyInfos(deps.db, deps.config, [
    row.token,
    ...(deps.config.contracts.usdc ? [deps.config.contracts.usdc] : []),
    ...(deps.config.contracts.weth ? [deps.config.contracts.weth] : []),
  ]);
  const tokenInfo = infos.get(row.token.toLowerCase()) ?? { address: token, symbol: token, decimals: TOKEN_DECIMALS };
  const usdc = (deps.config.contracts.usdc && infos.get(deps.config.contracts.usdc.toLowerCase())) || {
    address: getAddress(deps.config.contracts.usdc ?? DEAD_ADDRESS),
    symbol: "USDC",
    decimals: USDC_DECIMALS,
  };
  const weth = (deps.config.contracts.weth && infos.get(deps.config.contracts.weth.toLowerCase())) || {
    address: getAddress(deps.config.contracts.weth ?? DEAD_ADDRESS),
    symbol: "WETH",
    decimals: TOKEN_DECIMALS,
  };

  return {
    burn: {
      id: row.id,
      token,
      kind: row.kind as "organic" | "protocol-buyback" | "creator-buyback",
      from: checksum(row.from),
      txFrom: checksum(row.txFrom),
      burned: money(row.amount, tokenInfo),
      txHash: row.txHash,
      logIndex: row.logIndex,
      blockNumber: Number(blockNumber),
      blockHash,
      timestamp: isoTime(row.timestamp),
    },
    finality: {
      head: Number(head),
      confirmations,
      confirmationsRequired,
      final,
      canonical,
      detail: !receipt
        ? "the chain has no receipt for this transaction: the block that held it was reorganised away, and the index has not caught up yet"
        : !canonical
          ? "the chain's receipt differs from the index (another block or another log): the index has not caught up with a reorganisation yet"
          : final
            ? `final: ${confirmations} blocks cover it (CONFIRMATIONS is ${confirmationsRequired})`
            : `not final yet: ${confirmations} of ${confirmationsRequired} confirmations`,
    },
    deadAddress: {
      address: DEAD_ADDRESS,
      before: balances ? money(balances.before, tokenInfo) : null,
      after: balances ? money(balances.after, tokenInfo) : null,
      beforeBlock: Number(blockNumber) - 1,
      afterBlock: Number(blockNumber),
      /** after − before: every transfer of the token to the dead address in the block. */
      delta: balances ? money(balances.after - balances.before, tokenInfo) : null,
      indexedInBlock: money(indexedInBlock, tokenInfo),
      burnsInBlock: inBlock?.n ?? 0,
      matches: balances ? balances.after - balances.before === indexedInBlock : null,
      cached,
    },
    paidBy: await funding(deps, row, { usdc, weth, tokenInfo }),
  };
}

async function funding(deps: ApiDeps, row: BurnRow, c: { usdc: CurrencyInfo; weth: CurrencyInfo; tokenInfo: CurrencyInfo }) {
  if (row.kind === "organic") {
    return { kind: "organic" as const, detail: "a holder's own transfer to the dead address: no fee paid for it", buybacks: [] };
  }
  const funded = await deps.engine.burnFunding(row.txHash);
  if (!funded.length) {
    return {
      kind: "unbooked" as const,
      detail: "sent from the operator wallet, but the engine's books hold no buyback burned by this transaction (a transfer made outside the engine)",
      buybacks: [],
    };
  }
  const [paired] = await deps.db.select({ paired: tokenTable.pairedToken }).from(tokenTable).where(eq(tokenTable.address, row.token));
  const pairedSymbol = paired
    ? paired.paired.toLowerCase() === c.usdc.address.toLowerCase()
      ? "USDC"
      : paired.paired.toLowerCase() === c.weth.address.toLowerCase()
        ? "WETH"
        : checksum(paired.paired)
    : "USDC";
  const buybacks = [];
  for (const b of funded) {
    const swapTx = b.intents.get(`buyback:${b.id}:swap`) ?? b.swapTxHash;
    const [indexed] = swapTx
      ? await deps.db
          .select()
          .from(buybackTable)
          .where(eq(buybackTable.txHash, swapTx.toLowerCase() as Hex))
      : [];
    const currencyIn = b.currencyIn === "WETH" ? c.weth : c.usdc;
    buybacks.push({
      id: b.id,
      kind: b.kind === "protocol" ? ("protocol-buyback" as const) : ("creator-buyback" as const),
      status: b.status,
      token: b.token,
      paidIn: money(b.amountIn, currencyIn),
      usdcIn: indexed ? money(indexed.usdcIn, c.usdc) : null,
      route: hops(b.currencyIn, pairedSymbol, c.tokenInfo.symbol),
      swapTx,
      burnTxs: [...b.intents].filter(([k, h]) => k.startsWith(`buyback:${b.id}:burn`) && h).map(([, h]) => h!),
      tokensBought: b.tokensBought === null ? null : money(b.tokensBought, c.tokenInfo),
      tokensBurned: b.tokensBurned === null ? null : money(b.tokensBurned, c.tokenInfo),
      leg: b.spend?.leg ?? null,
      sources: b.sources.map((s) => sourceJson(s, c.usdc, c.weth, b)),
      unfunded: money(b.unfunded, currencyIn),
    });
  }
  return {
    kind: "buyback" as const,
    detail:
      "the engine's buyback: its swap, what it paid in, and the ledger inflows that paid for it. A pooled leg (protocol, legacy WETH) is divided first in, first out: the spend took the oldest inflows of the leg not yet spent",
    buybacks,
  };
}
