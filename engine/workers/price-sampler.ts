/**
 * price-sampler: samples every configured oracle feed into the persisted window the desks
 * read momentum and volatility from.
 */
import { sql } from "drizzle-orm";
import { aggregatorV3Abi } from "../../common/abis/engine.js";
import type { EngineContext } from "../../core/context.js";
import { tables } from "../../core/db/client.js";
import { KEEP_SAMPLES } from "../desks/prices.js";
import type { Worker } from "./types.js";

export async function samplePrices(ctx: EngineContext): Promise<{ sampled: Record<string, string> }> {
  const sampled: Record<string, string> = {};
  for (const [feed, address] of Object.entries(ctx.config.priceFeeds).sort()) {
    const [decimals, round] = await Promise.all([
      ctx.publicClient.readContract({ address, abi: aggregatorV3Abi, functionName: "decimals" }),
      ctx.publicClient.readContract({ address, abi: aggregatorV3Abi, functionName: "latestRoundData" }),
    ]);
    const [roundId, answer, , updatedAt] = round;
    if (answer <= 0n) continue;
    await ctx.db.insert(tables.priceSamples).values({ feed, price: answer.toString(), decimals, roundId: roundId.toString(), updatedAt: Number(updatedAt) });
    sampled[feed] = answer.toString();
  }
  await ctx.db.execute(sql`
    DELETE FROM engine.price_samples p USING (
      SELECT feed, MAX(id) - ${KEEP_SAMPLES} AS floor FROM engine.price_samples GROUP BY feed
    ) f WHERE p.feed = f.feed AND p.id <= f.floor`);
  return { sampled };
}

export const priceSampler: Worker = { name: "price-sampler", minSeconds: 40, maxSeconds: 70, run: samplePrices };
