/**
 * The money path through an asymmetric-fee token (5% when the token is sold, 1% when it is
 * bought), on a private devnet with the engine in process. As on Base, the hook sets the pool's
 * LP fee and its one protocol-fee rate before each swap, and the LP locker's conversion of the
 * token-side fees is a sell nested inside the next buy: it overwrites both, so a buy after a
 * sell pays the sell fee (50,000 pips), not the 10,000 the launch asked for buyers.
 *
 * The fee claimer collects, claims and attributes the token's fees to the base unit (ledger =
 * chain); a buy through the engine's swap module (the one buybacks send, here from the
 * operator's own USDC, outside the ledger) is quoted on the latest block, so its bound accounts
 * for the fee the swap will really pay: it lands, at 50,000 pips, above its minimum.
 * A bound from the launch's nominal buy fee would sit above the fill (the fees differ by 4%,
 * the slippage allowed is 1%) and revert.
 */
import { type Address, type Hex, getAddress, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poolManagerAbi } from "../../common/abis/uniswap.js";
import { poolIdOf } from "../../common/uniswap.js";
import { swapUsdcForToken } from "../../core/chain/swap/send.js";
import { type Scenario, expectConverged, launchEnrolledToken, startScenario } from "./scenario.js";

const USDC = 1_000_000n;
const TRADER = 5;
const SELL_FEE = 50_000;
const BUY_FEE = 10_000;
let sc: Scenario;
let token: Address;

/** The LP fee each swap of the token's pool paid in a transaction, in order (a nested conversion first). */
async function feesPaid(hash: Hex): Promise<number[]> {
  const receipt = await sc.d.as(1).publicClient.getTransactionReceipt({ hash });
  const poolId = poolIdOf((await sc.d.pool(token)).poolKey);
  return parseEventLogs({ abi: poolManagerAbi, eventName: "Swap", logs: receipt.logs })
    .filter((s) => getAddress(s.address) === getAddress(sc.d.c.v4PoolManager!) && s.args.id === poolId)
    .map((s) => Number(s.args.fee));
}

beforeAll(async () => {
  sc = await startScenario({ logLevel: "error" });
  ({ token } = await launchEnrolledToken(sc, { name: "Lopsided", symbol: "LOPS", fees: { clankerFee: SELL_FEE, pairedFee: BUY_FEE } }));
}, 240_000);

afterAll(async () => {
  await sc?.stop();
});

describe("an asymmetric-fee token (5% sells, 1% buys)", () => {
  it("a buy pays the buy fee until a sell leaves token-side fees; then the locker's conversion inside each buy makes it pay the sell fee", async () => {
    const { d } = sc;
    const first = await d.buy(TRADER, token, 2_000n * USDC);
    expect(await feesPaid(first)).toEqual([BUY_FEE]);
    const sell = await d.sell(TRADER, token, (await d.balance(token, d.as(TRADER).account.address)) / 2n);
    expect((await feesPaid(sell)).at(-1)).toBe(SELL_FEE);
    const after = await d.buy(TRADER, token, 500n * USDC);
    // The nested conversion (a sell of the collected token fees) first, then the buy at its fee.
    expect(await feesPaid(after)).toEqual([SELL_FEE, SELL_FEE]);
  });

  it("the fee claimer collects, claims and attributes the token's fees to the base unit", async () => {
    const { d } = sc;
    await d.sell(TRADER, token, (await d.balance(token, d.as(TRADER).account.address)) / 2n);
    const claimed = await sc.run("fee-claimer");
    expect(claimed.batch as Address[]).toContain(token);
    const attributed = await sc.sumRows("kind = 'fee-claimed' AND currency = 'USDC' AND token = $1", [token]);
    expect(attributed).toBeGreaterThan(0n);
    await expectConverged(sc);
  });

  it("a buyback's swap after a sell is bounded by a quote at the fee it will pay, and lands above its bound", async () => {
    const { d, engine, operator } = sc;
    await d.sell(TRADER, token, (await d.balance(token, d.as(TRADER).account.address)) / 2n);
    const before = await d.balance(token, operator);
    const swap = await swapUsdcForToken(engine.ctx, { key: "test:lopsided:buyback", worker: "buyback-engine", token, amountIn: 50n * USDC });
    expect(swap.outcome.status, "reason" in swap.outcome ? String(swap.outcome.reason) : "").toBe("mined");
    if (swap.outcome.status !== "mined") return;
    const bought = (await d.balance(token, operator)) - before;
    expect(bought).toBe(swap.amountOut);
    // Planned now (a new intent): the bound is the fresh quote less 1%, and the fill is the quote.
    const minimum = swap.plan!.minOut;
    expect(swap.plan!.expectedOut).toBe(bought);
    expect(bought).toBeGreaterThanOrEqual(minimum);
    // The buy paid the sell fee; a bound from the nominal 1% buy fee would have been about
    // 4% / 1.05 above this fill, past the 1% slippage allowed.
    expect((await feesPaid(swap.outcome.receipt.transactionHash)).at(-1)).toBe(SELL_FEE);
  });
});
