/**
 * The gTrade v10 preflight: what the `gains-v10` venue relies on, read from the diamond with
 * `eth_call` only, before any perps call is sent. Each check answers pass or fail with a sentence
 * a person reads:
 *
 * - every selector the venue sends or reads has a facet (`facetAddress(bytes4) != 0`): a facet
 *   removed by an upgrade would make the venue's calldata revert or read nothing;
 * - `getCollateralIndex(USDC)` is the index the venue puts in every `openTrade`
 *   (`GAINS_USDC_COLLATERAL_INDEX`, 1): Base's diamond lists USDC at 1 and the devnet's twin
 *   lists it at 1 too, so the expected index is the venue's own constant on every chain, and a
 *   diamond that moved USDC fails here rather than at the first order;
 * - `getCollateral(index)` is USDC and active;
 * - `getTradingActivated()` is ACTIVATED (0); CLOSE_ONLY (1) and PAUSED (2) fail by name;
 * - each pair the venue trades (BTC/USD 0, ETH/USD 1) is listed under that index, and its limits
 *   are read and reported: minimum and maximum leverage (1e3), minimum fee (USD 1e18) and the
 *   minimum collateral it implies (5 × the minimum fee, in USDC).
 *
 * Nothing throws out of `runGainsPreflight`: an RPC failure or a revert is a failed check whose
 * sentence carries the reason.
 */
import { type Address, type PublicClient, formatUnits, getAddress, toFunctionSelector } from "viem";
import {
  GAINS_COLLATERAL_PRICE_PRECISION,
  GAINS_PAIR_FEEDS,
  GAINS_USDC_COLLATERAL_INDEX,
  GainsTradingActivated,
  gainsTradingAbi,
  gainsViewsAbi,
} from "../../common/abis/gains.js";
import { describeError } from "../../core/errors.js";
import type { DesksPreflight, PreflightCheck } from "../../core/health.js";
import { gainsMinCollateral } from "./gains-v10.js";

/** The diamond's functions the venue sends (its orders and the timeout cancel). */
export const GAINS_SENT_FUNCTIONS = [
  "openTrade",
  "closeTradeMarket",
  "increasePositionSize",
  "decreasePositionSize",
  "updateLeverage",
  "cancelOrderAfterTimeout",
] as const;

/** The diamond's views the venue reads (trades, orders, pair limits, prices) and the preflight's own. */
export const GAINS_READ_FUNCTIONS = [
  "getTrade",
  "getTrades",
  "getTradeInfo",
  "getPendingOrders",
  "pairs",
  "pairMinLeverage",
  "pairMaxLeverage",
  "pairMinFeeUsd",
  "getCollateralPriceUsd",
  "getMarketOrdersTimeoutBlocks",
  "getCollateralIndex",
  "getCollateral",
  "getTradingActivated",
  // The desks' marks: fees, liquidation price and pending holding fees of each trade.
  "getTradeFeesData",
  "getTradeLiquidationParams",
  "getTradeLiquidationPrice",
  "getTradePendingHoldingFeesCollateral",
  "pairMinPositionSizeUsd",
  "pairTotalPositionSizeFeeP",
] as const;

const TRADING_STATE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(GainsTradingActivated).map(([name, v]) => [v, name]));

export type GainsPreflightParameters = {
  /** Where the `eth_call`s go (an engine's or a one-off client). */
  publicClient: Pick<PublicClient, "readContract">;
  diamond: Address;
  /** The USDC the venue posts as collateral. */
  usdc: Address;
};

/** The selector of one of the diamond's functions, as the venue encodes it. */
function selectorOf(name: string): `0x${string}` {
  const item = [...gainsTradingAbi, ...gainsViewsAbi].find((i) => i.type === "function" && i.name === name);
  if (item?.type !== "function") throw new Error(`no function ${name} in the gTrade ABI`);
  return toFunctionSelector(item);
}

/** `n` at `decimals`, without trailing zeros. */
const fixed = (n: bigint, decimals: number) => formatUnits(n, decimals);

/**
 * Runs every check against `diamond` with `eth_call` only and returns them all; never throws.
 * `ok` is true only when every check passes.
 */
