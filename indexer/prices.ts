/** Token prices in the paired currency and in USDC, from pool sqrt prices. */
import type { Context } from "ponder:registry";
import { referencePrice } from "ponder:schema";
import type { Hex } from "viem";
import { indexerConfig } from "./config.js";
import { ONE_TOKEN, tokenPriceE18 } from "./lib.js";

/** USDC base units per 1e18 whole WETH, from the indexed WETH/USDC v3 pool (0 before it is seen). */
export async function ethPriceUsdcE18(db: Context["db"]): Promise<bigint> {
  if (!indexerConfig.wethUsdcPool) return 0n;
  const ref = await db.find(referencePrice, { pool: indexerConfig.wethUsdcPool });
  if (!ref) return 0n;
  return tokenPriceE18(ref.sqrtPriceX96, BigInt(indexerConfig.weth) < BigInt(indexerConfig.usdc));
}

export async function poolPrices(
  db: Context["db"],
  sqrtPriceX96: bigint,
  tokenAddress: Hex,
  currency0: Hex,
  pairedToken: Hex,
): Promise<{ pricePairedE18: bigint; priceUsdcE18: bigint }> {
  const pricePairedE18 = tokenPriceE18(sqrtPriceX96, currency0 === tokenAddress);
  let priceUsdcE18 = 0n;
  if (pairedToken === indexerConfig.usdc) priceUsdcE18 = pricePairedE18;
  // WETH base units per 1e18 tokens × USDC per 1e18 WETH / (1e18 WETH base units × 1e18 scale)
  else if (pairedToken === indexerConfig.weth) priceUsdcE18 = (pricePairedE18 * (await ethPriceUsdcE18(db))) / (ONE_TOKEN * ONE_TOKEN);
  return { pricePairedE18, priceUsdcE18 };
}
