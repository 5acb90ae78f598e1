/**
 * Log lines a person can read: what a decision did, with amounts in whole units (exact
 * decimals of the base units, never floats) and the token's symbol ("claimed 2.15 USDC for
 * UCRT"). The structured fields stay on the line beside the sentence.
 */
import { type Address, type PublicClient, erc20Abi } from "viem";
import { formatUnits, showAmountOf } from "../common/units.js";

/** How long a log line waits for a token's symbol before naming the token by its address. */
const SYMBOL_WAIT_MS = 1_000;
/** After a failed look-up, the address stands in for this long before asking again. */
const SYMBOL_RETRY_MS = 60_000;

type SymbolCache = Map<Address, { symbol?: string; pending?: Promise<string | undefined>; failedAt?: number }>;
const caches = new WeakMap<PublicClient, SymbolCache>();

export const shortAddress = (a: string) => `${a.slice(0, 6)}…${a.slice(-4)}`;

/**
 * The token's ERC-20 symbol, read once per client and kept (symbols do not change). Waits at
 * most SYMBOL_WAIT_MS; meanwhile, or if the chain cannot say, the short address.
 */
export async function tokenSymbol(client: PublicClient, token: Address): Promise<string> {
  let cache = caches.get(client);
  if (!cache) caches.set(client, (cache = new Map()));
  const entry = cache.get(token) ?? {};
  cache.set(token, entry);
  if (entry.symbol) return entry.symbol;
  if (entry.failedAt && Date.now() - entry.failedAt < SYMBOL_RETRY_MS) return shortAddress(token);
  entry.pending ??= client.readContract({ address: token, abi: erc20Abi, functionName: "symbol" }).then(
    (symbol) => {
      entry.symbol = symbol;
      entry.pending = undefined;
      return symbol;
    },
    () => {
      entry.failedAt = Date.now();
      entry.pending = undefined;
      return undefined;
    },
  );
  const pending = entry.pending;
  const symbol = await Promise.race([
    pending,
    new Promise<undefined>((resolve) => {
      const timer = setTimeout(resolve, SYMBOL_WAIT_MS);
      void pending.finally(() => clearTimeout(timer));
    }),
  ]);
  return symbol ?? shortAddress(token);
}

const asBigint = (v: unknown): bigint | undefined => {
  if (typeof v === "bigint") return v;
  if ((typeof v === "string" && /^-?\d+$/.test(v)) || (typeof v === "number" && Number.isInteger(v))) return BigInt(v);
  return undefined;
};

/** 1e10-precision leverage as "4x" / "2.5x". */
const showLeverage = (leverage: bigint) => `${formatUnits(leverage, 10, { exact: true })}x`;

export type DecisionLine = { worker: string; decision: string; reason: string; data?: Record<string, unknown> };

/**
 * One sentence for a decision. `symbol` names the decision's token (undefined when it has
 * none). Known decisions read their amounts from `data`; any other says its reason.
 */
export function describeDecision(d: DecisionLine, symbol: string | undefined): string {
  const data = d.data ?? {};
  const n = (key: string) => asBigint(data[key]);
  const of = symbol ? ` for ${symbol}` : "";
  const desk = symbol ? `the ${symbol} desk` : "the desk";
  switch (d.decision) {
    case "fees-claimed": {
      const amount = n("amount");
      if (amount !== undefined && typeof data.currency === "string") return `claimed ${showAmountOf(amount, data.currency)}${of}`;
      break;
    }
    case "protocol-buyback":
    case "creator-buyback": {
      const amountIn = n("amountIn");
      const bought = n("bought");
      const burned = n("burned");
      const token = symbol ?? "tokens";
      if (amountIn !== undefined && bought !== undefined && burned !== undefined && typeof data.currencyIn === "string") {
        const kind = d.decision === "protocol-buyback" ? "protocol buyback" : "creator buyback";
        return `${kind}: swapped ${showAmountOf(amountIn, data.currencyIn)} for ${formatUnits(bought, 18)} ${token}, burned ${formatUnits(burned, 18)} ${token}`;
      }
      break;
    }
    case "asset-purchased": {
      const usdcIn = n("usdcIn");
      const bought = n("assetBought");
      const staked = n("staked");
      if (usdcIn !== undefined && bought !== undefined && staked !== undefined) {
        return `bought ${formatUnits(bought, 18)} of the secondary asset with ${showAmountOf(usdcIn, "USDC")}, staked ${formatUnits(staked, 18)} in the vault`;
      }
      break;
    }
    case "desk-open": {
      const collateral = n("collateral");
      const leverage = n("leverage");
      const side = typeof data.side === "string" ? `${data.side} ` : "";
      if (collateral !== undefined && leverage !== undefined)
        return `opening a ${showLeverage(leverage)} ${side}desk${of} with ${showAmountOf(collateral, "USDC")}`;
      break;
    }
    case "desk-opened": {
      const collateral = n("collateral");
      if (collateral !== undefined) return `${desk} is open: ${showAmountOf(collateral, "USDC")} collateral on the exchange`;
      break;
    }
    case "desk-increase": {
      const amount = n("amount");
      if (amount !== undefined) return `increasing ${desk} by ${showAmountOf(amount, "USDC")}`;
      break;
    }
    case "desk-close":
    case "desk-reduce": {
      const amount = n("amount");
      if (amount !== undefined)
        return `${d.decision === "desk-close" ? "closing" : "reducing"} ${desk}: ${showAmountOf(amount, "USDC")} of collateral (${d.reason})`;
      break;
    }
    case "desk-closed":
    case "desk-liquidated": {
      const returned = n("returned");
      const pnl = n("pnl");
      if (returned !== undefined && pnl !== undefined) {
        const result = pnl >= 0n ? `profit ${showAmountOf(pnl, "USDC")}` : `loss ${showAmountOf(-pnl, "USDC")}`;
        const what = d.decision === "desk-liquidated" ? "was liquidated" : data.full === false ? "was reduced" : "closed";
        return `${desk} ${what}: ${showAmountOf(returned, "USDC")} returned, ${result}`;
      }
      break;
    }
  }
  return `${d.worker}: ${d.decision}${of} — ${d.reason}`;
}