export async function runGainsPreflight(publicClient: GainsPreflightParameters["publicClient"], diamond: Address, usdc: Address): Promise<DesksPreflight> {
  const read = <T>(functionName: string, args: readonly unknown[] = []) =>
    publicClient.readContract({ address: diamond, abi: gainsViewsAbi, functionName, args } as never) as Promise<T>;
  /** One check: `body` returns the verdict and sentence; a throw is a failure naming the call. */
  const check = async (id: string, call: string, body: () => Promise<[boolean, string]>): Promise<PreflightCheck> => {
    try {
      const [ok, says] = await body();
      return { id, verdict: ok ? "pass" : "fail", says };
    } catch (error) {
      return { id, verdict: "fail", says: `${call} on the diamond ${diamond} could not be read: ${describeError(error)}` };
    }
  };

  const facets = [...GAINS_SENT_FUNCTIONS, ...GAINS_READ_FUNCTIONS].map((name) => {
    const selector = selectorOf(name);
    const role = (GAINS_SENT_FUNCTIONS as readonly string[]).includes(name) ? "sends" : "reads";
    return check(`facet:${name}`, `facetAddress(${selector})`, async () => {
      const facet = await read<Address>("facetAddress", [selector]);
      return BigInt(facet) === 0n
        ? [false, `${name} (${selector}), which the venue ${role}, has no facet on the diamond: facetAddress answers the zero address`]
        : [true, `${name} (${selector}), which the venue ${role}, is served by the facet ${getAddress(facet)}`];
    });
  });

  const collateralIndex = check("collateral-index", `getCollateralIndex(${usdc})`, async () => {
    const index = Number(await read<number>("getCollateralIndex", [usdc]));
    return index === GAINS_USDC_COLLATERAL_INDEX
      ? [true, `USDC (${usdc}) is collateral index ${index}, the index the venue opens trades with`]
      : [false, `USDC (${usdc}) is collateral index ${index} on the diamond, not ${GAINS_USDC_COLLATERAL_INDEX}, the index the venue opens trades with`];
  });

  const collateral = check("collateral-active", `getCollateral(${GAINS_USDC_COLLATERAL_INDEX})`, async () => {
    const c = await read<{ collateral: Address; isActive: boolean; precision: bigint }>("getCollateral", [GAINS_USDC_COLLATERAL_INDEX]);
    const same = BigInt(c.collateral) === BigInt(usdc);
    if (!same) return [false, `collateral ${GAINS_USDC_COLLATERAL_INDEX} on the diamond is ${getAddress(c.collateral)}, not USDC (${usdc})`];
    if (!c.isActive) return [false, `collateral ${GAINS_USDC_COLLATERAL_INDEX} (USDC) is not active on the diamond`];
    return [true, `collateral ${GAINS_USDC_COLLATERAL_INDEX} is USDC, active, at precision ${c.precision}`];
  });

  const trading = check("trading-activated", "getTradingActivated()", async () => {
    const state = Number(await read<number>("getTradingActivated"));
    const name = TRADING_STATE_NAMES[state] ?? `an unknown state`;
    return state === GainsTradingActivated.ACTIVATED
      ? [true, "trading is ACTIVATED (getTradingActivated() = 0)"]
      : [false, `trading is ${name} (getTradingActivated() = ${state}), not ACTIVATED: the diamond refuses new orders`];
  });

  const pairs = Object.entries(GAINS_PAIR_FEEDS).map(([index, feed]) => {
    const pairIndex = BigInt(index);
    const [from, to] = feed.split("_") as [string, string];
    return check(`pair:${index}`, `pairs(${index}) and its limits`, async () => {
      const [pair, minLeverage, maxLeverage, minFeeUsd, collateralPriceUsd] = await Promise.all([
        read<{ from: string; to: string }>("pairs", [pairIndex]),
        read<bigint>("pairMinLeverage", [pairIndex]),
        read<bigint>("pairMaxLeverage", [pairIndex]),
        read<bigint>("pairMinFeeUsd", [pairIndex]),
        read<bigint>("getCollateralPriceUsd", [GAINS_USDC_COLLATERAL_INDEX]),
      ]);
      if (pair.from !== from || pair.to !== to) {
        return [false, `pair ${index} is ${pair.from || "?"}/${pair.to || "?"} on the diamond, not ${from}/${to}, which the venue trades under that index`];
      }
      if (minLeverage <= 0n || maxLeverage < minLeverage) {
        return [false, `${from}/${to} (pair ${index}) has no usable leverage range: ${fixed(minLeverage, 3)}x to ${fixed(maxLeverage, 3)}x`];
      }
      if (collateralPriceUsd <= 0n) return [false, `USDC's price on the diamond is ${fixed(collateralPriceUsd, 8)} USD`];
      const minCollateral = gainsMinCollateral(minFeeUsd, collateralPriceUsd);
      const price = collateralPriceUsd === GAINS_COLLATERAL_PRICE_PRECISION ? "" : ` at USDC = $${fixed(collateralPriceUsd, 8)}`;
      return [
        true,
        `${from}/${to} (pair ${index}): leverage ${fixed(minLeverage, 3)}x to ${fixed(maxLeverage, 3)}x, minimum fee $${fixed(minFeeUsd, 18)}, ` +
          `so at least ${fixed(minCollateral, 6)} USDC of collateral${price}`,
      ];
    });
  });

  const checks = await Promise.all([...facets, collateralIndex, collateral, trading, ...pairs]);
  return { ok: checks.every((c) => c.verdict === "pass"), diamond: getAddress(diamond), checkedAt: new Date().toISOString(), checks };
}

