/**
 * The devnet's twin of the Gains Network gTrade v10 diamond (contracts/protocol/gains/GainsDiamond.sol),
 * deployed beside the Avantis simulator: USDC as collateral index 1 (as on Base), gTrade's pair
 * indices (BTC/USD 0, ETH/USD 1) priced by the devnet's feeds, gTrade's crypto fee (0.06% of the
 * position, on at least a $166.667 position: a $0.10 minimum fee, so a $0.50 minimum collateral)
 * and leverage bounds (1.1x to 150x), and a USDC reserve out of which profits are paid.
 */
import { type Address, parseAbi } from "viem";
import type { Artifacts } from "./compile.js";
import type { DevnetContext } from "./context.js";

/** The pairs by gTrade index, with the devnet feed that prices each. */
export const GAINS_PAIRS = [
  { from: "BTC", to: "USD", feed: "BTC_USD" },
  { from: "ETH", to: "USD", feed: "ETH_USD" },
] as const;
/** 0.06% at 1e10 percent. */
export const GAINS_TOTAL_POSITION_SIZE_FEE_P = 600_000_000n;
/** $166.667 at 1e18: with 0.06%, a minimum fee of $0.1000002. */
export const GAINS_MIN_POSITION_SIZE_USD = 166_667n * 10n ** 15n;
/** Leverage bounds, 1e3. */
export const GAINS_MIN_LEVERAGE = 1_100;
export const GAINS_MAX_LEVERAGE = 150_000;
/** Blocks a pending order waits unanswered before its trader may cancel it. */
export const GAINS_TIMEOUT_BLOCKS = 30;
/** The diamond's USDC reserve, out of which profits are paid. */
export const GAINS_PROFIT_RESERVE_USDC = 5_000_000n * 10n ** 6n;

const mintAbi = parseAbi(["function mint(address to, uint256 amount)"]);

/** Deploys the diamond from the context's account (its owner), lists the pairs and funds its reserve. */
export async function deployGains(
  ctx: DevnetContext,
  artifacts: Artifacts,
  base: { usdc: Address; priceFeeds: Record<string, Address> },
): Promise<{ gainsDiamond: Address }> {
  const artifact = artifacts.GainsDiamond!;
  const gainsDiamond = await ctx.deploy(artifact, [ctx.account.address, base.usdc, GAINS_TIMEOUT_BLOCKS]);
  for (const pair of GAINS_PAIRS) {
    const feed = base.priceFeeds[pair.feed];
    if (!feed) throw new Error(`no devnet feed ${pair.feed} for the gTrade pair ${pair.from}/${pair.to}`);
    await ctx.write(gainsDiamond, artifact.abi, "addPair", [
      pair.from,
      pair.to,
      feed,
      GAINS_MIN_LEVERAGE,
      GAINS_MAX_LEVERAGE,
      GAINS_TOTAL_POSITION_SIZE_FEE_P,
      GAINS_MIN_POSITION_SIZE_USD,
    ]);
  }
  await ctx.write(base.usdc, mintAbi, "mint", [gainsDiamond, GAINS_PROFIT_RESERVE_USDC]);
  return { gainsDiamond };
}