/** How many failed checks the desks-off reason spells out (the stored preflight holds them all). */
const PREFLIGHT_REASONS_SHOWN = 3;

/** Why desks are off after a failed preflight (every failed check), or undefined when all passed. */
export function preflightOffReason(result: DesksPreflight): string | undefined {
  const failed = result.checks.filter((c) => c.verdict === "fail");
  if (!failed.length) return undefined;
  const shown = failed.slice(0, PREFLIGHT_REASONS_SHOWN).map((c) => `${c.id}: ${c.says}`);
  if (failed.length > shown.length) shown.push(`and ${failed.length - shown.length} more`);
  return `desks are off: the gTrade preflight failed ${failed.length} check${failed.length === 1 ? "" : "s"} on the diamond ${result.diamond}: ${shown.join(
    "; ",
  )}; no perps call is sent and the perp leg keeps accumulating`;
}

/**
 * The preflight against the configured diamond and USDC; without either, one failed
 * "configuration" check that names what is missing (nothing is read).
 */
export async function gainsPreflightFromConfig(
  publicClient: GainsPreflightParameters["publicClient"],
  config: { gainsDiamond?: Address; contracts: { usdc?: Address } },
): Promise<DesksPreflight> {
  const diamond = config.gainsDiamond;
  const usdc = config.contracts.usdc;
  if (diamond && usdc) return runGainsPreflight(publicClient, diamond, usdc);
  const missing = !diamond ? "no gTrade diamond is configured for this chain (deployments' gainsDiamond)" : "no USDC address is configured (USDC_ADDRESS)";
  return { ok: false, diamond: diamond ?? "none", checkedAt: new Date().toISOString(), checks: [{ id: "configuration", verdict: "fail", says: missing }] };
}

/** The preflight in words, one line per check, then the verdict. */
export function formatGainsPreflight(result: DesksPreflight, where: { chainId: number }): string {
  const failed = result.checks.filter((c) => c.verdict === "fail").length;
  const lines = [
    `gTrade v10 preflight on chain ${where.chainId}, diamond ${result.diamond} (eth_call only, ${result.checkedAt}):`,
    ...result.checks.map((c) => `  ${c.verdict === "pass" ? "pass" : "FAIL"}  ${c.id}: ${c.says}`),
    failed
      ? `${failed} of ${result.checks.length} checks failed: desks stay off on this diamond, and no perps call is sent`
      : `all ${result.checks.length} checks pass: desks may trade on this diamond`,
  ];
  return lines.join("\n");
}
